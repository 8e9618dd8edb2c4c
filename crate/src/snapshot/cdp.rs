//! Decodes CDP `DOMSnapshot.captureSnapshot` + `Page.getLayoutMetrics` into a [`PageSnapshot`].
//!
//! This is the strict-CSP path: the service worker reads the page through the debugger and
//! feeds the same classification code the content script uses.

use super::{is_skipped_tag, FormState, NodeData, PageSnapshot, SiblingPositions, SnapNode, StyleFacts, Viewport, TEXT_STEP};
use crate::geometry::Rect;
use serde::Deserialize;
use serde_json::{json, Value};

/// Computed styles requested from CDP, in this order (the decoder reads them by position).
pub const COMPUTED_STYLES: [&str; 5] = [
    "display",
    "visibility",
    "opacity",
    "background-color",
    "background-image",
];

#[derive(Debug, thiserror::Error, PartialEq)]
pub enum DecodeError {
    #[error("the DOM snapshot is not in the expected form: {0}")]
    Shape(String),
    #[error("the DOM snapshot holds no document")]
    NoDocument,
    #[error("the DOM snapshot refers to string {0}, which it does not hold")]
    BadString(i64),
}

/// Parameters for `DOMSnapshot.captureSnapshot` matching what [`decode`] reads.
pub fn capture_params() -> Value {
    json!({ "computedStyles": COMPUTED_STYLES, "includeDOMRects": false })
}

#[derive(Deserialize, Default)]
#[serde(rename_all = "camelCase", default)]
struct Capture {
    documents: Vec<Document>,
    strings: Vec<String>,
}

#[derive(Deserialize, Default)]
#[serde(rename_all = "camelCase", default)]
struct Document {
    #[serde(rename = "documentURL")]
    document_url: i64,
    title: i64,
    nodes: Nodes,
    layout: Layout,
    scroll_offset_x: f64,
    scroll_offset_y: f64,
    content_width: f64,
    content_height: f64,
}

