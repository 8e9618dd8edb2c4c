//! Where the record goes: each report's changes, cache entries and screenshots, to the glue that stores and shows them.

use super::*;

impl StoreHost for HostBrowser {
    fn report(&mut self, run: &Run) {
        // The record the worker holds is the one stored: on the tab the run follows now.
        let tab = self.tab();
        let console: Vec<ConsoleEntry> = from_js(self.host.take_console(), "the console messages").unwrap_or_default();
        // Only what changed crosses: the host applies it to the record it holds.
        let changes = crate::runs::with_open(|open| {
            open.report(run, &tab, console, &self.limits);
            open.changes(&run.id)
        });
        if let Ok(js) = super::to_js(&changes) {
            self.host.report(js);
        }
    }

    fn remember(&mut self, entry: &sightline::agent::replay::cache::CacheEntry) {
        if let Ok(js) = to_js(&entry.record()) {
            self.host.remember(js);
        }
    }

    fn keep_image(&mut self, data_url: &str) -> String {
        self.host.keep_image(&js_sys::JsString::from(data_url))
    }
}
