//! Where a run's record, its screenshots and the cache are kept and shown.

use crate::agent::record::Run;
use crate::agent::replay::cache::CacheEntry;

pub trait StoreHost {
    /// Called whenever the run record changes, for live display and persistence.
    fn report(&mut self, run: &Run);
    /// Keeps a cache entry (replacing one with the same key) for later runs.
    fn remember(&mut self, entry: &CacheEntry);
    /// Keeps a screenshot (a data URL) with the run and returns its reference. Called before
    /// a model call sends the image: a host may send the copy it now holds.
    fn keep_image(&mut self, data_url: &str) -> String;
}
