//! The page itself, as the loop sees it: [`PageHost`] (read, input, settle, focus, reveal,
//! choose), what it observes and what happened while the page reacted.

use crate::action::InputCommand;
use crate::describe::Extraction;
use crate::prompt::Outcome;
use crate::vision::Capture;
use serde::{Deserialize, Serialize};

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Observation {
    /// The viewport as captured; the loop fits and marks it for the model (`vision`).
    pub capture: Option<Capture>,
    pub extraction: Extraction,
}

impl Observation {
    /// A tab whose page no extension may read (the browser's own pages). A start page (blank,
    /// new tab) is an empty page a run can go on from by opening an address; any other is
    /// refused with `reason`.
    pub fn of_unreadable(url: &str, title: &str, reason: &str) -> Result<Observation, PageError> {
        if !crate::vocab::address::is_start_page(url) {
            return Err(PageError::Restricted(format!("Sightline cannot work on {url}: {reason}.")));
        }
        let extraction = Extraction { url: url.to_string(), title: title.to_string(), ..Default::default() };
        Ok(Observation { capture: None, extraction })
    }

    /// Nothing of any site is shown: a run here starts by opening an address.
    pub fn is_start_page(&self) -> bool {
        crate::vocab::address::is_start_page(&self.extraction.url) && self.extraction.elements.is_empty()
    }
}

/// How much of the page a step reads. Each step reads what is in view (with a margin, see
/// `snapshot::IN_VIEW_MARGIN`): the model is shown no more, and on a long page the whole of it
/// costs many times a screenshot. The whole page is read only when a step needs what lies
/// beyond: an element a cache entry or a flow's XPath names that the view does not hold, or
/// the elements a model locating by the element list is shown beyond the view.
#[derive(Clone, Debug, Default, PartialEq)]
pub enum Reach {
    #[default]
    InView,
    /// The view, and these elements wherever they are: the whole page is read in the page, and
    /// only the view and the elements sought cross to the worker.
    Seeking(Vec<crate::describe::Sought>),
    /// For a model asked to locate an element by its description: it is shown elements out of
    /// view too (`prompt::tasks`, "Elsewhere on the page"). The whole page is read and described
    /// in the page, and only the view and the elements listed beyond it cross to the worker
    /// (`DescribeOptions::elsewhere`).
    Locating,
    /// What is in view, without a screenshot: a later action of a plan finding its element
    /// again after an earlier one sent input (`run_loop`, `reaim`). The host leaves out the
    /// capture; the reader gets the options of `InView`, so an unchanged page is answered
    /// from its kept reading.
    Aiming,
}

impl Reach {
    /// The reader's options for this reach (`DescribeOptions`), as the host passes them on.
    pub fn extract_options(&self) -> serde_json::Value {
        match self {
            Reach::InView => serde_json::json!({ "viewportOnly": true }),
            Reach::Seeking(sought) => serde_json::json!({ "viewportOnly": true, "sought": sought }),
            Reach::Locating => serde_json::json!({ "viewportOnly": false, "elsewhere": true }),
            Reach::Aiming => serde_json::json!({ "viewportOnly": true, "screenshot": false }),
        }
    }
}

/// A failure of the page side: the tab closed, the debugger was refused, the page cannot be
/// read, or the run's guard refused what was asked of the page.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum PageError {
    /// The host failed, saying why.
    #[error("{0}")]
    Failed(String),
    /// Sightline may not work on this page (the browser's own pages, the web store).
    #[error("{0}")]
    Restricted(String),
    /// The tab's debugger could not be attached (DevTools open on it, another debugger).
    #[error("{0}")]
    Debugger(String),
    /// The page could not be read.
    #[error("{0}")]
    Unreadable(String),
    /// A tab the run was told to switch to is not open (`open`: the ids of those that are).
    #[error("there is no tab {tab}; the open tabs are {open}")]
    NoSuchTab { tab: i64, open: String },
    /// The run was to close its tab, and no other tab it may go on in is open.
    #[error("this is the only tab the run may be on: close it yourself when the run is over")]
    OnlyTab,
    #[error(transparent)]
    Guard(#[from] crate::agent::guard_error::GuardError),
}

impl PageError {
    /// The host's failure by the code it gave (`page_restricted`, `page_debugger`,
    /// `page_unreadable`; anything else is a plain failure) and its message.
    pub fn from_host(code: Option<&str>, message: String) -> Self {
        match code {
            Some("page_restricted") => PageError::Restricted(message),
            Some("page_debugger") => PageError::Debugger(message),
            Some("page_unreadable") => PageError::Unreadable(message),
            _ => PageError::Failed(message),
        }
    }
}

