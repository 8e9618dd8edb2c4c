//! The JSON repair every parser falls back to: never panics, and what it returns is
//! either valid JSON or left for the caller to reject.
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Ok(text) = std::str::from_utf8(data) {
        let repaired = sightline::parse::repair::repair_json(text);
        let _ = serde_json::from_str::<serde_json::Value>(&repaired);
    }
});
