//! The Chrome Recorder export of a recording of hostile texts, as the extension writes it
//! (serde_json, pretty), read back: only the keys the exporter writes, selectors as lists of
//! strings, every `expression` a script oxc reads with only the exporter's names; exactly the
//! shape of its benign twin's (crate/core/src/export/format_checks.rs).
#![no_main]
use libfuzzer_sys::fuzz_target;
use sightline::export::to_recorder;
#[path = "../export_input.rs"]
mod export_input;
#[path = "../../core/src/export/format_checks.rs"]
mod format_checks;
use export_input::{Input, VIEWPORT};

fuzz_target!(|data: &[u8]| {
    let Some(input) = Input::read(data) else { return };
    let (hostile, twin) = input.recordings();
    let json = serde_json::to_string_pretty(&to_recorder(&hostile, VIEWPORT)).expect("JSON");
    let read = format_checks::read_recorder(&json).unwrap_or_else(|e| panic!("{e}\n{json}"));
    let twin_json = serde_json::to_string_pretty(&to_recorder(&twin, VIEWPORT)).expect("JSON");
    let twin_read = format_checks::read_recorder(&twin_json).unwrap_or_else(|e| panic!("the twin: {e}\n{twin_json}"));
    assert_eq!(read.shape, twin_read.shape, "the texts changed the flow\n{json}\n{twin_json}");
    assert_eq!(read.scripts, twin_read.scripts, "the texts changed an expression\n{json}");
});
