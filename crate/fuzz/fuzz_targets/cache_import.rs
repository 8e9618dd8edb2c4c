//! Cache exports a person imports (Settings → cache → import): a cache or an error; a cache
//! that reads writes and reads back the same, and merging it keeps one entry per key, within
//! the limit.
#![no_main]
use libfuzzer_sys::fuzz_target;
use sightline::agent::replay::cache::{Cache, CacheEntry, MAX_ENTRIES};
use sightline::describe::Extraction;
use std::collections::HashSet;
#[path = "../round_trip.rs"]
mod round_trip;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };
    let Ok(cache) = Cache::import(text) else { return };
    round_trip::check(&cache, Cache::import, "export → import");

    let mut merged = Cache::default();
    for entry in cache.0.iter().cloned() {
        merged.put(entry);
    }
    assert!(merged.0.len() <= MAX_ENTRIES.min(cache.0.len()));
    let mut keys = HashSet::new();
    for e in &merged.0 {
        assert!(keys.insert(e.key()), "two entries for {:?}", e.key());
    }
    let page = Extraction::default();
    for e in &cache.0 {
        match e {
            CacheEntry::Locate { page: url, prompt, element, .. } => {
                let _ = merged.locate(url, prompt);
                assert!(element.resolve(&page).is_none(), "an element found on an empty page");
            }
            CacheEntry::Plan { page: url, prompt, .. } => {
                let _ = merged.plan(url, prompt);
            }
        }
    }
});
