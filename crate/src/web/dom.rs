//! Reads the live DOM into a `PageSnapshot`. It decides nothing about elements: it records
//! tags, the attributes classification reads, boxes, visibility and form state, then reads
//! computed styles only for the nodes the core says need them.

use crate::geometry::Rect;
use crate::snapshot::{
    is_skipped_tag, FormState, NodeData, PageSnapshot, SnapNode, StyleFacts, Viewport, RECORDED_ATTRIBUTES,
};
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use web_sys::{Document, Element, HtmlInputElement, HtmlSelectElement, HtmlTextAreaElement, Node, Window};

#[wasm_bindgen]
extern "C" {
    /// An element seen through `Element.checkVisibility(options)`: display, visibility and
    /// opacity answered in one call (web-sys has no binding for it yet).
    #[wasm_bindgen(extends = Element)]
    type VisibilityCheck;

    #[wasm_bindgen(method, js_name = checkVisibility)]
    fn check_visibility(this: &VisibilityCheck, options: &JsValue) -> bool;
}

pub struct WalkTimings {
    pub walk_ms: f64,
    pub style_ms: f64,
}

pub fn snapshot_document(window: &Window) -> Result<(PageSnapshot, WalkTimings), String> {
    let document = window.document().ok_or("this page has no document")?;
    let root = document.document_element().ok_or("this page has no root element")?;
    let perf = window.performance();
    let now = || perf.as_ref().map_or(0.0, |p| p.now());
    let t0 = now();

    let visibility_options = js_sys::Object::new();
    for key in ["opacityProperty", "visibilityProperty"] {
        js_sys::Reflect::set(&visibility_options, &key.into(), &JsValue::TRUE).map_err(|_| "cannot build options")?;
    }
    let range = document.create_range().map_err(|_| "cannot create a Range")?;
    let mut snap = PageSnapshot {
        url: window.location().href().unwrap_or_default(),
        title: document.title(),
        viewport: viewport_of(window, &document, &root),
        nodes: Vec::new(),
    };
    // Element handles parallel to `snap.nodes`, for the style pass.
    let mut handles: Vec<Option<Element>> = Vec::new();
    // Explicit stack: a 10,000-deep page must not overflow anything.
    let mut stack: Vec<(Node, Option<u32>)> = vec![(root.into(), None)];
    while let Some((node, parent)) = stack.pop() {
        let index = snap.nodes.len() as u32;
        match node.node_type() {
            Node::ELEMENT_NODE => {
                let el: Element = node.unchecked_into();
                let tag = el.local_name().to_ascii_lowercase();
                if is_skipped_tag(&tag) {
                    continue;
                }
                // No box at all (display:none): nothing beneath can render either,
                // except under display:contents, whose children keep their boxes.
                let check = el.unchecked_ref::<VisibilityCheck>();
                let has_box = check.check_visibility(&JsValue::UNDEFINED);
                if !has_box && !is_display_contents(window, &el) {
                    continue;
                }
                let r = el.get_bounding_client_rect();
                let rect = has_box.then(|| Rect::new(r.x(), r.y(), r.width(), r.height()));
                let visible = has_box && check.check_visibility(&visibility_options);
                let attributes = RECORDED_ATTRIBUTES
                    .iter()
                    .filter_map(|name| el.get_attribute(name).map(|v| (name.to_string(), v)))
                    .collect();
                let form = form_state(&tag, &el);
                let children = child_nodes(&el);
                snap.nodes.push(SnapNode { parent, data: NodeData::Element { tag, attributes }, rect, visible, form, style: None });
                for child in children.into_iter().rev() {
                    stack.push((child, Some(index)));
                }
                handles.push(Some(el));
            }
            Node::TEXT_NODE => {
                let text = node.text_content().unwrap_or_default();
                if text.trim().is_empty() {
                    continue;
                }
                let parent_visible = parent.map_or(false, |p| snap.nodes[p as usize].visible);
                let _ = range.select_node_contents(&node);
                let r = range.get_bounding_client_rect();
                let rect = (r.width() > 0.0 || r.height() > 0.0).then(|| Rect::new(r.x(), r.y(), r.width(), r.height()));
                snap.nodes.push(SnapNode {
                    parent,
                    data: NodeData::Text { text },
                    rect,
                    visible: parent_visible && rect.is_some(),
                    form: None,
                    style: None,
                });
                handles.push(None);
            }
            _ => {}
        }
    }
    let t1 = now();
    for i in snap.nodes_needing_style() {
        let Some(el) = &handles[i as usize] else { continue };
        if let Ok(Some(style)) = window.get_computed_style(el) {
            let color = style.get_property_value("background-color").unwrap_or_default();
            let image = style.get_property_value("background-image").unwrap_or_default();
            snap.nodes[i as usize].style = Some(StyleFacts {
                has_background_color: !color.is_empty() && !crate::snapshot::cdp::is_transparent(&color),
                has_background_image: !image.is_empty() && image != "none",
            });
        }
    }
    let t2 = now();
    Ok((snap, WalkTimings { walk_ms: t1 - t0, style_ms: t2 - t1 }))
}

/// Children in render order: an open shadow root's content first, then light-DOM children.
fn child_nodes(el: &Element) -> Vec<Node> {
    let mut out = Vec::new();
    let mut push_children = |parent: &Node| {
        let mut child = parent.first_child();
        while let Some(c) = child {
            child = c.next_sibling();
            out.push(c);
        }
    };
    if let Some(shadow) = el.shadow_root() {
        push_children(shadow.as_ref());
    }
    push_children(el.as_ref());
    out
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
