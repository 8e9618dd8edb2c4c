//! The person: a question shown in the panel, the answer awaited.

use super::*;

impl PersonHost for HostBrowser {
    async fn ask(&mut self, question: &Question) -> Result<Option<Answer>, PageError> {
        let js = to_js(question).map_err(|_| PageError::Failed("could not pass the question to the panel".into()))?;
        let answer = self.host.ask(js).await.map_err(page_error)?;
        if answer.is_null() || answer.is_undefined() {
            return Ok(None);
        }
        from_js(answer, "the answer").map(Some).map_err(crossing_error)
    }
}
