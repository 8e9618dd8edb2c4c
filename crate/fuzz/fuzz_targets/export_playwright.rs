//! The Playwright export of a recording of hostile texts (every op, every kind of element), read
//! back by oxc as TypeScript: it parses, holds no raw line separator or bidirectional control,
//! imports only @playwright/test, uses only the exporter's own names, and has exactly the shape
//! of its benign twin's spec (crate/core/src/export/format_checks.rs, shared with the host tests).
#![no_main]
use libfuzzer_sys::fuzz_target;
use sightline::export::to_playwright;
#[path = "../export_input.rs"]
mod export_input;
#[path = "../../core/src/export/format_checks.rs"]
mod format_checks;
use export_input::{Input, VIEWPORT};

fuzz_target!(|data: &[u8]| {
    let Some(input) = Input::read(data) else { return };
    let (hostile, twin) = input.recordings();
    let spec = to_playwright(&hostile, VIEWPORT);
    let read = format_checks::read_spec(&spec).unwrap_or_else(|e| panic!("{e}\n{spec}"));
    let twin_spec = to_playwright(&twin, VIEWPORT);
    let twin_read = format_checks::read_spec(&twin_spec).unwrap_or_else(|e| panic!("the twin: {e}\n{twin_spec}"));
    assert_eq!(read.kinds, twin_read.kinds, "the texts changed the program\n{spec}\n{twin_spec}");
    assert_eq!(read.comments.len(), twin_read.comments.len(), "comments\n{spec}");
    assert_eq!(read.strings.len(), twin_read.strings.len(), "string literals\n{spec}");
});
