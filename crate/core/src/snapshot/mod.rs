//! A page as plain data: what a walker saw, before any judgement about it.
//!
//! Two sources fill the same [`PageSnapshot`], so classification exists once:
//! the content script's DOM walker (crate/reader, `dom.rs`: live DOM through web-sys) and the service
//! worker's CDP path ([`cdp::decode`], `DOMSnapshot.captureSnapshot`), used where the page's
//! CSP refuses WebAssembly in content scripts.

pub mod cdp;

use crate::vocab::geometry::Rect;
use crate::vocab::wire::internally_tagged;
use serde::{Deserialize, Serialize};

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Viewport {
    /// CSS pixels.
    pub width: f64,
    pub height: f64,
    pub device_pixel_ratio: f64,
    pub scroll_x: f64,
    pub scroll_y: f64,
    /// Size of the whole scrollable document, CSS pixels.
    pub document_width: f64,
    pub document_height: f64,
}

/// How far past the viewport an in-view read looks, in viewports each way: the next screenful
/// (a target just out of view, a cached element below the fold) is found without reading the
/// whole page.
pub const IN_VIEW_MARGIN: f64 = 1.0;

impl Viewport {
    pub fn rect(&self) -> Rect {
        Rect::new(0.0, 0.0, self.width, self.height)
    }

    /// The viewport with `IN_VIEW_MARGIN` around it: what an in-view read covers.
    pub fn reach_rect(&self) -> Rect {
        let (mx, my) = (self.width * IN_VIEW_MARGIN, self.height * IN_VIEW_MARGIN);
        Rect::new(-mx, -my, self.width + 2.0 * mx, self.height + 2.0 * my)
    }
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PageSnapshot {
    pub url: String,
    pub title: String,
    pub viewport: Viewport,
    /// Pre-order: every node's parent comes before it.
    pub nodes: Vec<SnapNode>,
    /// Set when the reading left parts of the page unread (an in-view walk that skipped what lies
    /// beyond the view): no text can be known unique from its nodes, so no text path is offered.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub partial: bool,
    /// The page's own word on ids, where the reader asked it (each tree's id index): the nodes
    /// whose id another element of their tree also has, read or not (hidden, in `<head>`,
    /// beyond the view). Paths anchor on the other ids. None where nobody asked (CDP's snapshot,
    /// which holds the hidden elements too): ids are then counted among the nodes and
    /// `skipped_ids`, per tree.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub shared_ids: Option<Vec<u32>>,
    /// Where ids are counted among the nodes (`shared_ids` None): the ids of the elements the
    /// reading passed over without a node ([`is_skipped_tag`]: a `<script id>`, `<style id>`,
    /// `<template id>`, the elements of `<head>`), which XPath's `//*[@id=…]` finds all the same.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub skipped_ids: Vec<SkippedId>,
}

/// The id of an element a reading skipped ([`PageSnapshot::skipped_ids`]), and the tree it counts in.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SkippedId {
    pub id: String,
    /// The node the skipped element hangs from (its parent, the host of the shadow root or the
    /// `<iframe>` of the document it is a top-level node of); None at the top of the page.
    pub parent: Option<u32>,
    /// A top-level node of a tree entered there (a shadow root's, a frame's document's): it
    /// counts in that tree, as [`SnapNode::enters`] says of a node.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub tree_top: bool,
}

internally_tagged! {
    tag = "kind", rename_all = "camelCase", name = "NodeData";
    #[derive(Clone, Debug, PartialEq, Serialize)]
    pub enum NodeData {
        Element {
            /// Lower-case tag name.
            tag: String,
            attributes: Vec<(String, String)>,
        },
        Text {
            text: String,
        },
    }
}

/// Live state of a form control, which attributes do not show.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct FormState {
    pub value: Option<String>,
    pub checked: Option<bool>,
    /// For `<select>`: the text of the selected option.
    pub selected_text: Option<String>,
    /// For `<select>`: the text of every option, in order (`select.options`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub options: Vec<String>,
}

/// Computed-style facts, read only for nodes whose classification depends on them.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct StyleFacts {
    pub has_background_color: bool,
    pub has_background_image: bool,
    /// The font is an icon font: its glyphs are pictures (`<i class="fa fa-home">`).
    #[serde(default)]
    pub icon_font: bool,
}

