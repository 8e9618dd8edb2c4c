//! Whole HTTP answers from either wire (OpenAI chat completions, Anthropic Messages).
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Ok(text) = std::str::from_utf8(data) {
        if let Ok(reply) = sightline::model::openai::read_json(text) {
            let _ = reply.parser_text();
        }
        if let Ok(reply) = sightline::model::anthropic::read_json(text) {
            let _ = reply.parser_text();
        }
    }
});
