//! The browser's tabs and their history, with chrome.tabs and CDP.

use super::*;

impl TabHost for HostBrowser {
    async fn go(&mut self, to: &Go) -> Result<(), PageError> {
        let js = to_js(to).map_err(crossing_error)?;
        self.host.go(js).await.map(|_| ()).map_err(page_error)
    }

    async fn history_target(&mut self, to: &Go) -> Result<Option<String>, PageError> {
        let js = to_js(to).map_err(crossing_error)?;
        Ok(self.host.history_target(js).await.map_err(page_error)?.as_string())
    }

    async fn tabs(&mut self) -> Result<Vec<TabInfo>, PageError> {
        let value = self.host.tabs().await.map_err(page_error)?;
        from_js(value, "the open tabs").map_err(crossing_error)
    }
}
