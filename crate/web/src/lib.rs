//! The service worker's module: the binding layer, where each file implements one core seam
//! with browser APIs, as Ruffle's web crate does:
//! - [`bridge`]: `ModelClient` over gloo-net.
//! - [`host`]: `Browser` over the service worker's JS host object (chrome.debugger, messaging).
//! - [`exports`]: the functions the service worker's JS calls.
//! - [`runs`]: the runs the worker holds open (the core owns them; JS stores what it is handed).
//! - [`materials`]: the browser's raw results of reading a tab, decoded once.
//! - [`agents`]: a coding agent's calls through the loopback bridge (sightline-mcp).
//!
//! The content script's page reader is its own, smaller module (crate/reader); what both use
//! at the boundary is in crate/web/common.
#![cfg(target_arch = "wasm32")]

mod agents;
mod bridge;
mod exports;
mod host;
mod materials;
mod runs;

use sightline_web_common::{from_js, now_ms, options_or_default, to_js, to_json, Fault};
use wasm_bindgen::prelude::*;

#[wasm_bindgen(start)]
fn start() {
    console_error_panic_hook::set_once();
}
