//! `Browser` over the service worker's host object: the JS glue owns chrome.debugger,
//! tab messaging and storage; the loop's decisions stay in Rust.

use super::{from_js, now_ms, to_js};
use sightline::action::InputCommand;
use sightline::agent::ask::{Answer, DialogKind, PageDialog, Question};
use sightline::agent::guard::Limits;
use sightline::agent::lifecycle::{RunChanges, TabFacts};
use sightline::agent::record::{ConsoleEntry, Run};
use sightline::agent::{Browser, ChosenOption, FocusedField, Observation, PageError, Reach, Settled, TabInfo};
use sightline::vocab::actions::Go;
use wasm_bindgen::prelude::*;
use wasm_bindgen_futures::JsFuture;

#[wasm_bindgen]
extern "C" {
    /// Built by `startRun` in `extension/background/runs.js` for one run on one tab.
    pub type Host;

    /// The tab as it is now, read with these extract options (`Reach::extract_options`):
    /// `{page, shot}` as the browser gave them (`materials`).
    #[wasm_bindgen(method, catch)]
    async fn observe(this: &Host, options: JsValue) -> Result<JsValue, JsValue>;

    /// Sends CDP commands in order through chrome.debugger.
    #[wasm_bindgen(method, catch)]
    async fn dispatch(this: &Host, commands: JsValue) -> Result<JsValue, JsValue>;

    /// Resolves once the page has reacted (DOM quiet, load, network idle; capped), to what
    /// happened since the input: `{urlBefore, url, loaded, followedTab, dialogs}` (`Settled`).
    #[wasm_bindgen(method, catch)]
    async fn settle(this: &Host) -> Result<JsValue, JsValue>;

    /// The focused element and its frame, looked up through shadow roots and frames:
    /// `{frameUrl, frameOrigin, tag, attributes, editable, matches}` (`FocusedField`).
    #[wasm_bindgen(method, catch, js_name = focusedField)]
    async fn focused_field(this: &Host, selectors: JsValue) -> Result<JsValue, JsValue>;

    /// Scrolls `{xpath, rect}` into view.
    #[wasm_bindgen(method, catch)]
    async fn reveal(this: &Host, element: JsValue) -> Result<JsValue, JsValue>;

    /// What an element's locators are decided from (`LocatorData`), read through CDP for the
    /// element at this XPath, with the text path of `text_check` (a `TextPathCheck`, or null)
    /// kept where the page confirms it; null where it cannot be read.
    #[wasm_bindgen(method, catch, js_name = locatorData)]
    async fn locator_data(this: &Host, xpath: &str, text_check: JsValue) -> Result<JsValue, JsValue>;

    /// Resolves after `ms`.
    #[wasm_bindgen(method, catch)]
    async fn wait(this: &Host, ms: u32) -> Result<JsValue, JsValue>;

    /// Shows the question (`{kind: "text" | "pageDialog" | "upload", …}`) in the panel;
    /// resolves to the answer (`{kind: "text" | "dialog" | "upload", …}`), or null when there
    /// is nobody to ask or the run was stopped.
    #[wasm_bindgen(method, catch)]
    async fn ask(this: &Host, question: JsValue) -> Result<JsValue, JsValue>;

    /// The page dialog that interrupted the last input or wait and waits for an answer
    /// (`{type, message, defaultPrompt, url}`), or null.
    #[wasm_bindgen(method, js_name = openDialog)]
    fn open_dialog(this: &Host) -> JsValue;

    /// Answers the open dialog; resolves once the interrupted work is done or another dialog opens.
    #[wasm_bindgen(method, catch, js_name = answerDialog)]
    async fn answer_dialog(this: &Host, accept: bool, prompt_text: Option<String>) -> Result<JsValue, JsValue>;

    #[wasm_bindgen(method, js_name = stopRequested)]
    fn stop_requested(this: &Host) -> bool;

    #[wasm_bindgen(method, js_name = stopSignal)]
    pub fn stop_signal(this: &Host) -> web_sys::AbortSignal;

    /// Stores the run record and shows it in the panel.
    #[wasm_bindgen(method)]
    fn report(this: &Host, run: JsValue);

    /// The tab the run acts on now: `{id, title, url}` (`url`: where the run started).
    #[wasm_bindgen(method)]
    fn tab(this: &Host) -> JsValue;

    /// What the run's tab reported since the last call: `[{level, source, text, url}]`
    /// (console errors and warnings, exceptions, failed requests).
    #[wasm_bindgen(method, js_name = takeConsole)]
    fn take_console(this: &Host) -> JsValue;

    /// Keeps a cache entry for later runs, as its record (`{key, updatedMs, entry}`, IndexedDB).
    #[wasm_bindgen(method)]
    fn remember(this: &Host, record: JsValue);
    /// Clicks with the file chooser intercepted and answers it with these paths.
    #[wasm_bindgen(method, catch, js_name = chooseFiles)]
    async fn choose_files(this: &Host, click: JsValue, files: JsValue) -> Result<JsValue, JsValue>;
    /// Goes somewhere with chrome.tabs (`Go`: `{kind: "address" | "back" | "forward" | "reload"
    /// | "openTab" | "switchTab" | "closeTab" | "closeOtherTab", url?, tab?}`); the next settle
    /// reports it.
    #[wasm_bindgen(method, catch)]
    async fn go(this: &Host, to: JsValue) -> Result<JsValue, JsValue>;
    /// Where a history step or reload (`Go`) would go: the address, or null when unknown.
    #[wasm_bindgen(method, catch, js_name = historyTarget)]
    async fn history_target(this: &Host, to: JsValue) -> Result<JsValue, JsValue>;
    /// The tabs of the run's window: `[{id, title, url, current}]`.
    #[wasm_bindgen(method, catch)]
    async fn tabs(this: &Host) -> Result<JsValue, JsValue>;
    /// Chooses option `index` of the select `{xpath}` in the page: `{text, value}`.
    #[wasm_bindgen(method, catch)]
    async fn choose(this: &Host, element: JsValue, index: u32) -> Result<JsValue, JsValue>;
    /// Keeps a screenshot with the run (IndexedDB) and returns its reference.
    #[wasm_bindgen(method, js_name = keepImage)]
    fn keep_image(this: &Host, data_url: &js_sys::JsString) -> String;
}

