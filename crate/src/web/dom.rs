//! Reads the live DOM into a `PageSnapshot`. It decides nothing about elements: the first
//! pass records tags, the attributes classification reads, visibility and form state; then
//! it measures boxes and reads computed styles only for the nodes the core says need them
//! (`describe::nodes_needing_rect`, `PageSnapshot::nodes_needing_style`).
//!
//! Speed comes from few boundary crossings. Each node costs one call to a small reader (below)
//! that returns its tag or text and leaves its box in a typed array, instead of a dozen
//! web-sys calls that each allocate; attributes cost one call, and only on elements that have any.

use crate::geometry::Rect;
use crate::snapshot::{
    is_skipped_tag, FormState, NodeData, PageSnapshot, SiblingPositions, SnapNode, StyleFacts, Viewport,
    RECORDED_ATTRIBUTES, TEXT_STEP,
};
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use web_sys::{Document, Element, HtmlInputElement, HtmlSelectElement, HtmlTextAreaElement, Node, Window};

#[wasm_bindgen(inline_js = r#"
const VISIBLE = { opacityProperty: true, visibilityProperty: true };
const box = new Float64Array(6);
let recorded = new Set();
export function readerBox() { return box; }
export function setRecordedAttributes(names) { recorded = new Set(names); }
// Element → its local name; box = [kind 1, state] where state is 0 for no layout box
// (display:none), 1 for a box hidden by visibility or opacity, 2 for visible.
// Text → its data when it has non-space characters, else undefined; box[0] = 3.
// Anything else → undefined; box[0] = 0.
export function readNode(node) {
  const type = node.nodeType;
  if (type === 1) {
    box[0] = 1;
    box[1] = node.checkVisibility(VISIBLE) ? 2 : node.checkVisibility() ? 1 : 0;
    return node.localName;
  }
  if (type === 3) {
    box[0] = 3;
    const data = node.data;
    return /\S/.test(data) ? data : undefined;
  }
  box[0] = 0;
  return undefined;
}
// The recorded attributes as "name\0value\0…", or undefined.
export function readAttributes(el) {
  if (!el.hasAttributes()) return undefined;
  let out = '';
  for (const a of el.attributes) if (recorded.has(a.name)) out += a.name + '\0' + a.value + '\0';
  return out || undefined;
}
// A node's box: box[2..6] = x, y, width, height (a Range measures text).
export function readBox(range, node) {
  let r;
  if (node.nodeType === 3) {
    range.selectNodeContents(node);
    r = range.getBoundingClientRect();
  } else {
    r = node.getBoundingClientRect();
  }
  box[2] = r.x; box[3] = r.y; box[4] = r.width; box[5] = r.height;
}
"#)]
extern "C" {
    #[wasm_bindgen(js_name = readerBox)]
    fn reader_box() -> js_sys::Float64Array;
    #[wasm_bindgen(js_name = setRecordedAttributes)]
    fn set_recorded_attributes(names: js_sys::Array);
    #[wasm_bindgen(js_name = readNode)]
    fn read_node(node: &Node) -> Option<String>;
    #[wasm_bindgen(js_name = readAttributes)]
    fn read_attributes(el: &Element) -> Option<String>;
    #[wasm_bindgen(js_name = readBox)]
    fn read_box(range: &web_sys::Range, node: &Node);
}

pub struct WalkTimings {
    pub walk_ms: f64,
    pub style_ms: f64,
}

const ELEMENT: f64 = 1.0;
const TEXT: f64 = 3.0;

