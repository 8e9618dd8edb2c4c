//! XPaths that lead back to an element.
//!
//! - Order-sensitive (`xpath`): steps with DOM sibling positions (`div[2]/input[1]`), anchored
//!   on the nearest ancestor whose `id` is unique on the page (`//*[@id="main"]/div[2]/input[1]`),
//!   else from the root (`/html[1]/body[1]/…`).
//! - Text-based (`xpathText`): `//button[normalize-space()="Save"]`, where that text names one
//!   element only; it survives reordering, not rewording.
//!
//! XPath cannot cross into a shadow root or a frame's document, so a path is one segment per
//! tree joined by ` >>> `: the host's (or `<iframe>`'s) path, then the path inside, absolute
//! within that tree: evaluated with any node of a shadow tree as the context, `/` is the shadow
//! root (XPath refuses the root itself as a context); in a frame, `/` is its document. Steps use
//! the DOM sibling positions the walkers record (`SnapNode::position`). Paths are built only
//! for the elements that need one; for every node they would cost memory quadratic in depth.

use crate::describe::{Element, ElementKind};
use crate::fast_hash::{FastMap, FastSet};
use crate::snapshot::{NodeData, PageSnapshot};

/// Two XPaths naming the same element, `[1]` steps written or left out (`div` is `div[1]`
/// when the element is the first of its kind, as in Midscene's paths).
pub fn same_xpath(a: &str, b: &str) -> bool {
    a == b || a.replace("[1]", "") == b.replace("[1]", "")
}

/// Joins the per-tree segments of a path.
pub const TREE_SEPARATOR: &str = " >>> ";
/// Longest text a text-based XPath is made from.
const MAX_TEXT_CHARS: usize = 80;
/// Text nodes looked at per element when indexing texts; where a short text is spread over
/// more, its tag gets no text paths in that tree.
const MAX_TEXT_NODES: usize = 64;
/// Nodes looked at per element when indexing texts.
const MAX_VISITED: usize = 2048;

