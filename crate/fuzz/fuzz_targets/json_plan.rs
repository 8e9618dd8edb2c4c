//! JSON-plan replies (general chat models): any text either parses or names what is wrong.
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Ok(text) = std::str::from_utf8(data) {
        let _ = sightline::parse::parse_plan(text);
    }
});
