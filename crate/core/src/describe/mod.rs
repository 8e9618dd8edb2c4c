//! What the model sees of a page: classify a [`PageSnapshot`] into [`Element`]s and
//! serialize them as a description.
//!
//! Classes follow Midscene's extractor (seed 000): buttons, images, text, form items,
//! background containers, plus anchors. Elements off-screen are kept and marked, so the
//! description can say how much of the page lies above and below.

pub mod by_locators;
mod classify;
mod columns;
mod compact;
mod element;
pub mod locators;
pub mod midscene;
pub mod visibility;
pub mod xpath;

pub use classify::{classify, classify_given, content_is_cut, nodes_needing_rect};
pub use columns::{ColumnsError, ElementColumns};
pub use compact::compact_description;
pub use element::{
    collapse_whitespace, element_at, is_sensitive, is_sensitive_field, options_text, truncate_chars, Aim, Element,
    ElementKind, SECRET_MASK,
};

use crate::snapshot::{HitTest, NoHitTest, PageSnapshot};
use crate::vocab::geometry::Rect;
use serde::{Deserialize, Serialize};

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
    /// Read in view (`DescribeOptions::viewport_only`): elements beyond the viewport and its
    /// margin (`snapshot::IN_VIEW_MARGIN`) are not here, so none can be counted or matched.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub in_view_only: bool,
    /// Read for a locate (`DescribeOptions::elsewhere`): the description is the whole page's,
    /// but of the elements beyond the view only those a locate lists are here.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub elsewhere: bool,
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
    /// Whether every element of the page is here: a cached or named element not among them
    /// is not on the page.
    pub fn holds_whole_page(&self) -> bool {
        !self.in_view_only && !self.elsewhere
    }

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
            // A locate's reading holds too few of the elements beyond the view to count them.
            self.description = compact::compact_description_of(
                &self.title,
                &self.url,
                &self.viewport,
                &self.elements,
                self.in_view_only || self.elsewhere,
            );
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

/// An element a step looks for beyond the view (`DescribeOptions::sought`): at one of its
/// XPaths (`[1]` steps written or left out, either form), by its tag and summary
/// (`Element::summary`), or by the words its recorded locators name it by.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct Sought {
    pub xpaths: Vec<String>,
    /// With `summary`: any element of this tag and summary.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tag: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub summary: Option<String>,
    /// Any element whose text or naming attributes hold one of these words, lower case (what a
    /// recorded element's locators name it by, `by_locators::words`; the worker then picks by them).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub words: Vec<String>,
}

impl Sought {
    pub fn matches(&self, e: &Element) -> bool {
        self.xpaths.iter().any(|x| xpath::same_xpath(&e.xpath, x) || e.xpath_text.as_deref() == Some(x))
            || matches!((&self.tag, &self.summary), (Some(t), Some(s)) if e.tag == *t && e.summary() == *s)
            || (!self.words.is_empty() && by_locators::holds_any(e, &self.words))
    }
}

#[derive(Clone, Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct DescribeOptions {
    pub format: Format,
    /// Read only what is in view, with a margin (`Viewport::reach_rect`): the reader skips
    /// subtrees lying wholly beyond it, and elements outside it are left out.
    pub viewport_only: bool,
    /// With `viewport_only`: elements kept wherever they are on the page. The whole page is
    /// read, and only the view and these are kept (what crosses to the worker stays small).
    pub sought: Vec<Sought>,
    /// For a locate: the whole page is read and described (what lies above and below is
    /// counted), and the elements kept are the view's (as `viewport_only` keeps them), the
    /// sought ones and the first [`LISTED_ELSEWHERE`] beyond the view a locate lists
    /// (`Element::listed_elsewhere`). What crosses to the worker is what the step shows.
    pub elsewhere: bool,
}

/// How many elements beyond the view a locate shows the model (`prompt::tasks`): a long
/// page's every element would cost more tokens than the search is worth.
pub const LISTED_ELSEWHERE: usize = 150;

impl DescribeOptions {
    /// Whether the reader may skip subtrees lying beyond the view's reach.
    pub fn skips_beyond_view(&self) -> bool {
        self.viewport_only && self.sought.is_empty() && !self.elsewhere
    }

    /// Whether an element stays in a reading that leaves out what lies beyond the view.
    fn keeps_near_view(&self, e: &Element, reach: &Rect) -> bool {
        e.in_viewport > 0.0 || e.rect.meets(reach) || self.sought.iter().any(|s| s.matches(e))
    }
}

/// Classify and serialize without hit-testing.
pub fn describe(snapshot: &PageSnapshot, opts: &DescribeOptions) -> Extraction {
    describe_with(snapshot, opts, &mut NoHitTest)
}

/// Classify, mark covered elements, serialize: the whole of this room in one call.
pub fn describe_with(snapshot: &PageSnapshot, opts: &DescribeOptions, hits: &mut dyn HitTest) -> Extraction {
    describe_given(snapshot, &snapshot.has_base_content(), opts, hits)
}

/// [`describe_with`] for a reader that worked out the snapshot's `has_base_content` already
/// (for its own passes, with no visibility changed since): a whole-page pass made once per read.
pub fn describe_given(
    snapshot: &PageSnapshot,
    base_content: &[bool],
    opts: &DescribeOptions,
    hits: &mut dyn HitTest,
) -> Extraction {
    let mut elements = classify_given(snapshot, base_content);
    let reach = snapshot.viewport.reach_rect();
    if opts.viewport_only {
        elements.retain(|e| opts.keeps_near_view(e, &reach));
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
        Format::Compact => (compact_description(snapshot, &elements, opts.viewport_only), None),
        Format::Midscene => {
            let shown: Vec<Element> = elements.iter().filter(|e| !e.occluded).cloned().collect();
            let tree = midscene::tree_of(snapshot, &shown);
            (midscene::description_of_tree(&tree, None, false, true), Some(tree))
        }
    };
    if opts.elsewhere {
        // After the description, which counts what lies beyond the view.
        let mut listed = 0;
        elements.retain(|e| {
            let shown_elsewhere = listed < LISTED_ELSEWHERE && e.listed_elsewhere();
            listed += usize::from(shown_elsewhere);
            shown_elsewhere || opts.keeps_near_view(e, &reach)
        });
    }
    Extraction {
        description,
        elements,
        url: snapshot.url.clone(),
        title: snapshot.title.clone(),
        viewport: snapshot.viewport.clone(),
        tree,
        in_view_only: opts.viewport_only,
        elsewhere: opts.elsewhere,
        frames,
    }
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
        assert!(
            sensitive(&[("id", "otpCode")]) && sensitive(&[("name", "otp")]) && sensitive(&[("name", "card_cvv2")])
        );
        assert!(
            sensitive(&[("placeholder", "One-time code")]) && sensitive(&[("aria-label", "\u{9a8c}\u{8bc1}\u{7801}")])
        );
        assert!(!sensitive(&[("name", "comment"), ("autocomplete", "off")]));
        assert!(
            !sensitive(&[("name", "footprint")]) && !sensitive(&[("id", "laptop-search")]),
            "a short word inside another is not it"
        );
        assert!(!sensitive(&[("autocomplete", "username")]));
    }

    #[test]
    fn whitespace_collapses() {
        assert_eq!(collapse_whitespace("  a \n\t b  "), "a b");
    }
}
