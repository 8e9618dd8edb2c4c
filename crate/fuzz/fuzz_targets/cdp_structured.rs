//! The CDP page reader, structure-aware: the input's bytes build a capture in DOMSnapshot's
//! shape (string table, node columns, rare data, layout, frames, shadow roots, remote frames),
//! so the decoder's walk and the describe step get deep pages, not JSON syntax errors.
//! The bytes choose; where they run out, every choice is 0.
#![no_main]
use libfuzzer_sys::fuzz_target;
use serde_json::{json, Value};
use std::collections::HashMap;
#[path = "../page_checks.rs"]
mod page_checks;

/// What real pages put in the string table, grouped by what reads them.
const TAGS: &[&str] = &[
    "HTML", "BODY", "DIV", "SPAN", "INPUT", "BUTTON", "A", "IFRAME", "SELECT", "OPTION", "TEXTAREA", "IMG", "MY-CARD", "SCRIPT",
    "svg", "P", "LI", "UL", "LABEL", "FRAME", "HEAD", "FORM",
];
const OTHER_NAMES: &[&str] = &["#document", "#text", "#comment", "html", "::before", "#document-fragment"];
const ATTR_NAMES: &[&str] = &["id", "class", "type", "placeholder", "aria-label", "href", "name", "title", "alt", "value", "role", "src"];
const ATTR_VALUES: &[&str] = &["x", "main", "checkbox", "password", "Name", "/a", "Save", "", "btn primary", "search", "radio", "a b"];
const TEXTS: &[&str] = &["buy milk", "Total: 3", "  ", "你好", "Save", "»", "|", "\n  Sign in\n", "a\u{0}b", ""];
/// Per computed style, in `cdp::COMPUTED_STYLES` order, the values pages give.
const STYLES: [&[&str]; 14] = [
    &["block", "none", "inline", "flex", "contents"],
    &["visible", "hidden", "collapse"],
    &["1", "0", "0.5", "", "x"],
    &["rgba(0, 0, 0, 0)", "rgb(255, 255, 255)", "transparent", "rgb(0, 0, 0)"],
    &["none", "url(\"a.png\")", "linear-gradient(red, blue)"],
    &["visible", "hidden", "scroll", "auto", "clip"],
    &["visible", "hidden", "scroll", "auto", "clip"],
    &["static", "fixed", "absolute", "sticky", "relative"],
    &["auto", "none"],
    &["0px", "5px", "-3px", "1e9px", "px"],
    &["0px", "2px", "NaNpx"],
    &["0px", "8px"],
    &["0px", "4px"],
    &["serif", "Material Icons", "\"Font Awesome 6 Free\"", "monospace"],
];
const SHADOW: &[&str] = &["open", "closed", "user-agent"];

struct Bytes<'a>(&'a [u8]);

impl Bytes<'_> {
    fn byte(&mut self) -> u8 {
        let Some((&b, rest)) = self.0.split_first() else { return 0 };
        self.0 = rest;
        b
    }
    fn below(&mut self, n: usize) -> usize {
        if n == 0 { 0 } else { self.byte() as usize % n }
    }
    fn chance(&mut self, in_256: u8) -> bool {
        self.byte() < in_256
    }
}

/// The capture's string table, each string once.
#[derive(Default)]
struct Strings {
    table: Vec<&'static str>,
    ids: HashMap<&'static str, i64>,
}