pub struct HostBrowser {
    pub host: Host,
    /// The run's limits: what the page reports to its console is screened with them too.
    limits: Limits,
}

impl HostBrowser {
    pub fn new(host: Host, limits: Limits) -> HostBrowser {
        HostBrowser { host, limits }
    }

    /// The tab the run acts on now, as the host sees it.
    pub fn tab(&self) -> TabFacts {
        from_js(self.host.tab(), "the tab").unwrap_or_default()
    }

    /// The run the loop ended with, on the tab it ended on, let go of: the changes the host's
    /// record takes (it holds what was reported).
    pub fn finished(&self, run: Run) -> RunChanges {
        let tab = self.tab();
        super::runs::with_open(|open| open.finish(run, &tab))
    }
}

/// The host's rejection as a page error: its message, and its `code` where the glue names
/// the failure (`page_restricted`, `page_debugger`, `page_unreadable`).
fn page_error(e: JsValue) -> PageError {
    let message = e
        .dyn_ref::<js_sys::Error>()
        .map(|err| String::from(err.message()))
        .or_else(|| e.as_string())
        .unwrap_or_else(|| format!("{e:?}"));
    let code = js_sys::Reflect::get(&e, &"code".into()).ok().and_then(|c| c.as_string());
    PageError::from_host(code.as_deref(), message)
}

/// The outcome of a promise that has settled already, else `None` (the future stays usable).
fn settled(future: &mut JsFuture) -> Option<Result<JsValue, JsValue>> {
    let mut cx = std::task::Context::from_waker(std::task::Waker::noop());
    match std::future::Future::poll(std::pin::Pin::new(future), &mut cx) {
        std::task::Poll::Ready(outcome) => Some(outcome),
        std::task::Poll::Pending => None,
    }
}

/// A value that could not cross to or from the host.
fn crossing_error(f: sightline_web_common::Fault) -> PageError {
    PageError::Failed(f.message().to_string())
}

