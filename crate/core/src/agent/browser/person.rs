//! The person at the panel, who answers what a run asks.

use super::page::PageError;
use crate::agent::ask::{Answer, Question};

#[allow(async_fn_in_trait)] // single-threaded wasm: no Send bound wanted
pub trait PersonHost {
    /// Shows the question (the model's, a page dialog, an upload to allow) to the person and
    /// waits for the answer; `None` when there is nobody to ask (a headless run) or the run
    /// was stopped.
    async fn ask(&mut self, question: &Question) -> Result<Option<Answer>, PageError>;
}
