//! Runs written out for other tools: each exporter reads a `Recording` (the replayable steps
//! of a run) and writes its own format, runnable with no model.
//! - `midscene_yaml`: Midscene's YAML script;
//! - `playwright`: a `@playwright/test` file;
//! - `recorder`: Chrome DevTools Recorder JSON (`@puppeteer/replay`);
//! - `report`: one self-contained HTML file of the run, screenshots and model I/O included;
//! - `gif`: the run's screenshots as an animated GIF with captions.

mod cjk_glyphs;
pub mod gif;
pub mod midscene_yaml;
pub mod playwright;
pub mod recorder;
pub mod recording;
pub mod report;

#[cfg(test)]
mod tests;

pub use gif::to_gif;
pub use midscene_yaml::to_midscene_yaml;
pub use playwright::to_playwright;
pub use recorder::to_recorder;
pub use recording::{recording_of, Op, RecStep, Recording, Target};
pub use report::to_html_report;

/// `s` as a JSON string literal: also a valid YAML scalar and JavaScript string literal.
pub(crate) fn quoted(s: &str) -> String {
    serde_json::to_string(s).unwrap_or_else(|_| "\"\"".into())
}

/// `s` on one line, runs of whitespace as one space (comments, captions).
pub(crate) fn one_line(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}
