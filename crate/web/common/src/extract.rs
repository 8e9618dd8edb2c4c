//! What reading a page returns, from the content script (crate/reader) or the worker's CDP path
//! (crate/web).

use serde::Serialize;
use sightline::describe::{ElementColumns, Extraction};

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Timings {
    pub walk_ms: f64,
    pub style_ms: f64,
    pub describe_ms: f64,
    pub total_ms: f64,
}

/// A page's reading as it leaves a reader: the extraction with its elements as columns
/// (`ElementColumns`; `elements` is left empty), decoded by `sightline::boundary` in the
/// worker's module (for runs), and by `page.js` for the tooling (`withElements`).
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ExtractResult {
    #[serde(flatten)]
    extraction: Extraction,
    columns: ElementColumns,
    pub timings: Timings,
    /// `content-script` (live DOM walk) or `cdp` (DOMSnapshot, for strict-CSP pages).
    pub source: &'static str,
    /// A reading the content script kept (in view or the whole page), the page unchanged since.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub reused: bool,
}

impl ExtractResult {
    pub fn new(mut extraction: Extraction, timings: Timings, source: &'static str) -> Self {
        let columns = ElementColumns::of(std::mem::take(&mut extraction.elements));
        ExtractResult { extraction, columns, timings, source, reused: false }
    }
}
