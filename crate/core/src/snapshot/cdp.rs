//! Decodes CDP `DOMSnapshot.captureSnapshot` + `Page.getLayoutMetrics` into a [`PageSnapshot`].
//!
//! This is the strict-CSP path: the service worker reads the page through the debugger and
//! feeds the same classification code the content script uses.

use super::{
    is_skipped_tag, Clip, FormState, NodeData, PageSnapshot, Positioning, SiblingPositions, SkippedId, SnapNode,
    StyleFacts, TreeKind, Viewport, TEXT_STEP,
};
use crate::fast_hash::FastMap as HashMap;
use crate::vocab::geometry::Rect;
use serde::Deserialize;
use serde_json::{json, Value};

/// Computed styles requested from CDP, in this order (the decoder reads them by position).
pub const COMPUTED_STYLES: [&str; 14] = [
    "display",
    "visibility",
    "opacity",
    "background-color",
    "background-image",
    "overflow-x",
    "overflow-y",
    "position",
    "pointer-events",
    "border-left-width",
    "border-top-width",
    "padding-left",
    "padding-top",
    "font-family",
];
const DISPLAY: usize = 0;
const VISIBILITY: usize = 1;
const OPACITY: usize = 2;
const BACKGROUND_COLOR: usize = 3;
const BACKGROUND_IMAGE: usize = 4;
const OVERFLOW_X: usize = 5;
const OVERFLOW_Y: usize = 6;
const POSITION: usize = 7;
const POINTER_EVENTS: usize = 8;
const BORDER_LEFT: usize = 9;
const BORDER_TOP: usize = 10;
const PADDING_LEFT: usize = 11;
const PADDING_TOP: usize = 12;
const FONT_FAMILY: usize = 13;

#[derive(Debug, Clone, thiserror::Error, PartialEq)]
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
    json!({ "computedStyles": COMPUTED_STYLES, "includeDOMRects": false, "includePaintOrder": true })
}

#[derive(Deserialize, Default)]
#[serde(rename_all = "camelCase", default)]
struct DomSnapshot {
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
    /// The line fragments of laid-out text: a text that wraps has one box per line.
    text_boxes: TextBoxes,
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
    backend_node_id: Vec<i64>,
    attributes: Vec<Vec<i64>>,
    text_value: RareStrings,
    input_value: RareStrings,
    input_checked: RareBools,
    option_selected: RareBools,
    pseudo_type: RareStrings,
    shadow_root_type: RareStrings,
    content_document_index: RareStrings,
}

/// CDP's rare data: values for the nodes listed in `index` (strings by index, or integers).
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
    paint_orders: Vec<i64>,
}

#[derive(Deserialize, Default)]
#[serde(rename_all = "camelCase", default)]
struct TextBoxes {
    layout_index: Vec<i64>,
    bounds: Vec<Vec<f64>>,
}

/// `Page.getLayoutMetrics`, the parts we read.
#[derive(Deserialize, Default)]
#[serde(rename_all = "camelCase", default)]
pub struct LayoutMetrics {
    css_visual_viewport: VisualViewport,
    visual_viewport: VisualViewport,
    css_content_size: Size,
}

impl LayoutMetrics {
    /// Device pixels per CSS pixel: the visual viewport in device pixels over the same in
    /// CSS pixels (this also covers browser zoom).
    pub fn device_pixel_ratio(&self) -> f64 {
        let (css, device) = (self.css_visual_viewport.client_width, self.visual_viewport.client_width);
        if css > 0.0 && device > 0.0 {
            device / css
        } else {
            1.0
        }
    }
    /// The viewport's scroll offset in the document, CSS pixels.
    pub fn scroll(&self) -> (f64, f64) {
        (self.css_visual_viewport.page_x, self.css_visual_viewport.page_y)
    }
    /// The viewport's size, CSS pixels.
    pub fn viewport_size(&self) -> (f64, f64) {
        (self.css_visual_viewport.client_width, self.css_visual_viewport.client_height)
    }
    /// The document's size, CSS pixels.
    pub fn content_size(&self) -> (f64, f64) {
        (self.css_content_size.width, self.css_content_size.height)
    }
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

/// A frame Chrome renders in another process (a cross-site `<iframe>`): its own capture,
/// from the debugger session attached to it, and the `<iframe>` that shows it.
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct RemoteFrame {
    owner_backend_node_id: i64,
    capture: DomSnapshot,
}

const ELEMENT_NODE: i64 = 1;
const TEXT_NODE: i64 = 3;
const DOCUMENT_NODE: i64 = 9;

/// A page read through CDP: the snapshot, and what the paint order says lies on top where.
pub struct CdpPage {
    pub snapshot: PageSnapshot,
    boxes: Vec<PaintedBox>,
    /// `<iframe>` snapshot node → the document (`PaintedBox::document`) it shows.
    frame_documents: HashMap<u32, u32>,
}

/// One layout box, for hit-testing by paint order.
struct PaintedBox {
    rect: Rect,
    paint_order: i64,
    /// Boxes are compared within one document at a time.
    document: u32,
    node: u32,
    /// `pointer-events: none` or not visible: hit-testing looks through it.
    transparent_to_hits: bool,
}

/// Decodes a capture, the layout metrics, and the captures of cross-process frames
/// (`[{ownerBackendNodeId, capture}]`), each as the JSON text CDP returned.
pub fn decode(capture: &str, metrics: &str, remote_frames: &str) -> Result<CdpPage, DecodeError> {
    use crate::vocab::text;
    let shape = |e: serde_json::Error| DecodeError::Shape(e.to_string());
    let capture: DomSnapshot = text::from_str(capture).map_err(shape)?;
    let metrics: LayoutMetrics = text::from_str(metrics).map_err(shape)?;
    let remotes: Vec<RemoteFrame> =
        if remote_frames.trim().is_empty() { Vec::new() } else { text::from_str(remote_frames).map_err(shape)? };
    decode_parts(capture, metrics, remotes)
}

/// The CDP results of one page reading in one JSON text, as the worker hands them over:
/// `{capture, metrics, frames}` (each as [`decode`] takes it; `frames` may be absent).
#[derive(Deserialize)]
struct Reading {
    capture: DomSnapshot,
    metrics: LayoutMetrics,
    #[serde(default)]
    frames: Vec<RemoteFrame>,
}

/// [`decode`] for the three results in one JSON text `{capture, metrics, frames}`: one
/// crossing into the core and one parse, however many frames the page has.
pub fn decode_reading(text: &str) -> Result<CdpPage, DecodeError> {
    let reading: Reading = crate::vocab::text::from_str(text).map_err(|e| DecodeError::Shape(e.to_string()))?;
    decode_parts(reading.capture, reading.metrics, reading.frames)
}

fn decode_parts(
    capture: DomSnapshot,
    metrics: LayoutMetrics,
    remotes: Vec<RemoteFrame>,
) -> Result<CdpPage, DecodeError> {
    let top = capture.documents.first().ok_or(DecodeError::NoDocument)?;
    let top_strings = Strings(&capture.strings);

    let ((width, height), (scroll_x, scroll_y), (content_w, content_h)) =
        (metrics.viewport_size(), metrics.scroll(), metrics.content_size());
    let viewport = Viewport {
        width,
        height,
        device_pixel_ratio: metrics.device_pixel_ratio(),
        scroll_x,
        scroll_y,
        document_width: content_w.max(top.content_width),
        document_height: content_h.max(top.content_height),
    };
    let mut decoder = Decoder {
        captures: std::iter::once(&capture).chain(remotes.iter().map(|r| &r.capture)).collect(),
        views: HashMap::default(),
        remote_owner: remotes.iter().enumerate().map(|(k, r)| (r.owner_backend_node_id, k + 1)).collect(),
        out: PageSnapshot {
            url: top_strings.get(top.document_url)?.to_string(),
            title: top_strings.get(top.title)?.to_string(),
            viewport,
            nodes: Vec::new(),
            partial: false, // CDP's snapshot holds the whole page
            shared_ids: None,
            skipped_ids: Vec::new(),
        },
        boxes: Vec::new(),
        frame_documents: HashMap::default(),
        documents_entered: 0,
        origins: HashMap::default(),
    };
    decoder.walk()?;
    fill_select_text(&mut decoder.out);
    decoder.out.cut_long_reads(); // as the DOM walker reads them: a 10 MB text node costs nothing further
    let viewport = decoder.out.viewport.rect();
    // Only boxes in view can be on top of an element in view.
    decoder.boxes.retain(|b| b.rect.intersection_area(&viewport) > 0.0);
    Ok(CdpPage { snapshot: decoder.out, boxes: decoder.boxes, frame_documents: decoder.frame_documents })
}

struct Strings<'a>(&'a [String]);

