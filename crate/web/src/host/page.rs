//! The page over the host: reads (the content script or CDP), input, settling, focus, scrolling, choices and file choosers.

use super::*;

impl PageHost for HostBrowser {
    async fn observe(&mut self, reach: &Reach) -> Result<Observation, PageError> {
        let options = to_js(&reach.extract_options()).map_err(crossing_error)?;
        let materials = self.host.observe(options).await.map_err(page_error)?;
        if let Some(tab) = crate::materials::unreadable(&materials).map_err(crossing_error)? {
            return Observation::of_unreadable(&tab.url, &tab.title, &tab.reason);
        }
        // Both under way. The capture usually arrives first: its pixels are decoded while the
        // read goes on, instead of after it, on the step's way to the model.
        let page = crate::materials::under_way(&materials, "page").map_err(crossing_error)?;
        let mut page = JsFuture::from(page.ok_or_else(|| PageError::Failed("the page was not read".into()))?);
        let shot = match crate::materials::under_way(&materials, "shot").map_err(crossing_error)? {
            Some(shot) => JsFuture::from(shot).await.map_err(page_error)?,
            None => JsValue::NULL,
        };
        let mut capture = crate::materials::capture(&shot).map_err(crossing_error)?;
        let read = match settled(&mut page) {
            Some(read) => read,
            None => {
                // Not for a read seeking what a cache entry or a flow names: it seldom makes a
                // model image, and the pixels would only wait beside the bytes.
                if let (Some(capture), false) = (capture.as_mut(), matches!(reach, Reach::Seeking(_))) {
                    capture.decode_ahead();
                }
                page.await
            }
        };
        let extraction = crate::materials::extraction(&read.map_err(page_error)?).map_err(crossing_error)?;
        Ok(Observation { capture, extraction })
    }

    async fn dispatch(&mut self, commands: &[InputCommand]) -> Result<(), PageError> {
        let js = to_js(&commands).map_err(crossing_error)?;
        self.host.dispatch(js).await.map(|_| ()).map_err(page_error)
    }

    async fn settle(&mut self) -> Result<Settled, PageError> {
        let value = self.host.settle().await.map_err(page_error)?;
        from_js(value, "what happened after the input").map_err(crossing_error)
    }

    async fn focused_field(&mut self, selectors: &[String]) -> Result<FocusedField, PageError> {
        let js = to_js(&selectors).map_err(crossing_error)?;
        let value = self.host.focused_field(js).await.map_err(page_error)?;
        from_js(value, "the focused field").map_err(crossing_error)
    }

    async fn reveal(&mut self, element: &sightline::describe::Element) -> Result<(), PageError> {
        let js = to_js(&serde_json::json!({ "xpath": element.xpath, "rect": element.rect })).map_err(crossing_error)?;
        self.host.reveal(js).await.map(|_| ()).map_err(page_error)
    }

    async fn locator_data(
        &mut self,
        element: &sightline::describe::Element,
    ) -> Option<sightline::describe::locators::LocatorData> {
        // Locators are a better way to export the step, never a reason to fail it.
        let check = sightline::describe::locators::TextPathCheck::of(element);
        let check = check.as_ref().map_or(Ok(JsValue::NULL), to_js).ok()?;
        let value = self.host.locator_data(&element.xpath, check).await.ok()?;
        if value.is_null() || value.is_undefined() {
            return None;
        }
        from_js(value, "the element's locator data").ok()
    }

    async fn choose_files(&mut self, click: &[InputCommand], files: &[String]) -> Result<(), PageError> {
        let click = to_js(&click).map_err(|_| PageError::Failed("could not pass the click to the page".into()))?;
        let files = to_js(&files).map_err(|_| PageError::Failed("could not pass the file list to the page".into()))?;
        self.host.choose_files(click, files).await.map(|_| ()).map_err(page_error)
    }

    async fn choose(&mut self, element: &sightline::describe::Element, index: u32) -> Result<ChosenOption, PageError> {
        let js = to_js(&serde_json::json!({ "xpath": element.xpath, "rect": element.rect })).map_err(crossing_error)?;
        let value = self.host.choose(js, index).await.map_err(page_error)?;
        from_js(value, "the chosen option").map_err(crossing_error)
    }

    async fn evaluate(&mut self, code: &str) -> Result<serde_json::Value, PageError> {
        #[derive(serde::Deserialize)]
        struct Evaluated {
            #[serde(default)]
            value: serde_json::Value,
        }
        let value = self.host.evaluate(code).await.map_err(page_error)?;
        // Null: a dialog the script opened holds the page; the settle after it answers it, and
        // what the script would have answered is not known.
        let evaluated: Option<Evaluated> = from_js(value, "the script's value").map_err(crossing_error)?;
        Ok(evaluated.map(|e| e.value).unwrap_or_default())
    }
}
