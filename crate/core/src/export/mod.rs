//! Runs written out for other tools: each exporter reads a `Recording` (the replayable steps
//! of a run) and writes its own format, runnable with no model.
//! - `midscene_yaml`: Midscene's YAML script;
//! - `playwright`: a `@playwright/test` file;
//! - `recorder`: Chrome DevTools Recorder JSON (`@puppeteer/replay`);
//! - `report`: one self-contained HTML file of the run, screenshots and model I/O included;
//! - `gif`: the run's screenshots as an animated GIF with captions.
//!
//! Every text a run recorded reaches an output through the one routine of `vocab::escape` for its
//! position (a string literal, a comment, a YAML scalar, HTML, CSS): it stays data there.

mod cjk_glyphs;

pub mod gif;
pub mod midscene_yaml;
pub mod playwright;
pub mod recorder;
pub mod recording;
pub mod report;

#[cfg(test)]
pub(crate) mod format_checks;
#[cfg(test)]
mod hostile_tests;
#[cfg(test)]
mod tests;

pub use gif::to_gif;
pub use midscene_yaml::to_midscene_yaml;
pub use playwright::to_playwright;
pub use recorder::to_recorder;
pub use recording::{recording_of, Op, RecStep, Recording, Target};
pub use report::to_html_report;
