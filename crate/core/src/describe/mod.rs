//! What the model sees of a page: classify a [`PageSnapshot`] into [`Element`]s and
//! serialize them as a description.
//!
//! Classes follow Midscene's extractor (seed 000): buttons, images, text, form items,
//! background containers, plus anchors. Elements off-screen are kept and marked, so the
//! description can say how much of the page lies above and below.

mod classify;
mod compact;
pub mod midscene;
pub mod visibility;
pub mod xpath;

pub use classify::{classify, nodes_needing_rect};
pub use compact::compact_description;

use crate::geometry::Rect;
use crate::snapshot::PageSnapshot;
use serde::{Deserialize, Serialize};

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum ElementKind {
    Button,
    Img,
    Text,
    FormItem,
    Container,
    Anchor,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Element {
    /// The number the model names and the screenshot marker shows; 1-based, in page order.
    pub index: u32,
    /// Stable across extractions of an unchanged element.
    pub id: String,
    pub kind: ElementKind,
    /// Lower-case tag of the element (for text: of the element holding the text).
    pub tag: String,
    /// Selected attributes, values shortened.
    pub attributes: Vec<(String, String)>,
    /// Visible text, a form control's live value, or an image's alternative text.
    pub content: String,
    /// Viewport CSS pixels.
    pub rect: Rect,
    pub center: (f64, f64),
    /// Fraction of the element a person can see in the viewport, 0..=1: inside the viewport
    /// and not clipped away by an ancestor.
    pub in_viewport: f64,
    /// The part of `rect` its ancestors do not clip (it may reach outside the viewport),
    /// zero-size when scrolled out of a scrollable ancestor; absent when nothing is clipped.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub visible_rect: Option<Rect>,
    /// Something else is on top at the middle of its visible part (a dialog, an overlay).
    /// Covered elements stay here but are left out of the descriptions.
    #[serde(default)]
    pub occluded: bool,
    /// Order-sensitive XPath; ` >>> ` joins the segments of shadow roots and frames.
    pub xpath: String,
    /// Text-based XPath, where the element's text names it alone.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub xpath_text: Option<String>,
    /// Index of the source node in the snapshot.
    pub node: u32,
    /// The origin of the frame it is in, when that is not the page's own document
    /// (`snapshot::frame_origin`); what the run's site checks read for it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub frame_origin: Option<String>,
}

impl Element {
    /// Listed for the model (compact description, screenshot markers): in view, not covered,
    /// and not a bare separator such as `|` or `»` (nothing to act on, and many per page).
    pub fn is_listed(&self) -> bool {
        let separator = self.kind == ElementKind::Text && !self.content.chars().any(char::is_alphanumeric);
        self.in_viewport > 0.0 && !self.occluded && !separator
    }

    /// It shows a sensitive field's masked value or a secret's placeholder: screenshots
    /// paint it over.
    pub fn holds_secret(&self) -> bool {
        self.content == SECRET_MASK || self.content.contains("<secret>")
    }

    /// The part of the element its ancestors let show.
    pub fn shown_rect(&self) -> Rect {
        self.visible_rect.unwrap_or(self.rect)
    }

    pub fn attr(&self, name: &str) -> Option<&str> {
        self.attributes.iter().find(|(k, _)| k == name).map(|(_, v)| v.as_str())
    }

    /// A short phrase naming the element for logs and the panel: `input "What needs…"`.
    /// A form field is named by its label attributes before its value: the value changes as
    /// it is filled (and a password's is masked), the name does not.
    pub fn summary(&self) -> String {
        const NAMING: [&str; 5] = ["aria-label", "placeholder", "title", "name", "alt"];
        let named = || NAMING.iter().find_map(|k| self.attr(k).filter(|v| !v.trim().is_empty()));
        let label = if self.kind == ElementKind::FormItem {
            named().or_else(|| self.attr("id")).or_else(|| Some(self.content.as_str()).filter(|c| !c.is_empty())).unwrap_or("")
        } else if !self.content.is_empty() {
            self.content.as_str()
        } else {
            named().unwrap_or("")
        };
        let label = crate::describe::truncate_chars(label, 40);
        let tag = match self.attr("type").map(str::to_ascii_lowercase).as_deref() {
            Some(kind @ ("checkbox" | "radio")) if self.tag == "input" => kind.to_string(),
            _ => self.tag.clone(),
        };
        if label.is_empty() {
            format!("{tag} #{}", self.index)
        } else {
            format!("{tag} \"{label}\"")
        }
    }
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Extraction {
    pub description: String,
    pub elements: Vec<Element>,
    pub url: String,
    pub title: String,
    pub viewport: crate::snapshot::Viewport,
    /// The element tree in Midscene's shape, present with the `midscene` format.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tree: Option<midscene::MsTree>,
    /// The frames the page shows, with the origin of each one's document.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub frames: Vec<FrameArea>,
}

/// Where a frame shows on the page, and whose it is.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct FrameArea {
    pub origin: String,
    /// The `<iframe>`'s box, viewport CSS px.
    pub rect: Rect,
    /// Left out of what a run reads (a site it may not use): screenshots paint it over.
    #[serde(default)]
    pub withheld: bool,
}

impl Extraction {
    /// Leaves out the frames `keep` refuses (by origin): their elements are gone from the list
    /// and the description, and screenshots paint them over. Returns how many elements went.
    pub fn withhold_frames(&mut self, keep: impl Fn(&str) -> bool) -> usize {
        let before = self.elements.len();
        self.elements.retain(|e| e.frame_origin.as_deref().is_none_or(&keep));
        let mut any = before != self.elements.len();
        for f in &mut self.frames {
            f.withheld = !keep(&f.origin);
            any |= f.withheld;
        }
        if any {
            // Runs read the compact description; a Midscene one cannot be rebuilt without the page.
            self.description = compact::compact_description_of(&self.title, &self.url, &self.viewport, &self.elements);
            self.tree = None;
        }
        before - self.elements.len()
    }
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Format {
    /// Ours: one line per element, numbered like the screenshot markers.
    #[default]
    Compact,
    /// Byte-identical to Midscene's `descriptionOfTree` for the same tree.
    Midscene,
}

#[derive(Clone, Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct DescribeOptions {
    pub format: Format,
    /// Leave out elements entirely outside the viewport.
    pub viewport_only: bool,
}

/// Answers "what is on top at this point?" for a page reader: the live DOM's
/// `elementFromPoint`, or paint order in a CDP snapshot.
pub trait HitTest {
    /// True when the topmost element at `point` (viewport CSS px) is neither snapshot node
    /// `node` nor one of its ancestors or descendants.
    fn covered(&mut self, node: u32, point: (f64, f64)) -> bool;
}

/// For snapshots with no page behind them (tests, stored snapshots): nothing is covered.
pub struct NoHitTest;

impl HitTest for NoHitTest {
    fn covered(&mut self, _: u32, _: (f64, f64)) -> bool {
        false
    }
}

/// Shown instead of the value of a sensitive field: the model, records and exports never see it.
pub const SECRET_MASK: &str = "\u{2022}\u{2022}\u{2022}\u{2022}\u{2022}\u{2022}";

/// Fields whose value must not leave the page: passwords, one-time codes, card security codes
/// and numbers, named so by their type, their `autocomplete` token, or their name, id, label or
/// placeholder. The same test masks what is read and recorded, and decides which fields a
/// secret may be typed into (`agent::guard`), so a recorded secret replays where it came from.
pub fn is_sensitive_field(node: &crate::snapshot::SnapNode) -> bool {
    is_sensitive(|k| node.attr(k))
}

/// `autocomplete` tokens (HTML autofill) of the fields [`is_sensitive`] means.
const SENSITIVE_AUTOFILL: [&str; 5] = ["current-password", "new-password", "one-time-code", "cc-csc", "cc-number"];

/// `is_sensitive_field` over any attribute lookup (a snapshot node, a described element, the
/// field that has focus).
pub fn is_sensitive<'a>(attr: impl Fn(&str) -> Option<&'a str>) -> bool {
    if attr("type").is_some_and(|t| t.trim().eq_ignore_ascii_case("password")) {
        return true;
    }
    if attr("autocomplete").is_some_and(|a| a.split_ascii_whitespace().any(|t| SENSITIVE_AUTOFILL.iter().any(|w| t.eq_ignore_ascii_case(w)))) {
        return true;
    }
    // Long words are found anywhere in a name ("user_password2"); short ones only as a word of
    // it ("otp", "otp-code", "otpCode", "cvv2"), so "footprint" or "laptop" is no one-time code.
    const WORDS: [&str; 9] = ["password", "passwd", "passcode", "one-time", "onetime", "card-number", "cardnumber", "\u{5bc6}\u{7801}", "\u{9a8c}\u{8bc1}\u{7801}"];
    const SHORT: [&str; 5] = ["pwd", "otp", "cvv", "cvc", "csc"];
    ["name", "id", "aria-label", "placeholder"].iter().filter_map(|k| attr(k)).any(|v| {
        let words = split_words(v);
        let joined = words.join("-");
        WORDS.iter().any(|w| joined.contains(w)) || words.iter().any(|word| SHORT.iter().any(|w| word.strip_prefix(w).is_some_and(|rest| rest.bytes().all(|b| b.is_ascii_digit()))))
    })
}

