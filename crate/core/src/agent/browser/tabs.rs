//! The browser's tabs and their history: where a run goes with the browser's own primitives.

use super::page::PageError;
use crate::vocab::actions::{Go, TabInfo};

#[allow(async_fn_in_trait)] // single-threaded wasm: no Send bound wanted
pub trait TabHost {
    /// Goes somewhere with the browser's own tab primitives (an address, back, forward, a
    /// reload, another tab), which work where no page can be read (the new-tab page). The
    /// next `settle` reports where the run is now (`followed_tab` when it is on another tab).
    async fn go(&mut self, to: &Go) -> Result<(), PageError> {
        let _ = to;
        Err(PageError::Failed("this browser cannot open addresses or tabs".into()))
    }
    /// Where a step in the tab's history (`Go::Back`, `Go::Forward`) or a reload (`Go::Reload`)
    /// would go, as the browser's history of the tab has it; `None` when the host cannot tell
    /// (the guard then judges the page it lands on).
    async fn history_target(&mut self, to: &Go) -> Result<Option<String>, PageError> {
        let _ = to;
        Ok(None)
    }
    /// The tabs of the run's window, the one it is on marked.
    async fn tabs(&mut self) -> Result<Vec<TabInfo>, PageError> {
        Ok(Vec::new())
    }
}
