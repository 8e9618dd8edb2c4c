//! Fakes of the browser seams, for the core's tests and, with the `fake` feature, other crates'.
//! One per seam, each holding what its seam needs ([`FakeTabs`], [`FakeDialogs`],
//! [`FakePerson`], [`FakeStore`], [`FakeClock`]), and [`FakeBrowser`], which is all of them
//! around a page fake of the test's choosing ([`FakeTodoPage`], [`NoPage`]).

mod clock;
mod dialogs;
mod page;
mod person;
mod store;
mod tabs;
mod todo_page;

pub use clock::FakeClock;
pub use dialogs::FakeDialogs;
pub use page::NoPage;
pub use person::FakePerson;
pub use store::FakeStore;
pub use tabs::{FakeTab, FakeTabs};
pub use todo_page::{blank_capture, FakeTodoPage, Focus, Layout, Link};

use super::{
    ChosenOption, ClockHost, DialogHost, FocusedField, Observation, PageError, PageHost, PersonHost, Reach, Settled,
    StoreHost, TabHost,
};
use crate::action::InputCommand;
use crate::agent::ask::{Answer, PageDialog, Question};
use crate::agent::record::Run;
use crate::agent::replay::cache::CacheEntry;
use crate::describe::locators::LocatorData;
use crate::describe::Element;
use crate::vocab::actions::{Go, TabInfo};

/// What one wait for the page to settle takes on the fake clock, in milliseconds.
const SETTLE_MS: f64 = 5.0;

/// A browser made of one fake per seam. It keeps what crosses seams: input reaching the page
/// opens the dialog a click opens, a wait for the page passes time and may open a dialog, and
/// the Stop may come once enough input was sent.
pub struct FakeBrowser<P> {
    pub page: P,
    /// The window's tabs; none: a browser without tab primitives.
    pub tabs: Option<FakeTabs>,
    pub dialogs: FakeDialogs,
    pub person: FakePerson,
    pub store: FakeStore,
    pub clock: FakeClock,
    /// Every input command the page was sent (`dispatch`, and the click of `choose_files`), in order.
    pub dispatched: Vec<InputCommand>,
    /// The person presses Stop once this many input commands were sent.
    pub stop_after_dispatches: Option<usize>,
    /// Every script the page was given to run (`evaluate`), in order.
    pub evaluated: Vec<String>,
    /// What each script run answers, in turn (`Err`: the exception's message); none left: null.
    pub script_answers: std::collections::VecDeque<Result<serde_json::Value, String>>,
}

impl<P> FakeBrowser<P> {
    pub fn new(page: P) -> Self {
        FakeBrowser {
            page,
            tabs: None,
            dialogs: FakeDialogs::default(),
            person: FakePerson::default(),
            store: FakeStore::default(),
            clock: FakeClock::default(),
            dispatched: vec![],
            stop_after_dispatches: None,
            evaluated: Vec::new(),
            script_answers: Default::default(),
        }
    }
}

impl<P: PageHost> PageHost for FakeBrowser<P> {
    async fn observe(&mut self, reach: &Reach) -> Result<Observation, PageError> {
        self.page.observe(reach).await
    }

    async fn dispatch(&mut self, commands: &[InputCommand]) -> Result<(), PageError> {
        assert!(self.dialogs.open.is_none(), "input sent while a dialog is open");
        if commands.iter().any(|c| c.params["type"] == "mousePressed") {
            self.dialogs.clicked();
        }
        self.page.dispatch(commands).await?;
        self.dispatched.extend_from_slice(commands);
        Ok(())
    }

    /// With a window of tabs, the address settled on is that of the tab the run is on.
    async fn settle(&mut self) -> Result<Settled, PageError> {
        assert!(self.dialogs.open.is_none(), "waited on a page that a dialog holds");
        self.clock.now_ms += SETTLE_MS;
        self.dialogs.settled();
        let mut settled = self.page.settle().await?;
        if let Some(tabs) = &self.tabs {
            settled.url = tabs.current_url();
        }
        Ok(settled)
    }

    async fn focused_field(&mut self, selectors: &[String]) -> Result<FocusedField, PageError> {
        self.page.focused_field(selectors).await
    }

    async fn reveal(&mut self, element: &Element) -> Result<(), PageError> {
        self.page.reveal(element).await
    }

    async fn choose_files(&mut self, click: &[InputCommand], files: &[String]) -> Result<(), PageError> {
        self.page.choose_files(click, files).await?;
        self.dispatched.extend_from_slice(click);
        Ok(())
    }

    async fn locator_data(&mut self, element: &Element) -> Option<LocatorData> {
        self.page.locator_data(element).await
    }

    async fn choose(&mut self, element: &Element, index: u32) -> Result<ChosenOption, PageError> {
        self.page.choose(element, index).await
    }

    async fn evaluate(&mut self, code: &str) -> Result<serde_json::Value, PageError> {
        self.evaluated.push(code.to_string());
        self.script_answers.pop_front().unwrap_or(Ok(serde_json::Value::Null)).map_err(PageError::Failed)
    }
}

