//! What the model once found, kept to be used again without it: an element a description
//! located, and the rounds of a plan that carried out an instruction. Elements are kept by
//! XPath plus a fingerprint (tag and summary); a hit is used only when the element at that
//! XPath still matches the fingerprint, or one element alone matches it elsewhere (then the
//! entry is healed). Anything else is a miss, and the model is asked, as if there were no cache.

use crate::describe::{Element, Extraction};
use crate::vocab::actions::PlannedAction;
use crate::vocab::wire::internally_tagged;
use serde::{Deserialize, Serialize};

/// How an element is found again.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ElementKey {
    pub xpath: String,
    /// The XPath by text, where the element has one: survives inserted siblings.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub xpath_text: Option<String>,
    pub tag: String,
    /// `Element::summary()`: tag, label and kind in a line; what the person would recognise.
    pub summary: String,
    /// How test tools find it by what a person sees, where the step recorded that: what finds
    /// it when neither XPath nor the fingerprint does (a row inserted above, its text edited).
    /// (Boxed: most keys have none, and cache entries are many.)
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub locators: Option<Box<crate::describe::locators::Locators>>,
}

impl ElementKey {
    pub fn of(e: &Element) -> Self {
        ElementKey {
            xpath: e.xpath.clone(),
            xpath_text: e.xpath_text.clone(),
            tag: e.tag.clone(),
            summary: e.summary(),
            locators: None,
        }
    }

    /// The key as the page reader looks for it beyond the view: every element `resolve` may
    /// look at (at either XPath, or of the same tag and summary), so it decides as on the whole page.
    pub fn sought(&self) -> crate::describe::Sought {
        crate::describe::Sought {
            xpaths: std::iter::once(self.xpath.clone()).chain(self.xpath_text.clone()).collect(),
            tag: Some(self.tag.clone()),
            summary: Some(self.summary.clone()),
            words: self.locators.as_deref().map(crate::describe::by_locators::words).unwrap_or_default(),
        }
    }

    fn matches(&self, e: &Element) -> bool {
        e.tag == self.tag && e.summary() == self.summary
    }

    /// The element this key names on the page now, and whether the key had to move.
    pub fn resolve<'a>(&self, page: &'a Extraction) -> Option<(&'a Element, bool)> {
        let by_path =
            |path: &str| page.elements.iter().find(|e| e.xpath == path || e.xpath_text.as_deref() == Some(path));
        for path in std::iter::once(self.xpath.as_str()).chain(self.xpath_text.as_deref()) {
            if let Some(e) = by_path(path).filter(|e| self.matches(e)) {
                return Some((e, e.xpath != self.xpath));
            }
        }
        let mut same = page.elements.iter().filter(|e| self.matches(e));
        match (same.next(), same.next()) {
            (Some(e), None) => Some((e, true)),
            // Gone, or ambiguous: by what a person sees of it, else ask the model.
            _ => {
                let locators = self.locators.as_ref()?;
                crate::describe::by_locators::find(locators, &page.elements).map(|e| (e, true))
            }
        }
    }
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CachedAction {
    pub action: PlannedAction,
    /// The element the action was aimed at, when it had one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub target: Option<ElementKey>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CachedRound {
    pub actions: Vec<CachedAction>,
    pub done: bool,
}

internally_tagged! {
    tag = "kind", rename_all = "camelCase", name = "CacheEntry";
    #[derive(Clone, Debug, PartialEq, Serialize)]
    pub enum CacheEntry {
        /// A description (`aiTap "the Save button"`) and the element it named.
        #[serde(rename_all = "camelCase")]
        Locate { page: String, prompt: String, element: ElementKey, updated_ms: f64 },
        /// An instruction and the rounds that carried it out.
        #[serde(rename_all = "camelCase")]
        Plan { page: String, prompt: String, rounds: Vec<CachedRound>, updated_ms: f64 },
    }
}

impl CacheEntry {
    /// Entries with the same key replace each other.
    pub fn key(&self) -> (&'static str, &str, &str) {
        match self {
            CacheEntry::Locate { page, prompt, .. } => ("locate", page, prompt),
            CacheEntry::Plan { page, prompt, .. } => ("plan", page, prompt),
        }
    }
}

/// An entry as the worker stores it: one record per entry (IndexedDB), under the key entries
/// replace each other by, with the time the oldest are dropped by past [`MAX_ENTRIES`].
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct CacheRecord<'a> {
    /// `[kind, page, prompt]`, as [`CacheEntry::key`].
    pub key: [&'a str; 3],
    pub updated_ms: f64,
    pub entry: &'a CacheEntry,
}

impl CacheEntry {
    pub fn record(&self) -> CacheRecord<'_> {
        let (kind, page, prompt) = self.key();
        CacheRecord { key: [kind, page, prompt], updated_ms: updated(self), entry: self }
    }
}

/// Which page an entry belongs to: origin and path; the query and fragment vary too often.
pub fn page_key(url: &str) -> String {
    let end = url.find(['?', '#']).unwrap_or(url.len());
    url[..end].trim_end_matches('/').to_string()
}

/// Instructions that differ only in case and spacing are one entry.
pub fn prompt_key(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ").to_lowercase()
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(transparent)]
pub struct Cache(pub Vec<CacheEntry>);

/// Most entries kept; the oldest go first.
pub const MAX_ENTRIES: usize = 2000;

