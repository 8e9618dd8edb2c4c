//! The browser's tabs and their history: where a run goes with the browser's own primitives.

use super::page::PageError;
use crate::vocab::actions::{Go, TabInfo};

#[allow(async_fn_in_trait)] // single-threaded wasm: no Send bound wanted
pub trait TabHost {
    /// Goes somewhere with the browser's own tab primitives (an address, back, forward, a
    /// reload, another tab), which work where no page can be read (the new-tab page). The
    /// next `settle` reports where the run is now (`followed_tab` when it is on another tab).
    async fn go(&mut self, to: &Go) -> Result<(), PageError> {
        let _ = to;
        Err(PageError::Failed("this browser cannot open addresses or tabs".into()))
    }
    /// Where a step in the tab's history (`Go::Back`, `Go::Forward`) or a reload (`Go::Reload`)
    /// would go, as the browser's history of the tab has it; `None` when the host cannot tell
    /// (the guard then judges the page it lands on).
    async fn history_target(&mut self, to: &Go) -> Result<Option<String>, PageError> {
        let _ = to;
        Ok(None)
    }
    /// The tabs of the run's window, the one it is on marked.
    async fn tabs(&mut self) -> Result<Vec<TabInfo>, PageError> {
        Ok(Vec::new())
    }
}

/// Where a run goes on when it closes its tab: back to the tab that opened it, else the tab it
/// was on most recently before, else the window's last other tab. `tabs` are those the run may
/// see (the guard has left out tabs outside the allowed sites). `None` when no other tab is left.
pub fn tab_after_close(tabs: &[TabInfo]) -> Option<i64> {
    let current = tabs.iter().find(|t| t.current)?;
    let others: Vec<&TabInfo> = tabs.iter().filter(|t| !t.current).collect();
    let opener = current.opener.filter(|o| others.iter().any(|t| t.id == *o));
    let earlier = others.iter().filter(|t| t.followed.is_some()).max_by_key(|t| t.followed).map(|t| t.id);
    opener.or(earlier).or_else(|| others.last().map(|t| t.id))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tab(id: i64, current: bool, opener: Option<i64>, followed: Option<u32>) -> TabInfo {
        TabInfo { id, current, opener, followed, ..TabInfo::default() }
    }

    #[test]
    fn a_closed_tab_goes_back_to_its_opener() {
        let tabs = [tab(1, false, None, Some(0)), tab(2, false, None, Some(2)), tab(3, true, Some(1), Some(1))];
        assert_eq!(tab_after_close(&tabs), Some(1));
    }

    #[test]
    fn without_an_open_opener_the_tab_the_run_was_on_most_recently_before() {
        let tabs = [
            tab(1, false, None, Some(0)),
            tab(2, false, None, Some(1)),
            tab(5, false, None, None),
            tab(3, true, Some(9), Some(2)),
        ];
        assert_eq!(tab_after_close(&tabs), Some(2));
    }

    #[test]
    fn else_the_last_other_tab_and_none_when_it_is_the_only_one() {
        let tabs = [tab(4, false, None, None), tab(3, true, None, Some(0)), tab(7, false, None, None)];
        assert_eq!(tab_after_close(&tabs), Some(7));
        assert_eq!(tab_after_close(&[tab(3, true, None, Some(0))]), None);
        assert_eq!(tab_after_close(&[]), None);
    }
}
