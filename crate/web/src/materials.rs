//! What the worker's JS hands over when it reads a tab: the browser's raw results, each
//! crossing into WASM once and decoded here, never parsed in JS on the way. `{page, shot}`:
//! - `page`: `{json}`, the content script's extraction as the JSON text it sent, or `{cdp,
//!   opts}`, CDP's `{capture, metrics, frames}` as one JSON text and the extract options;
//! - `shot`: `{bytes, metrics, fullPage}`, `Page.captureScreenshot`'s image (a Uint8Array: its
//!   base64 decoded once, natively, in JS) and the `Page.getLayoutMetrics` it was taken with,
//!   or null (no screenshot wanted).
//!
//! The same `{page, shot}` also makes the tooling's marked screenshot ([`marked_image`]).
//!
//! And what leaves: each image the run keeps goes out once, as one JS string ([`Outgoing`]),
//! which both the run's record (stored by JS) and the model requests that send it use.

use super::{from_js, Fault};
use sightline::agent::Observation;
use sightline::describe::{describe_with, DescribeOptions, Extraction};
use sightline::snapshot::cdp;
use sightline::vision::markers::PlacedLabel;
use sightline::vision::{Capture, ImageOptions, ModelImage};
use std::cell::RefCell;
use std::collections::VecDeque;
use std::hash::{DefaultHasher, Hash, Hasher};
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
    let metrics: cdp::LayoutMetrics = from_js(field(shot, "metrics"), "the layout metrics")?;
    Ok(Some(Capture::from_cdp(bytes.to_vec(), &metrics, field(shot, "fullPage").is_truthy())))
}

/// What reading a tab gave: its page, or why no extension may read it.
pub enum Reading {
    Page(Box<Observation>),
    /// `{unreadable: {url, title, reason}}`: the browser's own pages (the new-tab page among them).
    Unreadable {
        url: String,
        title: String,
        reason: String,
    },
}

#[derive(serde::Deserialize, Default)]
#[serde(default)]
struct UnreadableTab {
    url: String,
    title: String,
    reason: String,
}

/// A whole observation (`{page, shot}`), or `{unreadable}`.
pub fn reading(materials: &JsValue) -> Result<Reading, Fault> {
    let unreadable = field(materials, "unreadable");
    if unreadable.is_object() {
        let tab: UnreadableTab = from_js(unreadable, "the unreadable tab")?;
        return Ok(Reading::Unreadable { url: tab.url, title: tab.title, reason: tab.reason });
    }
    Ok(Reading::Page(Box::new(observation(materials)?)))
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

/// The images a run has handed to JS, each as the one JS string its data URL became when the
/// run kept it. A model request then names each one by that string instead of copying its
/// base64 out of WASM again.
#[derive(Default)]
pub struct Outgoing {
    held: RefCell<VecDeque<HeldImage>>,
}

struct HeldImage {
    /// The payload (the data URL's base64) by hash and length.
    hash: u64,
    len: u32,
    /// Where the payload starts in `data_url`.
    payload_at: u32,
    data_url: js_sys::JsString,
}

/// Base64 runs shorter than this in a request body are text, never an image worth splicing.
const MIN_IMAGE_CHARS: usize = 1024;

impl Outgoing {
    /// The images held: a grounding model's history sends the last few screens again, and an
    /// image no longer held is sent as plain text, as before.
    const HELD: usize = 12;

    /// The data URL as a JS string: the one time its text leaves WASM.
    pub fn hand_over(&self, data_url: &str) -> js_sys::JsString {
        let js = js_sys::JsString::from(data_url);
        if let Some((head, payload)) = data_url.split_once(";base64,") {
            let mut held = self.held.borrow_mut();
            if held.len() == Self::HELD {
                held.pop_front();
            }
            let payload_at = (head.len() + ";base64,".len()) as u32;
            held.push_back(HeldImage {
                hash: hash(payload),
                len: payload.len() as u32,
                payload_at,
                data_url: js.clone(),
            });
        }
        js
    }

    /// A request body as JS text: its own text crosses, and each image held here is spliced
    /// in by its JS string (a slice of it: no copy across the boundary).
    pub fn body(&self, body: &str) -> JsValue {
        let held = self.held.borrow();
        if held.is_empty() {
            return JsValue::from_str(body);
        }
        let parts = js_sys::Array::new();
        let mut from = 0;
        for run in sightline::vision::base64::runs(body, MIN_IMAGE_CHARS) {
            let payload = &body[run.clone()];
            let key = hash(payload);
            let Some(image) = held.iter().find(|i| i.len as usize == payload.len() && i.hash == key) else { continue };
            parts.push(&JsValue::from_str(&body[from..run.start]));
            parts.push(&image.data_url.slice(image.payload_at, image.payload_at + image.len));
            from = run.end;
        }
        if from == 0 {
            return JsValue::from_str(body);
        }
        parts.push(&JsValue::from_str(&body[from..]));
        parts.join("").into()
    }
}

fn hash(text: &str) -> u64 {
    let mut h = DefaultHasher::new();
    text.hash(&mut h);
    h.finish()
}