impl<'a> Strings<'a> {
    fn get(&self, i: i64) -> Result<&'a str, DecodeError> {
        if i < 0 {
            return Ok("");
        }
        self.0.get(i as usize).map(String::as_str).ok_or(DecodeError::BadString(i))
    }
}

#[derive(Clone, Copy, PartialEq, Eq, Hash)]
struct DocKey {
    capture: usize,
    doc: usize,
}

/// Per-document lookups built once: CDP gives columns and sparse lists, the walk wants rows.
struct DocView {
    layout_of: Vec<Option<usize>>,
    children: Vec<Vec<usize>>,
    roots: Vec<usize>,
    text_value: Vec<Option<i64>>,
    input_value: Vec<Option<i64>>,
    pseudo: Vec<Option<i64>>,
    shadow_type: Vec<Option<i64>>,
    content_document: Vec<Option<i64>>,
    checked: Vec<bool>,
    selected: Vec<bool>,
    /// Layout index → its text's line fragments (indices into `text_boxes.bounds`).
    fragments: HashMap<usize, Vec<usize>>,
}

impl DocView {
    fn new(doc: &Document) -> Result<DocView, DecodeError> {
        let nodes = &doc.nodes;
        let n = nodes.parent_index.len();
        if nodes.node_type.len() != n || nodes.node_name.len() != n {
            return Err(DecodeError::Shape("node columns differ in length".into()));
        }
        let mut layout_of = vec![None; n];
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
        let mut fragments: HashMap<usize, Vec<usize>> = HashMap::default();
        for (k, &li) in doc.text_boxes.layout_index.iter().enumerate() {
            if let Ok(li) = usize::try_from(li) {
                fragments.entry(li).or_default().push(k);
            }
        }
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
        Ok(DocView {
            layout_of,
            children,
            roots,
            text_value: rare(&nodes.text_value),
            input_value: rare(&nodes.input_value),
            pseudo: rare(&nodes.pseudo_type),
            shadow_type: rare(&nodes.shadow_root_type),
            content_document: rare(&nodes.content_document_index),
            checked: flags(&nodes.input_checked),
            selected: flags(&nodes.option_selected),
            fragments,
        })
    }
}

struct Decoder<'a> {
    /// The top capture first, then one per remote frame.
    captures: Vec<&'a DomSnapshot>,
    views: HashMap<DocKey, DocView>,
    /// Backend node id of an `<iframe>` in the top capture → the capture of its remote frame.
    remote_owner: HashMap<i64, usize>,
    out: PageSnapshot,
    boxes: Vec<PaintedBox>,
    frame_documents: HashMap<u32, u32>,
    documents_entered: u32,
    /// Each document's origin (`snapshot::frame_origin`).
    origins: HashMap<DocKey, String>,
}

/// One node waiting to be visited.
struct Visit {
    key: DocKey,
    node: usize,
    parent: Option<u32>,
    /// An ancestor has opacity 0.
    transparent: bool,
    /// The tree the node's siblings are counted in (see `SiblingPositions`).
    tree: Option<TreeKind>,
    /// Set on the first node of a new tree.
    enters: Option<TreeKind>,
    /// Document coordinates → viewport coordinates.
    offset: (f64, f64),
    /// Which document's paint order the node's box belongs to.
    document: u32,
}

