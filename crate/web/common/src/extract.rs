//! What reading a page returns, from the content script (crate/reader) or the worker's CDP path
//! (crate/web).

use super::options_or_default;
use serde::Serialize;
use sightline::describe::DescribeOptions;
use wasm_bindgen::prelude::*;

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Timings {
    pub walk_ms: f64,
    pub style_ms: f64,
    pub describe_ms: f64,
    pub total_ms: f64,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ExtractResult {
    #[serde(flatten)]
    pub extraction: sightline::describe::Extraction,
    pub timings: Timings,
    /// `content-script` (live DOM walk) or `cdp` (DOMSnapshot, for strict-CSP pages).
    pub source: &'static str,
    /// The content script's kept whole-page reading, the page unchanged since it was read.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub reused: bool,
}

pub fn describe_options(opts: JsValue) -> Result<DescribeOptions, crate::Fault> {
    options_or_default(opts, "the extract options")
}
