//! The core's browser seams over the service worker's host object (one file per seam, as the
//! core declares them in `agent/browser/`, and as `extension/background/host/` implements them):
//! the JS glue owns chrome.debugger, tab messaging and storage; the loop's decisions stay in Rust.

mod clock;
mod dialogs;
mod page;
mod person;
mod store;
mod tabs;

use super::{from_js, now_ms, to_js};
use sightline::action::InputCommand;
use sightline::agent::ask::{Answer, DialogKind, PageDialog, Question};
use sightline::agent::guard::Limits;
use sightline::agent::lifecycle::{RunChanges, TabFacts};
use sightline::agent::record::{ConsoleEntry, Run};
use sightline::agent::{
    ChosenOption, ClockHost, DialogHost, FocusedField, Observation, PageError, PageHost, PersonHost, Reach, Settled,
    StoreHost, TabHost, TabInfo,
};
use sightline::vocab::actions::Go;
use wasm_bindgen::prelude::*;
use wasm_bindgen_futures::JsFuture;

#[wasm_bindgen]
extern "C" {
    /// Built by `startRun` in `extension/background/runs.js` for one run on one tab, merged
    /// from one factory per seam in `extension/background/host/`.
    pub type Host;

    /// The tab as it is now, read with these extract options (`Reach::extract_options`):
    /// `{page, shot}` as the browser gave them (`materials`).
    #[wasm_bindgen(method, catch)]
    async fn observe(this: &Host, options: JsValue) -> Result<JsValue, JsValue>;

    /// Sends CDP commands in order through chrome.debugger.
    #[wasm_bindgen(method, catch)]
    async fn dispatch(this: &Host, commands: JsValue) -> Result<JsValue, JsValue>;

    /// Resolves once the page has reacted (DOM quiet, load, network idle; capped), to what
    /// happened since the input: `{urlBefore, url, loaded, followedTab, dialogs}` (`Settled`).
    #[wasm_bindgen(method, catch)]
    async fn settle(this: &Host) -> Result<JsValue, JsValue>;

    /// The focused element and its frame, looked up through shadow roots and frames:
    /// `{frameUrl, frameOrigin, tag, attributes, editable, matches}` (`FocusedField`).
    #[wasm_bindgen(method, catch, js_name = focusedField)]
    async fn focused_field(this: &Host, selectors: JsValue) -> Result<JsValue, JsValue>;

    /// Scrolls `{xpath, rect}` into view.
    #[wasm_bindgen(method, catch)]
    async fn reveal(this: &Host, element: JsValue) -> Result<JsValue, JsValue>;

    /// What an element's locators are decided from (`LocatorData`), read through CDP for the
    /// element at this XPath, with the text path of `text_check` (a `TextPathCheck`, or null)
    /// kept where the page confirms it; null where it cannot be read.
    #[wasm_bindgen(method, catch, js_name = locatorData)]
    async fn locator_data(this: &Host, xpath: &str, text_check: JsValue) -> Result<JsValue, JsValue>;

    /// Resolves after `ms`.
    #[wasm_bindgen(method, catch)]
    async fn wait(this: &Host, ms: u32) -> Result<JsValue, JsValue>;

    /// Shows the question (`{kind: "text" | "pageDialog" | "upload", …}`) in the panel;
    /// resolves to the answer (`{kind: "text" | "dialog" | "upload", …}`), or null when there
    /// is nobody to ask or the run was stopped.
    #[wasm_bindgen(method, catch)]
    async fn ask(this: &Host, question: JsValue) -> Result<JsValue, JsValue>;

    /// The page dialog that interrupted the last input or wait and waits for an answer
    /// (`{type, message, defaultPrompt, url}`), or null.
    #[wasm_bindgen(method, js_name = openDialog)]
    fn open_dialog(this: &Host) -> JsValue;

    /// Answers the open dialog; resolves once the interrupted work is done or another dialog opens.
    #[wasm_bindgen(method, catch, js_name = answerDialog)]
    async fn answer_dialog(this: &Host, accept: bool, prompt_text: Option<String>) -> Result<JsValue, JsValue>;

    #[wasm_bindgen(method, js_name = stopRequested)]
    fn stop_requested(this: &Host) -> bool;

    #[wasm_bindgen(method, js_name = stopSignal)]
    pub fn stop_signal(this: &Host) -> web_sys::AbortSignal;

    /// Stores the run record and shows it in the panel.
    #[wasm_bindgen(method)]
    fn report(this: &Host, run: JsValue);

    /// The tab the run acts on now: `{id, title, url}` (`url`: where the run started).
    #[wasm_bindgen(method)]
    fn tab(this: &Host) -> JsValue;

    /// What the run's tab reported since the last call: `[{level, source, text, url}]`
    /// (console errors and warnings, exceptions, failed requests).
    #[wasm_bindgen(method, js_name = takeConsole)]
    fn take_console(this: &Host) -> JsValue;

    /// Keeps a cache entry for later runs, as its record (`{key, updatedMs, entry}`, IndexedDB).
    #[wasm_bindgen(method)]
    fn remember(this: &Host, record: JsValue);
    /// Clicks with the file chooser intercepted and answers it with these paths.
    #[wasm_bindgen(method, catch, js_name = chooseFiles)]
    async fn choose_files(this: &Host, click: JsValue, files: JsValue) -> Result<JsValue, JsValue>;
    /// Goes somewhere with chrome.tabs (`Go`: `{kind: "address" | "back" | "forward" | "reload"
    /// | "openTab" | "switchTab" | "closeTab" | "closeOtherTab", url?, tab?}`); the next settle
    /// reports it.
    #[wasm_bindgen(method, catch)]
    async fn go(this: &Host, to: JsValue) -> Result<JsValue, JsValue>;
    /// Where a history step or reload (`Go`) would go: the address, or null when unknown.
    #[wasm_bindgen(method, catch, js_name = historyTarget)]
    async fn history_target(this: &Host, to: JsValue) -> Result<JsValue, JsValue>;
    /// The tabs of the run's window: `[{id, title, url, current}]`.
    #[wasm_bindgen(method, catch)]
    async fn tabs(this: &Host) -> Result<JsValue, JsValue>;
    /// Chooses option `index` of the select `{xpath}` in the page: `{text, value}`.
    #[wasm_bindgen(method, catch)]
    async fn choose(this: &Host, element: JsValue, index: u32) -> Result<JsValue, JsValue>;
    /// Runs a flow's allowed script in the page (CDP `Runtime.evaluate`, a promise awaited):
    /// `{value}`, its value as JSON (undefined: null); an exception rejects with its message.
    #[wasm_bindgen(method, catch)]
    async fn evaluate(this: &Host, code: &str) -> Result<JsValue, JsValue>;
    /// Keeps a screenshot with the run (IndexedDB) and returns its reference.
    #[wasm_bindgen(method, js_name = keepImage)]
    fn keep_image(this: &Host, data_url: &js_sys::JsString) -> String;
}