/// Font families whose glyphs are icons. Midscene checks for `iconfont` only.
const ICON_FONTS: [&str; 11] = [
    "iconfont",
    "icomoon",
    "fontawesome",
    "font awesome",
    "material icons",
    "material symbols",
    "glyphicons",
    "bootstrap-icons",
    "remixicon",
    "ionicons",
    "feather",
];

impl StyleFacts {
    /// From the computed `background-color`, `background-image` and `font-family` values, as
    /// either page reader gets them.
    pub fn from_computed(background_color: &str, background_image: &str, font_family: &str) -> Self {
        let font = font_family.to_ascii_lowercase();
        StyleFacts {
            has_background_color: !background_color.is_empty() && !is_transparent(background_color),
            has_background_image: !background_image.is_empty() && background_image != "none",
            icon_font: ICON_FONTS.iter().any(|f| font.contains(f)),
        }
    }
}

/// True for `transparent` and any colour with zero alpha.
pub fn is_transparent(color: &str) -> bool {
    let c = color.trim();
    if c == "transparent" {
        return true;
    }
    if let Some(inner) = c.strip_prefix("rgba(").and_then(|r| r.strip_suffix(')')) {
        return inner.rsplit(',').next().and_then(|a| a.trim().parse::<f64>().ok()).is_some_and(|a| a <= 0.0);
    }
    false
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SnapNode {
    pub parent: Option<u32>,
    #[serde(flatten)]
    pub data: NodeData,
    /// Border box in viewport CSS pixels. `None` when the node has no layout box, or when a
    /// walker did not measure it because classification never reads it
    /// (see `describe::nodes_needing_rect`).
    pub rect: Option<Rect>,
    /// Rendered and not hidden by `display`, `visibility` or `opacity`.
    pub visible: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub form: Option<FormState>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub style: Option<StyleFacts>,
    /// 1-based position among the DOM siblings with the same XPath step (same tag, or
    /// `text()`), counting siblings a walker did not record (whitespace text, hidden or
    /// skipped elements), so XPaths built from the snapshot resolve in the page.
    #[serde(default)]
    pub position: u32,
    /// Set where a new DOM tree begins: on the children of a shadow root (whose parent is the
    /// host) and on the root element of a frame's document (whose parent is the `<iframe>`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub enters: Option<TreeKind>,
    /// How the element clips its content. Walkers may record it only where the content
    /// overflows the element: where it fits, clipping changes nothing.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub clip: Option<Clip>,
    /// CSS `position`, recorded where a clip decision depends on it
    /// (see `describe::visibility::nodes_needing_positioning`); unknown means static.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub positioning: Option<Positioning>,
    /// Set with `enters: Frame`: the origin of that frame's document (`scheme://host:port`,
    /// `null` when opaque), which decides what a run may read and type there.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub origin: Option<String>,
}

impl Default for SnapNode {
    fn default() -> Self {
        SnapNode {
            parent: None,
            data: NodeData::Text { text: String::new() },
            rect: None,
            visible: false,
            form: None,
            style: None,
            position: 0,
            enters: None,
            clip: None,
            positioning: None,
            origin: None,
        }
    }
}

/// The origin of a frame's document at `url`, as a page reader records it: `scheme://host:port`
/// for an address with a host; `about:blank` and `about:srcdoc` documents take the origin of the
/// document holding their frame (`parent`); anything else (`data:`, a sandbox) is opaque: `null`.
pub fn frame_origin(url: &str, parent: &str) -> String {
    let url = url.trim();
    if url.get(..6).is_some_and(|s| s.eq_ignore_ascii_case("about:")) {
        return parent.to_string();
    }
    let Some((host, port)) = crate::vocab::address::host_of(url) else { return "null".into() };
    let scheme = url.split(':').next().unwrap_or_default().to_ascii_lowercase();
    let host = if host.contains(':') { format!("[{host}]") } else { host };
    match port {
        Some(p) => format!("{scheme}://{host}:{p}"),
        None => format!("{scheme}://{host}"),
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum TreeKind {
    Shadow,
    Frame,
}

/// One axis of CSS `overflow`, as far as clipping goes.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum Overflow {
    #[default]
    Visible,
    /// `hidden` or `clip`: what lies outside is gone.
    Hidden,
    /// `auto` or `scroll` (and a frame's viewport): what lies outside can be scrolled to.
    Scroll,
}

impl Overflow {
    pub fn from_computed(value: &str) -> Self {
        match value.trim() {
            "hidden" | "clip" => Overflow::Hidden,
            "auto" | "scroll" | "overlay" => Overflow::Scroll,
            _ => Overflow::Visible,
        }
    }
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Clip {
    pub x: Overflow,
    pub y: Overflow,
}

impl Clip {
    /// From computed `overflow-x` / `overflow-y`; `None` when neither clips.
    pub fn from_computed(overflow_x: &str, overflow_y: &str) -> Option<Clip> {
        let clip = Clip { x: Overflow::from_computed(overflow_x), y: Overflow::from_computed(overflow_y) };
        (clip.x != Overflow::Visible || clip.y != Overflow::Visible).then_some(clip)
    }

    /// A frame clips its document to its box, and the document scrolls.
    pub const FRAME: Clip = Clip { x: Overflow::Scroll, y: Overflow::Scroll };
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum Positioning {
    #[default]
    Static,
    Relative,
    Absolute,
    Fixed,
    Sticky,
}

impl Positioning {
    pub fn from_computed(value: &str) -> Self {
        match value.trim() {
            "relative" => Positioning::Relative,
            "absolute" => Positioning::Absolute,
            "fixed" => Positioning::Fixed,
            "sticky" => Positioning::Sticky,
            _ => Positioning::Static,
        }
    }
}

impl SnapNode {
    pub fn tag(&self) -> Option<&str> {
        match &self.data {
            NodeData::Element { tag, .. } => Some(tag),
            NodeData::Text { .. } => None,
        }
    }

    pub fn attr(&self, name: &str) -> Option<&str> {
        match &self.data {
            NodeData::Element { attributes, .. } => {
                attributes.iter().find(|(k, _)| k.eq_ignore_ascii_case(name)).map(|(_, v)| v.as_str())
            }
            NodeData::Text { .. } => None,
        }
    }
}

/// Counts DOM siblings per parent and step name as a walker meets them, recorded or not.
///
/// Each parent's counts are a short list (a parent's children carry few distinct names), kept in
/// one table and reached through the parent's index: a lookup reads a few entries near each
/// other. A hash map keyed by (parent, tree, name) grew to one entry per parent and name on a
/// whole page (~300k on a 205k-element page) and cost ~90 ms of a whole read there.
#[derive(Default)]
pub struct SiblingPositions {
    /// Per parent (its index + 1; 0 for none): 1 + its first entry in `entries`, or 0.
    heads: Vec<u32>,
    entries: Vec<SiblingCount>,
}

struct SiblingCount {
    tree: Option<TreeKind>,
    /// A 64-bit hash of the step name: one comparison per entry, nothing allocated.
    name: u64,
    count: u32,
    /// 1 + the parent's next entry in `entries`, or 0.
    next: u32,
}

impl SiblingPositions {
    /// The next position for `name` (a lower-case tag, or `text()`) under `parent`. Children
    /// of a shadow root, and a frame's root, are counted apart from the parent's light-DOM children.
    pub fn next(&mut self, parent: Option<u32>, tree: Option<TreeKind>, name: &str) -> u32 {
        self.pass(parent, tree, name, 1)
    }

    /// Counts `n` siblings named `name` met at once (a walker that left them out unread), as
    /// `n` calls of `next` would; returns the last one's position.
    pub fn pass(&mut self, parent: Option<u32>, tree: Option<TreeKind>, name: &str, n: u32) -> u32 {
        // FNV-1a: tag names are short and few, and 64 bits make a collision a non-event.
        let hash = name.bytes().fold(0xcbf29ce484222325u64, |h, b| (h ^ b as u64).wrapping_mul(0x100000001b3));
        let slot = parent.map_or(0, |p| p as usize + 1);
        if slot >= self.heads.len() {
            self.heads.resize(slot + 1, 0);
        }
        let mut at = self.heads[slot];
        while at != 0 {
            let entry = &mut self.entries[at as usize - 1];
            if entry.name == hash && entry.tree == tree {
                entry.count += n;
                return entry.count;
            }
            at = entry.next;
        }
        self.entries.push(SiblingCount { tree, name: hash, count: n, next: self.heads[slot] });
        self.heads[slot] = self.entries.len() as u32;
        n
    }
}

pub const TEXT_STEP: &str = "text()";

/// The most characters a walker keeps of one text node, form value or attribute value (ids
/// excepted: they anchor XPaths). Descriptions show 300 characters of an element and text
/// XPaths are made from 80; the rest of a 10 MB text node would only cost copies and memory.
pub const MAX_READ_CHARS: usize = 10_000;

/// `s` cut to [`MAX_READ_CHARS`] from its first word, keeping one whitespace character before
/// it (it tells whether the text runs on from the text before); short strings are kept whole.
pub fn cut_read(s: &str) -> &str {
    if s.len() <= MAX_READ_CHARS {
        return s; // as many bytes or fewer: as many chars or fewer
    }
    let first = s.find(|c: char| !c.is_whitespace()).unwrap_or(s.len());
    let start = s[..first].char_indices().last().map_or(first, |(i, _)| i);
    let rest = &s[start..];
    match rest.char_indices().nth(MAX_READ_CHARS) {
        Some((end, _)) => &rest[..end],
        None => rest,
    }
}

/// Attributes a walker records; classification reads nothing else.
pub const RECORDED_ATTRIBUTES: [&str; 13] = [
    "id",
    "class",
    "type",
    "name",
    "role",
    "aria-label",
    "placeholder",
    "title",
    "alt",
    "href",
    "src",
    "value",
    "autocomplete",
];

/// Tags whose classification never needs a style read (they are classified by what they are).
pub fn is_base_tag(tag: &str) -> bool {
    matches!(tag, "svg" | "button" | "input" | "textarea" | "select" | "option" | "img")
}

/// Tags that never render content and are skipped by every walker.
pub fn is_skipped_tag(tag: &str) -> bool {
    matches!(tag, "script" | "style" | "noscript" | "template" | "head" | "meta" | "link" | "title")
}

impl PageSnapshot {
    /// Per node: whether its subtree holds visible text or a base element.
    /// Midscene calls this "includes base element"; classification of background
    /// containers and images depends on it, and so does which nodes need a style read.
    pub fn has_base_content(&self) -> Vec<bool> {
        let mut has = vec![false; self.nodes.len()];
        // Children come after parents in pre-order, so one reverse sweep propagates upward.
        for i in (0..self.nodes.len()).rev() {
            let node = &self.nodes[i];
            // Only what renders counts: walkers may skip hidden subtrees, and both page
            // readers must agree.
            let own = node.visible
                && match &node.data {
                    NodeData::Text { text } => !text.trim().is_empty(),
                    NodeData::Element { tag, .. } => is_base_tag(tag),
                };
            if own {
                has[i] = true;
            }
            if has[i] {
                if let Some(p) = node.parent {
                    has[p as usize] = true;
                }
            }
        }
        has
    }

    /// For each node, the index of the last node in its subtree (pre-order keeps subtrees
    /// contiguous).
    pub fn subtree_ends(&self) -> Vec<usize> {
        let mut last: Vec<usize> = (0..self.nodes.len()).collect();
        for i in (0..self.nodes.len()).rev() {
            if let Some(p) = self.nodes[i].parent {
                let p = p as usize;
                last[p] = last[p].max(last[i]);
            }
        }
        last
    }

    /// True when `a` and `b` are the same node or one contains the other.
    pub fn related(&self, a: u32, b: u32) -> bool {
        let is_ancestor = |anc: u32, mut n: u32| loop {
            if n == anc {
                return true;
            }
            match self.nodes.get(n as usize).and_then(|node| node.parent) {
                Some(p) => n = p,
                None => return false,
            }
        };
        is_ancestor(a, b) || is_ancestor(b, a)
    }

    /// Cuts every text, form value and attribute value (ids excepted) to [`MAX_READ_CHARS`] with
    /// [`cut_read`], as the DOM walker reads them: for readers that get whole strings (CDP).
    pub fn cut_long_reads(&mut self) {
        let cut = |s: &mut String| {
            if s.len() > MAX_READ_CHARS {
                *s = cut_read(s).to_string();
            }
        };
        for node in &mut self.nodes {
            match &mut node.data {
                NodeData::Text { text } => cut(text),
                NodeData::Element { attributes, .. } => {
                    for (_, value) in attributes.iter_mut().filter(|(name, _)| !name.eq_ignore_ascii_case("id")) {
                        cut(value);
                    }
                }
            }
            if let Some(form) = &mut node.form {
                for value in [&mut form.value, &mut form.selected_text].into_iter().flatten() {
                    cut(value);
                }
            }
        }
    }

    /// Indices of the elements whose classification needs computed background facts:
    /// visible, non-base elements without base content. A walker reads styles for these only.
    /// `base`: this snapshot's [`PageSnapshot::has_base_content`], as it is now.
    pub fn nodes_needing_style(&self, base: &[bool]) -> Vec<u32> {
        self.nodes
            .iter()
            .enumerate()
            .filter(|(i, n)| {
                n.visible
                    && !base[*i]
                    && matches!(&n.data, NodeData::Element { tag, .. } if !is_base_tag(tag) && tag != "a")
                    && n.rect.is_some_and(|r| r.width >= 3.0 && r.height >= 3.0)
            })
            .map(|(i, _)| i as u32)
            .collect()
    }
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

#[cfg(any(test, feature = "fake"))]
pub(crate) mod test_support {
    use super::*;

    /// A tiny builder so tests state pages briefly.
    pub struct Builder {
        pub snap: PageSnapshot,
    }

    impl Builder {
        pub fn new() -> Self {
            Builder {
                snap: PageSnapshot {
                    url: "http://test.local/".into(),
                    title: "Test".into(),
                    viewport: Viewport {
                        width: 1280.0,
                        height: 800.0,
                        device_pixel_ratio: 1.0,
                        document_width: 1280.0,
                        document_height: 800.0,
                        ..Default::default()
                    },
                    nodes: vec![],
                    partial: false,
                    shared_ids: None,
                    skipped_ids: Vec::new(),
                },
            }
        }

        pub fn el(&mut self, parent: Option<u32>, tag: &str, attrs: &[(&str, &str)], rect: Rect) -> u32 {
            self.snap.nodes.push(SnapNode {
                parent,
                data: NodeData::Element {
                    tag: tag.into(),
                    attributes: attrs.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect(),
                },
                rect: Some(rect),
                visible: true,
                position: self.position(parent, tag),
                ..Default::default()
            });
            (self.snap.nodes.len() - 1) as u32
        }

        fn position(&self, parent: Option<u32>, name: &str) -> u32 {
            let same = |n: &SnapNode| match &n.data {
                NodeData::Element { tag, .. } => tag == name,
                NodeData::Text { .. } => name == TEXT_STEP,
            };
            1 + self.snap.nodes.iter().filter(|n| n.parent == parent && same(n)).count() as u32
        }

        pub fn text(&mut self, parent: u32, text: &str, rect: Rect) -> u32 {
            self.snap.nodes.push(SnapNode {
                parent: Some(parent),
                data: NodeData::Text { text: text.into() },
                rect: Some(rect),
                visible: true,
                position: self.position(Some(parent), TEXT_STEP),
                ..Default::default()
            });
            (self.snap.nodes.len() - 1) as u32
        }

        pub fn node_mut(&mut self, i: u32) -> &mut SnapNode {
            &mut self.snap.nodes[i as usize]
        }
    }
}

#[cfg(test)]
mod tests {
    use super::test_support::Builder;
    use super::*;

    #[test]
    fn style_reads_only_for_elements_without_base_content() {
        let r = Rect::new(0.0, 0.0, 100.0, 20.0);
        let mut b = Builder::new();
        let html = b.el(None, "html", &[], r);
        let body = b.el(Some(html), "body", &[], r);
        let with_text = b.el(Some(body), "div", &[], r);
        b.text(with_text, "hello", r);
        let bare = b.el(Some(body), "div", &[], r);
        let wraps_button = b.el(Some(body), "div", &[], r);
        b.el(Some(wraps_button), "button", &[], r);
        let tiny = b.el(Some(body), "div", &[], Rect::new(0.0, 0.0, 2.0, 2.0));
        assert_eq!(b.snap.nodes_needing_style(&b.snap.has_base_content()), vec![bare]);
        let _ = tiny;
    }

    #[test]
    fn style_facts_from_computed_values() {
        assert!(is_transparent("rgba(0, 0, 0, 0)"));
        assert!(is_transparent("transparent"));
        assert!(!is_transparent("rgb(255, 255, 255)"));
        assert!(!is_transparent("rgba(0, 0, 0, 0.5)"));
        let f = StyleFacts::from_computed("rgba(0, 0, 0, 0)", "url(\"a.png\")", "serif");
        assert!(!f.has_background_color && f.has_background_image && !f.icon_font);
        let f = StyleFacts::from_computed("rgb(1, 2, 3)", "none", "\"Font Awesome 6 Free\"");
        assert!(f.has_background_color && !f.has_background_image && f.icon_font);
    }

    #[test]
    fn siblings_passed_unread_count_as_if_each_was_met() {
        let mut one_by_one = SiblingPositions::default();
        let mut at_once = SiblingPositions::default();
        for tag in ["section", "section", "div", "section"] {
            one_by_one.next(Some(1), None, tag);
        }
        assert_eq!(at_once.pass(Some(1), None, "section", 2), 2);
        at_once.next(Some(1), None, "div");
        at_once.pass(Some(1), None, "section", 1);
        for tag in ["section", "div", "p"] {
            assert_eq!(at_once.next(Some(1), None, tag), one_by_one.next(Some(1), None, tag), "{tag}");
        }
        assert_eq!(at_once.next(Some(1), Some(TreeKind::Shadow), "section"), 1, "a shadow root counts apart");
    }

    #[test]
    fn siblings_are_counted_per_parent_in_any_order() {
        let mut positions = SiblingPositions::default();
        assert_eq!(positions.next(None, None, "html"), 1);
        assert_eq!(positions.next(Some(7), None, "div"), 1, "a parent met before its lower-numbered ones");
        assert_eq!(positions.next(Some(0), None, "div"), 1);
        assert_eq!(positions.next(Some(7), None, "p"), 1);
        assert_eq!(positions.next(Some(7), None, "div"), 2);
        assert_eq!(positions.next(Some(0), None, "div"), 2);
        assert_eq!(positions.next(Some(7), Some(TreeKind::Frame), "div"), 1);
        assert_eq!(positions.next(None, None, "html"), 2, "the top's own count kept apart");
        assert_eq!(positions.pass(Some(3), None, TEXT_STEP, 4), 4);
        assert_eq!(positions.next(Some(3), None, TEXT_STEP), 5);
    }

    #[test]
    fn long_reads_are_cut_from_the_first_word() {
        assert_eq!(cut_read("  short  "), "  short  ");
        let long = format!("{}{}", " ".repeat(20_000), "word ".repeat(5_000));
        let cut = cut_read(&long);
        assert_eq!(cut.chars().count(), MAX_READ_CHARS);
        assert!(cut.starts_with(" word word"), "one separating space kept: {:?}", &cut[..12]);
        let wide = "\u{4f60}".repeat(MAX_READ_CHARS + 5);
        assert_eq!(cut_read(&wide).chars().count(), MAX_READ_CHARS, "counted in chars, cut on a boundary");
        assert_eq!(cut_read(&" ".repeat(MAX_READ_CHARS + 1)), " ", "blank stays blank");
    }

    #[test]
    fn long_reads_in_a_snapshot_are_cut_except_ids() {
        let r = Rect::new(0.0, 0.0, 100.0, 20.0);
        let big = "x".repeat(MAX_READ_CHARS * 3);
        let mut b = Builder::new();
        let field = b.el(None, "textarea", &[("id", big.as_str()), ("title", big.as_str())], r);
        b.node_mut(field).form = Some(FormState { value: Some(big.clone()), ..Default::default() });
        b.text(field, &big, r);
        b.snap.cut_long_reads();
        let (field, text) = (&b.snap.nodes[0], &b.snap.nodes[1]);
        assert_eq!(field.attr("id").map(str::len), Some(big.len()), "ids anchor XPaths: whole");
        assert_eq!(field.attr("title").map(str::len), Some(MAX_READ_CHARS));
        assert_eq!(field.form.as_ref().and_then(|f| f.value.as_ref()).map(String::len), Some(MAX_READ_CHARS));
        assert!(matches!(&text.data, NodeData::Text { text } if text.len() == MAX_READ_CHARS));
    }

    #[test]
    fn whitespace_text_is_not_base_content() {
        let r = Rect::new(0.0, 0.0, 100.0, 20.0);
        let mut b = Builder::new();
        let div = b.el(None, "div", &[], r);
        b.text(div, "  \n ", r);
        assert_eq!(b.snap.has_base_content(), vec![false, false]);
    }
}
