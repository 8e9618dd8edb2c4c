//! Function-call replies (`{"name", "arguments"}`), in every coordinate space.
#![no_main]
use libfuzzer_sys::fuzz_target;
#[path = "../common.rs"]
mod common;

fuzz_target!(|data: &[u8]| {
    if let Some((sel, text)) = common::split(data) {
        let _ = sightline::parse::tool_calls::parse_function_calls(text, common::space(sel), &common::mapping(sel));
    }
});