impl<'a> Decoder<'a> {
    fn view(&mut self, key: DocKey) -> Result<&DocView, DecodeError> {
        if !self.views.contains_key(&key) {
            let doc = self.captures[key.capture].documents.get(key.doc).ok_or(DecodeError::NoDocument)?;
            self.views.insert(key, DocView::new(doc)?);
        }
        Ok(&self.views[&key])
    }

    /// Walks the top document depth-first, entering frames where their `<iframe>` stands, so
    /// the snapshot is in pre-order across documents.
    fn walk(&mut self) -> Result<(), DecodeError> {
        let mut stack: Vec<Visit> = Vec::new();
        self.enter_document(&mut stack, DocKey { capture: 0, doc: 0 }, None, (0.0, 0.0), false, "null")?;
        let mut positions = SiblingPositions::default();
        let mut seen: HashMap<DocKey, Vec<bool>> = HashMap::default();
        while let Some(v) = stack.pop() {
            let key = v.key;
            let capture = self.captures[key.capture];
            let doc = &capture.documents[key.doc];
            let strings = Strings(&capture.strings);
            let i = v.node;
            let seen = seen.entry(key).or_insert_with(|| vec![false; doc.nodes.parent_index.len()]);
            if std::mem::replace(&mut seen[i], true) {
                continue; // a cycle in hostile input
            }
            let view = &self.views[&key];
            let nodes = &doc.nodes;
            let node_type = nodes.node_type[i];
            let is_pseudo = view.pseudo[i].is_some();
            // DOMSnapshot leaves shadow roots out: their children hang off the host, marked
            // with the root's type. A mark the parent lacks begins a shadow tree.
            let shadow = view.shadow_type[i];
            if shadow.map(|t| strings.get(t)).transpose()? == Some("user-agent") {
                continue; // the browser's own shadow trees (inside inputs, media) are not the page's
            }
            let parent_shadow =
                usize::try_from(nodes.parent_index[i]).ok().and_then(|p| view.shadow_type.get(p).copied().flatten());
            let v = if shadow.is_some() && shadow != parent_shadow {
                Visit { tree: Some(TreeKind::Shadow), enters: Some(TreeKind::Shadow), ..v }
            } else {
                v
            };
            let mut next = (v.parent, v.transparent);
            let mut children_tree = v.tree;
            let mut children_enter = None;
            if node_type == ELEMENT_NODE && !is_pseudo {
                let tag = strings.get(nodes.node_name[i])?.to_ascii_lowercase();
                let position = positions.next(v.parent, v.tree, &tag);
                if is_skipped_tag(&tag) {
                    // No node, but XPath's `//*[@id=…]` finds it and the elements it holds: their ids count.
                    for id in skipped_element_ids(nodes, view, &strings, i)? {
                        self.out.skipped_ids.push(SkippedId { id, parent: v.parent, tree_top: v.enters.is_some() });
                    }
                    continue;
                }
                let mut attributes = Vec::new();
                if let Some(pairs) = nodes.attributes.get(i) {
                    for pair in pairs.chunks(2) {
                        if let [k, val] = pair {
                            attributes.push((strings.get(*k)?.to_string(), strings.get(*val)?.to_string()));
                        }
                    }
                }
                let facts = layout_facts(doc, view.layout_of[i], &strings)?;
                let form = match tag.as_str() {
                    "input" => Some(FormState {
                        value: view.input_value[i].map(|x| strings.get(x).map(str::to_string)).transpose()?,
                        checked: Some(view.checked[i]),
                        ..Default::default()
                    }),
                    "textarea" => Some(FormState {
                        value: view.text_value[i].map(|x| strings.get(x).map(str::to_string)).transpose()?,
                        ..Default::default()
                    }),
                    "option" => Some(FormState { checked: Some(view.selected[i]), ..Default::default() }),
                    "select" => Some(FormState::default()),
                    _ => None,
                };
                let rect = facts.rect.map(|r| r.translate(v.offset.0, v.offset.1));
                let visible = facts.visible && !v.transparent && !facts.opacity_zero;
                let is_frame = tag == "iframe" || tag == "frame";
                let index = self.out.nodes.len() as u32;
                self.out.nodes.push(SnapNode {
                    parent: v.parent,
                    data: NodeData::Element { tag, attributes },
                    rect,
                    visible,
                    form,
                    style: facts.style,
                    position,
                    enters: v.enters,
                    clip: if is_frame { Some(Clip::FRAME) } else { facts.clip },
                    positioning: Some(facts.positioning),
                    origin: (v.enters == Some(TreeKind::Frame))
                        .then(|| self.origins.get(&key).cloned().unwrap_or_else(|| "null".into())),
                });
                // An inline box is the union of its line fragments: where it wraps, that covers
                // the lines' other content too. Hit-testing looks through it to its text's
                // fragments and atomic children, which are what a point lands on.
                let looked_through = !visible || facts.pointer_events_none || facts.inline;
                record_box(&mut self.boxes, rect, facts.paint_order, looked_through, v.document, index);
                next = (Some(index), v.transparent || facts.opacity_zero);
                children_tree = None;
                if is_frame {
                    // A frame shows its document, not its children (fallback content).
                    let inner = view.content_document[i]
                        .map(|d| DocKey { capture: key.capture, doc: d as usize })
                        .or_else(|| {
                            let backend = nodes.backend_node_id.get(i)?;
                            let remote = if key.capture == 0 { self.remote_owner.get(backend) } else { None };
                            remote.map(|&c| DocKey { capture: c, doc: 0 })
                        });
                    if let (Some(inner), Some(r)) = (inner, rect) {
                        let origin = (r.x + facts.content_offset.0, r.y + facts.content_offset.1);
                        let parent = self.origins.get(&key).cloned().unwrap_or_else(|| "null".into());
                        self.enter_document(&mut stack, inner, Some(index), origin, next.1 || !visible, &parent)?;
                    }
                    continue;
                }
            } else if node_type == TEXT_NODE {
                let position = positions.next(v.parent, v.tree, TEXT_STEP);
                let facts = layout_facts(doc, view.layout_of[i], &strings)?;
                let rect = facts.rect.map(|r| r.translate(v.offset.0, v.offset.1));
                let index = self.out.nodes.len() as u32;
                let visible = facts.visible && !v.transparent;
                self.out.nodes.push(SnapNode {
                    parent: v.parent,
                    // `nodeValue` is optional in the protocol: a text node without one is empty.
                    data: NodeData::Text {
                        text: strings.get(nodes.node_value.get(i).copied().unwrap_or(-1))?.to_string(),
                    },
                    rect,
                    visible,
                    position,
                    enters: v.enters,
                    ..Default::default()
                });
                // One box per line: a wrapped text's union would cover what shares its lines.
                let lines = view.layout_of[i].and_then(|li| view.fragments.get(&li)).map_or(&[][..], Vec::as_slice);
                let line_rects: Vec<Rect> = lines
                    .iter()
                    .filter_map(|&k| doc.text_boxes.bounds.get(k).filter(|b| b.len() == 4))
                    .map(|b| Rect::new(b[0], b[1], b[2], b[3]).translate(v.offset.0, v.offset.1))
                    .collect();
                let looked_through = !visible || facts.pointer_events_none;
                if line_rects.is_empty() {
                    record_box(&mut self.boxes, rect, facts.paint_order, looked_through, v.document, index);
                }
                for r in line_rects {
                    record_box(&mut self.boxes, Some(r), facts.paint_order, looked_through, v.document, index);
                }
                continue;
            } else if node_type == DOCUMENT_NODE && !is_pseudo {
                children_enter = v.enters; // a frame's root element begins the frame's tree
            } else {
                // Comments, doctypes, pseudo-elements: nothing a person can act on.
                continue;
            }
            for &c in view.children[i].iter().rev() {
                stack.push(Visit {
                    key,
                    node: c,
                    parent: next.0,
                    transparent: next.1,
                    tree: children_tree,
                    enters: children_enter,
                    offset: v.offset,
                    document: v.document,
                });
            }
        }
        Ok(())
    }

