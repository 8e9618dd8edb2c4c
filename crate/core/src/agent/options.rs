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
    /// With `use_cache`: look entries up (off: Midscene's `write-only`).
    pub cache_reads: bool,
    /// With `use_cache`: keep what this run finds (off: Midscene's `read-only`).
    pub cache_writes: bool,
    /// The hash of the flow whose `javascript` steps may run (`flow::script_consent`): the
    /// person allowed that very file in the panel, or a runner on their machine runs their own
    /// file. Unset: a flow's scripts are refused (`script_not_allowed`).
    pub scripts_allowed: Option<String>,
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
    /// Check the goal on the page after the model says done (one short model call).
    pub check_success: bool,
    /// The person's instructions for sites (Settings → Site knowledge), given to the model on
    /// pages of a site that matches.
    pub knowledge: Vec<SiteKnowledge>,
    /// The person's background for this run (Midscene's `aiActionContext`).
    pub context: String,
    /// A separate planning model (Settings → Planning model): it decides each round's actions
    /// and describes their targets; the run's own model then only finds each target on the
    /// page (grounding). `None`: the run's model does both, as it always did.
    pub planner: Option<crate::model::ModelConfig>,
}

/// What the person wants the model to know on some sites.
#[derive(Clone, Debug, Default, PartialEq, Deserialize, serde::Serialize)]
#[serde(rename_all = "camelCase", default)]
pub struct SiteKnowledge {
    /// Host patterns, as allowed sites are written (`shop.example`, `*.example.com:8080`),
    /// separated by commas or spaces.
    pub sites: String,
    pub text: String,
}

/// Why a site's knowledge cannot be kept as written.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum KnowledgeError {
    #[error("site knowledge #{0}: name at least one site (a host such as shop.example)")]
    NoSite(usize),
    #[error("site knowledge #{number}: \"{pattern}\" is not a host pattern; write a host such as shop.example or *.example.com:8080")]
    BadPattern { number: usize, pattern: String },
    #[error("site knowledge #{0}: the text is empty")]
    NoText(usize),
    #[error("site knowledge #{number}: {chars} characters; keep it under {max} (it is sent with every step)")]
    TooLong { number: usize, chars: usize, max: usize },
}

/// Characters one site's knowledge may take: it goes into every planning call on that site.
pub const KNOWLEDGE_MAX_CHARS: usize = 2000;

impl SiteKnowledge {
    fn patterns(&self) -> impl Iterator<Item = &str> {
        self.sites.split(|c: char| c == ',' || c.is_whitespace()).filter(|p| !p.is_empty())
    }

    /// Whether it applies on the page at `url`.
    pub fn applies_to(&self, url: &str) -> bool {
        self.patterns().any(|p| guard::site_matches(url, p))
    }

    /// Checks entry `number` (from 1) as Settings saves it.
    pub fn validate(&self, number: usize) -> Result<(), KnowledgeError> {
        if self.patterns().next().is_none() {
            return Err(KnowledgeError::NoSite(number));
        }
        for p in self.patterns() {
            let host = p.split_once("://").map_or(p, |(_, h)| h);
            let host = host.strip_prefix("*.").unwrap_or(host).split('/').next().unwrap_or_default();
            let (name, port) = host.rsplit_once(':').unwrap_or((host, ""));
            let name_ok = !name.is_empty()
                && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '.')
                && !name.starts_with('.')
                && !name.ends_with('.');
            if !name_ok || !port.chars().all(|c| c.is_ascii_digit()) {
                return Err(KnowledgeError::BadPattern { number, pattern: p.to_string() });
            }
        }
        let chars = self.text.trim().chars().count();
        if chars == 0 {
            return Err(KnowledgeError::NoText(number));
        }
        if chars > KNOWLEDGE_MAX_CHARS {
            return Err(KnowledgeError::TooLong { number, chars, max: KNOWLEDGE_MAX_CHARS });
        }
        Ok(())
    }
}

/// Checks every entry; the first problem, numbered as the person sees the list.
pub fn validate_knowledge(entries: &[SiteKnowledge]) -> Result<(), KnowledgeError> {
    entries.iter().enumerate().try_for_each(|(i, k)| k.validate(i + 1))
}

/// Settings' site knowledge as the person writes it: entries separated by a blank line, each
/// its sites on the first line and what the model should know below. Checked entry by entry.
pub fn knowledge_from_text(text: &str) -> Result<Vec<SiteKnowledge>, KnowledgeError> {
    let mut entries = Vec::new();
    let mut current: Option<(String, Vec<&str>)> = None;
    for line in text.lines().map(str::trim_end).chain(std::iter::once("")) {
        if line.trim().is_empty() {
            if let Some((sites, lines)) = current.take() {
                entries.push(SiteKnowledge { sites, text: lines.join("\n").trim().to_string() });
            }
            continue;
        }
        match &mut current {
            None => current = Some((line.trim().trim_end_matches(':').to_string(), Vec::new())),
            Some((_, lines)) => lines.push(line),
        }
    }
    validate_knowledge(&entries)?;
    Ok(entries)
}

