//! The page's dialogs, as the host's debugger holds them.

use super::*;

impl DialogHost for HostBrowser {
    fn open_dialog(&mut self) -> Option<PageDialog> {
        let value = self.host.open_dialog();
        if value.is_null() || value.is_undefined() {
            return None;
        }
        // A dialog the core cannot read is still one: as a confirm it is asked about, not accepted.
        Some(from_js(value, "the page's dialog").unwrap_or(PageDialog {
            kind: DialogKind::Confirm,
            message: String::new(),
            default_prompt: String::new(),
            url: String::new(),
        }))
    }

    async fn answer_dialog(&mut self, accept: bool, prompt_text: Option<&str>) -> Result<(), PageError> {
        self.host.answer_dialog(accept, prompt_text.map(str::to_string)).await.map(|_| ()).map_err(page_error)
    }
}