/// The words of a name, lower-cased: split at anything not a letter or digit and where a
/// lower-case letter meets an upper-case one (`otpCode` → `otp`, `code`).
fn split_words(name: &str) -> Vec<String> {
    let mut words = vec![String::new()];
    let mut prev_lower = false;
    for c in name.chars() {
        if !c.is_alphanumeric() {
            words.push(String::new());
            prev_lower = false;
            continue;
        }
        if c.is_uppercase() && prev_lower {
            words.push(String::new());
        }
        prev_lower = c.is_lowercase();
        words.last_mut().expect("one word at least").extend(c.to_lowercase());
    }
    words.retain(|w| !w.is_empty());
    words
}

/// The element a person pointed at: the smallest uncovered element whose visible box holds
/// the point (viewport CSS px).
pub fn element_at(elements: &[Element], x: f64, y: f64) -> Option<&Element> {
    elements
        .iter()
        .filter(|e| !e.occluded && e.in_viewport > 0.0)
        .filter(|e| {
            let r = e.shown_rect();
            x >= r.x && x <= r.x + r.width && y >= r.y && y <= r.y + r.height
        })
        .min_by(|a, b| (a.rect.width * a.rect.height).total_cmp(&(b.rect.width * b.rect.height)))
}

/// Classify and serialize without hit-testing.
pub fn describe(snapshot: &PageSnapshot, opts: &DescribeOptions) -> Extraction {
    describe_with(snapshot, opts, &mut NoHitTest)
}