    /// Pushes a document's roots. `frame` is the `<iframe>` node showing it (None for the top
    /// document), `origin` the top-left of that frame's content box in viewport CSS pixels,
    /// `parent_origin` the web origin of the document holding the frame.
    fn enter_document(
        &mut self,
        stack: &mut Vec<Visit>,
        key: DocKey,
        frame: Option<u32>,
        origin: (f64, f64),
        transparent: bool,
        parent_origin: &str,
    ) -> Result<(), DecodeError> {
        if self.documents_entered > MAX_DOCUMENTS {
            return Ok(()); // frames nested without end in hostile input
        }
        let doc = self.captures[key.capture].documents.get(key.doc).ok_or(DecodeError::NoDocument)?;
        let url = Strings(&self.captures[key.capture].strings).get(doc.document_url)?;
        self.origins.insert(key, crate::snapshot::frame_origin(url, parent_origin));
        // Layout bounds are in the document's own coordinates, and its viewport is scrolled.
        let offset = (origin.0 - doc.scroll_offset_x, origin.1 - doc.scroll_offset_y);
        let document = self.documents_entered;
        self.documents_entered += 1;
        if let Some(f) = frame {
            self.frame_documents.insert(f, document);
        }
        let tree = frame.map(|_| TreeKind::Frame);
        for &r in self.view(key)?.roots.iter().rev() {
            stack.push(Visit { key, node: r, parent: frame, transparent, tree, enters: tree, offset, document });
        }
        Ok(())
    }
}

const MAX_DOCUMENTS: u32 = 256;

/// The ids of skipped element `i` and of the elements below it in its tree (`<head>`'s): not
/// through other nodes (a `<template>`'s content, a fragment) nor into another tree.
fn skipped_element_ids(nodes: &Nodes, view: &DocView, strings: &Strings, i: usize) -> Result<Vec<String>, DecodeError> {
    let mut ids = Vec::new();
    let mut stack = vec![i];
    // Each node once at most: a parent column describes a forest, whatever it holds.
    let mut budget = nodes.parent_index.len();
    while let Some(k) = stack.pop() {
        if budget == 0 {
            break;
        }
        budget -= 1;
        for pair in nodes.attributes.get(k).map_or(&[][..], Vec::as_slice).chunks(2) {
            if let [name, value] = pair {
                if strings.get(*name)? == "id" {
                    let id = strings.get(*value)?;
                    if !id.is_empty() {
                        ids.push(id.to_string());
                    }
                }
            }
        }
        for &c in &view.children[k] {
            let element = nodes.node_type.get(c) == Some(&ELEMENT_NODE) && view.pseudo[c].is_none();
            if element && view.shadow_type[c] == view.shadow_type[k] {
                stack.push(c);
            }
        }
    }
    Ok(ids)
}

/// Keeps a laid-out box for hit-testing by paint order.
fn record_box(
    boxes: &mut Vec<PaintedBox>,
    rect: Option<Rect>,
    paint_order: Option<i64>,
    transparent_to_hits: bool,
    document: u32,
    node: u32,
) {
    if let (Some(rect), Some(paint_order)) = (rect, paint_order) {
        boxes.push(PaintedBox { rect, paint_order, document, node, transparent_to_hits });
    }
}

/// What one layout entry says about a node.
struct LayoutFacts {
    rect: Option<Rect>,
    visible: bool,
    opacity_zero: bool,
    style: Option<StyleFacts>,
    clip: Option<Clip>,
    positioning: Positioning,
    pointer_events_none: bool,
    /// `display: inline`: its box is the union of its line fragments.
    inline: bool,
    /// Border + padding, left and top: where a frame's content starts inside its box.
    content_offset: (f64, f64),
    paint_order: Option<i64>,
}