impl<P> TabHost for FakeBrowser<P> {
    async fn go(&mut self, to: &Go) -> Result<(), PageError> {
        match &mut self.tabs {
            Some(tabs) => tabs.go(to).await,
            None => tabs::NoTabs.go(to).await,
        }
    }

    async fn history_target(&mut self, to: &Go) -> Result<Option<String>, PageError> {
        match &mut self.tabs {
            Some(tabs) => tabs.history_target(to).await,
            None => tabs::NoTabs.history_target(to).await,
        }
    }

    async fn tabs(&mut self) -> Result<Vec<TabInfo>, PageError> {
        match &mut self.tabs {
            Some(tabs) => tabs.tabs().await,
            None => tabs::NoTabs.tabs().await,
        }
    }
}

impl<P> DialogHost for FakeBrowser<P> {
    fn open_dialog(&mut self) -> Option<PageDialog> {
        self.dialogs.open_dialog()
    }

    async fn answer_dialog(&mut self, accept: bool, prompt_text: Option<&str>) -> Result<(), PageError> {
        self.dialogs.answer_dialog(accept, prompt_text).await
    }
}

impl<P> PersonHost for FakeBrowser<P> {
    async fn ask(&mut self, question: &Question) -> Result<Option<Answer>, PageError> {
        self.person.ask(question).await
    }
}

impl<P> StoreHost for FakeBrowser<P> {
    fn report(&mut self, run: &Run) {
        self.store.report(run);
    }

    fn remember(&mut self, entry: &CacheEntry) {
        self.store.remember(entry);
    }

    fn keep_image(&mut self, data_url: &str) -> String {
        self.store.keep_image(data_url)
    }
}

impl<P> ClockHost for FakeBrowser<P> {
    fn now_ms(&self) -> f64 {
        self.clock.now_ms()
    }

    async fn wait(&mut self, ms: u32) {
        self.clock.wait(ms).await;
    }

    fn stop_requested(&self) -> bool {
        self.clock.stop_requested() || self.stop_after_dispatches.is_some_and(|n| self.dispatched.len() >= n)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_util::block_on;
    use serde_json::json;

    fn press() -> InputCommand {
        InputCommand {
            method: "Input.dispatchMouseEvent".into(),
            params: json!({"type": "mousePressed", "x": 1, "y": 1}),
        }
    }

    fn confirm(message: &str) -> PageDialog {
        serde_json::from_value(json!({"type": "confirm", "message": message})).unwrap()
    }

    #[test]
    fn a_click_opens_the_dialog_set_for_it_and_a_settle_the_one_set_for_it_after_its_time() {
        let mut browser = FakeBrowser::new(FakeTodoPage::default());
        browser.dialogs.on_click = Some(confirm("clicked"));
        browser.dialogs.on_settle = Some(confirm("settled"));
        block_on(browser.dispatch(&[press()])).unwrap();
        assert_eq!(browser.open_dialog(), Some(confirm("clicked")));
        block_on(browser.answer_dialog(false, None)).unwrap();
        assert_eq!((browser.open_dialog(), browser.now_ms()), (None, 0.0));
        block_on(browser.settle()).unwrap();
        assert_eq!((browser.open_dialog(), browser.now_ms()), (Some(confirm("settled")), SETTLE_MS));
        block_on(browser.answer_dialog(true, Some("yes"))).unwrap();
        assert_eq!(browser.dialogs.answers, [(false, None), (true, Some("yes".into()))]);
        assert_eq!(browser.dispatched, [press()]);
    }

    #[test]
    fn stop_comes_once_enough_input_was_sent_or_when_pressed() {
        let mut browser = FakeBrowser::new(FakeTodoPage::default());
        browser.stop_after_dispatches = Some(2);
        block_on(browser.dispatch(&[press()])).unwrap();
        assert!(!browser.stop_requested());
        block_on(browser.choose_files(&[press()], &["/tmp/a.txt".into()])).unwrap();
        assert!(browser.stop_requested(), "the chooser's click counts as input");
        assert_eq!(browser.page.uploaded, ["/tmp/a.txt"]);
        let mut pressed = FakeBrowser::new(NoPage);
        pressed.clock.stop = true;
        assert!(pressed.stop_requested());
    }

    #[test]
    fn without_a_window_the_tab_seam_answers_as_a_browser_without_tabs_and_with_one_settle_reports_its_tab() {
        let mut browser = FakeBrowser::new(NoPage);
        assert!(block_on(browser.go(&Go::Reload)).is_err());
        assert_eq!(block_on(browser.tabs()).unwrap(), []);
        browser.tabs =
            Some(FakeTabs::new(vec![FakeTab::new(4, "Todos", &["https://a.example/", "https://b.example/"], 1)], 4));
        assert_eq!(block_on(browser.history_target(&Go::Back)).unwrap().as_deref(), Some("https://a.example/"));
        block_on(browser.go(&Go::Back)).unwrap();
        assert_eq!(block_on(browser.settle()).unwrap().url, "https://a.example/");
        assert_eq!(browser.tabs.as_ref().unwrap().went, [Go::Back]);
    }
}
