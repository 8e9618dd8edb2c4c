//! How a run may go: its limits, what the model is shown, the cache, sites, secrets, dialogs.

use super::browser::Browser;
use super::guard;
use super::replay::cache::Cache;
use crate::describe::Extraction;
use crate::model::PriceTable;
use crate::prompt::Memory;
use crate::vision::ImageOptions;
use crate::vocab::tasks::DialogPolicy;
use serde::Deserialize;

#[derive(Clone, Debug, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct RunOptions {
    /// Model calls allowed for one instruction.
    pub max_rounds: u32,
    /// Unreadable replies or failed actions tolerated in a row before giving up.
    pub max_failures: u32,
    pub include_screenshot: bool,
    /// Send the element list. Off (with a screenshot): the model reads element numbers from
    /// the screenshot's markers alone, for fewer tokens.
    pub include_description: bool,
    /// How screenshots are sized and encoded for the model.
    pub image: ImageOptions,
    /// Prices per million tokens, for the run's cost.
    pub prices: PriceTable,
    /// Screenshots a grounding model sees per call (the current one and recent ones).
    pub keep_screenshots: usize,
    /// Estimated tokens the rounds so far may take in a prompt; the oldest go first.
    pub history_tokens: u64,
    /// Use what earlier runs found (and keep what this one finds) instead of asking again.
    pub use_cache: bool,
    /// The cache entries the host has (usually those of this page).
    pub cache: Cache,
    /// Try the XPaths a flow file gives before the cache and the model. Off: every element
    /// is found by its description (a live run of a recorded flow).
    pub flow_xpaths: bool,
    /// Sites the run may read and act on (see `guard::site_matches`); empty: any.
    pub allowed_sites: Vec<String>,
    /// Values the model names as `<secret>name</secret>` and never sees.
    pub secrets: Vec<guard::Secret>,
    /// How the page's dialogs during actions are answered; unset: as a flow file says, else ask.
    pub dialogs: Option<DialogPolicy>,
    /// The person (the panel's upload form) or their automation gave the upload paths
    /// directly. Otherwise they came from a file and need the person's Allow (`uploads`).
    pub typed_uploads: bool,
    /// A folder the person named: uploads from a file lying inside it need no Allow.
    pub upload_dir: Option<String>,
    /// The person's language: the run's captions, notes and errors are written in it.
    pub language: crate::i18n::Lang,
}

impl RunOptions {
    /// `browser` held to this run's allowed sites and secrets.
    pub fn guard<'a, B: Browser>(&self, browser: &'a mut B) -> guard::Guarded<'a, B> {
        guard::Guarded::new(browser, self.limits())
    }

    pub fn limits(&self) -> guard::Limits {
        guard::Limits::new(&self.allowed_sites, &self.secrets)
    }

    pub fn dialog_policy(&self) -> DialogPolicy {
        self.dialogs.unwrap_or_default()
    }
}

impl Default for RunOptions {
    fn default() -> Self {
        let memory = Memory::default();
        RunOptions {
            max_rounds: 10,
            max_failures: 2,
            include_screenshot: true,
            include_description: true,
            image: ImageOptions::default(),
            prices: PriceTable::default(),
            keep_screenshots: memory.keep_screenshots,
            history_tokens: memory.history_tokens,
            use_cache: true,
            cache: Cache::default(),
            flow_xpaths: true,
            allowed_sites: Vec::new(),
            secrets: Vec::new(),
            dialogs: None,
            typed_uploads: false,
            upload_dir: None,
            language: crate::i18n::Lang::En,
        }
    }
}

/// Stands in for the element list when it is switched off.
pub const MARKERS_ONLY: &str = "(The element list is not sent. Each element on the screenshot carries its number on a marker: use those numbers.)\n";

/// The page as the prompt shows it: whole, or, with the description off and a screenshot
/// to read markers from, its address and title only.
pub(crate) fn prompt_page<'a>(
    extraction: &'a Extraction,
    options: &RunOptions,
    has_image: bool,
) -> std::borrow::Cow<'a, Extraction> {
    if options.include_description || !has_image {
        return std::borrow::Cow::Borrowed(extraction);
    }
    std::borrow::Cow::Owned(Extraction {
        description: MARKERS_ONLY.into(),
        url: extraction.url.clone(),
        title: extraction.title.clone(),
        viewport: extraction.viewport.clone(),
        ..Extraction::default()
    })
}