fn layout_facts(doc: &Document, layout: Option<usize>, s: &Strings) -> Result<LayoutFacts, DecodeError> {
    let Some(li) = layout else {
        // No layout box: display:none or detached.
        return Ok(LayoutFacts {
            rect: None,
            visible: false,
            opacity_zero: false,
            style: None,
            clip: None,
            positioning: Positioning::Static,
            pointer_events_none: false,
            inline: false,
            content_offset: (0.0, 0.0),
            paint_order: None,
        });
    };
    let rect = doc.layout.bounds.get(li).filter(|b| b.len() == 4).map(|b| Rect::new(b[0], b[1], b[2], b[3]));
    let styles = doc.layout.styles.get(li);
    let style = |k: usize| -> Result<&str, DecodeError> {
        match styles.and_then(|v| v.get(k)) {
            Some(&i) => s.get(i),
            None => Ok(""),
        }
    };
    let px =
        |k: usize| -> Result<f64, DecodeError> { Ok(style(k)?.trim_end_matches("px").parse::<f64>().unwrap_or(0.0)) };
    let display = style(DISPLAY)?;
    let visibility = style(VISIBILITY)?;
    Ok(LayoutFacts {
        rect,
        visible: display != "none" && visibility != "hidden" && visibility != "collapse",
        opacity_zero: style(OPACITY)?.trim().parse::<f64>().is_ok_and(|o| o <= 0.0),
        style: Some(StyleFacts::from_computed(style(BACKGROUND_COLOR)?, style(BACKGROUND_IMAGE)?, style(FONT_FAMILY)?)),
        clip: Clip::from_computed(style(OVERFLOW_X)?, style(OVERFLOW_Y)?),
        positioning: Positioning::from_computed(style(POSITION)?),
        pointer_events_none: style(POINTER_EVENTS)? == "none",
        inline: display == "inline",
        content_offset: (px(BORDER_LEFT)? + px(PADDING_LEFT)?, px(BORDER_TOP)? + px(PADDING_TOP)?),
        paint_order: doc.layout.paint_orders.get(li).copied(),
    })
}

impl CdpPage {
    /// Hit-testing by paint order: the topmost box at a point, entering frames.
    pub fn hit_test(&self) -> PaintOrderHits<'_> {
        PaintOrderHits { page: self }
    }
}

pub struct PaintOrderHits<'a> {
    page: &'a CdpPage,
}

