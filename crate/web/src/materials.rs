//! What the worker's JS hands over when it reads a tab: the browser's raw results, each
//! crossing into WASM once and decoded here, never parsed in JS on the way. `{page, shot}`:
//! - `page`: `{json}`, the content script's extraction as the JSON text it sent, or `{cdp,
//!   opts}`, CDP's `{capture, metrics, frames}` as one JSON text and the extract options;
//! - `shot`: `{bytes, metrics, fullPage}`, `Page.captureScreenshot`'s image (a Uint8Array: its
//!   base64 decoded once, natively, in JS) and the `Page.getLayoutMetrics` it was taken with,
//!   or null (no screenshot wanted).
//!
//! The same `{page, shot}` also makes the tooling's marked screenshot ([`marked_image`]).

use super::{from_js, Fault};
use sightline::agent::Observation;
use sightline::describe::{describe_with, DescribeOptions, Extraction};
use sightline::snapshot::cdp;
use sightline::vision::markers::PlacedLabel;
use sightline::vision::{Capture, ImageOptions, ModelImage};
use sightline_web_common::{js_text, not_in_form};
use wasm_bindgen::{JsCast, JsValue};

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
    let bytes = field(shot, "bytes")
        .dyn_into::<js_sys::Uint8Array>()
        .map_err(|_| Fault::bad_input("the screenshot holds no image".into()))?;
    let what = "the layout metrics";
    let metrics = sightline::boundary::layout_metrics_from_json(&js_text(field(shot, "metrics"), what)?)
        .map_err(|e| not_in_form(what, e))?;
    Ok(Some(Capture::from_cdp(bytes.to_vec(), &metrics, field(shot, "fullPage").is_truthy())))
}

/// A tab whose page no extension may read: `{unreadable: {url, title, reason}}`, the browser's
/// own pages (the new-tab page among them).
#[derive(serde::Deserialize, Default)]
#[serde(default)]
pub struct UnreadableTab {
    pub url: String,
    pub title: String,
    pub reason: String,
}

/// The unreadable tab a run's observation names instead of `{page, shot}`, if it does.
pub fn unreadable(materials: &JsValue) -> Result<Option<UnreadableTab>, Fault> {
    let unreadable = field(materials, "unreadable");
    if !unreadable.is_object() {
        return Ok(None);
    }
    Ok(Some(from_js(unreadable, "the unreadable tab")?))
}

/// A run's observation hands `page` and `shot` over still under way: `name`'s promise, or
/// `None` for a null `shot` (no screenshot wanted).
pub fn under_way(materials: &JsValue, name: &str) -> Result<Option<js_sys::Promise>, Fault> {
    let value = field(materials, name);
    if value.is_null() || value.is_undefined() {
        return Ok(None);
    }
    value.dyn_into().map(Some).map_err(|_| Fault::internal(format!("the observation's {name} is not under way")))
}

/// A whole observation (`{page, shot}`).
pub fn observation(materials: &JsValue) -> Result<Observation, Fault> {
    Ok(Observation { extraction: extraction(&field(materials, "page"))?, capture: capture(&field(materials, "shot"))? })
}

/// The capture of `{page, shot}` fitted to the model and marked with the numbers of the
/// page's listed elements, in one pass: the reading and the capture's bytes are each decoded
/// once here, the pixels decoded, marked and encoded once. A null `page`: no markers.
pub fn marked_image(materials: &JsValue, opts: &ImageOptions) -> Result<(ModelImage, Vec<PlacedLabel>), Fault> {
    let page = field(materials, "page");
    let elements = if page.is_undefined() || page.is_null() { Vec::new() } else { extraction(&page)?.elements };
    let capture =
        capture(&field(materials, "shot"))?.ok_or_else(|| Fault::bad_input("the screenshot holds no image".into()))?;
    Ok(sightline::vision::pipeline::marked_image(&capture, &elements, opts)?)
}