pub struct XPaths<'a> {
    snapshot: &'a PageSnapshot,
    /// The node's `id` when no other node on the page has it.
    unique_id: Vec<Option<&'a str>>,
    /// Per node: the node that begins its tree (a shadow root's first nodes, a frame's root;
    /// `usize::MAX` for the top document).
    tree: Vec<usize>,
    /// Per node: what its tree's paths search, for counting what is unique there: the shadow
    /// host or `<iframe>` holding its tree (a shadow root's first nodes are each a `tree` of
    /// their own, yet one root), `usize::MAX` for the top document.
    scope: Vec<usize>,
    /// Per tree and tag: how many of its elements have a given normalized text.
    texts: FastMap<(usize, &'a str), FastMap<String, u32>>,
    /// (tree, tag) pairs with an element whose text was too big to index: no text paths there.
    unindexed: FastSet<(usize, &'a str)>,
    /// Per node: the last node of its subtree (`PageSnapshot::subtree_ends`).
    ends: &'a [usize],
}

impl<'a> XPaths<'a> {
    /// `ends`: the snapshot's `subtree_ends`, worked out once by the caller (classification
    /// reads them too).
    pub fn new(snapshot: &'a PageSnapshot, ends: &'a [usize]) -> Self {
        let nodes = &snapshot.nodes;
        let mut tree = vec![usize::MAX; nodes.len()];
        let mut scope = vec![usize::MAX; nodes.len()];
        for (i, node) in nodes.iter().enumerate() {
            (tree[i], scope[i]) = match (node.enters, node.parent) {
                (Some(_), holder) => (i, holder.map_or(i, |h| h as usize)),
                (None, Some(p)) => (tree[p as usize], scope[p as usize]),
                (None, None) => (usize::MAX, usize::MAX),
            };
        }
        let id_of = |node: &'a crate::snapshot::SnapNode| node.attr("id").filter(|id| !id.is_empty());
        // An id anchors a path where it names one element of its tree (XPath's `//*[@id=…]`
        // searches the tree): as the page's id index says, else as this reading counts them.
        let shared: Option<FastSet<u32>> = snapshot.shared_ids.as_ref().map(|s| s.iter().copied().collect());
        let mut id_count: FastMap<(usize, &str), u32> = FastMap::default();
        if shared.is_none() {
            for (i, node) in nodes.iter().enumerate() {
                if let Some(id) = id_of(node) {
                    *id_count.entry((scope[i], id)).or_insert(0) += 1;
                }
            }
            // The elements the reading skipped count in the tree they stand in.
            for skipped in &snapshot.skipped_ids {
                let at = skipped.parent.map(|p| p as usize).filter(|&p| p < nodes.len());
                let skipped_scope = match at {
                    Some(p) if skipped.tree_top => p,
                    Some(p) => scope[p],
                    None => usize::MAX,
                };
                *id_count.entry((skipped_scope, skipped.id.as_str())).or_insert(0) += 1;
            }
        }
        let alone = |i: usize, id: &str| match &shared {
            Some(shared) => !shared.contains(&(i as u32)),
            None => id_count.get(&(scope[i], id)) == Some(&1),
        };
        let unique_id =
            (0..nodes.len()).map(|i| id_of(&nodes[i]).filter(|id| alone(i, id) && is_plain_id(id))).collect();
        let mut x =
            XPaths { snapshot, unique_id, tree, scope, texts: FastMap::default(), unindexed: Default::default(), ends };
        // A reading that left parts unread cannot know a text to be unique: `by_text` offers none.
        if !snapshot.partial {
            x.index_texts();
        }
        x
    }

    /// Counts every element's normalized text (as XPath's `normalize-space()` would read it,
    /// both with and without separators between its text nodes), so a text path is offered
    /// only where it matches one element.
    fn index_texts(&mut self) {
        let nodes = &self.snapshot.nodes;
        let ends = self.ends;
        // One list for every element's parts (a page's every element is indexed).
        let mut parts: Vec<&str> = Vec::new();
        for (i, node) in nodes.iter().enumerate() {
            let NodeData::Element { tag, .. } = &node.data else { continue };
            parts.clear();
            let mut shown_chars = 0;
            let mut complete = true;
            for (visited, inner) in nodes[i + 1..=ends[i]].iter().enumerate() {
                if visited > MAX_VISITED {
                    complete = false; // a vast subtree with little text: not worth reading
                    break;
                }
                if let NodeData::Text { text } = &inner.data {
                    parts.push(text);
                    shown_chars += text.chars().filter(|c| !c.is_whitespace()).count();
                    if shown_chars > MAX_TEXT_CHARS {
                        break; // longer than any text path's text: it can match none
                    }
                    if parts.len() > MAX_TEXT_NODES {
                        complete = false;
                        break;
                    }
                }
            }
            if complete && (parts.is_empty() || shown_chars > MAX_TEXT_CHARS) {
                continue;
            }
            let key = (self.scope[i], tag.as_str());
            if !complete {
                self.unindexed.insert(key);
                continue;
            }
            let joined = normalize_parts(&parts, true);
            let counts = self.texts.entry(key).or_default();
            // One part reads the same joined or run together.
            if parts.len() > 1 {
                let concatenated = normalize_parts(&parts, false);
                if concatenated != joined {
                    *counts.entry(concatenated).or_insert(0) += 1;
                }
            }
            *counts.entry(joined).or_insert(0) += 1;
        }
    }

    pub fn of(&self, node: usize) -> String {
        let (mut path, mut holder) = self.segment(node);
        while let Some(h) = holder {
            let (outer, next) = self.segment(h);
            path = outer + TREE_SEPARATOR + &path;
            holder = next;
        }
        path
    }

    /// The path to `node` within its own tree, and the node holding that tree (shadow host or
    /// `<iframe>`), if any.
    fn segment(&self, node: usize) -> (String, Option<usize>) {
        let nodes = &self.snapshot.nodes;
        // Walk up to the tree's root or an anchor, then write the steps top-down into one string.
        let mut chain: Vec<usize> = Vec::new();
        let mut anchor = None;
        let mut current = Some(node);
        while let Some(i) = current {
            if i != node && anchor.is_none() {
                if let Some(id) = self.unique_id[i] {
                    anchor = Some(id);
                }
            }
            if anchor.is_none() {
                chain.push(i);
            }
            if nodes[i].enters.is_some() {
                break;
            }
            current = nodes[i].parent.map(|p| p as usize);
        }
        let tree_root = self.tree[node];
        let holder = (tree_root != usize::MAX).then(|| nodes[tree_root].parent.map(|p| p as usize)).flatten();
        let mut out = String::with_capacity(chain.len() * 10 + 16);
        // Pieces pushed, not `write!`: on a 205k-element page these are about a million steps,
        // and formatting them was ~45 ms of a whole read's CPU profile.
        if let Some(id) = anchor {
            out.push_str("//*[@id=\"");
            out.push_str(id);
            out.push_str("\"]");
        }
        let mut number = itoa::Buffer::new();
        for &i in chain.iter().rev() {
            let node = &nodes[i];
            out.push('/');
            out.push_str(step_name(&node.data));
            out.push('[');
            out.push_str(number.format(node.position.max(1)));
            out.push(']');
        }
        (out, holder)
    }

    /// A text-based path for an element whose subtree holds exactly one text node, when no
    /// other element of its tag in its tree reads the same. For a text element (`node` is a
    /// text node) the path names the text node through its parent.
    pub fn by_text(&self, node: usize) -> Option<String> {
        if self.snapshot.partial {
            return None;
        }
        let nodes = &self.snapshot.nodes;
        let (element, text_node) = match &nodes[node].data {
            NodeData::Text { .. } => (nodes[node].parent? as usize, true),
            NodeData::Element { .. } => (node, false),
        };
        let tag = nodes[element].tag()?;
        let (tree, scope) = (self.tree[element], self.scope[element]);
        if self.unindexed.contains(&(scope, tag)) {
            return None;
        }
        let end = self.ends[element];
        let mut texts = nodes[element + 1..=end].iter().filter_map(|n| match &n.data {
            NodeData::Text { text } => Some(text),
            _ => None,
        });
        let (Some(only), None) = (texts.next(), texts.next()) else { return None };
        let text = normalize(only);
        if text.is_empty()
            || text.chars().count() > MAX_TEXT_CHARS
            || self.texts.get(&(scope, tag)).and_then(|counts| counts.get(&text)) != Some(&1)
        {
            return None;
        }
        let mut path = String::new();
        if let Some(holder) = (tree != usize::MAX).then(|| nodes[tree].parent).flatten() {
            path.push_str(&self.of(holder as usize));
            path.push_str(TREE_SEPARATOR);
        }
        let literal = literal(&text);
        path.push_str(&format!("//{tag}[normalize-space()={literal}]"));
        if text_node {
            path.push_str("/text()[normalize-space()]");
        }
        Some(path)
    }
}

/// The element a path names: itself, or for a path to a text node (a text element's, ending
/// in a `text()` step) the element holding the text. Script tools act on elements only: a
/// Playwright locator for a text node never resolves.
pub fn element_of(path: &str) -> &str {
    match path.rfind('/') {
        // A quote in it: the slash was inside a literal, not before the last step.
        Some(at) if path[at + 1..].starts_with(crate::snapshot::TEXT_STEP) && !path[at..].contains(['"', '\'']) => {
            // A text at a shadow root's top: the host holds it.
            let holder = &path[..at];
            holder.strip_suffix(TREE_SEPARATOR).unwrap_or(holder)
        }
        _ => path,
    }
}

/// The text path `XPaths::by_text` would give `e`, from what the element shows, for a reading
/// that could not judge it (a partial one: texts beyond it were not read). Unverified: the
/// browser keeps it only where evaluating it in the page finds this element and no other
/// (`LocatorData::text_path`). None where the element shows no short text a path could match
/// (a field's value or an image's alternative text are no element's `normalize-space()`).
pub fn text_candidate(e: &Element) -> Option<String> {
    if matches!(e.kind, ElementKind::FormItem | ElementKind::Img) || e.holds_secret() {
        return None;
    }
    let text = normalize(&e.content);
    if text.is_empty() || text.chars().count() > MAX_TEXT_CHARS {
        return None;
    }
    let (holder, own) = match e.xpath.rfind(TREE_SEPARATOR) {
        Some(at) => e.xpath.split_at(at + TREE_SEPARATOR.len()),
        None => ("", e.xpath.as_str()),
    };
    let last_step = own.rsplit('/').next().unwrap_or_default();
    let text_node = last_step.starts_with(crate::snapshot::TEXT_STEP);
    let mut path = format!("{holder}//{}[normalize-space()={}]", e.tag, literal(&text));
    if text_node {
        path.push_str("/text()[normalize-space()]");
    }
    Some(path)
}

/// XPath 1.0 has no escapes: quote with whichever quote the text lacks, else `concat()`.
fn literal(text: &str) -> String {
    if !text.contains('"') {
        format!("\"{text}\"")
    } else if !text.contains('\'') {
        format!("'{text}'")
    } else {
        let parts: Vec<String> = text.split('"').map(|p| format!("\"{p}\"")).collect();
        format!("concat({})", parts.join(", '\"', "))
    }
}

/// As XPath's `normalize-space()`: XML whitespace runs become one space, ends trimmed.
fn normalize(s: &str) -> String {
    normalize_parts(&[s], false)
}

/// `normalize` of the parts joined by a space (`spaced`) or run together, in one pass: a
/// page's every element is indexed, so no joined copy is made first.
fn normalize_parts(parts: &[&str], spaced: bool) -> String {
    let mut out = String::with_capacity(parts.iter().map(|p| p.len() + 1).sum());
    let mut space = false;
    for (k, part) in parts.iter().enumerate() {
        space |= spaced && k > 0;
        for c in part.chars() {
            if matches!(c, ' ' | '\t' | '\n' | '\r') {
                space = true;
            } else {
                if space && !out.is_empty() {
                    out.push(' ');
                }
                space = false;
                out.push(c);
            }
        }
    }
    out
}

fn step_name(data: &NodeData) -> &str {
    match data {
        NodeData::Element { tag, .. } => tag,
        NodeData::Text { .. } => crate::snapshot::TEXT_STEP,
    }
}

/// An id usable inside a double-quoted XPath literal, and one the page keeps from load to
/// load: a generated id anchors nothing.
fn is_plain_id(id: &str) -> bool {
    !id.contains('"') && !looks_generated(id)
}

/// An id a framework or build made up, which differs between two loads or two renders:
/// React's `:r1:` and `:7`, Ember's `ember123`, `react-select-5-input`, `metamorph-6-start`,
/// hashes and random tokens. Read by its pieces between `-`, `_`, `.`: one of only digits, one
/// ending in two digits or more, a long hex run, a long token with digits in it.
pub fn looks_generated(id: &str) -> bool {
    if id.contains(':') {
        return true;
    }
    id.split(['-', '_', '.']).any(|piece| {
        let digits = piece.chars().filter(char::is_ascii_digit).count();
        let trailing = piece.chars().rev().take_while(char::is_ascii_digit).count();
        digits > 0
            && (digits == piece.len()
                || trailing >= 2
                || (piece.len() >= 8 && piece.chars().all(|c| c.is_ascii_hexdigit()))
                || (piece.len() >= 12 && digits >= 2))
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::snapshot::test_support::Builder;
    use crate::snapshot::TreeKind;
    use crate::vocab::geometry::Rect;

    #[test]
    fn normalizing_parts_reads_as_normalizing_them_joined() {
        let joined_then_normalized =
            |s: &str| s.split([' ', '\t', '\n', '\r']).filter(|p| !p.is_empty()).collect::<Vec<_>>().join(" ");
        let cases: [&[&str]; 10] = [
            &["a", "b"],
            &[" a ", " b"],
            &["a\n", "b"],
            &["", "a", "", "b", ""],
            &["x\u{a0}y", "\tz\r"],
            &[],
            &["  "],
            &["Sa", "ve"],
            &["é ", "ü"],
            &["one  two", "three\t\tfour "],
        ];
        for parts in cases {
            assert_eq!(normalize_parts(parts, true), joined_then_normalized(&parts.join(" ")), "{parts:?}");
            assert_eq!(normalize_parts(parts, false), joined_then_normalized(&parts.concat()), "{parts:?}");
        }
    }

    #[test]
    fn generated_ids_are_told_from_chosen_ones() {
        for id in [
            ":7",
            ":r1:",
            "ember123",
            "react-select-5-input",
            "metamorph-6-start",
            "a3f9c2e1b7d4",
            "x-9f86d081884c7d65",
            "uid_Z8k2mQ9x1Lp0w",
        ] {
            assert!(looks_generated(id), "{id}");
        }
        for id in ["main", "new-todo", "todo-list", "header", "h1", "step2", "user_name", "section-a"] {
            assert!(!looks_generated(id), "{id}");
        }
    }

    #[test]
    fn a_generated_id_anchors_no_path() {
        let r = Rect::new(0.0, 0.0, 10.0, 10.0);
        let mut b = Builder::new();
        let html = b.el(None, "html", &[], r);
        let body = b.el(Some(html), "body", &[], r);
        let div = b.el(Some(body), "div", &[("id", ":7")], r);
        let input = b.el(Some(div), "input", &[], r);
        let ends = b.snap.subtree_ends();
        let x = XPaths::new(&b.snap, &ends);
        assert_eq!(x.of(input as usize), "/html[1]/body[1]/div[1]/input[1]");
    }

    #[test]
    fn counts_siblings_by_tag_and_anchors_on_unique_ids() {
        let r = Rect::new(0.0, 0.0, 10.0, 10.0);
        let mut b = Builder::new();
        let html = b.el(None, "html", &[], r);
        let body = b.el(Some(html), "body", &[], r);
        b.el(Some(body), "div", &[], r);
        let p = b.el(Some(body), "p", &[], r);
        let div2 = b.el(Some(body), "div", &[("id", "main")], r);
        let text = b.text(div2, "x", r);
        let dup1 = b.el(Some(body), "section", &[("id", "dup")], r);
        let dup2 = b.el(Some(body), "section", &[("id", "dup")], r);
        let inner = b.el(Some(dup2), "span", &[], r);
        let ends = b.snap.subtree_ends();
        let x = XPaths::new(&b.snap, &ends);
        assert_eq!(x.of(p as usize), "/html[1]/body[1]/p[1]");
        assert_eq!(x.of(div2 as usize), "/html[1]/body[1]/div[2]", "its own id does not anchor itself");
        assert_eq!(x.of(text as usize), "//*[@id=\"main\"]/text()[1]");
        assert_eq!(x.of(inner as usize), "/html[1]/body[1]/section[2]/span[1]", "duplicate ids are no anchor");
        let _ = dup1;
    }

    #[test]
    fn ids_anchor_where_the_page_says_they_name_one_element_and_partial_readings_offer_no_text_paths() {
        let r = Rect::new(0.0, 0.0, 10.0, 10.0);
        let mut b = Builder::new();
        let html = b.el(None, "html", &[], r);
        let body = b.el(Some(html), "body", &[], r);
        let main = b.el(Some(body), "div", &[("id", "main")], r);
        let in_main = b.el(Some(main), "button", &[], r);
        b.text(in_main, "Edit", r);
        let side = b.el(Some(body), "div", &[("id", "side")], r);
        let in_side = b.el(Some(side), "span", &[], r);
        let ends = b.snap.subtree_ends();
        {
            let counted = XPaths::new(&b.snap, &ends);
            assert_eq!(counted.of(in_side as usize), "//*[@id=\"side\"]/span[1]");
            assert_eq!(counted.by_text(in_main as usize).as_deref(), Some("//button[normalize-space()=\"Edit\"]"));
        }
        // The page: another element it did not read (hidden, or beyond the view) has id "side".
        b.snap.shared_ids = Some(vec![side]);
        {
            let told = XPaths::new(&b.snap, &ends);
            assert_eq!(told.of(in_main as usize), "//*[@id=\"main\"]/button[1]", "an id the page vouched for anchors");
            assert_eq!(told.of(in_side as usize), "/html[1]/body[1]/div[2]/span[1]", "a shared id does not");
            assert!(told.by_text(in_main as usize).is_some(), "a whole reading knows its texts");
        }
        b.snap.partial = true;
        let partial = XPaths::new(&b.snap, &ends);
        assert_eq!(partial.of(in_main as usize), "//*[@id=\"main\"]/button[1]");
        assert_eq!(partial.by_text(in_main as usize), None, "no text path: unread buttons may read the same");
    }

    #[test]
    fn counted_ids_are_counted_per_tree() {
        let r = Rect::new(0.0, 0.0, 10.0, 10.0);
        let mut b = Builder::new();
        let html = b.el(None, "html", &[], r);
        let body = b.el(Some(html), "body", &[], r);
        let card = b.el(Some(body), "div", &[("id", "card")], r);
        let top_button = b.el(Some(card), "button", &[], r);
        let host = b.el(Some(body), "my-card", &[], r);
        let shadow_div = b.el(Some(host), "div", &[("id", "card")], r);
        b.node_mut(shadow_div).enters = Some(TreeKind::Shadow);
        let inner = b.el(Some(shadow_div), "span", &[("id", "inner")], r);
        let inner_button = b.el(Some(inner), "button", &[], r);
        let save1 = b.el(Some(shadow_div), "button", &[], r);
        b.text(save1, "Save", r);
        // A second top-level node of the same shadow root: one tree for paths, "inner" and "Save" again.
        let second = b.el(Some(host), "p", &[("id", "inner")], r);
        b.node_mut(second).enters = Some(TreeKind::Shadow);
        let save2 = b.el(Some(second), "button", &[], r);
        b.text(save2, "Save", r);
        let ends = b.snap.subtree_ends();
        let x = XPaths::new(&b.snap, &ends);
        assert_eq!(
            x.of(top_button as usize),
            "//*[@id=\"card\"]/button[1]",
            "the same id in a shadow root is another tree's"
        );
        assert_eq!(
            x.of(inner_button as usize),
            "/html[1]/body[1]/my-card[1] >>> //*[@id=\"card\"]/span[1]/button[1]",
            "not \"inner\": the root's other top-level node has that id too"
        );
        assert_eq!(x.by_text(save1 as usize), None, "two buttons read Save in the one shadow root");
    }

    /// A page with a `<button>Save</button>` in a shadow root (`my-card`) and a link reading
    /// `link_text` in a same-origin frame: (builder, body, button, link, link's text node).
    fn shadow_and_frame(r: Rect, link_attrs: &[(&str, &str)], link_text: &str) -> (Builder, u32, u32, u32, u32) {
        let mut b = Builder::new();
        let html = b.el(None, "html", &[], r);
        let body = b.el(Some(html), "body", &[], r);
        let host = b.el(Some(body), "my-card", &[], r);
        let inner_div = b.el(Some(host), "div", &[], r);
        b.node_mut(inner_div).enters = Some(TreeKind::Shadow);
        let button = b.el(Some(inner_div), "button", &[], r);
        b.text(button, "Save", r);
        let frame = b.el(Some(body), "iframe", &[("id", "f")], r);
        let frame_html = b.el(Some(frame), "html", &[], r);
        b.node_mut(frame_html).enters = Some(TreeKind::Frame);
        let frame_body = b.el(Some(frame_html), "body", &[], r);
        let link = b.el(Some(frame_body), "a", link_attrs, r);
        let text = b.text(link, link_text, r);
        (b, body, button, link, text)
    }

    #[test]
    fn shadow_roots_and_frames_start_new_segments() {
        let (b, _, button, link, link_text) = shadow_and_frame(Rect::new(0.0, 0.0, 10.0, 10.0), &[], " Save ");
        let ends = b.snap.subtree_ends();
        let x = XPaths::new(&b.snap, &ends);
        assert_eq!(x.of(button as usize), "/html[1]/body[1]/my-card[1] >>> /div[1]/button[1]");
        assert_eq!(x.of(link as usize), "/html[1]/body[1]/iframe[1] >>> /html[1]/body[1]/a[1]");
        assert_eq!(
            x.by_text(button as usize).as_deref(),
            Some("/html[1]/body[1]/my-card[1] >>> //button[normalize-space()=\"Save\"]")
        );
        assert_eq!(
            x.by_text(link_text as usize).as_deref(),
            Some("/html[1]/body[1]/iframe[1] >>> //a[normalize-space()=\"Save\"]/text()[normalize-space()]")
        );
    }

    #[test]
    fn a_text_candidate_is_the_path_a_whole_reading_offers() {
        let r = Rect::new(0.0, 0.0, 40.0, 10.0);
        let (mut b, body, ..) = shadow_and_frame(r, &[("href", "/x")], "Next");
        let p = b.el(Some(body), "p", &[], r);
        b.text(p, "  Say \"hi\"   it's ", r);
        b.el(Some(body), "input", &[("value", "typed")], r);
        let whole = crate::describe::classify(&b.snap);
        let offered: Vec<_> = whole.iter().filter(|e| e.xpath_text.is_some()).collect();
        assert_eq!(offered.len(), 3, "{whole:#?}");
        for e in &offered {
            assert_eq!(text_candidate(e), e.xpath_text, "{}", e.xpath);
        }
        b.snap.partial = true;
        let partial = crate::describe::classify(&b.snap);
        assert!(partial.iter().all(|e| e.xpath_text.is_none()), "a partial reading judges no text unique");
        let candidates: Vec<_> = partial.iter().filter_map(text_candidate).collect();
        assert_eq!(candidates, offered.iter().filter_map(|e| e.xpath_text.clone()).collect::<Vec<_>>());
        let field = partial.iter().find(|e| e.kind == ElementKind::FormItem).expect("the input");
        assert_eq!(text_candidate(field), None, "a field's value is no normalize-space()");
        // What the page is asked: for a text, the element holding it must be named alone too.
        use crate::describe::locators::TextPathCheck;
        assert!(offered.iter().all(|e| TextPathCheck::of(e).is_none()), "a whole reading judged them already");
        let checks: Vec<_> = partial.iter().filter_map(TextPathCheck::of).collect();
        assert_eq!(checks.len(), 3);
        for c in &checks {
            match c.path.strip_suffix("/text()[normalize-space()]") {
                Some(holder) => assert_eq!(c.holder.as_deref(), Some(holder)),
                None => assert_eq!(c.holder, None, "{}", c.path),
            }
        }
        assert!(checks.iter().any(|c| c.holder.is_some()) && checks.iter().any(|c| c.holder.is_none()));
    }

    #[test]
    fn a_text_nodes_path_leads_to_its_element() {
        assert_eq!(element_of("/html[1]/body[1]/p[1]/text()[2]"), "/html[1]/body[1]/p[1]");
        assert_eq!(
            element_of("//p[normalize-space()=\"a/text()\"]/text()[normalize-space()]"),
            "//p[normalize-space()=\"a/text()\"]"
        );
        assert_eq!(
            element_of("/html[1]/body[1]/x-card[1] >>> /div[1]/text()[1]"),
            "/html[1]/body[1]/x-card[1] >>> /div[1]"
        );
        assert_eq!(element_of("/html[1]/body[1]/x-card[1] >>> /text()[1]"), "/html[1]/body[1]/x-card[1]", "the host");
        for element in ["/html[1]/body[1]/button[1]", "//button[normalize-space()=\"text()\"]", "//*[@id=\"a/text()\"]"]
        {
            assert_eq!(element_of(element), element);
        }
    }

    #[test]
    fn text_paths_only_where_the_text_is_unique() {
        let r = Rect::new(0.0, 0.0, 10.0, 10.0);
        let mut b = Builder::new();
        let html = b.el(None, "html", &[], r);
        let body = b.el(Some(html), "body", &[], r);
        let a1 = b.el(Some(body), "button", &[], r);
        b.text(a1, "Delete", r);
        let a2 = b.el(Some(body), "button", &[], r);
        b.text(a2, "Delete", r);
        let quoted = b.el(Some(body), "button", &[], r);
        b.text(quoted, "Say \"hi\" it's", r);
        let split = b.el(Some(body), "button", &[], r);
        let s1 = b.el(Some(split), "b", &[], r);
        b.text(s1, "Sa", r);
        let s2 = b.el(Some(split), "i", &[], r);
        b.text(s2, "ve", r);
        let plain = b.el(Some(body), "button", &[], r);
        b.text(plain, "Save", r);
        let ends = b.snap.subtree_ends();
        let x = XPaths::new(&b.snap, &ends);
        assert_eq!(x.by_text(a1 as usize), None, "two buttons read Delete");
        assert_eq!(x.by_text(split as usize), None, "more than one text node");
        assert_eq!(x.by_text(plain as usize), None, "the split button also reads Save in the DOM");
        assert_eq!(
            x.by_text(quoted as usize).as_deref(),
            Some("//button[normalize-space()=concat(\"Say \", '\"', \"hi\", '\"', \" it's\")]")
        );
    }

    #[test]
    fn deep_paths_are_built_without_recursion() {
        let r = Rect::new(0.0, 0.0, 10.0, 10.0);
        let mut b = Builder::new();
        let mut parent = b.el(None, "html", &[], r);
        for _ in 0..10_000 {
            parent = b.el(Some(parent), "div", &[], r);
        }
        let ends = b.snap.subtree_ends();
        let x = XPaths::new(&b.snap, &ends);
        assert!(x.of(parent as usize).ends_with("/div[1]/div[1]"));
    }
}