pub fn snapshot_document(window: &Window) -> Result<(PageSnapshot, WalkTimings), String> {
    let document = window.document().ok_or("this page has no document")?;
    let root = document.document_element().ok_or("this page has no root element")?;
    let perf = window.performance();
    let now = || perf.as_ref().map_or(0.0, |p| p.now());
    let t0 = now();

    let names = js_sys::Array::new();
    for name in RECORDED_ATTRIBUTES {
        names.push(&JsValue::from_str(name));
    }
    set_recorded_attributes(names);
    let box_ = reader_box();
    let read_rect = |b: &js_sys::Float64Array| Rect::new(b.get_index(2), b.get_index(3), b.get_index(4), b.get_index(5));

    let mut snap = PageSnapshot {
        url: window.location().href().unwrap_or_default(),
        title: document.title(),
        viewport: viewport_of(window, &document, &root),
        nodes: Vec::new(),
    };
    // Handles parallel to `snap.nodes`, for the second pass (text boxes, styles).
    let mut handles: Vec<Node> = Vec::new();
    let mut positions = SiblingPositions::default();
    // Explicit stack: a 10,000-deep page must not overflow anything.
    let mut stack: Vec<(Node, Option<u32>, bool)> = vec![(root.into(), None, false)];
    while let Some((node, parent, in_shadow)) = stack.pop() {
        let index = snap.nodes.len() as u32;
        let read = read_node(&node);
        let kind = box_.get_index(0);
        if kind == ELEMENT {
            let Some(tag) = read else { continue };
            // Counted before any skipping: XPath steps count every sibling in the DOM.
            let position = positions.next(parent, in_shadow, &tag);
            if is_skipped_tag(&tag) {
                continue;
            }
            let state = box_.get_index(1);
            let el: &Element = node.unchecked_ref();
            // No box at all (display:none): nothing beneath can render either,
            // except under display:contents, whose children keep their boxes.
            if state == 0.0 && !is_display_contents(window, el) {
                continue;
            }
            let attributes = read_attributes(el).map(|packed| unpack_attributes(&packed)).unwrap_or_default();
            let form = form_state(&tag, el);
            push_children(&node, el, index, &mut stack);
            snap.nodes.push(SnapNode {
                parent,
                data: NodeData::Element { tag, attributes },
                rect: None, // measured in the second pass, where classification needs it
                visible: state == 2.0,
                form,
                style: None,
                position,
            });
            handles.push(node);
        } else if kind == TEXT {
            let position = positions.next(parent, in_shadow, TEXT_STEP);
            let Some(text) = read else { continue }; // whitespace only
            let parent_visible = parent.map_or(false, |p| snap.nodes[p as usize].visible);
            snap.nodes.push(SnapNode {
                parent,
                data: NodeData::Text { text },
                rect: None,
                visible: parent_visible,
                form: None,
                style: None,
                position,
            });
            handles.push(node);
        }
    }

    // Second pass: measure only the boxes classification will read.
    let range = document.create_range().map_err(|_| "cannot create a Range")?;
    for i in crate::describe::nodes_needing_rect(&snap) {
        let i = i as usize;
        read_box(&range, &handles[i]);
        let r = read_rect(&box_);
        let node = &mut snap.nodes[i];
        if matches!(node.data, NodeData::Text { .. }) {
            let has_area = r.width > 0.0 || r.height > 0.0;
            node.rect = has_area.then_some(r);
            node.visible &= has_area;
        } else {
            node.rect = Some(r);
        }
    }
    let t1 = now();
    for i in snap.nodes_needing_style() {
        let Some(el) = handles[i as usize].dyn_ref::<Element>() else { continue };
        if let Ok(Some(style)) = window.get_computed_style(el) {
            let color = style.get_property_value("background-color").unwrap_or_default();
            let image = style.get_property_value("background-image").unwrap_or_default();
            snap.nodes[i as usize].style = Some(StyleFacts::from_computed(&color, &image));
        }
    }
    let t2 = now();
    Ok((snap, WalkTimings { walk_ms: t1 - t0, style_ms: t2 - t1 }))
}

fn unpack_attributes(packed: &str) -> Vec<(String, String)> {
    let mut parts = packed.split('\0');
    let mut out = Vec::new();
    while let (Some(k), Some(v)) = (parts.next(), parts.next()) {
        if !k.is_empty() {
            out.push((k.to_string(), v.to_string()));
        }
    }
    out
}

/// Children in render order, pushed reversed so they pop in order: an open shadow root's
/// content first, then light-DOM children.
fn push_children(node: &Node, el: &Element, index: u32, stack: &mut Vec<(Node, Option<u32>, bool)>) {
    let mark = stack.len();
    let mut push_all = |parent: &Node, in_shadow: bool| {
        let mut child = parent.first_child();
        while let Some(c) = child {
            child = c.next_sibling();
            stack.push((c, Some(index), in_shadow));
        }
    };
    if let Some(shadow) = el.shadow_root() {
        push_all(shadow.as_ref(), true);
    }
    push_all(node, false);
    stack[mark..].reverse();
}

fn is_display_contents(window: &Window, el: &Element) -> bool {
    window
        .get_computed_style(el)
        .ok()
        .flatten()
        .and_then(|s| s.get_property_value("display").ok())
        .map_or(false, |d| d == "contents")
}

fn form_state(tag: &str, el: &Element) -> Option<FormState> {
    match tag {
        "input" => el.dyn_ref::<HtmlInputElement>().map(|i| FormState {
            value: Some(i.value()),
            checked: Some(i.checked()),
            selected_text: None,
        }),
        "textarea" => el
            .dyn_ref::<HtmlTextAreaElement>()
            .map(|t| FormState { value: Some(t.value()), ..Default::default() }),
        "select" => el.dyn_ref::<HtmlSelectElement>().map(|s| {
            let index = s.selected_index();
            let text = (index >= 0)
                .then(|| s.options().item(index as u32))
                .flatten()
                .and_then(|o| o.text_content())
                .unwrap_or_default();
            FormState { selected_text: Some(text), ..Default::default() }
        }),
        "option" => el
            .dyn_ref::<web_sys::HtmlOptionElement>()
            .map(|o| FormState { checked: Some(o.selected()), ..Default::default() }),
        _ => None,
    }
}

fn viewport_of(window: &Window, document: &Document, root: &Element) -> Viewport {
    let num = |v: Result<JsValue, JsValue>| v.ok().and_then(|v| v.as_f64()).unwrap_or(0.0);
    let body_height = document.body().map_or(0.0, |b| b.scroll_height() as f64);
    Viewport {
        // clientWidth/Height leave out scrollbars, as CDP's css visual viewport does.
        width: root.client_width() as f64,
        height: root.client_height() as f64,
        device_pixel_ratio: window.device_pixel_ratio(),
        scroll_x: num(window.scroll_x().map(JsValue::from)),
        scroll_y: num(window.scroll_y().map(JsValue::from)),
        document_width: root.scroll_width() as f64,
        document_height: (root.scroll_height() as f64).max(body_height),
    }
}
