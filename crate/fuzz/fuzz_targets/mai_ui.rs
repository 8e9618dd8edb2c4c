//! MAI-UI tagged replies: `<tool_call>` and `<answer>` forms.
#![no_main]
use libfuzzer_sys::fuzz_target;
#[path = "../common.rs"]
mod common;

fuzz_target!(|data: &[u8]| {
    if let Some((sel, text)) = common::split(data) {
        let _ = sightline::parse::tool_calls::parse_mai_ui(text, &common::mapping(sel));
    }
});
