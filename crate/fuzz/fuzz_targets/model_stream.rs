//! SSE bodies in arbitrary chunks, read as each wire's stream: the first byte sets the chunk size.
#![no_main]
use libfuzzer_sys::fuzz_target;
use sightline::model::sse::SseDecoder;
use sightline::model::{anthropic, openai};

fuzz_target!(|data: &[u8]| {
    let Some((&first, body)) = data.split_first() else { return };
    let chunk = (first as usize % 17) + 1;
    let mut decoder = SseDecoder::new();
    let mut events = Vec::new();
    for piece in body.chunks(chunk) {
        events.extend(decoder.feed(piece));
    }
    events.extend(decoder.finish());
    let mut o = openai::StreamReply::default();
    let mut a = anthropic::StreamReply::default();
    let (mut o_ok, mut a_ok) = (true, true);
    for e in &events {
        o_ok = o_ok && o.event(&e.data).is_ok();
        a_ok = a_ok && a.event(&e.event, &e.data).is_ok();
    }
    if o_ok {
        let _ = o.finish().map(|r| r.parser_text());
    }
    if a_ok {
        let _ = a.finish().map(|r| r.parser_text());
    }
});
