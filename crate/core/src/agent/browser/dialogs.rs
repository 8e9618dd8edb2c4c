//! The page's JavaScript dialogs (confirm, prompt, beforeunload) that wait for an answer.

use super::page::PageError;
use crate::agent::ask::PageDialog;

#[allow(async_fn_in_trait)] // single-threaded wasm: no Send bound wanted
pub trait DialogHost {
    /// The page dialog (confirm, prompt, beforeunload) that opened during the last `dispatch`,
    /// `choose_files`, `settle` or `answer_dialog` and waits for an answer. Those calls return
    /// early when one opens: the input that raised it does not finish until it is answered.
    /// Alerts are answered by the host and noted by `settle`.
    fn open_dialog(&mut self) -> Option<PageDialog>;
    /// Answers the open dialog with OK (`accept`) or Cancel; `prompt_text`: what a prompt gets
    /// (none: its default). The interrupted input and wait then go on, returning early again
    /// if another dialog opens.
    async fn answer_dialog(&mut self, accept: bool, prompt_text: Option<&str>) -> Result<(), PageError>;
}
