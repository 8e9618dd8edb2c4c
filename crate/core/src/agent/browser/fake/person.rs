//! The fake person at the panel: answers from a script and keeps what was asked.

use crate::agent::ask::{Answer, Question};
use crate::agent::browser::{PageError, PersonHost};

#[derive(Debug, Default)]
pub struct FakePerson {
    /// The answers still to give, the next one last; none left: nobody answers.
    pub answers: Vec<Answer>,
    /// The questions asked, in order.
    pub asked: Vec<Question>,
}

impl PersonHost for FakePerson {
    async fn ask(&mut self, question: &Question) -> Result<Option<Answer>, PageError> {
        self.asked.push(question.clone());
        Ok(self.answers.pop())
    }
}