impl Cache {
    pub fn locate(&self, url: &str, prompt: &str) -> Option<&ElementKey> {
        let (page, prompt) = (page_key(url), prompt_key(prompt));
        self.0.iter().find_map(|e| match e {
            CacheEntry::Locate { page: p, prompt: q, element, .. } if *p == page && *q == prompt => Some(element),
            _ => None,
        })
    }

    pub fn plan(&self, url: &str, prompt: &str) -> Option<&[CachedRound]> {
        let (page, prompt) = (page_key(url), prompt_key(prompt));
        self.0.iter().find_map(|e| match e {
            CacheEntry::Plan { page: p, prompt: q, rounds, .. } if *p == page && *q == prompt => {
                Some(rounds.as_slice())
            }
            _ => None,
        })
    }

    /// Adds or replaces the entry with the same key.
    pub fn put(&mut self, entry: CacheEntry) {
        let key = entry.key();
        let key = (key.0, key.1.to_string(), key.2.to_string());
        self.0.retain(|e| {
            let k = e.key();
            (k.0, k.1, k.2) != (key.0, key.1.as_str(), key.2.as_str())
        });
        self.0.push(entry);
        if self.0.len() > MAX_ENTRIES {
            self.0.sort_by(|a, b| updated(a).total_cmp(&updated(b)));
            let extra = self.0.len() - MAX_ENTRIES;
            self.0.drain(..extra);
        }
    }

    /// Reads an exported cache, saying what is wrong with a bad one.
    pub fn import(json: &str) -> Result<Cache, NotACache> {
        crate::vocab::text::from_str(json).map_err(|e| NotACache(e.to_string()))
    }
}

/// A file that is no cache export, with serde's reason.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("not a Sightline cache export: {0}")]
pub struct NotACache(pub String);

fn updated(e: &CacheEntry) -> f64 {
    match e {
        CacheEntry::Locate { updated_ms, .. } | CacheEntry::Plan { updated_ms, .. } => *updated_ms,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::describe::{describe, DescribeOptions};
    use crate::snapshot::test_support::Builder;
    use crate::vocab::geometry::Rect;

    fn page(buttons: &[&str]) -> Extraction {
        let mut b = Builder::new();
        let body = b.el(None, "body", &[], Rect::new(0.0, 0.0, 1280.0, 800.0));
        for (i, label) in buttons.iter().enumerate() {
            let r = Rect::new(10.0, 10.0 + 40.0 * i as f64, 100.0, 30.0);
            let el = b.el(Some(body), "button", &[], r);
            b.text(el, label, r);
        }
        describe(&b.snap, &DescribeOptions::default())
    }

    #[test]
    fn keys_resolve_verify_and_heal() {
        let before = page(&["Save", "Cancel"]);
        let save = before.elements.iter().find(|e| e.content == "Save").unwrap();
        let key = ElementKey::of(save);
        assert_eq!(key.resolve(&before).map(|(e, moved)| (e.content.as_str(), moved)), Some(("Save", false)));
        // A button inserted before it: the XPath now names another button; the fingerprint finds Save.
        let after = page(&["New", "Save", "Cancel"]);
        let (e, moved) = key.resolve(&after).unwrap();
        assert_eq!((e.content.as_str(), moved), ("Save", true));
        // Gone, or two of them: a miss.
        assert!(key.resolve(&page(&["Cancel"])).is_none());
        assert!(key.resolve(&page(&["New", "Save", "Save"])).is_none());
    }

    #[test]
    fn entries_are_keyed_by_page_path_and_normalised_prompt() {
        let mut c = Cache::default();
        let p = page(&["Save"]);
        let key = ElementKey::of(&p.elements[0]);
        c.put(CacheEntry::Locate {
            page: page_key("https://x.test/a?q=1#top"),
            prompt: prompt_key("The  Save button"),
            element: key.clone(),
            updated_ms: 1.0,
        });
        assert!(c.locate("https://x.test/a?q=2", "the save   BUTTON").is_some());
        assert!(c.locate("https://x.test/b", "the save button").is_none());
        c.put(CacheEntry::Locate {
            page: page_key("https://x.test/a"),
            prompt: prompt_key("the save button"),
            element: key,
            updated_ms: 2.0,
        });
        assert_eq!(c.0.len(), 1, "the same key replaces");
        let json = serde_json::to_string(&c).unwrap();
        assert_eq!(Cache::import(&json).unwrap(), c);
        assert!(Cache::import("{\"nope\":1}").unwrap_err().to_string().contains("not a Sightline cache"));
    }

    #[test]
    fn a_record_carries_the_key_that_replaces_and_the_time_that_evicts() {
        let p = page(&["Save"]);
        let element = ElementKey::of(&p.elements[0]);
        let entry = CacheEntry::Locate {
            page: page_key("https://x.test/a"),
            prompt: prompt_key("the Save button"),
            element,
            updated_ms: 7.0,
        };
        let record = serde_json::to_value(entry.record()).unwrap();
        assert_eq!(record["key"], serde_json::json!(["locate", "https://x.test/a", "the save button"]));
        assert_eq!(record["updatedMs"], 7.0);
        assert_eq!(serde_json::from_value::<CacheEntry>(record["entry"].clone()).unwrap(), entry);
        let plan = CacheEntry::Plan {
            page: "https://x.test/a".into(),
            prompt: "the save button".into(),
            rounds: vec![],
            updated_ms: 8.0,
        };
        assert_ne!(
            serde_json::to_value(plan.record()).unwrap()["key"],
            record["key"],
            "a plan and a locate never replace each other"
        );
    }
}
