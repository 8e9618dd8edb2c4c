//! Page fakes that hold no page: [`NoPage`], for runs that only move the browser. The page
//! with content is [`FakeTodoPage`](super::FakeTodoPage).

use crate::action::InputCommand;
use crate::agent::browser::{FocusedField, Observation, PageError, PageHost, Reach, Settled};

/// A page a test never reads nor sends input to (an agent's move between tabs and addresses):
/// either fails the test. Waiting for it reports that nothing happened.
#[derive(Debug, Default)]
pub struct NoPage;

impl PageHost for NoPage {
    async fn observe(&mut self, _: &Reach) -> Result<Observation, PageError> {
        unreachable!("a move reads no page")
    }

    async fn dispatch(&mut self, _: &[InputCommand]) -> Result<(), PageError> {
        unreachable!("a move sends no input")
    }

    async fn settle(&mut self) -> Result<Settled, PageError> {
        Ok(Settled::default())
    }

    async fn focused_field(&mut self, _: &[String]) -> Result<FocusedField, PageError> {
        unreachable!("a move types nothing")
    }

    async fn reveal(&mut self, _: &crate::describe::Element) -> Result<(), PageError> {
        unreachable!("a move scrolls to no element")
    }

    async fn choose_files(&mut self, _: &[InputCommand], _: &[String]) -> Result<(), PageError> {
        unreachable!("a move uploads nothing")
    }
}
