//! The browser side of a run, as narrow seams (Ruffle's backends): the page ([`PageHost`]),
//! its tabs ([`TabHost`]), its dialogs ([`DialogHost`]), the person ([`PersonHost`]), where
//! the record is kept ([`StoreHost`]) and the clock with the Stop ([`ClockHost`]). The service
//! worker implements each in one file of `crate/web/src/host/`; tests use the fakes in
//! `fake/`, one per seam.
//! [`Browser`] is all of them: what the
//! loop, tasks, flows, replays and agent calls take.

mod clock;
mod dialogs;
#[cfg(any(test, feature = "fake"))]
pub mod fake;
mod page;
mod person;
mod store;
mod tabs;

pub use crate::vocab::actions::TabInfo;
pub use clock::ClockHost;
pub use dialogs::DialogHost;
pub use page::{AnsweredDialog, ChosenOption, FocusedField, Observation, PageError, PageHost, Reach, Settled};
pub use person::PersonHost;
pub use store::StoreHost;
pub use tabs::{tab_after_close, TabHost};

use super::ask::{Answer, Question};
use super::record::Run;

/// Everything a run needs of the browser.
pub trait Browser: PageHost + TabHost + DialogHost + PersonHost + StoreHost + ClockHost {}

impl<T: PageHost + TabHost + DialogHost + PersonHost + StoreHost + ClockHost> Browser for T {}

/// Puts `question` on the run (the panel shows it) and waits for the answer. `None` when
/// nobody can answer (a run without a person), the run was stopped meanwhile, or the answer
/// does not fit the question.
pub(crate) async fn ask_person<B: Browser>(
    run: &mut Run,
    browser: &mut B,
    question: Question,
) -> Result<Option<Answer>, PageError> {
    run.question = Some(question.clone());
    browser.report(run);
    let answer = browser.ask(&question).await;
    run.question = None;
    browser.report(run);
    Ok(answer?.filter(|a| a.fits(&question)))
}