impl super::HitTest for PaintOrderHits<'_> {
    fn covered(&mut self, node: u32, (x, y): (f64, f64)) -> bool {
        let mut document = 0;
        let mut top = None;
        loop {
            let hit = self
                .page
                .boxes
                .iter()
                .filter(|b| b.document == document && !b.transparent_to_hits && b.rect.contains(x, y))
                // Equal orders paint together; the later (deeper) node is the more specific.
                .max_by_key(|b| (b.paint_order, b.node));
            let Some(hit) = hit else { break };
            top = Some(hit.node);
            match self.page.frame_documents.get(&hit.node) {
                Some(&inner) if inner != document => document = inner,
                _ => break,
            }
        }
        match top {
            None => false,
            Some(t) => !self.page.snapshot.related(t, node),
        }
    }
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
        form.options.push(text.clone());
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
    fn one_reading_text_decodes_as_its_three_parts_do() {
        let (capture, metrics) = sample();
        let parts = decode(&capture.to_string(), &metrics.to_string(), "[]").unwrap().snapshot;
        let reading = json!({ "capture": capture, "metrics": metrics, "frames": [] }).to_string();
        assert_eq!(decode_reading(&reading).unwrap().snapshot, parts);
        let without_frames = json!({ "capture": capture, "metrics": metrics }).to_string();
        assert_eq!(decode_reading(&without_frames).unwrap().snapshot, parts);
        assert!(matches!(decode_reading("{\"capture\": 1}"), Err(DecodeError::Shape(_))));
    }

    #[test]
    fn decodes_elements_text_values_and_scroll() {
        let (capture, metrics) = sample();
        let snap = decode(&capture.to_string(), &metrics.to_string(), "").unwrap().snapshot;
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
        let snap = decode(&capture.to_string(), &metrics.to_string(), "").unwrap().snapshot;
        assert!(snap.nodes[3].visible && snap.nodes[4].visible);
        assert!(!snap.nodes[5].visible, "opacity 0 element");
        assert!(!snap.nodes[6].visible, "text inside opacity 0");
    }

    #[test]
    fn bad_input_is_an_error_not_a_panic() {
        let metrics = json!({}).to_string();
        let decode =
            |capture: &Value, metrics: &str| super::decode(&capture.to_string(), metrics, "").map(|p| p.snapshot);
        assert_eq!(decode(&json!({"documents": []}), &metrics), Err(DecodeError::NoDocument));
        assert!(matches!(decode(&json!({"documents": 5}), &metrics), Err(DecodeError::Shape(_))));
        assert!(matches!(super::decode("{", &metrics, ""), Err(DecodeError::Shape(_))));
        let bad = json!({"strings": [], "documents": [{"documentURL": 9,
            "nodes": {"parentIndex": [-1], "nodeType": [1], "nodeName": [0]}}]});
        assert_eq!(decode(&bad, &metrics), Err(DecodeError::BadString(9)));
        let cyclic = json!({"strings": ["DIV"], "documents": [{"documentURL": -1, "title": -1,
            "nodes": {"parentIndex": [1, 0], "nodeType": [1, 1], "nodeName": [0, 0]}}]});
        // Both point at each other: no root, nothing reachable, no hang.
        assert_eq!(decode(&cyclic, &metrics).unwrap().nodes.len(), 0);
        // Found by fuzzing (cdp_snapshot): a text node, and no `nodeValue` column (it is
        // optional in the protocol), was read past the column's end.
        let no_values = json!({"strings": ["x"], "documents": [{"documentURL": -1, "title": -1,
            "nodes": {"parentIndex": [-1, 0], "nodeType": [9, 3], "nodeName": [0, 0]}}]});
        let snap = decode(&no_values, &metrics).unwrap();
        assert!(
            matches!(&snap.nodes[..], [SnapNode { data: NodeData::Text { text }, .. }] if text.is_empty()),
            "{:?}",
            snap.nodes
        );
    }

    /// A hand-built capture: interned strings, and documents given as node rows.
    struct Doc {
        rows: Vec<(i64, i64, &'static str)>, // parent, node type, name
        bounds: Vec<(usize, [f64; 4], i64)>, // node, bounds, paint order
        styles: Vec<(usize, [&'static str; 14])>,
        shadow: Vec<(usize, &'static str)>,
        content_document: Vec<(usize, i64)>,
        values: Vec<(usize, &'static str)>,
    }

    fn capture(docs: &[Doc]) -> String {
        let mut strings: Vec<String> = Vec::new();
        let mut s = |x: &str| -> i64 {
            if let Some(i) = strings.iter().position(|y| y == x) {
                return i as i64;
            }
            strings.push(x.to_string());
            (strings.len() - 1) as i64
        };
        let documents: Vec<Value> = docs
            .iter()
            .map(|d| {
                let style_of = |n: usize| d.styles.iter().find(|(k, _)| *k == n).map(|(_, st)| *st);
                let default = ["block", "visible", "1", "rgba(0, 0, 0, 0)", "none", "visible", "visible", "static", "auto", "0px", "0px", "0px", "0px", "serif"];
                json!({
                    "documentURL": s("http://x/"), "title": s("T"),
                    "nodes": {
                        "parentIndex": d.rows.iter().map(|r| r.0).collect::<Vec<_>>(),
                        "nodeType": d.rows.iter().map(|r| r.1).collect::<Vec<_>>(),
                        "nodeName": d.rows.iter().map(|r| s(r.2)).collect::<Vec<_>>(),
                        "nodeValue": d.rows.iter().enumerate().map(|(i, _)| d.values.iter().find(|v| v.0 == i).map_or(-1, |v| s(v.1))).collect::<Vec<_>>(),
                        "backendNodeId": (0..d.rows.len() as i64).collect::<Vec<_>>(),
                        "shadowRootType": {"index": d.shadow.iter().map(|x| x.0).collect::<Vec<_>>(), "value": d.shadow.iter().map(|x| s(x.1)).collect::<Vec<_>>()},
                        "contentDocumentIndex": {"index": d.content_document.iter().map(|x| x.0).collect::<Vec<_>>(), "value": d.content_document.iter().map(|x| x.1).collect::<Vec<_>>()},
                    },
                    "layout": {
                        "nodeIndex": d.bounds.iter().map(|b| b.0).collect::<Vec<_>>(),
                        "bounds": d.bounds.iter().map(|b| b.1.to_vec()).collect::<Vec<_>>(),
                        "paintOrders": d.bounds.iter().map(|b| b.2).collect::<Vec<_>>(),
                        "styles": d.bounds.iter().map(|b| style_of(b.0).unwrap_or(default).iter().map(|x| s(x)).collect::<Vec<_>>()).collect::<Vec<_>>(),
                    },
                })
            })
            .collect();
        json!({ "documents": documents, "strings": strings }).to_string()
    }

    fn styles(f: impl FnOnce(&mut [&'static str; 14])) -> [&'static str; 14] {
        let mut st = [
            "block",
            "visible",
            "1",
            "rgba(0, 0, 0, 0)",
            "none",
            "visible",
            "visible",
            "static",
            "auto",
            "0px",
            "0px",
            "0px",
            "0px",
            "serif",
        ];
        f(&mut st);
        st
    }

    #[test]
    fn each_frame_records_the_origin_of_its_document() {
        let metrics = json!({"cssVisualViewport": {"clientWidth": 1280, "clientHeight": 800}}).to_string();
        let page = |inner_url: &str| {
            let top = Doc {
                rows: vec![(-1, 9, "#document"), (0, 1, "HTML"), (1, 1, "BODY"), (2, 1, "IFRAME")],
                bounds: vec![
                    (1, [0.0, 0.0, 1280.0, 800.0], 0),
                    (2, [0.0, 0.0, 1280.0, 800.0], 0),
                    (3, [0.0, 0.0, 300.0, 200.0], 1),
                ],
                styles: vec![],
                shadow: vec![],
                content_document: vec![(3, 1)],
                values: vec![],
            };
            let inner = Doc {
                rows: vec![(-1, 9, "#document"), (0, 1, "HTML"), (1, 1, "BODY"), (2, 1, "INPUT")],
                bounds: vec![
                    (1, [0.0, 0.0, 300.0, 200.0], 0),
                    (2, [0.0, 0.0, 300.0, 200.0], 0),
                    (3, [8.0, 8.0, 100.0, 20.0], 1),
                ],
                styles: vec![],
                shadow: vec![],
                content_document: vec![],
                values: vec![],
            };
            let mut capture: Value = serde_json::from_str(&capture(&[top, inner])).unwrap();
            let strings = capture["strings"].as_array_mut().unwrap();
            strings.push(json!(inner_url));
            let at = strings.len() - 1;
            capture["documents"][1]["documentURL"] = json!(at);
            let snap = decode(&capture.to_string(), &metrics, "").unwrap().snapshot;
            let root = snap.nodes.iter().find(|n| n.enters == Some(TreeKind::Frame)).unwrap();
            assert!(
                snap.nodes.iter().filter(|n| n.enters != Some(TreeKind::Frame)).all(|n| n.origin.is_none()),
                "only where a frame's document begins"
            );
            let described = crate::describe::describe(&snap, &Default::default());
            let field = described.elements.iter().find(|e| e.tag == "input").unwrap();
            assert_eq!(field.frame_origin, root.origin, "its elements carry it");
            assert_eq!(described.frames.len(), 1);
            assert_eq!(described.frames[0].rect, Rect::new(0.0, 0.0, 300.0, 200.0), "where the frame shows");
            root.origin.clone().unwrap()
        };
        assert_eq!(page("https://Pay.Example:8443/card?x=1"), "https://pay.example:8443");
        assert_eq!(page("about:srcdoc"), "http://x", "a srcdoc frame is its parent's");
        assert_eq!(page("data:text/html,<input>"), "null", "a data: frame is nobody's");
    }

    #[test]
    fn frames_shadow_roots_and_paint_order() {
        let metrics = json!({"cssVisualViewport": {"clientWidth": 1280, "clientHeight": 800}}).to_string();
        let top = Doc {
            rows: vec![
                (-1, 9, "#document"), // 0
                (0, 1, "HTML"),       // 1
                (1, 1, "BODY"),       // 2
                (2, 1, "IFRAME"),     // 3
                (2, 1, "MY-CARD"),    // 4
                (4, 1, "BUTTON"),     // 5 (in the shadow tree)
                (5, 3, "#text"),      // 6
                (2, 1, "BUTTON"),     // 7 covered by 9
                (7, 3, "#text"),      // 8
                (2, 1, "DIV"),        // 9 overlay, painted later
            ],
            bounds: vec![
                (1, [0.0, 0.0, 1280.0, 800.0], 0),
                (2, [0.0, 0.0, 1280.0, 800.0], 0),
                (3, [100.0, 100.0, 300.0, 200.0], 1),
                (4, [0.0, 400.0, 200.0, 40.0], 2),
                (5, [10.0, 405.0, 80.0, 30.0], 3),
                (6, [12.0, 410.0, 60.0, 20.0], 3),
                (7, [500.0, 500.0, 80.0, 30.0], 4),
                (8, [502.0, 505.0, 60.0, 20.0], 4),
                (9, [450.0, 450.0, 300.0, 300.0], 5),
            ],
            styles: vec![
                (
                    3,
                    styles(|st| {
                        st[BORDER_LEFT] = "5px";
                        st[BORDER_TOP] = "5px";
                        st[PADDING_LEFT] = "3px";
                        st[PADDING_TOP] = "3px";
                    }),
                ),
                (9, styles(|st| st[POSITION] = "fixed")),
            ],
            shadow: vec![(5, "closed"), (6, "closed")],
            content_document: vec![(3, 1)],
            values: vec![(6, "In shadow"), (8, "Covered")],
        };
        let inner = Doc {
            rows: vec![(-1, 9, "#document"), (0, 1, "HTML"), (1, 1, "BODY"), (2, 1, "BUTTON"), (3, 3, "#text")],
            bounds: vec![
                (1, [0.0, 0.0, 292.0, 192.0], 0),
                (2, [0.0, 0.0, 292.0, 192.0], 0),
                (3, [8.0, 8.0, 100.0, 20.0], 1),
                (4, [10.0, 10.0, 90.0, 16.0], 1),
            ],
            styles: vec![],
            shadow: vec![],
            content_document: vec![],
            values: vec![(4, "In frame")],
        };
        let page = decode(&capture(&[top, inner]), &metrics, "").unwrap();
        let snap = &page.snapshot;
        let find = |text: &str| {
            snap.nodes.iter().position(|n| matches!(&n.data, NodeData::Text { text: t } if t == text)).unwrap()
        };
        let in_frame = snap.nodes[find("In frame")].parent.unwrap() as usize;
        assert_eq!(
            snap.nodes[in_frame].rect,
            Some(Rect::new(116.0, 116.0, 100.0, 20.0)),
            "offset by the frame's border and padding"
        );
        let frame_root = snap.nodes.iter().position(|n| n.enters == Some(TreeKind::Frame)).unwrap();
        assert_eq!(snap.nodes[frame_root].tag(), Some("html"));
        let shadow_button = snap.nodes[find("In shadow")].parent.unwrap() as usize;
        assert_eq!(snap.nodes[shadow_button].enters, Some(TreeKind::Shadow));
        assert!(
            snap.nodes.iter().position(|n| n.tag() == Some("my-card")).unwrap() < shadow_button,
            "pre-order across trees"
        );
        assert!(frame_root < shadow_button, "the frame's nodes come where the frame stands");

        let mut hits = page.hit_test();
        use crate::snapshot::HitTest;
        let covered = snap.nodes[find("Covered")].parent.unwrap();
        assert!(hits.covered(covered, (540.0, 515.0)), "the later-painted overlay is on top");
        assert!(!hits.covered(shadow_button as u32, (50.0, 420.0)));
        assert!(!hits.covered(in_frame as u32, (150.0, 125.0)), "hit-testing enters the frame");
        let ends = snap.subtree_ends();
        let xpaths = crate::describe::xpath::XPaths::new(snap, &ends);
        assert_eq!(xpaths.of(shadow_button), "/html[1]/body[1]/my-card[1] >>> /button[1]");
        assert_eq!(xpaths.of(in_frame), "/html[1]/body[1]/iframe[1] >>> /html[1]/body[1]/button[1]");
    }

    #[test]
    fn wrapped_inline_boxes_cover_nothing_on_their_lines() {
        // <p><a>terms</a> and then a long sentence…<span>that wraps…</span></p>, three lines:
        // the text after the link and the span each wrap, so their union boxes span whole lines.
        let metrics = json!({"cssVisualViewport": {"clientWidth": 1280, "clientHeight": 800}}).to_string();
        let inline = styles(|st| st[DISPLAY] = "inline");
        let page = Doc {
            rows: vec![
                (-1, 9, "#document"), // 0
                (0, 1, "HTML"),       // 1
                (1, 1, "BODY"),       // 2
                (2, 1, "P"),          // 3
                (3, 1, "A"),          // 4
                (4, 3, "#text"),      // 5
                (3, 3, "#text"),      // 6
                (3, 1, "SPAN"),       // 7
                (7, 3, "#text"),      // 8
            ],
            bounds: vec![
                (1, [0.0, 0.0, 1280.0, 800.0], 0),
                (2, [0.0, 0.0, 1280.0, 800.0], 0),
                (3, [0.0, 0.0, 400.0, 60.0], 0),
                (4, [60.0, 0.0, 40.0, 20.0], 0),
                (5, [60.0, 0.0, 40.0, 20.0], 0),
                (6, [0.0, 0.0, 400.0, 40.0], 0),
                (7, [0.0, 20.0, 400.0, 40.0], 0),
                (8, [0.0, 20.0, 400.0, 40.0], 0),
            ],
            styles: vec![(4, inline), (7, inline)],
            shadow: vec![],
            content_document: vec![],
            values: vec![(5, "terms"), (6, "and then a long sentence"), (8, "that wraps")],
        };
        let mut capture: Value = serde_json::from_str(&capture(&[page])).unwrap();
        // Layout indices 4, 5 and 7 are the three texts: one line, two lines, two lines.
        capture["documents"][0]["textBoxes"] = json!({
            "layoutIndex": [4, 5, 5, 7, 7],
            "bounds": [[60, 0, 40, 20], [100, 0, 300, 20], [0, 20, 200, 20], [200, 20, 200, 20], [0, 40, 100, 20]],
        });
        let page = decode(&capture.to_string(), &metrics, "").unwrap();
        let snap = &page.snapshot;
        let find = |text: &str| {
            snap.nodes.iter().position(|n| matches!(&n.data, NodeData::Text { text: t } if t == text)).unwrap() as u32
        };
        let link = snap.nodes[find("terms") as usize].parent.unwrap();
        use crate::snapshot::HitTest;
        let mut hits = page.hit_test();
        assert!(!hits.covered(link, (80.0, 10.0)), "the link shares its line with the wrapped text, under nothing");
        assert!(!hits.covered(find("and then a long sentence"), (250.0, 10.0)));
        assert!(!hits.covered(find("that wraps"), (50.0, 50.0)));
        assert!(hits.covered(find("and then a long sentence"), (300.0, 30.0)), "a point on the span's part of line 2");
    }

    #[test]
    fn ids_of_skipped_elements_count_in_their_tree() {
        let metrics = json!({"cssVisualViewport": {"clientWidth": 1280, "clientHeight": 800}}).to_string();
        let rows = vec![
            (-1, 9, "#document"),           // 0
            (0, 1, "HTML"),                 // 1
            (1, 1, "HEAD"),                 // 2
            (2, 1, "META"),                 // 3 id "in-head"
            (1, 1, "BODY"),                 // 4
            (4, 1, "SCRIPT"),               // 5 id "twin"
            (4, 1, "DIV"),                  // 6 id "twin"
            (6, 1, "BUTTON"),               // 7
            (7, 3, "#text"),                // 8
            (4, 1, "DIV"),                  // 9 id "in-head"
            (9, 1, "BUTTON"),               // 10
            (10, 3, "#text"),               // 11
            (4, 1, "MY-CARD"),              // 12
            (12, 1, "STYLE"),               // 13 id "card" (its shadow root's first node)
            (12, 1, "DIV"),                 // 14 id "card" (in the shadow root)
            (14, 1, "BUTTON"),              // 15
            (15, 3, "#text"),               // 16
            (4, 1, "DIV"),                  // 17 id "card" (the page's tree)
            (17, 1, "BUTTON"),              // 18
            (18, 3, "#text"),               // 19
            (4, 1, "TEMPLATE"),             // 20 id "kept"
            (20, 11, "#document-fragment"), // 21 its content: no part of the document's tree
            (21, 1, "DIV"),                 // 22 id "alone"
            (4, 1, "DIV"),                  // 23 id "alone"
            (23, 1, "BUTTON"),              // 24
            (24, 3, "#text"),               // 25
        ];
        let n = rows.len();
        let shown = [1, 4, 6, 7, 8, 9, 10, 11, 12, 14, 15, 16, 17, 18, 19, 23, 24, 25];
        let doc = Doc {
            bounds: shown
                .iter()
                .enumerate()
                .map(|(k, &i)| (i, [0.0, 30.0 * k as f64, 200.0, 30.0], k as i64))
                .collect(),
            rows,
            styles: vec![],
            shadow: (13..=16).map(|i| (i, "open")).collect(),
            content_document: vec![],
            values: vec![
                (8, "Beside a script"),
                (11, "Beside the head"),
                (16, "In the card"),
                (19, "Outside the card"),
                (25, "Alone"),
            ],
        };
        let mut capture: Value = serde_json::from_str(&capture(&[doc])).unwrap();
        let ids = [
            (3, "in-head"),
            (5, "twin"),
            (6, "twin"),
            (9, "in-head"),
            (13, "card"),
            (14, "card"),
            (17, "card"),
            (20, "kept"),
            (22, "alone"),
            (23, "alone"),
        ];
        let strings = capture["strings"].as_array_mut().unwrap();
        let mut at = |x: &str| {
            strings.push(json!(x));
            strings.len() as i64 - 1
        };
        let id = at("id");
        let attributes: Vec<Vec<i64>> =
            (0..n).map(|i| ids.iter().find(|(k, _)| *k == i).map_or(vec![], |(_, v)| vec![id, at(v)])).collect();
        capture["documents"][0]["nodes"]["attributes"] = json!(attributes);
        let snap = decode(&capture.to_string(), &metrics, "").unwrap().snapshot;
        let mut skipped: Vec<(&str, bool)> = snap.skipped_ids.iter().map(|s| (s.id.as_str(), s.tree_top)).collect();
        skipped.sort();
        assert_eq!(skipped, [("card", true), ("in-head", false), ("kept", false), ("twin", false)]);
        let described = crate::describe::describe(&snap, &Default::default());
        let path = |content: &str| described.elements.iter().find(|e| e.content == content).unwrap().xpath.clone();
        assert_eq!(path("Beside a script"), "/html[1]/body[1]/div[1]/button[1]", "a <script> has its id");
        assert_eq!(path("Beside the head"), "/html[1]/body[1]/div[2]/button[1]", "a <meta> in <head> has its id");
        assert_eq!(
            path("In the card"),
            "/html[1]/body[1]/my-card[1] >>> /div[1]/button[1]",
            "its shadow root's <style> has its id"
        );
        assert_eq!(path("Outside the card"), "//*[@id=\"card\"]/button[1]", "the shadow root's ids are another tree's");
        assert_eq!(path("Alone"), "//*[@id=\"alone\"]/button[1]", "a template's content is no part of the page's tree");
    }
}