/// The entries written back as [`knowledge_from_text`] reads them.
pub fn knowledge_text(entries: &[SiteKnowledge]) -> String {
    entries.iter().map(|k| format!("{}\n{}", k.sites.trim(), k.text.trim())).collect::<Vec<_>>().join("\n\n")
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

    /// The person's knowledge for the page at `url`: the text of every entry whose sites match.
    pub fn knowledge_for(&self, url: &str) -> Vec<String> {
        self.knowledge.iter().filter(|k| k.applies_to(url)).map(|k| k.text.trim().to_string()).collect()
    }
}

impl RunOptions {
    /// Whether the run looks up what earlier runs found.
    pub fn reads_cache(&self) -> bool {
        self.use_cache && self.cache_reads
    }

    /// Whether the run keeps what it finds for later runs.
    pub fn writes_cache(&self) -> bool {
        self.use_cache && self.cache_writes
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
            cache_reads: true,
            cache_writes: true,
            scripts_allowed: None,
            flow_xpaths: true,
            allowed_sites: Vec::new(),
            secrets: Vec::new(),
            dialogs: None,
            typed_uploads: false,
            upload_dir: None,
            language: crate::i18n::Lang::En,
            check_success: true,
            knowledge: Vec::new(),
            context: String::new(),
            planner: None,
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

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(sites: &str, text: &str) -> SiteKnowledge {
        SiteKnowledge { sites: sites.into(), text: text.into() }
    }

    #[test]
    fn knowledge_applies_on_matching_hosts_only() {
        let options = RunOptions {
            knowledge: vec![entry("shop.test, *.example.com:8080", "Prices include tax."), entry("other.test", "no")],
            ..RunOptions::default()
        };
        assert_eq!(options.knowledge_for("http://shop.test/cart"), ["Prices include tax."]);
        assert_eq!(options.knowledge_for("http://a.example.com:8080/"), ["Prices include tax."]);
        assert!(options.knowledge_for("http://a.example.com:9090/").is_empty());
        assert!(options.knowledge_for("http://evilshop.test/").is_empty());
    }

    #[test]
    fn debug_output_never_shows_a_key_or_secret() {
        let planner = crate::model::ModelConfig {
            api_key: "sk-planner-7f3a91".into(),
            api_key_for: "https://api.openai.com/v1".into(),
            model: "gpt-4.1".into(),
            ..Default::default()
        };
        let secret = guard::Secret { name: "pin".into(), value: "4711-9902".into(), ..Default::default() };
        let options = RunOptions { planner: Some(planner.clone()), secrets: vec![secret], ..RunOptions::default() };
        for shown in [format!("{options:?}"), format!("{options:#?}")] {
            assert!(!shown.contains("sk-planner-7f3a91") && !shown.contains("4711-9902"), "{shown}");
            assert!(shown.contains("<redacted>") && shown.contains("gpt-4.1") && shown.contains("\"pin\""), "{shown}");
        }
        // What goes on the wire and what Settings' pasted block gave: hidden the same way.
        let request = crate::model::provider::HttpRequest {
            url: "https://api.openai.com/v1/chat/completions".into(),
            headers: crate::model::provider::headers(&planner),
            body: "{}".into(),
        };
        let shown = format!("{request:?}");
        assert!(!shown.contains("sk-planner-7f3a91") && shown.contains("Authorization"), "{shown}");
        let pasted = crate::model::env_block::EnvModel { api_key: Some("sk-pasted-0c1d".into()), ..Default::default() };
        assert!(!format!("{pasted:?}").contains("sk-pasted-0c1d"));
        // An empty key still reads as empty, so "no key" is visible.
        assert!(format!("{:?}", crate::model::ModelConfig::default()).contains("api_key: \"\""));
    }

    #[test]
    fn knowledge_is_checked_as_settings_save_it() {
        assert_eq!(validate_knowledge(&[entry("shop.test", "x")]), Ok(()));
        assert_eq!(validate_knowledge(&[entry("shop.test", "x"), entry(" , ", "y")]), Err(KnowledgeError::NoSite(2)));
        assert!(matches!(validate_knowledge(&[entry("shop test!", "x")]), Err(KnowledgeError::BadPattern { .. })));
        assert_eq!(validate_knowledge(&[entry("shop.test", "  ")]), Err(KnowledgeError::NoText(1)));
        let long = "x".repeat(KNOWLEDGE_MAX_CHARS + 1);
        assert!(matches!(validate_knowledge(&[entry("shop.test", &long)]), Err(KnowledgeError::TooLong { .. })));
        assert_eq!(validate_knowledge(&[entry("https://localhost:4000/path", "x")]), Ok(()));
    }

    #[test]
    fn knowledge_reads_and_writes_as_text() {
        let text = "shop.test, *.shop.test:\nPrices include tax.\nThe coupon box is below the total.\n\n\nother.test\nLog in first.\n";
        let entries = knowledge_from_text(text).unwrap();
        assert_eq!(
            entries,
            [
                entry("shop.test, *.shop.test", "Prices include tax.\nThe coupon box is below the total."),
                entry("other.test", "Log in first.")
            ]
        );
        assert_eq!(knowledge_from_text(&knowledge_text(&entries)).unwrap(), entries);
        assert_eq!(knowledge_from_text("shop.test\n\nother.test\nx"), Err(KnowledgeError::NoText(1)));
        assert_eq!(knowledge_from_text("  \n"), Ok(Vec::new()));
    }
}
