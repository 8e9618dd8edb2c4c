//! UI-TARS `Thought:` / `Action:` replies, relative and absolute.
#![no_main]
use libfuzzer_sys::fuzz_target;
#[path = "../common.rs"]
mod common;

fuzz_target!(|data: &[u8]| {
    if let Some((sel, text)) = common::split(data) {
        let _ = sightline::parse::ui_tars::parse_ui_tars(text, common::space(sel), &common::mapping(sel));
    }
});
