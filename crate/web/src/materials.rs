//! What the worker's JS hands over when it reads a tab: the browser's raw results, each
//! crossing into WASM once and decoded here, never parsed in JS on the way. `{page, shot}`:
//! - `page`: `{json}`, the content script's extraction as the JSON text it sent, or `{cdp,
//!   opts}`, CDP's `{capture, metrics, frames}` as one JSON text and the extract options;
//! - `shot`: `{data, metrics, fullPage}`, `Page.captureScreenshot`'s base64 and the
//!   `Page.getLayoutMetrics` it was taken with, or null (no screenshot wanted).

use super::{from_js, Fault};
use sightline::agent::Observation;
use sightline::describe::{describe_with, DescribeOptions, Extraction};
use sightline::snapshot::cdp;
use sightline::vision::Capture;
use wasm_bindgen::JsValue;

fn field(object: &JsValue, name: &str) -> JsValue {
    js_sys::Reflect::get(object, &JsValue::from_str(name)).unwrap_or(JsValue::UNDEFINED)
}

/// The page as described, from a reading (`page`).
pub fn extraction(page: &JsValue) -> Result<Extraction, Fault> {
    if let Some(json) = field(page, "json").as_string() {
        return sightline::boundary::extraction_from_json(&json)
            .map_err(|e| Fault::bad_input(format!("the page's reading is not in the expected form: {e}")));
    }
    if let Some(text) = field(page, "cdp").as_string() {
        let opts = field(page, "opts");
        let opts: DescribeOptions = if opts.is_undefined() || opts.is_null() {
            DescribeOptions::default()
        } else {
            from_js(opts, "the extract options")?
        };
        let page = cdp::decode_reading(&text)?;
        return Ok(describe_with(&page.snapshot, &opts, &mut page.hit_test()));
    }
    Err(Fault::bad_input("the page's reading holds neither an extraction nor a debugger snapshot".into()))
}

/// The screenshot, from a capture (`shot`); `None` when none was taken.
pub fn capture(shot: &JsValue) -> Result<Option<Capture>, Fault> {
    if shot.is_undefined() || shot.is_null() {
        return Ok(None);
    }
    let data =
        field(shot, "data").as_string().ok_or_else(|| Fault::bad_input("the screenshot holds no image".into()))?;
    let metrics: cdp::LayoutMetrics = from_js(field(shot, "metrics"), "the layout metrics")?;
    Ok(Some(Capture::from_cdp(data, &metrics, field(shot, "fullPage").is_truthy())))
}

/// A whole observation (`{page, shot}`).
pub fn observation(materials: &JsValue) -> Result<Observation, Fault> {
    Ok(Observation { extraction: extraction(&field(materials, "page"))?, capture: capture(&field(materials, "shot"))? })
}
