//! Records the browser modules read from JSON text, read here. Plain functions, not generic
//! calls from crate/web: a generic `serde_json::from_str::<Run>` made there compiles a second
//! copy of the run's whole deserializer into the worker's module (instantiations are not shared
//! between crates in release builds); made here, it is the copy `Trajectory::from_json` uses.

use crate::agent::record::Run;
use crate::describe::Extraction;
use crate::snapshot::cdp::LayoutMetrics;
use std::collections::BTreeMap;

/// A run record (as the worker keeps it).
pub fn run_from_json(text: &str) -> Result<Run, serde_json::Error> {
    serde_json::from_str(text)
}

/// A run's images, reference → data URL (a trajectory's `images`).
pub fn images_from_json(text: &str) -> Result<BTreeMap<String, String>, serde_json::Error> {
    serde_json::from_str(text)
}

/// `Page.getLayoutMetrics` (the same instance `snapshot::cdp::decode` uses).
pub fn layout_metrics_from_json(text: &str) -> Result<LayoutMetrics, serde_json::Error> {
    serde_json::from_str(text)
}

/// The content script's reading of a page (its extraction, as the JSON text it sent).
pub fn extraction_from_json(text: &str) -> Result<Extraction, serde_json::Error> {
    serde_json::from_str(text)
}