impl Browser for HostBrowser {
    async fn observe(&mut self, reach: &Reach) -> Result<Observation, PageError> {
        let options = to_js(&reach.extract_options()).map_err(crossing_error)?;
        let materials = self.host.observe(options).await.map_err(page_error)?;
        if let Some(tab) = super::materials::unreadable(&materials).map_err(crossing_error)? {
            return Observation::of_unreadable(&tab.url, &tab.title, &tab.reason);
        }
        // Both under way. The capture usually arrives first: its pixels are decoded while the
        // read goes on, instead of after it, on the step's way to the model.
        let page = super::materials::under_way(&materials, "page").map_err(crossing_error)?;
        let mut page = JsFuture::from(page.ok_or_else(|| PageError::Failed("the page was not read".into()))?);
        let shot = match super::materials::under_way(&materials, "shot").map_err(crossing_error)? {
            Some(shot) => JsFuture::from(shot).await.map_err(page_error)?,
            None => JsValue::NULL,
        };
        let mut capture = super::materials::capture(&shot).map_err(crossing_error)?;
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
        let extraction = super::materials::extraction(&read.map_err(page_error)?).map_err(crossing_error)?;
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

    async fn wait(&mut self, ms: u32) {
        let _ = self.host.wait(ms).await;
    }

    async fn ask(&mut self, question: &Question) -> Result<Option<Answer>, PageError> {
        let js = to_js(question).map_err(|_| PageError::Failed("could not pass the question to the panel".into()))?;
        let answer = self.host.ask(js).await.map_err(page_error)?;
        if answer.is_null() || answer.is_undefined() {
            return Ok(None);
        }
        from_js(answer, "the answer").map(Some).map_err(crossing_error)
    }

    fn open_dialog(&mut self) -> Option<PageDialog> {
        let value = self.host.open_dialog();
        if value.is_null() || value.is_undefined() {
            return None;
        }
        // A dialog the core cannot read is still one: as a confirm it is asked about, not accepted.
        Some(from_js(value, "the page's dialog").unwrap_or(PageDialog {
            kind: DialogKind::Confirm,
            message: String::new(),
            default_prompt: String::new(),
            url: String::new(),
        }))
    }

    async fn answer_dialog(&mut self, accept: bool, prompt_text: Option<&str>) -> Result<(), PageError> {
        self.host.answer_dialog(accept, prompt_text.map(str::to_string)).await.map(|_| ()).map_err(page_error)
    }

    fn now_ms(&self) -> f64 {
        now_ms()
    }

    fn stop_requested(&self) -> bool {
        self.host.stop_requested()
    }

    fn report(&mut self, run: &Run) {
        // The record the worker holds is the one stored: on the tab the run follows now.
        let tab = self.tab();
        let console: Vec<ConsoleEntry> = from_js(self.host.take_console(), "the console messages").unwrap_or_default();
        // Only what changed crosses: the host applies it to the record it holds.
        let changes = super::runs::with_open(|open| {
            open.report(run, &tab, console, &self.limits);
            open.changes(&run.id)
        });
        if let Ok(js) = super::to_js(&changes) {
            self.host.report(js);
        }
    }

    fn remember(&mut self, entry: &sightline::agent::replay::cache::CacheEntry) {
        if let Ok(js) = to_js(&entry.record()) {
            self.host.remember(js);
        }
    }

    async fn choose_files(&mut self, click: &[InputCommand], files: &[String]) -> Result<(), PageError> {
        let click = to_js(&click).map_err(|_| PageError::Failed("could not pass the click to the page".into()))?;
        let files = to_js(&files).map_err(|_| PageError::Failed("could not pass the file list to the page".into()))?;
        self.host.choose_files(click, files).await.map(|_| ()).map_err(page_error)
    }

    fn keep_image(&mut self, data_url: &str) -> String {
        self.host.keep_image(&js_sys::JsString::from(data_url))
    }

    async fn go(&mut self, to: &Go) -> Result<(), PageError> {
        let js = to_js(to).map_err(crossing_error)?;
        self.host.go(js).await.map(|_| ()).map_err(page_error)
    }

    async fn history_target(&mut self, to: &Go) -> Result<Option<String>, PageError> {
        let js = to_js(to).map_err(crossing_error)?;
        Ok(self.host.history_target(js).await.map_err(page_error)?.as_string())
    }

    async fn tabs(&mut self) -> Result<Vec<TabInfo>, PageError> {
        let value = self.host.tabs().await.map_err(page_error)?;
        from_js(value, "the open tabs").map_err(crossing_error)
    }

    async fn choose(&mut self, element: &sightline::describe::Element, index: u32) -> Result<ChosenOption, PageError> {
        let js = to_js(&serde_json::json!({ "xpath": element.xpath, "rect": element.rect })).map_err(crossing_error)?;
        let value = self.host.choose(js, index).await.map_err(page_error)?;
        from_js(value, "the chosen option").map_err(crossing_error)
    }
}
