//! The HTML report of a run of hostile texts (instruction, address, error, check, answer,
//! memory, model names, and each step's action, thought, memo, element, error, note, console
//! and model exchange), read by html5ever as a browser would: only the report's elements and
//! attributes, no script or handler, images only as data URLs, its Content-Security-Policy first
//! in <head>; exactly the elements of its benign twin's (crate/core/src/export/format_checks.rs).
#![no_main]
use libfuzzer_sys::fuzz_target;
use sightline::export::{report::CSP, to_html_report};
use std::collections::HashMap;
#[path = "../export_input.rs"]
mod export_input;
#[path = "../../core/src/export/format_checks.rs"]
mod format_checks;
use export_input::Input;

/// A 1×1 PNG: every step shows it.
const PIXEL: &str = "data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==";

fuzz_target!(|data: &[u8]| {
    let Some(input) = Input::read(data) else { return };
    let images = HashMap::from([("shot".to_string(), PIXEL.to_string())]);
    let (hostile, twin) = input.runs("shot");
    let html = to_html_report(&hostile, &images);
    let read = format_checks::read_report(&html, CSP).unwrap_or_else(|e| panic!("{e}\n{html}"));
    let twin_html = to_html_report(&twin, &images);
    let twin_read =
        format_checks::read_report(&twin_html, CSP).unwrap_or_else(|e| panic!("the twin: {e}\n{twin_html}"));
    assert_eq!(read.shape, twin_read.shape, "the texts changed the elements\n{html}\n{twin_html}");
});