#[derive(Deserialize, Default)]
#[serde(rename_all = "camelCase", default)]
struct Nodes {
    parent_index: Vec<i64>,
    node_type: Vec<i64>,
    node_name: Vec<i64>,
    node_value: Vec<i64>,
    attributes: Vec<Vec<i64>>,
    text_value: RareStrings,
    input_value: RareStrings,
    input_checked: RareBools,
    option_selected: RareBools,
    pseudo_type: RareStrings,
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct RareStrings {
    index: Vec<i64>,
    value: Vec<i64>,
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct RareBools {
    index: Vec<i64>,
}

#[derive(Deserialize, Default)]
#[serde(rename_all = "camelCase", default)]
struct Layout {
    node_index: Vec<i64>,
    styles: Vec<Vec<i64>>,
    bounds: Vec<Vec<f64>>,
}

#[derive(Deserialize, Default)]
#[serde(rename_all = "camelCase", default)]
pub struct LayoutMetrics {
    css_visual_viewport: VisualViewport,
    visual_viewport: VisualViewport,
    css_content_size: Size,
}

#[derive(Deserialize, Default)]
#[serde(rename_all = "camelCase", default)]
struct VisualViewport {
    page_x: f64,
    page_y: f64,
    client_width: f64,
    client_height: f64,
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct Size {
    width: f64,
    height: f64,
}

const ELEMENT_NODE: i64 = 1;
const TEXT_NODE: i64 = 3;

/// Builds a snapshot of the top document from the two CDP results.
pub fn decode(capture: &Value, metrics: &Value) -> Result<PageSnapshot, DecodeError> {
    let capture: Capture =
        serde_json::from_value(capture.clone()).map_err(|e| DecodeError::Shape(e.to_string()))?;
    let metrics: LayoutMetrics =
        serde_json::from_value(metrics.clone()).map_err(|e| DecodeError::Shape(e.to_string()))?;
    let doc = capture.documents.first().ok_or(DecodeError::NoDocument)?;
    let strings = &capture.strings;
    let s = |i: i64| -> Result<&str, DecodeError> {
        if i < 0 {
            return Ok("");
        }
        strings.get(i as usize).map(String::as_str).ok_or(DecodeError::BadString(i))
    };

    let n = doc.nodes.parent_index.len();
    let nodes = &doc.nodes;
    let column_ok = |len: usize| len == n;
    if !column_ok(nodes.node_type.len()) || !column_ok(nodes.node_name.len()) {
        return Err(DecodeError::Shape("node columns differ in length".into()));
    }

    // Layout facts per DOM node.
    let mut layout_of: Vec<Option<usize>> = vec![None; n];
    for (li, &ni) in doc.layout.node_index.iter().enumerate() {
        if ni >= 0 && (ni as usize) < n {
            layout_of[ni as usize] = Some(li);
        }
    }
    let rare = |r: &RareStrings| -> Vec<Option<i64>> {
        let mut v = vec![None; n];
        for (k, &i) in r.index.iter().enumerate() {
            if i >= 0 && (i as usize) < n {
                v[i as usize] = r.value.get(k).copied();
            }
        }
        v
    };
    let flags = |r: &RareBools| -> Vec<bool> {
        let mut v = vec![false; n];
        for &i in &r.index {
            if i >= 0 && (i as usize) < n {
                v[i as usize] = true;
            }
        }
        v
    };
    let text_value = rare(&nodes.text_value);
    let input_value = rare(&nodes.input_value);
    let pseudo = rare(&nodes.pseudo_type);
    let checked = flags(&nodes.input_checked);
    let selected = flags(&nodes.option_selected);

    // Children lists, then an explicit depth-first walk: pre-order output whatever the input order.
    let mut children: Vec<Vec<usize>> = vec![Vec::new(); n];
    let mut roots = Vec::new();
    for i in 0..n {
        let p = nodes.parent_index[i];
        if p >= 0 && (p as usize) < n && p as usize != i {
            children[p as usize].push(i);
        } else {
            roots.push(i);
        }
    }

    let viewport = Viewport {
        width: metrics.css_visual_viewport.client_width,
        height: metrics.css_visual_viewport.client_height,
        device_pixel_ratio: if metrics.css_visual_viewport.client_width > 0.0
            && metrics.visual_viewport.client_width > 0.0
        {
            metrics.visual_viewport.client_width / metrics.css_visual_viewport.client_width
        } else {
            1.0
        },
        scroll_x: metrics.css_visual_viewport.page_x,
        scroll_y: metrics.css_visual_viewport.page_y,
        document_width: metrics.css_content_size.width.max(doc.content_width),
        document_height: metrics.css_content_size.height.max(doc.content_height),
    };

    let mut out = PageSnapshot {
        url: s(doc.document_url)?.to_string(),
        title: s(doc.title)?.to_string(),
        viewport,
        nodes: Vec::new(),
    };
    let mut seen = vec![false; n];
    let mut positions = SiblingPositions::default();
    // Stack of (snapshot node, parent in output, ancestors transparent, inside a shadow root).
    let mut stack: Vec<(usize, Option<u32>, bool, bool)> =
        roots.iter().rev().map(|&r| (r, None, false, false)).collect();
    while let Some((i, parent, transparent, in_shadow)) = stack.pop() {
        if std::mem::replace(&mut seen[i], true) {
            continue; // a cycle in hostile input
        }
        let node_type = nodes.node_type[i];
        let (mut next_parent, mut next_transparent) = (parent, transparent);
        let is_pseudo = pseudo[i].is_some();
        if node_type == ELEMENT_NODE && !is_pseudo {
            let tag = s(nodes.node_name[i])?.to_ascii_lowercase();
            let position = positions.next(parent, in_shadow, &tag);
            if is_skipped_tag(&tag) {
                continue;
            }
            let mut attributes = Vec::new();
            if let Some(pairs) = nodes.attributes.get(i) {
                for pair in pairs.chunks(2) {
                    if let [k, v] = pair {
                        attributes.push((s(*k)?.to_string(), s(*v)?.to_string()));
                    }
                }
            }
            let (rect, visible, own_transparent, style) = layout_facts(doc, layout_of[i], &s)?;
            let form = match tag.as_str() {
                "input" => Some(FormState {
                    value: input_value[i].map(|v| s(v).map(str::to_string)).transpose()?,
                    checked: Some(checked[i]),
                    selected_text: None,
                }),
                "textarea" => Some(FormState {
                    value: text_value[i].map(|v| s(v).map(str::to_string)).transpose()?,
                    ..Default::default()
                }),
                "option" => Some(FormState { checked: Some(selected[i]), ..Default::default() }),
                "select" => Some(FormState::default()),
                _ => None,
            };
            out.nodes.push(SnapNode {
                parent,
                data: NodeData::Element { tag, attributes },
                rect: rect.map(|r| r.translate(-doc.scroll_offset_x, -doc.scroll_offset_y)),
                visible: visible && !transparent && !own_transparent,
                form,
                style,
                position,
            });
            next_parent = Some((out.nodes.len() - 1) as u32);
            next_transparent = transparent || own_transparent;
        } else if node_type == TEXT_NODE {
            let position = positions.next(parent, in_shadow, TEXT_STEP);
            let (rect, visible, _, _) = layout_facts(doc, layout_of[i], &s)?;
            out.nodes.push(SnapNode {
                parent,
                data: NodeData::Text { text: s(nodes.node_value[i])?.to_string() },
                rect: rect.map(|r| r.translate(-doc.scroll_offset_x, -doc.scroll_offset_y)),
                visible: visible && !transparent,
                form: None,
                style: None,
                position,
            });
            continue;
        } else if is_pseudo || (node_type != 9 && node_type != 11) {
            // Comments, doctypes, pseudo-elements: nothing a person can act on.
            // Documents (9) and shadow roots (11) pass their children through.
            continue;
        }
        // A shadow root (11) passes its children to the host, counted apart from light DOM.
        let children_in_shadow = if node_type == 11 { true } else if node_type == ELEMENT_NODE { false } else { in_shadow };
        for &c in children[i].iter().rev() {
            stack.push((c, next_parent, next_transparent, children_in_shadow));
        }
    }
    fill_select_text(&mut out);
    Ok(out)
}

/// (rect, visible, opacity zero, background facts) for one node's layout entry.
fn layout_facts<'a>(
    doc: &Document,
    layout: Option<usize>,
    s: &impl Fn(i64) -> Result<&'a str, DecodeError>,
) -> Result<(Option<Rect>, bool, bool, Option<StyleFacts>), DecodeError> {
    let Some(li) = layout else {
        return Ok((None, false, false, None)); // no layout box: display:none or detached
    };
    let rect = doc
        .layout
        .bounds
        .get(li)
        .filter(|b| b.len() == 4)
        .map(|b| Rect::new(b[0], b[1], b[2], b[3]));
    let styles = doc.layout.styles.get(li);
    let style = |k: usize| -> Result<&str, DecodeError> {
        match styles.and_then(|v| v.get(k)) {
            Some(&i) => s(i),
            None => Ok(""),
        }
    };
    let display = style(0)?;
    let visibility = style(1)?;
    let opacity_zero = style(2)?.trim().parse::<f64>().map_or(false, |o| o <= 0.0);
    let visible = display != "none" && visibility != "hidden" && visibility != "collapse";
    let facts = StyleFacts::from_computed(style(3)?, style(4)?);
    Ok((rect, visible, opacity_zero, Some(facts)))
}

/// A `<select>`'s shown text is its selected option's text, gathered after the walk.
fn fill_select_text(snap: &mut PageSnapshot) {
    let len = snap.nodes.len();
    for i in 0..len {
        if snap.nodes[i].tag() != Some("option") {
            continue;
        }
        let selected = snap.nodes[i].form.as_ref().and_then(|f| f.checked).unwrap_or(false);
        let Some(select) = ancestor_with_tag(snap, i, "select") else { continue };
        let text: String = (i + 1..len)
            .take_while(|&j| is_descendant(snap, j, i))
            .filter_map(|j| match &snap.nodes[j].data {
                NodeData::Text { text } => Some(text.trim().to_string()),
                _ => None,
            })
            .collect::<Vec<_>>()
            .join(" ");
        let form = snap.nodes[select].form.get_or_insert_with(Default::default);
        if selected || form.selected_text.is_none() {
            form.selected_text = Some(text);
        }
    }
}

fn ancestor_with_tag(snap: &PageSnapshot, mut i: usize, tag: &str) -> Option<usize> {
    while let Some(p) = snap.nodes[i].parent {
        i = p as usize;
        if snap.nodes[i].tag() == Some(tag) {
            return Some(i);
        }
    }
    None
}

fn is_descendant(snap: &PageSnapshot, mut j: usize, ancestor: usize) -> bool {
    while let Some(p) = snap.nodes[j].parent {
        j = p as usize;
        if j == ancestor {
            return true;
        }
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> (Value, Value) {
        // strings: 0 "" 1 "#document" 2 "HTML" 3 "BODY" 4 "INPUT" 5 "placeholder" 6 "Todo"
        // 7 "#text" 8 "hi" 9 "block" 10 "visible" 11 "1" 12 "rgba(0, 0, 0, 0)" 13 "none"
        // 14 "http://x/" 15 "T" 16 "typed" 17 "DIV" 18 "0"
        let capture = json!({
            "strings": ["", "#document", "HTML", "BODY", "INPUT", "placeholder", "Todo", "#text", "hi",
                        "block", "visible", "1", "rgba(0, 0, 0, 0)", "none", "http://x/", "T", "typed", "DIV", "0"],
            "documents": [{
                "documentURL": 14, "title": 15, "scrollOffsetX": 0, "scrollOffsetY": 100,
                "contentWidth": 1280, "contentHeight": 3000,
                "nodes": {
                    "parentIndex": [-1, 0, 1, 2, 2, 4, 4, 6],
                    "nodeType":    [9, 1, 1, 1, 1, 3, 1, 3],
                    "nodeName":    [1, 2, 3, 4, 17, 7, 17, 7],
                    "nodeValue":   [-1, -1, -1, -1, -1, 8, -1, 8],
                    "attributes":  [[], [], [], [5, 6], [], [], [], []],
                    "inputValue":  {"index": [3], "value": [16]}
                },
                "layout": {
                    "nodeIndex": [1, 2, 3, 4, 5, 6, 7],
                    "bounds": [[0,0,1280,3000],[0,0,1280,3000],[10,110,200,30],[0,300,100,20],[0,300,20,20],[0,400,50,50],[0,400,20,20]],
                    "styles": [[9,10,11,12,13],[9,10,11,12,13],[9,10,11,12,13],[9,10,11,12,13],[9,10,11,12,13],[9,10,18,12,13],[9,10,11,12,13]]
                }
            }]
        });
        let metrics = json!({
            "cssVisualViewport": {"pageX": 0, "pageY": 100, "clientWidth": 1280, "clientHeight": 800},
            "visualViewport": {"pageX": 0, "pageY": 200, "clientWidth": 2560, "clientHeight": 1600},
            "cssContentSize": {"width": 1280, "height": 3000}
        });
        (capture, metrics)
    }

    #[test]
    fn decodes_elements_text_values_and_scroll() {
        let (capture, metrics) = sample();
        let snap = decode(&capture, &metrics).unwrap();
        assert_eq!(snap.url, "http://x/");
        assert_eq!(snap.title, "T");
        assert_eq!(snap.viewport.device_pixel_ratio, 2.0);
        assert_eq!(snap.viewport.scroll_y, 100.0);
        let tags: Vec<_> = snap.nodes.iter().map(|n| n.tag().unwrap_or("#text")).collect();
        assert_eq!(tags, ["html", "body", "input", "div", "#text", "div", "#text"]);
        let input = &snap.nodes[2];
        assert_eq!(input.attr("placeholder"), Some("Todo"));
        assert_eq!(input.form.as_ref().unwrap().value.as_deref(), Some("typed"));
        // Document coordinates become viewport coordinates.
        assert_eq!(input.rect, Some(Rect::new(10.0, 10.0, 200.0, 30.0)));
        assert_eq!(snap.nodes[1].parent, Some(0));
        assert_eq!(snap.nodes[4].parent, Some(3));
    }

    #[test]
    fn opacity_zero_hides_the_subtree() {
        let (capture, metrics) = sample();
        let snap = decode(&capture, &metrics).unwrap();
        assert!(snap.nodes[3].visible && snap.nodes[4].visible);
        assert!(!snap.nodes[5].visible, "opacity 0 element");
        assert!(!snap.nodes[6].visible, "text inside opacity 0");
    }

    #[test]
    fn bad_input_is_an_error_not_a_panic() {
        let metrics = json!({});
        assert_eq!(decode(&json!({"documents": []}), &metrics), Err(DecodeError::NoDocument));
        assert!(matches!(decode(&json!({"documents": 5}), &metrics), Err(DecodeError::Shape(_))));
        let bad = json!({"strings": [], "documents": [{"documentURL": 9,
            "nodes": {"parentIndex": [-1], "nodeType": [1], "nodeName": [0]}}]});
        assert_eq!(decode(&bad, &metrics), Err(DecodeError::BadString(9)));
        let cyclic = json!({"strings": ["DIV"], "documents": [{"documentURL": -1, "title": -1,
            "nodes": {"parentIndex": [1, 0], "nodeType": [1, 1], "nodeName": [0, 0]}}]});
        // Both point at each other: no root, nothing reachable, no hang.
        assert_eq!(decode(&cyclic, &metrics).unwrap().nodes.len(), 0);
    }
}
