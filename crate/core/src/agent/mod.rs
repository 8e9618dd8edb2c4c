//! Runs: the loop ([`run_loop`]: observe → prompt → model → parse → act → observe again,
//! recording each step), single tasks ([`tasks`]), replays ([`replay`]: the cache,
//! trajectories, flows) and steps a person records ([`recorder`]).
//!
//! The page is behind [`Browser`] (the service worker implements it with chrome.debugger and
//! the content script) and the model behind [`crate::model::ModelClient`], so the loop is
//! tested on the host.

pub mod advice;
pub mod ask;
pub mod browser;
pub mod change;
pub mod check;
mod choice;
mod context;
pub mod dialogs;
pub mod error;
pub mod guard;
pub mod guard_error;
pub mod history;
pub mod lifecycle;
pub mod options;
pub mod pairing;
pub mod record;
pub mod recorder;
pub mod remote;
pub mod replay;
pub mod run_loop;
mod steps;
pub mod task_schema;
pub mod tasks;
pub mod uploads;

pub use browser::{
    AnsweredDialog, Browser, ChosenOption, ClockHost, DialogHost, FocusedField, Observation, PageError, PageHost,
    PersonHost, Reach, Settled, StoreHost, TabHost, TabInfo,
};
pub use error::RunError;
pub use options::{RunOptions, MARKERS_ONLY};
pub use run_loop::run_instruction;
pub use steps::{caption, describe_action};

#[cfg(test)]
mod tests;