#[allow(async_fn_in_trait)] // single-threaded wasm: no Send bound wanted
/// The page itself: reading it, sending it input, waiting for it, and what it holds.
pub trait PageHost {
    /// Reads the page (`reach`: how much of it) and captures the viewport.
    async fn observe(&mut self, reach: &Reach) -> Result<Observation, PageError>;
    async fn dispatch(&mut self, commands: &[InputCommand]) -> Result<(), PageError>;
    /// Waits until the page has reacted to the input sent since the last settle: DOM quiet, a
    /// navigation loaded, the network idle (each capped). Returns what happened meanwhile.
    async fn settle(&mut self) -> Result<Settled, PageError>;
    /// The element that has keyboard focus and the frame it is in, looked up through shadow
    /// roots and frames (same-process or not) where the page's scripts cannot answer for it;
    /// `selectors`: CSS selectors to test it against. Fails when the host cannot see where
    /// focus is. Asked right before a secret is typed (`guard`).
    async fn focused_field(&mut self, selectors: &[String]) -> Result<FocusedField, PageError>;
    /// Scrolls the page (and any scrolling ancestors) until the element is in view.
    async fn reveal(&mut self, element: &crate::describe::Element) -> Result<(), PageError>;
    /// Sends `click` with the browser's file chooser intercepted and answers the chooser the
    /// click opens with `files` (paths on the machine the browser runs on).
    async fn choose_files(&mut self, click: &[InputCommand], files: &[String]) -> Result<(), PageError>;
    /// What the browser reads for the element's [`Locators`](crate::describe::locators::Locators)
    /// (its role and name, attributes, and those of its document), right before a step acts on
    /// it. `None` where the host cannot read them (the exports then use XPaths).
    async fn locator_data(
        &mut self,
        element: &crate::describe::Element,
    ) -> Option<crate::describe::locators::LocatorData> {
        let _ = element;
        None
    }
    /// Chooses option `index` (of `select.options`) of a native `<select>` as a person's choice
    /// does: the option selected, then input and change fired. Returns the option chosen.
    async fn choose(&mut self, element: &crate::describe::Element, index: u32) -> Result<ChosenOption, PageError> {
        let _ = (element, index);
        Err(PageError::Failed("this browser cannot choose options".into()))
    }
    /// Runs `code` in the page's top document as Midscene's `evaluateJavaScript` does (an
    /// expression, a promise awaited) and returns its value as JSON. Only a flow's script the
    /// person allowed is run (`flow::scripts`); an exception is a `Failed` with its message.
    async fn evaluate(&mut self, code: &str) -> Result<serde_json::Value, PageError> {
        let _ = code;
        Err(PageError::Failed("this browser cannot run scripts".into()))
    }
}

/// The option a choice selected, as the page has it.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct ChosenOption {
    pub text: String,
    pub value: String,
}

/// What happened while the page reacted to input, as the host saw it. The loop decides from it
/// (a plan stops where the page changed under it) and words it for the person and the model.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct Settled {
    /// The address of the run's tab when the input began ("" when unknown).
    pub url_before: String,
    /// The address of the tab the run follows now.
    pub url: String,
    /// A new document was loaded in the tab's top frame (a link, a form, a reload), even at
    /// the same address.
    pub loaded: bool,
    /// The input opened a tab and the run follows it now; `url` is its address.
    pub followed_tab: bool,
    /// The dialogs Sightline answered meanwhile, oldest first.
    pub dialogs: Vec<AnsweredDialog>,
}

/// A JavaScript dialog the host answered.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct AnsweredDialog {
    /// `alert`, `confirm`, `prompt` or `beforeunload`.
    #[serde(rename = "type")]
    pub kind: String,
    pub message: String,
    pub accepted: bool,
}

/// The element with keyboard focus, as the host found it right before typing.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct FocusedField {
    /// The address of the frame whose document holds the focus.
    pub frame_url: String,
    /// That document's origin: an `about:srcdoc` or `about:blank` frame has its parent's,
    /// a sandboxed one `null`.
    pub frame_origin: String,
    /// Lower-case tag; `body` when nothing in particular has focus.
    pub tag: String,
    /// The attributes that say what the field is for (type, autocomplete, name, id,
    /// aria-label, placeholder), as the page set them.
    pub attributes: Vec<(String, String)>,
    /// Text can be typed into it: a text field, a text area, a content-editable element.
    pub editable: bool,
    /// For each selector asked about, in order: whether the element matches it.
    pub matches: Vec<bool>,
}

impl FocusedField {
    pub fn attr(&self, name: &str) -> Option<&str> {
        self.attributes.iter().find(|(k, _)| k == name).map(|(_, v)| v.as_str())
    }

    /// A password, one-time-code or card field, by the test that masks what is read.
    pub fn is_sensitive(&self) -> bool {
        self.editable && crate::describe::is_sensitive(|k| self.attr(k))
    }

    /// The field as a person would find it in the page's source: `input type="text" name="comment"`.
    pub fn summary(&self) -> String {
        let mut out = if self.tag.is_empty() { "nothing".to_string() } else { self.tag.clone() };
        for (k, v) in &self.attributes {
            out.push_str(&format!(" {k}=\"{}\"", crate::describe::truncate_chars(v, 40)));
        }
        out
    }
}

/// Characters of a dialog's message a note repeats.
const DIALOG_CHARS: usize = 80;

impl Settled {
    /// The page the plan was made on is gone: another document, another address (a change of
    /// the fragment alone stays on the page), or another tab.
    pub fn page_changed(&self) -> bool {
        let page = |url: &str| url.split('#').next().unwrap_or_default().to_string();
        self.followed_tab || self.loaded || (!self.url_before.is_empty() && page(&self.url) != page(&self.url_before))
    }

    /// What happened, for the step's note (the person reads it in the panel).
    pub fn note(&self) -> Option<String> {
        let text = self.outcome().plain();
        (!text.is_empty()).then_some(text)
    }

    /// What happened, for the model: our words, with the addresses and messages the page chose kept as page text.
    pub fn outcome(&self) -> Outcome {
        let mut out = Outcome::default();
        if self.followed_tab {
            out.add("followed the new tab it opened: ").page(&self.url);
        } else if self.page_changed() {
            let same = self.url == self.url_before;
            out.add(if same { "the page loaded again: " } else { "the page navigated to " }).page(&self.url);
        }
        for d in &self.dialogs {
            if !out.is_empty() {
                out.add("; ");
            }
            out.add(&format!("answered the page's {} dialog", d.kind));
            let message =
                crate::describe::truncate_chars(&crate::describe::collapse_whitespace(&d.message), DIALOG_CHARS);
            if !message.is_empty() {
                out.add(" \u{201c}").page(&message).add("\u{201d}");
            }
            out.add(if d.accepted { " with OK" } else { " with Cancel" });
        }
        out
    }
}
