//! The `midscene` description format: byte-identical to `descriptionOfTree` in
//! `@midscene/shared` 1.13.1 (MIT) for the same tree, quirks included: text is cut by UTF-16
//! length before it is trimmed (and cut twice for attributes), numbers print as JavaScript
//! prints them, object keys keep JavaScript's order (integer-like keys first), and blank lines
//! go by JavaScript's `/^\s*\n/gm`. Our own implementation, checked against theirs by
//! `tests/e2e/midscene-format.test.mjs`.
//!
//! Unlike the original it is iterative, so a tree of any depth serializes.

use super::{Element, ElementKind};
use crate::snapshot::PageSnapshot;
use serde::{Deserialize, Serialize};

#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(untagged)]
pub enum AttrValue {
    Text(String),
    Number(f64),
}

/// A string or a number, read without serde's untagged buffering (see `vocab::wire`).
impl<'de> Deserialize<'de> for AttrValue {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct Either;
        impl serde::de::Visitor<'_> for Either {
            type Value = AttrValue;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a string or a number")
            }
            fn visit_str<E: serde::de::Error>(self, v: &str) -> Result<AttrValue, E> {
                Ok(AttrValue::Text(v.to_string()))
            }
            fn visit_string<E: serde::de::Error>(self, v: String) -> Result<AttrValue, E> {
                Ok(AttrValue::Text(v))
            }
            fn visit_f64<E: serde::de::Error>(self, v: f64) -> Result<AttrValue, E> {
                Ok(AttrValue::Number(v))
            }
            fn visit_i64<E: serde::de::Error>(self, v: i64) -> Result<AttrValue, E> {
                Ok(AttrValue::Number(v as f64))
            }
            fn visit_u64<E: serde::de::Error>(self, v: u64) -> Result<AttrValue, E> {
                Ok(AttrValue::Number(v as f64))
            }
        }
        d.deserialize_any(Either)
    }
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct MsRect {
    pub left: f64,
    pub top: f64,
    pub width: f64,
    pub height: f64,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct MsNode {
    pub id: String,
    /// In insertion order, as `[name, value]` pairs; JavaScript object order is applied when serializing.
    pub attributes: Vec<(String, AttrValue)>,
    pub content: String,
    pub rect: MsRect,
    pub is_visible: bool,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct MsTree {
    pub node: Option<MsNode>,
    #[serde(default)]
    pub children: Vec<MsTree>,
}

const NODE_SIZE_THRESHOLD: f64 = 4.0;
const DEFAULT_TRUNCATE: usize = 150;

/// `descriptionOfTree(tree, truncateTextLength, filterNonTextContent, visibleOnly)`.
pub fn description_of_tree(
    tree: &MsTree,
    truncate: Option<usize>,
    filter_non_text: bool,
    visible_only: bool,
) -> String {
    let max = truncate.unwrap_or(DEFAULT_TRUNCATE);
    // Post-order without recursion: (node, indent, children visited?).
    let mut results: Vec<String> = Vec::new();
    let mut stack: Vec<(&MsTree, usize, bool)> = vec![(tree, 0, false)];
    while let Some((node, indent, visited)) = stack.pop() {
        if !visited {
            stack.push((node, indent, true));
            for child in node.children.iter().rev() {
                stack.push((child, indent + 1, false));
            }
            continue;
        }
        // The children's results are the last `children.len()` entries, in order.
        let first = results.len() - node.children.len();
        let mut children = String::new();
        for r in results.drain(first..) {
            if !r.is_empty() {
                children.push('\n');
                children.push_str(&r);
            }
        }
        results.push(build_node(node, indent, children, max, filter_non_text, visible_only));
    }
    let result = results.pop().unwrap_or_default();
    strip_blank_lines(&result)
}

fn build_node(node: &MsTree, indent: usize, children: String, max: usize, filter: bool, visible_only: bool) -> String {
    let indent_str = "  ".repeat(indent);
    let (mut before, mut content_with_indent, mut after) = (String::new(), String::new(), String::new());
    let mut empty_node = true;
    let shown = node.node.as_ref().filter(|n| {
        n.rect.width > NODE_SIZE_THRESHOLD
            && n.rect.height > NODE_SIZE_THRESHOLD
            && (!filter || !n.content.is_empty())
            && (!visible_only || n.is_visible)
    });
    if let Some(n) = shown {
        empty_node = false;
        let attributes = js_object_order(&n.attributes);
        let tag = tag_name(&attributes);
        let attrs = attributes
            .iter()
            .filter(|(k, _)| !matches!(k.as_str(), "style" | "htmlTagName" | "nodeType"))
            .map(|(k, v)| {
                let once = truncate_value(v, max);
                format!("{k}=\"{}\"", truncate_text(&once, max))
            })
            .collect::<Vec<_>>()
            .join(" ");
        let r = &n.rect;
        let rect = format!(
            "left=\"{}\" top=\"{}\" width=\"{}\" height=\"{}\"",
            js_number(r.left),
            js_number(r.top),
            js_number(r.width),
            js_number(r.height)
        );
        before = format!("<{tag} id=\"{}\" {attrs} {rect}>", n.id);
        let content = truncate_text(&n.content, max);
        if !content.is_empty() {
            content_with_indent = format!("\n{indent_str}  {content}");
        }
        after = format!("</{tag}>");
    } else if !filter && !js_trim(&children).starts_with("<>") {
        before = "<>".into();
        after = "</>".into();
    }
    if empty_node && js_trim(&children).is_empty() {
        return String::new();
    }
    let result = format!("{indent_str}{before}{content_with_indent}{children}\n{indent_str}{after}");
    if js_trim(&result).is_empty() {
        String::new()
    } else {
        result
    }
}

/// `htmlTagName` without angle brackets, else `nodeType` minus its ` Node` suffix, lower-cased.
/// (Midscene throws on non-string values; here they count as absent.)
fn tag_name(attributes: &[(String, AttrValue)]) -> String {
    let get = |name: &str| match attributes.iter().find(|(k, _)| k == name).map(|(_, v)| v) {
        Some(AttrValue::Text(t)) => t.as_str(),
        _ => "",
    };
    match get("htmlTagName") {
        "" => strip_node_suffix(get("nodeType")).to_lowercase(),
        tag => tag.replace(['<', '>'], ""),
    }
}

/// `.replace(/\sNode$/, '')`.
fn strip_node_suffix(s: &str) -> &str {
    if let Some(head) = s.strip_suffix("Node") {
        if let Some(c) = head.chars().last() {
            if is_js_space(c) {
                return &head[..head.len() - c.len_utf8()];
            }
        }
    }
    s
}

/// A JavaScript object's key order: each key once at its first position (the last value
/// wins), integer-like keys first in ascending order.
fn js_object_order(entries: &[(String, AttrValue)]) -> Vec<(String, AttrValue)> {
    let mut out: Vec<(String, AttrValue)> = Vec::with_capacity(entries.len());
    for (k, v) in entries {
        match out.iter_mut().find(|(ok, _)| ok == k) {
            Some(slot) => slot.1 = v.clone(),
            None => out.push((k.clone(), v.clone())),
        }
    }
    let (mut index_keys, rest): (Vec<_>, Vec<_>) = out.into_iter().partition(|(k, _)| array_index(k).is_some());
    crate::order::sort_by_key(&mut index_keys, |(k, _)| array_index(k));
    index_keys.extend(rest);
    index_keys
}

/// A canonical array index: digits, no leading zero (except "0"), below 2^32 - 1.
fn array_index(k: &str) -> Option<u32> {
    if k.is_empty() || (k.len() > 1 && k.starts_with('0')) || !k.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    k.parse::<u64>().ok().filter(|&n| n < u32::MAX as u64).map(|n| n as u32)
}

fn truncate_value(v: &AttrValue, max: usize) -> String {
    match v {
        AttrValue::Text(s) => truncate_text(s, max),
        AttrValue::Number(n) => js_number(*n),
    }
}

/// `truncateText` for strings: longer than `max` UTF-16 units → cut + `...` (untrimmed), else trimmed.
pub fn truncate_text(s: &str, max: usize) -> String {
    let units = s.encode_utf16().count();
    if units <= max {
        return js_trim(s).to_string();
    }
    let mut out = String::with_capacity(s.len());
    let mut taken = 0;
    for c in s.chars() {
        let w = c.len_utf16();
        if taken + w > max {
            if taken < max {
                // JavaScript keeps half a surrogate pair; as UTF-8 it becomes U+FFFD.
                out.push('\u{FFFD}');
            }
            break;
        }
        out.push(c);
        taken += w;
    }
    out.push_str("...");
    out
}

/// JavaScript's `\s` and the characters `String.prototype.trim` removes.
pub fn is_js_space(c: char) -> bool {
    matches!(
        c,
        '\t' | '\n' | '\u{0B}' | '\u{0C}' | '\r' | ' ' | '\u{A0}' | '\u{1680}' | '\u{2000}'
            ..='\u{200A}' | '\u{2028}' | '\u{2029}' | '\u{202F}' | '\u{205F}' | '\u{3000}' | '\u{FEFF}'
    )
}

pub fn js_trim(s: &str) -> &str {
    s.trim_matches(is_js_space)
}

fn is_line_terminator(c: char) -> bool {
    matches!(c, '\n' | '\r' | '\u{2028}' | '\u{2029}')
}

/// `s.replace(/^\s*\n/gm, '')`: from each line start, the longest run of whitespace that ends
/// in `\n` is removed (the match is taken against the original string, as `replace` does).
pub fn strip_blank_lines(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut i = 0;
    let mut line_start = true;
    while i < s.len() {
        if line_start {
            let run = s[i..].find(|c: char| !is_js_space(c)).unwrap_or(s.len() - i);
            if let Some(last_nl) = s[i..i + run].rfind('\n') {
                i += last_nl + 1;
                line_start = true;
                continue;
            }
        }
        let c = s[i..].chars().next().unwrap_or('\0');
        out.push(c);
        line_start = is_line_terminator(c);
        i += c.len_utf8();
    }
    out
}

/// `Number.prototype.toString()` for a double.
pub fn js_number(n: f64) -> String {
    if n.is_nan() {
        return "NaN".into();
    }
    if n.is_infinite() {
        return if n > 0.0 { "Infinity".into() } else { "-Infinity".into() };
    }
    if n == 0.0 {
        return "0".into();
    }
    // Rust's `{:e}` gives the shortest round-trip digits, as ECMAScript requires.
    let sci = format!("{:e}", n.abs());
    let (mantissa, exp) = sci.split_once('e').unwrap_or((&sci, "0"));
    let digits: String = mantissa.chars().filter(|c| *c != '.').collect();
    let k = digits.len() as i32;
    let e: i32 = exp.parse().unwrap_or(0);
    let point = e + 1; // ECMAScript's n
    let body = if k <= point && point <= 21 {
        format!("{digits}{}", "0".repeat((point - k) as usize))
    } else if 0 < point && point <= 21 {
        format!("{}.{}", &digits[..point as usize], &digits[point as usize..])
    } else if -6 < point && point <= 0 {
        format!("0.{}{digits}", "0".repeat((-point) as usize))
    } else {
        let sign = if point > 0 { '+' } else { '-' };
        let exp = (point - 1).abs();
        if k == 1 {
            format!("{digits}e{sign}{exp}")
        } else {
            format!("{}.{}e{sign}{exp}", &digits[..1], &digits[1..])
        }
    };
    if n < 0.0 {
        format!("-{body}")
    } else {
        body
    }
}

fn node_type_name(kind: ElementKind) -> &'static str {
    match kind {
        ElementKind::Button => "BUTTON Node",
        ElementKind::Img => "IMG Node",
        ElementKind::Text => "TEXT Node",
        ElementKind::FormItem => "FORM_ITEM Node",
        ElementKind::Container => "CONTAINER Node",
        ElementKind::Anchor => "Anchor Node",
    }
}

/// Our elements as Midscene shapes its tree: anchors hold the elements inside them, every
/// other element is a leaf, and elements outside any anchor sit under a root without a node.
pub fn tree_of(snapshot: &PageSnapshot, elements: &[Element]) -> MsTree {
    let n = snapshot.nodes.len();
    let mut element_at: Vec<Option<usize>> = vec![None; n];
    for (i, e) in elements.iter().enumerate() {
        if let Some(slot) = element_at.get_mut(e.node as usize) {
            *slot = Some(i);
        }
    }
    // Nearest enclosing anchor element per snapshot node, in one pre-order pass.
    let mut anchor_of: Vec<Option<usize>> = vec![None; n];
    for i in 0..n {
        anchor_of[i] = snapshot.nodes[i].parent.and_then(|p| {
            let p = p as usize;
            match element_at[p] {
                Some(e) if elements[e].kind == ElementKind::Anchor => Some(e),
                _ => anchor_of[p],
            }
        });
    }
    let mut trees: Vec<MsTree> = elements
        .iter()
        .map(|e| {
            let mut attributes: Vec<(String, AttrValue)> =
                e.attributes.iter().map(|(k, v)| (k.clone(), AttrValue::Text(v.clone()))).collect();
            // Midscene lists no options; ours follow the attributes a select has, so a page
            // without a select describes byte for byte as Midscene's does.
            if !e.options.is_empty() {
                attributes.push(("options".into(), AttrValue::Text(super::options_text(&e.options))));
            }
            attributes.push(("htmlTagName".into(), AttrValue::Text(format!("<{}>", e.tag))));
            attributes.push(("nodeType".into(), AttrValue::Text(node_type_name(e.kind).into())));
            MsTree {
                node: Some(MsNode {
                    id: e.id.clone(),
                    attributes,
                    content: e.content.clone(),
                    rect: MsRect { left: e.rect.x, top: e.rect.y, width: e.rect.width, height: e.rect.height },
                    is_visible: e.in_viewport > 0.0,
                }),
                children: Vec::new(),
            }
        })
        .collect();
    // Attach children to their anchors, last first, so each tree is whole when it is taken; each
    // list is pushed in reverse and turned round once (inserting at the front was quadratic: the
    // root holds every element without an anchor, 200k on a big page).
    let mut root = MsTree::default();
    for i in (0..elements.len()).rev() {
        let mut tree = std::mem::take(&mut trees[i]);
        tree.children.reverse();
        match anchor_of.get(elements[i].node as usize).copied().flatten() {
            Some(a) => trees[a].children.push(tree),
            None => root.children.push(tree),
        }
    }
    root.children.reverse();
    root
}

#[cfg(test)]
mod tests {
    use super::*;

    fn text(s: &str) -> AttrValue {
        AttrValue::Text(s.into())
    }

    fn leaf(id: &str, attrs: Vec<(&str, AttrValue)>, content: &str, w: f64, visible: bool) -> MsTree {
        MsTree {
            node: Some(MsNode {
                id: id.into(),
                attributes: attrs.into_iter().map(|(k, v)| (k.to_string(), v)).collect(),
                content: content.into(),
                rect: MsRect { left: 1.5, top: 2.0, width: w, height: 10.0 },
                is_visible: visible,
            }),
            children: vec![],
        }
    }

    #[test]
    fn matches_the_reference_output() {
        // Output of @midscene/shared 1.13.1 descriptionOfTree for this tree, taken in Node.
        let tree = MsTree {
            node: None,
            children: vec![leaf(
                "abc",
                vec![
                    ("nodeType", text("TEXT Node")),
                    ("htmlTagName", text("<h1>")),
                    ("2", text("x")),
                    ("class", text(".a.b")),
                ],
                "  hi ",
                10.0,
                true,
            )],
        };
        assert_eq!(
            description_of_tree(&tree, None, false, true),
            "<>\n  <h1 id=\"abc\" 2=\"x\" class=\".a.b\" left=\"1.5\" top=\"2\" width=\"10\" height=\"10\">\n    hi\n  </h1>\n</>"
        );
    }

    #[test]
    fn empty_attributes_leave_the_double_space() {
        let tree = leaf("i", vec![("nodeType", text("BUTTON Node"))], "", 10.0, true);
        assert_eq!(
            description_of_tree(&tree, None, false, true),
            "<button id=\"i\"  left=\"1.5\" top=\"2\" width=\"10\" height=\"10\">\n</button>"
        );
    }

    #[test]
    fn small_or_invisible_nodes_vanish_but_children_stay() {
        let mut parent = leaf("p", vec![("nodeType", text("Anchor Node"))], "", 3.0, true);
        parent.children.push(leaf("c", vec![("nodeType", text("TEXT Node"))], "kid", 10.0, true));
        let out = description_of_tree(&parent, None, false, true);
        assert!(out.starts_with("<>\n  <text id=\"c\""), "{out}");
        assert_eq!(
            description_of_tree(&leaf("x", vec![("nodeType", text("TEXT Node"))], "t", 10.0, false), None, false, true),
            ""
        );
    }

    #[test]
    fn truncation_counts_utf16_and_cuts_before_trimming() {
        assert_eq!(truncate_text("  abc  ", 10), "abc");
        assert_eq!(truncate_text(" abcdef", 3), " ab...");
        assert_eq!(truncate_text("😀😀", 3), "😀\u{FFFD}...");
        assert_eq!(truncate_text("你好", 2), "你好");
    }

    #[test]
    fn numbers_print_like_javascript() {
        for (n, s) in [
            (1.5, "1.5"),
            (100.0, "100"),
            (-0.0, "0"),
            (1e21, "1e+21"),
            (1e-7, "1e-7"),
            (0.000001, "0.000001"),
            (123456789012345680000.0, "123456789012345680000"),
            (-2.5e-8, "-2.5e-8"),
            (0.1 + 0.2, "0.30000000000000004"),
            (f64::NAN, "NaN"),
            (f64::NEG_INFINITY, "-Infinity"),
            (1.2345e25, "1.2345e+25"),
        ] {
            assert_eq!(js_number(n), s, "{n}");
        }
    }

    #[test]
    fn blank_lines_go_as_javascript_removes_them() {
        assert_eq!(strip_blank_lines("a\n\n  \nb\n"), "a\nb\n");
        assert_eq!(strip_blank_lines("\n \n x"), " x");
        // `\r` starts a line too in multiline mode (checked in Node: "a\rb").
        assert_eq!(strip_blank_lines("a\r\n\nb"), "a\rb");
    }

    #[test]
    fn integer_keys_come_first_and_duplicates_keep_their_place() {
        let ordered = js_object_order(&[
            ("b".into(), text("1")),
            ("10".into(), text("2")),
            ("a".into(), text("3")),
            ("2".into(), text("4")),
            ("b".into(), text("5")),
            ("01".into(), text("6")),
        ]);
        let keys: Vec<_> = ordered.iter().map(|(k, _)| k.as_str()).collect();
        assert_eq!(keys, ["2", "10", "b", "a", "01"]);
        assert_eq!(ordered[2].1, text("5"));
    }

    #[test]
    fn deep_trees_do_not_overflow() {
        let mut tree = leaf("d", vec![("nodeType", text("TEXT Node"))], "bottom", 10.0, true);
        // The walk keeps no Rust stack per level. Cost grows with depth cubed (each level copies its
        // subtree's text, whose indentation grows with depth), as in Midscene; its trees are shallow
        // because nodes without an element are promoted away, so only nested links add depth.
        for _ in 0..150 {
            tree = MsTree { node: None, children: vec![tree] };
        }
        assert!(description_of_tree(&tree, None, false, true).contains("bottom"));
        // Dropping a deep tree recursively could overflow too; unwind it by hand.
        let mut t = tree;
        while let Some(child) = t.children.pop() {
            t = child;
        }
    }
}
