//! Sightline core.
//!
//! The modules follow the data path, one room each:
//! page → [`snapshot`] → [`describe`] (+ [`vision`] for screenshots) → [`prompt`] → [`model`]
//! → [`parse`] → [`action`] → [`agent`] (the loop and its run record) → [`export`] (runs as
//! scripts for other tools); [`flow`] reads such a script (Midscene YAML) back for a replay.
//!
//! Below them all, [`vocab`]: the words they share (geometry, actions, tasks, model families,
//! tool specs), so the rooms form a DAG (`tests/module_dag.rs`).
//!
//! Everything here is plain Rust tested on the host, with no web-sys/js-sys/wasm-bindgen. The
//! browser bindings are their own crates: crate/reader (the content script's module) walks a
//! live DOM into a [`snapshot::PageSnapshot`]; crate/web (the service worker's) sends model
//! requests with gloo-net and exports the entry points the extension calls.

pub mod action;
pub mod agent;
pub mod boundary;
pub mod describe;
pub mod export;
pub mod fast_hash;
pub mod flow;
pub mod i18n;
pub mod model;
pub mod order;
pub mod parse;
pub mod prompt;
pub mod snapshot;
pub mod vision;
pub mod vocab;

#[cfg(test)]
mod test_util;
