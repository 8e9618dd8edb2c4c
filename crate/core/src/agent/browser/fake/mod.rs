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
