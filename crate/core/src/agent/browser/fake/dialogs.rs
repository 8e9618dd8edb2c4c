//! The fake page's JavaScript dialogs: the one it holds open, the ones input or a wait opens
//! next, and how each was answered.

use crate::agent::ask::PageDialog;
use crate::agent::browser::{DialogHost, PageError};

#[derive(Debug, Default)]
pub struct FakeDialogs {
    /// The dialog the page holds open.
    pub open: Option<PageDialog>,
    /// A dialog the next click (a mouse press) opens.
    pub on_click: Option<PageDialog>,
    /// A dialog the next wait for the page opens.
    pub on_settle: Option<PageDialog>,
    /// How each dialog was answered: OK?, and a prompt's text.
    pub answers: Vec<(bool, Option<String>)>,
}

impl FakeDialogs {
    /// A mouse press reached the page.
    pub fn clicked(&mut self) {
        if self.on_click.is_some() {
            self.open = self.on_click.take();
        }
    }

    /// The run waited for the page to settle.
    pub fn settled(&mut self) {
        self.open = self.on_settle.take();
    }
}

impl DialogHost for FakeDialogs {
    fn open_dialog(&mut self) -> Option<PageDialog> {
        self.open.clone()
    }

    async fn answer_dialog(&mut self, accept: bool, prompt_text: Option<&str>) -> Result<(), PageError> {
        assert!(self.open.take().is_some(), "no dialog to answer");
        self.answers.push((accept, prompt_text.map(str::to_string)));
        Ok(())
    }
}