impl Strings {
    fn id(&mut self, s: &'static str) -> i64 {
        *self.ids.entry(s).or_insert_with(|| {
            self.table.push(s);
            self.table.len() as i64 - 1
        })
    }
    fn pick(&mut self, b: &mut Bytes, from: &[&'static str]) -> i64 {
        let s = from[b.below(from.len())];
        self.id(s)
    }
}

fn document(b: &mut Bytes, strings: &mut Strings, documents: usize, max_nodes: usize) -> Value {
    let n = 1 + b.below(max_nodes);
    let (mut parent, mut node_type, mut node_name, mut node_value, mut backend, mut attributes) =
        (Vec::new(), Vec::new(), Vec::new(), Vec::new(), Vec::new(), Vec::new());
    let (mut input_value, mut text_value, mut checked, mut selected, mut pseudo, mut shadow, mut content_doc) =
        ((vec![], vec![]), (vec![], vec![]), vec![], vec![], (vec![], vec![]), (vec![], vec![]), (vec![], vec![]));
    let (mut layout_node, mut bounds, mut styles, mut paint) = (Vec::new(), Vec::new(), Vec::new(), Vec::new());
    for i in 0..n {
        // Mostly a tree (the document first, each node under an earlier one); now and then
        // what hostile input could say: a later node, itself, or nothing at all.
        let p: i64 = if i == 0 {
            -1
        } else if b.chance(8) {
            b.byte() as i64 - 8
        } else {
            b.below(i) as i64
        };
        parent.push(p);
        let kind = if i == 0 { 0 } else { b.below(16) };
        let (t, name) = match kind {
            0 => (9, strings.id("#document")),
            1..=9 => (1, strings.pick(b, TAGS)),
            10..=13 => (3, strings.id("#text")),
            14 => (8, strings.id("#comment")),
            _ => (b.below(12) as i64, strings.pick(b, OTHER_NAMES)),
        };
        node_type.push(t);
        node_name.push(name);
        node_value.push(if t == 3 || b.chance(4) { strings.pick(b, TEXTS) } else { -1 });
        backend.push(100 + i as i64);
        let mut attrs = Vec::new();
        if t == 1 {
            for _ in 0..b.below(4) {
                attrs.push(strings.pick(b, ATTR_NAMES));
                attrs.push(strings.pick(b, ATTR_VALUES));
            }
            if b.chance(4) {
                attrs.push(strings.pick(b, ATTR_NAMES)); // an odd one out
            }
        }
        attributes.push(attrs);
        let rare = |b: &mut Bytes, in_256: u8| b.chance(in_256);
        if rare(b, 32) {
            input_value.0.push(i as i64);
            input_value.1.push(strings.pick(b, TEXTS));
        }
        if rare(b, 16) {
            text_value.0.push(i as i64);
            text_value.1.push(strings.pick(b, TEXTS));
        }
        if rare(b, 24) {
            checked.push(i as i64);
        }
        if rare(b, 24) {
            selected.push(i as i64);
        }
        if rare(b, 8) {
            pseudo.0.push(i as i64);
            pseudo.1.push(strings.id("before"));
        }
        if rare(b, 24) {
            shadow.0.push(i as i64);
            shadow.1.push(strings.pick(b, SHADOW));
        }
        if t == 1 && rare(b, 24) {
            content_doc.0.push(i as i64);
            content_doc.1.push(b.below(documents + 1) as i64); // now and then one past the last
        }
        if rare(b, 200) {
            layout_node.push(i as i64);
            let side = |b: &mut Bytes| (b.byte() as i8) as f64 * 8.0;
            let size = |b: &mut Bytes| b.byte() as f64 * 6.0;
            let mut rect = vec![side(b), side(b) + 200.0, size(b), size(b)];
            if b.chance(4) {
                rect.truncate(b.below(4));
            }
            bounds.push(rect);
            let mut row: Vec<i64> = STYLES.iter().map(|values| strings.pick(b, values)).collect();
            if b.chance(6) {
                row.truncate(b.below(14));
            }
            styles.push(row);
            paint.push(b.below(64) as i64);
        }
    }
    if b.chance(16) {
        // Columns that disagree in length, or are left out (some are optional).
        let k = b.below(6);
        let columns = [&mut node_type, &mut node_name, &mut parent, &mut node_value, &mut backend];
        let short = &mut *columns[k.min(4)];
        if k == 5 {
            short.clear();
        } else {
            short.pop();
        }
    }
    json!({
        "documentURL": strings.id("http://x/"), "title": strings.id("T"),
        "scrollOffsetX": 0, "scrollOffsetY": b.below(4) as f64 * 100.0,
        "contentWidth": 1280, "contentHeight": 3000,
        "nodes": {
            "parentIndex": parent, "nodeType": node_type, "nodeName": node_name, "nodeValue": node_value,
            "backendNodeId": backend, "attributes": attributes,
            "inputValue": {"index": input_value.0, "value": input_value.1},
            "textValue": {"index": text_value.0, "value": text_value.1},
            "inputChecked": {"index": checked},
            "optionSelected": {"index": selected},
            "pseudoType": {"index": pseudo.0, "value": pseudo.1},
            "shadowRootType": {"index": shadow.0, "value": shadow.1},
            "contentDocumentIndex": {"index": content_doc.0, "value": content_doc.1},
        },
        "layout": {"nodeIndex": layout_node, "bounds": bounds, "styles": styles, "paintOrders": paint},
    })
}

fn capture(b: &mut Bytes, max_documents: usize, max_nodes: usize) -> Value {
    let mut strings = Strings::default();
    strings.id("");
    let count = 1 + b.below(max_documents);
    let documents: Vec<Value> = (0..count).map(|_| document(b, &mut strings, count, max_nodes)).collect();
    json!({ "documents": documents, "strings": strings.table })
}

fuzz_target!(|data: &[u8]| {
    let mut b = Bytes(data);
    let options = b.byte();
    let top = capture(&mut b, 3, 40);
    let (w, h) = ([1280.0, 390.0, 0.0, 1.0][b.below(4)], [800.0, 844.0, 0.0][b.below(3)]);
    let dpr = [1.0, 2.0, 3.0, 0.0][b.below(4)];
    let metrics = json!({
        "cssVisualViewport": {"pageX": 0, "pageY": 0, "clientWidth": w, "clientHeight": h},
        "visualViewport": {"clientWidth": w * dpr, "clientHeight": h * dpr},
        "cssContentSize": {"width": 1280, "height": 3000},
    });
    // Cross-process frames, each owned by a node of the top capture (or by none).
    let remotes: Vec<Value> =
        (0..b.below(3)).map(|_| json!({"ownerBackendNodeId": 100 + b.below(40) as i64, "capture": capture(&mut b, 1, 12)})).collect();
    let remote_text = if remotes.is_empty() && b.chance(128) { String::new() } else { Value::from(remotes).to_string() };
    page_checks::decode_and_describe(&top.to_string(), &metrics.to_string(), &remote_text, options);
});