/// Classify, mark covered elements, serialize: the whole of this room in one call.
pub fn describe_with(snapshot: &PageSnapshot, opts: &DescribeOptions, hits: &mut dyn HitTest) -> Extraction {
    let mut elements = classify(snapshot);
    if opts.viewport_only {
        elements.retain(|e| e.in_viewport > 0.0);
    }
    let viewport = snapshot.viewport.rect();
    for e in &mut elements {
        if let Some(point) = visibility::hit_point(&e.shown_rect(), &viewport) {
            e.occluded = hits.covered(e.node, point);
        }
    }
    let frames = snapshot
        .nodes
        .iter()
        .filter(|n| n.enters == Some(crate::snapshot::TreeKind::Frame))
        .filter_map(|n| {
            let rect = snapshot.nodes.get(n.parent? as usize)?.rect?;
            Some(FrameArea { origin: n.origin.clone().unwrap_or_else(|| "null".into()), rect, withheld: false })
        })
        .collect();
    let (description, tree) = match opts.format {
        Format::Compact => (compact_description(snapshot, &elements), None),
        Format::Midscene => {
            let shown: Vec<Element> = elements.iter().filter(|e| !e.occluded).cloned().collect();
            let tree = midscene::tree_of(snapshot, &shown);
            (midscene::description_of_tree(&tree, None, false, true), Some(tree))
        }
    };
    Extraction {
        description,
        elements,
        url: snapshot.url.clone(),
        title: snapshot.title.clone(),
        viewport: snapshot.viewport.clone(),
        tree,
        frames,
    }
}

/// Cut to at most `max` chars on a char boundary (CJK-safe), marking the cut with `…`.
pub fn truncate_chars(s: &str, max: usize) -> String {
    match s.char_indices().nth(max) {
        None => s.to_string(),
        Some((i, _)) => format!("{}…", &s[..i]),
    }
}

/// Collapse runs of whitespace to single spaces and trim.
pub fn collapse_whitespace(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn truncation_is_char_safe() {
        assert_eq!(truncate_chars("你好世界", 2), "你好…");
        assert_eq!(truncate_chars("abc", 3), "abc");
        assert_eq!(truncate_chars("", 0), "");
    }

    #[test]
    fn sensitive_fields_by_type_autofill_token_or_name() {
        let sensitive = |attrs: &[(&str, &str)]| is_sensitive(|k| attrs.iter().find(|(n, _)| *n == k).map(|(_, v)| *v));
        assert!(sensitive(&[("type", "Password")]));
        assert!(sensitive(&[("autocomplete", "section-login current-password")]));
        assert!(sensitive(&[("autocomplete", "one-time-code"), ("type", "text")]));
        assert!(sensitive(&[("autocomplete", "billing cc-csc")]));
        assert!(sensitive(&[("name", "user_password2")]));
        assert!(sensitive(&[("id", "otpCode")]) && sensitive(&[("name", "otp")]) && sensitive(&[("name", "card_cvv2")]));
        assert!(sensitive(&[("placeholder", "One-time code")]) && sensitive(&[("aria-label", "\u{9a8c}\u{8bc1}\u{7801}")]));
        assert!(!sensitive(&[("name", "comment"), ("autocomplete", "off")]));
        assert!(!sensitive(&[("name", "footprint")]) && !sensitive(&[("id", "laptop-search")]), "a short word inside another is not it");
        assert!(!sensitive(&[("autocomplete", "username")]));
    }

    #[test]
    fn whitespace_collapses() {
        assert_eq!(collapse_whitespace("  a \n\t b  "), "a b");
    }
}