pub struct HostBrowser {
    pub host: Host,
    /// The run's limits: what the page reports to its console is screened with them too.
    limits: Limits,
}

impl HostBrowser {
    pub fn new(host: Host, limits: Limits) -> HostBrowser {
        HostBrowser { host, limits }
    }

    /// The tab the run acts on now, as the host sees it.
    pub fn tab(&self) -> TabFacts {
        from_js(self.host.tab(), "the tab").unwrap_or_default()
    }

    /// The run the loop ended with, on the tab it ended on, let go of: the changes the host's
    /// record takes (it holds what was reported).
    pub fn finished(&self, run: Run) -> RunChanges {
        let tab = self.tab();
        crate::runs::with_open(|open| open.finish(run, &tab))
    }
}

/// The host's rejection as a page error: its message, and its `code` where the glue names
/// the failure (`page_restricted`, `page_debugger`, `page_unreadable`).
fn page_error(e: JsValue) -> PageError {
    let message = e
        .dyn_ref::<js_sys::Error>()
        .map(|err| String::from(err.message()))
        .or_else(|| e.as_string())
        .unwrap_or_else(|| format!("{e:?}"));
    let code = js_sys::Reflect::get(&e, &"code".into()).ok().and_then(|c| c.as_string());
    PageError::from_host(code.as_deref(), message)
}

/// The outcome of a promise that has settled already, else `None` (the future stays usable).
fn settled(future: &mut JsFuture) -> Option<Result<JsValue, JsValue>> {
    let mut cx = std::task::Context::from_waker(std::task::Waker::noop());
    match std::future::Future::poll(std::pin::Pin::new(future), &mut cx) {
        std::task::Poll::Ready(outcome) => Some(outcome),
        std::task::Poll::Pending => None,
    }
}

/// A value that could not cross to or from the host.
fn crossing_error(f: sightline_web_common::Fault) -> PageError {
    PageError::Failed(f.message().to_string())
}
