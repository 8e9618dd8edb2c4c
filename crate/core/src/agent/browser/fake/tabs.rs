//! A fake window of tabs, each with its address and its history, that records every move.

use crate::agent::browser::{PageError, TabHost, TabInfo};
use crate::vocab::actions::Go;

/// A tab of the window: what the tab list shows of it, its history and where in it the tab is.
#[derive(Debug, Clone)]
pub struct FakeTab {
    pub info: TabInfo,
    pub history: Vec<String>,
    pub at: usize,
}

impl FakeTab {
    /// Tab `id` titled `title`, at entry `at` of `history`.
    pub fn new(id: i64, title: &str, history: &[&str], at: usize) -> Self {
        let url = history[at].to_string();
        FakeTab {
            info: TabInfo { id, title: title.into(), url, current: false, ..TabInfo::default() },
            history: history.iter().map(|s| s.to_string()).collect(),
            at,
        }
    }
}

#[derive(Debug, Clone)]
pub struct FakeTabs {
    pub tabs: Vec<FakeTab>,
    /// The tab the run is on.
    pub current: i64,
    /// Every move the run made, in order.
    pub went: Vec<Go>,
}

impl FakeTabs {
    /// A window of `tabs`, the run on tab `current`.
    pub fn new(tabs: Vec<FakeTab>, current: i64) -> Self {
        FakeTabs { tabs, current, went: vec![] }
    }

    /// The address of the tab the run is on ("" when it is not open).
    pub fn current_url(&self) -> String {
        self.tabs.iter().find(|t| t.info.id == self.current).map(|t| t.info.url.clone()).unwrap_or_default()
    }

    fn tab(&mut self, id: i64) -> &mut FakeTab {
        self.tabs.iter_mut().find(|t| t.info.id == id).expect("a tab")
    }
}

impl TabHost for FakeTabs {
    async fn history_target(&mut self, to: &Go) -> Result<Option<String>, PageError> {
        let current = self.current;
        let tab = self.tab(current);
        let at = match to {
            Go::Back => tab.at.checked_sub(1),
            Go::Forward => Some(tab.at + 1),
            _ => Some(tab.at),
        };
        Ok(at.and_then(|i| tab.history.get(i).cloned()))
    }

    async fn go(&mut self, to: &Go) -> Result<(), PageError> {
        self.went.push(to.clone());
        let current = self.current;
        match to {
            Go::Address { url } => {
                let tab = self.tab(current);
                tab.history.truncate(tab.at + 1);
                tab.history.push(url.clone());
                tab.at += 1;
                tab.info.url = url.clone();
            }
            Go::Back | Go::Forward => {
                let tab = self.tab(current);
                tab.at = if matches!(to, Go::Back) { tab.at - 1 } else { tab.at + 1 };
                tab.info.url = tab.history[tab.at].clone();
            }
            Go::SwitchTab { tab } => self.current = *tab,
            Go::CloseOtherTab { tab } => self.tabs.retain(|t| t.info.id != *tab),
            Go::CloseTab => {
                self.tabs.retain(|t| t.info.id != current);
                self.current = self.tabs[0].info.id;
            }
            Go::OpenTab { url } => {
                let id = self.tabs.len() as i64 + 10;
                self.tabs.push(FakeTab::new(id, "", &[url.as_str()], 0));
                self.current = id;
            }
            Go::Reload => {}
        }
        Ok(())
    }

    async fn tabs(&mut self) -> Result<Vec<TabInfo>, PageError> {
        Ok(self.tabs.iter().map(|t| TabInfo { current: t.info.id == self.current, ..t.info.clone() }).collect())
    }
}

/// A browser without tab primitives: the seam's own answers (nothing opens, no history, no tabs).
pub(super) struct NoTabs;

impl TabHost for NoTabs {}
