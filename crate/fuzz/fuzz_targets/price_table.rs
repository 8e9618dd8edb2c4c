//! The price table a person edits in Settings.
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Ok(text) = std::str::from_utf8(data) {
        if let Ok(table) = sightline::model::PriceTable::parse(text) {
            let usage = sightline::model::Usage { prompt_tokens: 1000, completion_tokens: 100, estimated: false };
            let _ = table.cost("gpt-4o", &usage);
            assert_eq!(sightline::model::PriceTable::parse(&table.to_text()).as_ref(), Ok(&table), "text round-trip");
        }
    }
});
