//! The fake store: keeps every record reported, the cache entries and the screenshots.

use crate::agent::browser::StoreHost;
use crate::agent::record::Run;
use crate::agent::replay::cache::{Cache, CacheEntry};

#[derive(Debug, Default)]
pub struct FakeStore {
    /// The run record each time it was reported, in order.
    pub reports: Vec<Run>,
    /// What the run asked to keep for later runs.
    pub cache: Cache,
    /// Screenshots kept with the run, by position (reference `img-N`).
    pub images: Vec<String>,
}

impl StoreHost for FakeStore {
    fn report(&mut self, run: &Run) {
        self.reports.push(run.clone());
    }

    fn remember(&mut self, entry: &CacheEntry) {
        self.cache.put(entry.clone());
    }

    fn keep_image(&mut self, data_url: &str) -> String {
        self.images.push(data_url.to_string());
        format!("img-{}", self.images.len() - 1)
    }
}
