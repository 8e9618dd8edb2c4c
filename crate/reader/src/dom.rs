//! Reads the live DOM into a `PageSnapshot`. It decides nothing about elements: the first
//! pass records tags, the attributes classification reads, visibility and form state; then
//! it measures boxes and reads computed styles only for the nodes the core says need them
//! (`describe::nodes_needing_rect`, `PageSnapshot::nodes_needing_style`).
//!
//! Speed comes from few boundary crossings. The DOM nodes of a walk stay on the JS side in one
//! table, and the walker names them by index: no node handle crosses per step. Each node costs
//! one call to a small reader (below) that returns its tag or text and leaves its numbers in a
//! view of WASM memory; an entered element costs one more call that appends its children to
//! the table. The walker decides what is read, skipped and entered.

use sightline::describe::{visibility, HitTest};
use sightline::geometry::Rect;
use sightline::snapshot::{
    is_skipped_tag, Clip, FormState, NodeData, PageSnapshot, Positioning, SiblingPositions, SnapNode, StyleFacts, TreeKind,
    Viewport, MAX_READ_CHARS, RECORDED_ATTRIBUTES, TEXT_STEP,
};
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use web_sys::{Document, Element, Node, Window};

#[wasm_bindgen(inline_js = r#"
const VISIBLE = { opacityProperty: true, visibilityProperty: true };
const box = new Float64Array(6);
let recorded = new Set();
// Content scripts may open closed shadow roots; elsewhere (tests) only open ones are seen.
const dom = globalThis.chrome?.dom;
// Only custom elements and these may host a shadow root (DOM spec, attachShadow). Asking
// anything else costs time for nothing: the shadowRoot getter is slow on form controls.
const HOSTS = new Set(['article', 'aside', 'blockquote', 'body', 'div', 'footer', 'h1', 'h2', 'h3', 'h4', 'h5', 'h6',
  'header', 'main', 'nav', 'p', 'section', 'span']);
function shadowOf(el) {
  const tag = el.localName;
  const custom = tag.includes('-');
  if (!custom && !HOSTS.has(tag)) return null;
  return el.shadowRoot ?? (dom && custom ? dom.openOrClosedShadowRoot(el) : null) ?? null;
}
// "\0" separates the packed fields, so it may not appear inside one.
const clean = (s) => (s.includes('\0') ? s.replaceAll('\0', '\uFFFD') : s);
// Longest text, value or attribute value read (snapshot::MAX_READ_CHARS, set per walk): a 10 MB
// text node costs one slice instead of a 10 MB copy into WASM. From the first word, with one
// separating space before it kept (as snapshot::cut_read does).
let readLimit = 10000;
export function setReadLimit(n) { readLimit = n; }
function cut(s) {
  if (s.length <= readLimit) return s;
  const first = s.search(/\S/);
  const start = first > 0 ? first - 1 : 0;
  return s.slice(start, start + readLimit);
}
const ranges = new WeakMap();
// The nodes of the current walk; the walker refers to them by index.
let nodes = [];
export function beginWalk(root) { nodes = [root]; }
export function endWalk() { nodes = []; }
export function indexOfNode(n) { return nodes.indexOf(n); }
let viewportOnly = false;
export function setViewportOnly(on) { viewportOnly = on; }
// For viewportOnly: true when an element with children lies, with its overflow, entirely
// outside its document's viewport, so nothing beneath it can show there.
function outsideViewport(el) {
  if (!el.firstElementChild && el.localName !== 'iframe') return false;
  const r = el.getBoundingClientRect();
  const root = el.ownerDocument.documentElement;
  const right = r.left + Math.max(r.width, el.scrollWidth);
  const bottom = r.top + Math.max(r.height, el.scrollHeight);
  return r.top >= root.clientHeight || bottom <= 0 || r.left >= root.clientWidth || right <= 0;
}
export function setRecordedAttributes(names) { recorded = new Set(names); }
// Numbers go back through `out`, a view of the walker's memory (no call per number).
// Element → "tag" then "\0name\0value" for each recorded attribute; out[0] = 1,
// out[1] = 0 for no layout box (display:none), 1 hidden by visibility or opacity, 2 visible;
// out[2] = 1 when it hosts a shadow root; out[3] = 1 when viewportOnly may skip it.
// Form controls also carry their live state, read here to save crossings: out[4] = 1, then
// "\0" + the value (input, textarea) or selected option's text (select) at the end, and
// out[5] = checked (input) or selected (option) as 0/1.
// Text → its data when it has non-space characters, else undefined; out[0] = 3.
// Anything else → undefined; out[0] = 0.
export function readNode(i, out) {
  const node = nodes[i];
  const type = node.nodeType;
  if (type === 1) {
    out[0] = 1;
    const state = node.checkVisibility(VISIBLE) ? 2 : node.checkVisibility() ? 1 : 0;
    out[1] = state;
    out[2] = shadowOf(node) ? 1 : 0;
    out[3] = viewportOnly && state !== 0 && outsideViewport(node) ? 1 : 0;
    const tag = node.localName;
    let packed = tag;
    if (node.hasAttributes()) {
      for (const name of node.getAttributeNames()) {
        if (!recorded.has(name)) continue;
        const value = node.getAttribute(name);
        packed += '\0' + name + '\0' + clean(name === 'id' ? value : cut(value)); // ids anchor XPaths: whole
      }
    }
    out[4] = 0;
    switch (tag) {
      case 'input': out[4] = 1; out[5] = node.checked ? 1 : 0; packed += '\0' + clean(cut(node.value)); break;
      case 'textarea': out[4] = 1; out[5] = 0; packed += '\0' + clean(cut(node.value)); break;
      case 'select': out[4] = 1; out[5] = 0; packed += '\0' + clean(cut(node.selectedOptions[0]?.textContent ?? '')); break;
      case 'option': out[4] = 1; out[5] = node.selected ? 1 : 0; packed += '\0'; break;
    }
    return packed;
  }
  if (type === 3) {
    out[0] = 3;
    const data = node.data;
    return /\S/.test(data) ? cut(data) : undefined;
  }
  out[0] = 0;
  return undefined;
}
// Appends node i's children to the table, a shadow root's first: out[0] = index of the
// first, out[1] = how many came from the shadow root, out[2] = how many in all.
export function appendChildren(i, hostsShadow, out) {
  const node = nodes[i];
  const start = nodes.length;
  const root = hostsShadow ? shadowOf(node) : null;
  if (root) for (let c = root.firstChild; c; c = c.nextSibling) nodes.push(c);
  const inShadow = nodes.length - start;
  for (let c = node.firstChild; c; c = c.nextSibling) nodes.push(c);
  out[0] = start; out[1] = inShadow; out[2] = nodes.length - start;
}
// A same-origin frame's document, or null (cross-origin, sandboxed, not loaded).
function frameDocument(el) {
  try { return el.contentDocument?.documentElement ? el.contentDocument : null; } catch { return null; }
}
// Appends the root of frame i's document to the table and returns its index, or -1 when
// this page may not read it. out[2], out[3]: where the frame's content starts.
export function enterFrame(i, out) {
  const el = nodes[i];
  const doc = frameDocument(el);
  if (!doc) return -1;
  readFrameOrigin(el, out);
  nodes.push(doc.documentElement);
  return nodes.length - 1;
}
// The web origin of the document in frame i (entered with enterFrame): "null" when opaque.
export function frameDocumentOrigin(i) {
  try { return frameDocument(nodes[i])?.defaultView?.origin ?? 'null'; } catch { return 'null'; }
}
// Where a frame's content starts in its document's viewport: out[2], out[3].
function readFrameOrigin(el, out) {
  const r = el.getBoundingClientRect();
  const cs = el.ownerDocument.defaultView.getComputedStyle(el);
  out[2] = r.x + el.clientLeft + (parseFloat(cs.paddingLeft) || 0);
  out[3] = r.y + el.clientTop + (parseFloat(cs.paddingTop) || 0);
}
// A node's box: out[2..6] = x, y, width, height (a Range measures text).
export function readBox(i, out) {
  const node = nodes[i];
  let r;
  if (node.nodeType === 3) {
    const doc = node.ownerDocument;
    let range = ranges.get(doc);
    if (!range) { range = doc.createRange(); ranges.set(doc, range); }
    range.selectNodeContents(node);
    r = range.getBoundingClientRect();
  } else {
    r = node.getBoundingClientRect();
  }
  out[2] = r.x; out[3] = r.y; out[4] = r.width; out[5] = r.height;
}
const STYLE_SETS = [
  ['background-color', 'background-image', 'font-family'],
  ['overflow-x', 'overflow-y'],
  ['position'],
  ['display', 'visibility'],
];
// Computed values of one preset list, joined by "\n".
export function readStyle(i, set) {
  const el = nodes[i];
  const cs = el.ownerDocument.defaultView.getComputedStyle(el);
  return STYLE_SETS[set].map((p) => cs.getPropertyValue(p)).join('\n');
}
// Composed parent: through shadow roots to their host, and out of a frame to its <iframe>.
function up(n) {
  const p = n.parentNode;
  if (!p) return null;
  if (p.nodeType === 11) return p.host ?? null;
  if (p.nodeType === 9) { try { return p.defaultView?.frameElement ?? null; } catch { return null; } }
  return p;
}
function holds(a, b) { for (let n = b; n; n = up(n)) if (n === a) return true; return false; }
// The topmost element at a viewport point, looking into shadow roots and same-origin frames.
function deepElementFromPoint(x, y) {
  let ox = 0, oy = 0;
  let el = document.elementFromPoint(x, y);
  for (let depth = 0; el && depth < 64; depth++) {
    const root = shadowOf(el);
    if (root) {
      const inner = root.elementFromPoint(x - ox, y - oy);
      if (inner && inner !== el) { el = inner; continue; }
    }
    if (el.localName === 'iframe' || el.localName === 'frame') {
      const doc = frameDocument(el);
      if (doc) {
        readFrameOrigin(el, box);
        const inner = doc.elementFromPoint(x - ox - box[2], y - oy - box[3]);
        if (inner) { ox += box[2]; oy += box[3]; el = inner; continue; }
      }
    }
    break;
  }
  return el;
}
// True when the topmost element at (x, y) is not the node, its ancestor or its descendant.
export function coveredAt(i, x, y) {
  const node = nodes[i];
  const target = node.nodeType === 1 ? node : up(node);
  const hit = deepElementFromPoint(x, y);
  if (!hit || !target) return false;
  return !(holds(target, hit) || holds(hit, target));
}
"#)]
extern "C" {
    #[wasm_bindgen(js_name = setViewportOnly)]
    fn set_viewport_only(on: bool);
    #[wasm_bindgen(js_name = setRecordedAttributes)]
    fn set_recorded_attributes(names: js_sys::Array);
    #[wasm_bindgen(js_name = setReadLimit)]
    fn set_read_limit(chars: u32);
    #[wasm_bindgen(js_name = beginWalk)]
    fn begin_walk(root: &Node);
    #[wasm_bindgen(js_name = endWalk)]
    fn end_walk();
    #[wasm_bindgen(js_name = indexOfNode)]
    fn index_of_node(node: &Node) -> i32;
    #[wasm_bindgen(js_name = readNode)]
    fn read_node(i: u32, out: &mut [f64]) -> Option<String>;
    #[wasm_bindgen(js_name = appendChildren)]
    fn append_children(i: u32, hosts_shadow: bool, out: &mut [f64]);
    #[wasm_bindgen(js_name = enterFrame)]
    fn enter_frame(i: u32, out: &mut [f64]) -> i32;
    #[wasm_bindgen(js_name = frameDocumentOrigin)]
    fn frame_document_origin(i: u32) -> String;
    #[wasm_bindgen(js_name = readBox)]
    fn read_box(i: u32, out: &mut [f64]);
    #[wasm_bindgen(js_name = readStyle)]
    fn read_style(i: u32, set: u32) -> String;
    #[wasm_bindgen(js_name = coveredAt)]
    fn covered_at(i: u32, x: f64, y: f64) -> bool;
}

const BACKGROUND_STYLES: u32 = 0;
const OVERFLOW_STYLES: u32 = 1;
const POSITION_STYLE: u32 = 2;
const DISPLAY_STYLE: u32 = 3;

pub struct WalkTimings {
    pub walk_ms: f64,
    pub style_ms: f64,
}

/// A snapshot of the live page, with the DOM nodes behind it for hit-testing.
pub struct LiveSnapshot {
    pub snapshot: PageSnapshot,
    pub hits: DomHits,
    /// Visible frames whose document this page may not read (cross-origin, sandboxed).
    pub remote_frames: u32,
}

/// Hit-testing with `elementFromPoint`, into shadow roots and same-origin frames. While it
/// lives, the walk's node table stays on the JS side; dropping it releases the nodes.
pub struct DomHits {
    /// Parallel to the snapshot's nodes: each one's index in the node table.
    table: Vec<u32>,
}

impl HitTest for DomHits {
    fn covered(&mut self, node: u32, (x, y): (f64, f64)) -> bool {
        self.table.get(node as usize).map_or(false, |&i| covered_at(i, x, y))
    }
}

impl DomHits {
    /// The snapshot index of `node`, or of its nearest ancestor the walk recorded (crossing
    /// out of shadow roots through their hosts).
    pub fn snapshot_index_of(&self, node: &Node) -> Option<u32> {
        let mut current = Some(node.clone());
        while let Some(n) = current {
            let at = index_of_node(&n);
            if at >= 0 {
                if let Some(i) = self.table.iter().position(|&t| t == at as u32) {
                    return Some(i as u32);
                }
            }
            current = n.parent_node().or_else(|| n.dyn_ref::<web_sys::ShadowRoot>().map(|s| s.host().into()));
        }
        None
    }
}

impl Drop for DomHits {
    fn drop(&mut self) {
        end_walk();
    }
}

const ELEMENT: f64 = 1.0;
const TEXT: f64 = 3.0;

/// One node waiting to be visited.
struct Visit {
    /// Its index in the node table.
    node: u32,
    parent: Option<u32>,
    /// The tree its siblings are counted in (see `SiblingPositions`).
    tree: Option<TreeKind>,
    /// Set on the first node of a shadow root or a frame's document.
    enters: Option<TreeKind>,
    /// Index into the frame offsets: where its document's viewport sits in the top one.
    frame: u32,
}

/// Walks the document. With `viewport_only`, subtrees lying wholly outside the viewport are
/// not entered (a `position: fixed` element nested in one is missed).
pub fn snapshot_document(window: &Window, viewport_only: bool) -> Result<(LiveSnapshot, WalkTimings), String> {
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
    set_read_limit(MAX_READ_CHARS as u32);
    set_viewport_only(viewport_only);
    begin_walk(&root);
    // Built before any early return, so the node table is always released.
    let mut hits = DomHits { table: Vec::new() };
    let mut out = [0.0f64; 6];

    let mut snap = PageSnapshot {
        url: window.location().href().unwrap_or_default(),
        title: document.title(),
        viewport: viewport_of(window, &document, &root),
        nodes: Vec::new(),
    };
    // Parallel to `snap.nodes`: the frame each node is in.
    let mut frame_of: Vec<u32> = Vec::new();
    // Per frame: its document's viewport origin in top-viewport CSS pixels (frame 0: the top).
    let mut frame_origins: Vec<(f64, f64)> = vec![(0.0, 0.0)];
    // Per frame: its document's web origin (frame 0, the top, is the page's own).
    let mut frame_web_origins: Vec<String> = vec![String::new()];
    let mut remote_frames = 0;
    let mut positions = SiblingPositions::default();
    // Explicit stack: a 10,000-deep page must not overflow anything.
    let mut stack = vec![Visit { node: 0, parent: None, tree: None, enters: None, frame: 0 }];
    while let Some(v) = stack.pop() {
        let index = snap.nodes.len() as u32;
        let read = read_node(v.node, &mut out);
        let kind = out[0];
        if kind == ELEMENT {
            let Some(packed) = read else { continue };
            let (tag, attributes, form_text) = unpack(&packed, out[4] == 1.0);
            let checked = out[5] == 1.0;
            // Counted before any skipping: XPath steps count every sibling in the DOM.
            let position = positions.next(v.parent, v.tree, &tag);
            if is_skipped_tag(&tag) || out[3] == 1.0 {
                continue;
            }
            let state = out[1];
            let hosts_shadow = out[2] == 1.0;
            let mut visible = state == 2.0;
            // No box at all (display:none): nothing beneath can render either,
            // except under display:contents, whose children keep their boxes.
            if state == 0.0 {
                let values = read_style(v.node, DISPLAY_STYLE);
                let (display, visibility) = values.split_once('\n').unwrap_or((&values, ""));
                if display != "contents" {
                    continue;
                }
                // Its children render in its place: they show as its parent does, unless its
                // own (inherited) visibility hides them. checkVisibility says false for want of a box.
                visible = v.parent.map_or(false, |p| snap.nodes[p as usize].visible) && visibility == "visible";
            }
            let form = form_text.map(|text| form_state(&tag, text, checked));
            let is_frame = tag == "iframe" || tag == "frame";
            if is_frame {
                // A frame shows its document, not its children (fallback content).
                match enter_frame(v.node, &mut out) {
                    -1 if state == 2.0 => remote_frames += 1,
                    -1 => {}
                    inner_root => {
                        let outer = frame_origins[v.frame as usize];
                        frame_origins.push((outer.0 + out[2], outer.1 + out[3]));
                        frame_web_origins.push(frame_document_origin(v.node));
                        let frame = (frame_origins.len() - 1) as u32;
                        let tree = Some(TreeKind::Frame);
                        stack.push(Visit { node: inner_root as u32, parent: Some(index), tree, enters: tree, frame });
                    }
                }
            } else {
                append_children(v.node, hosts_shadow, &mut out);
                let (start, in_shadow, count) = (out[0] as u32, out[1] as u32, out[2] as u32);
                // Pushed last first, so they pop in document order.
                for child in (start..start + count).rev() {
                    let tree = (child < start + in_shadow).then_some(TreeKind::Shadow);
                    stack.push(Visit { node: child, parent: Some(index), tree, enters: tree, frame: v.frame });
                }
            }
            snap.nodes.push(SnapNode {
                parent: v.parent,
                data: NodeData::Element { tag, attributes },
                rect: None, // measured in the second pass, where classification needs it
                visible,
                form,
                position,
                enters: v.enters,
                clip: is_frame.then_some(Clip::FRAME),
                origin: (v.enters == Some(TreeKind::Frame)).then(|| frame_web_origins[v.frame as usize].clone()),
                ..Default::default()
            });
            hits.table.push(v.node);
            frame_of.push(v.frame);
        } else if kind == TEXT {
            let position = positions.next(v.parent, v.tree, TEXT_STEP);
            let Some(text) = read else { continue }; // whitespace only
            let parent_visible = v.parent.map_or(false, |p| snap.nodes[p as usize].visible);
            snap.nodes.push(SnapNode {
                parent: v.parent,
                data: NodeData::Text { text },
                visible: parent_visible,
                position,
                enters: v.enters,
                ..Default::default()
            });
            hits.table.push(v.node);
            frame_of.push(v.frame);
        }
    }

    // Second pass: measure only the boxes classification will read.
    let needing_rect = sightline::describe::nodes_needing_rect(&snap);
    let iframes = (0..snap.nodes.len() as u32).filter(|&i| snap.nodes[i as usize].clip == Some(Clip::FRAME));
    let mut to_measure: Vec<u32> = needing_rect.iter().copied().chain(iframes).collect();
    to_measure.sort_unstable();
    to_measure.dedup();
    let table = &hits.table;
    let mut reader = BoxReader { out, table, frame_of: &frame_of, frame_origins: &frame_origins };
    for i in to_measure {
        reader.measure(&mut snap, i as usize);
    }
    let t1 = now();
    for i in snap.nodes_needing_style() {
        let values = read_style(table[i as usize], BACKGROUND_STYLES);
        let mut v = values.split('\n');
        let (color, image, font) = (v.next().unwrap_or(""), v.next().unwrap_or(""), v.next().unwrap_or(""));
        snap.nodes[i as usize].style = Some(StyleFacts::from_computed(color, image, font));
    }
    // Clipping, for boxes in view: an ancestor's overflow is read only where its box leaves
    // part of such a box outside.
    let mut overflow_read = vec![false; snap.nodes.len()];
    for &c in &needing_rect {
        let Some(rect) = snap.nodes[c as usize].rect.filter(|r| visibility::is_clip_checked(&snap, r)) else { continue };
        let mut ancestor = snap.nodes[c as usize].parent;
        while let Some(a) = ancestor.map(|a| a as usize) {
            if snap.nodes[a].rect.is_none() {
                reader.measure(&mut snap, a);
            }
            if let Some(outer) = snap.nodes[a].rect {
                if !overflow_read[a] && snap.nodes[a].clip.is_none() && visibility::may_clip(&outer, &rect) {
                    overflow_read[a] = true;
                    let values = read_style(table[a], OVERFLOW_STYLES);
                    let (x, y) = values.split_once('\n').unwrap_or((&values, ""));
                    snap.nodes[a].clip = Clip::from_computed(x, y);
                }
            }
            ancestor = snap.nodes[a].parent;
        }
    }
    for i in visibility::nodes_needing_positioning(&snap, &needing_rect) {
        if snap.nodes[i as usize].tag().is_some() {
            snap.nodes[i as usize].positioning = Some(Positioning::from_computed(&read_style(table[i as usize], POSITION_STYLE)));
        }
    }
    let t2 = now();
    Ok((LiveSnapshot { snapshot: snap, hits, remote_frames }, WalkTimings { walk_ms: t1 - t0, style_ms: t2 - t1 }))
}

/// Measures nodes into the snapshot, in top-viewport coordinates.
struct BoxReader<'a> {
    out: [f64; 6],
    /// Parallel to the snapshot's nodes: index in the node table.
    table: &'a [u32],
    frame_of: &'a [u32],
    frame_origins: &'a [(f64, f64)],
}

impl BoxReader<'_> {
    fn measure(&mut self, snap: &mut PageSnapshot, i: usize) {
        read_box(self.table[i], &mut self.out);
        let b = &self.out;
        let (dx, dy) = self.frame_origins[self.frame_of[i] as usize];
        let r = Rect::new(b[2] + dx, b[3] + dy, b[4], b[5]);
        let node = &mut snap.nodes[i];
        if matches!(node.data, NodeData::Text { .. }) {
            let has_area = r.width > 0.0 || r.height > 0.0;
            node.rect = has_area.then_some(r);
            node.visible &= has_area;
        } else {
            node.rect = Some(r);
        }
    }
}

/// "tag\0name\0value…[\0form text]" → the tag, the attribute pairs and, for form controls,
/// the trailing value or selected text.
fn unpack(packed: &str, has_form_text: bool) -> (String, Vec<(String, String)>, Option<String>) {
    let (fields, form_text) = match packed.rsplit_once('\0').filter(|_| has_form_text) {
        Some((fields, text)) => (fields, Some(text.to_string())),
        None => (packed, None),
    };
    let mut parts = fields.split('\0');
    let tag = parts.next().unwrap_or_default().to_string();
    let mut attributes = Vec::new();
    while let (Some(k), Some(v)) = (parts.next(), parts.next()) {
        if !k.is_empty() {
            attributes.push((k.to_string(), v.to_string()));
        }
    }
    (tag, attributes, form_text)
}

/// A form control's live state, from what `readNode` packed.
fn form_state(tag: &str, text: String, checked: bool) -> FormState {
    match tag {
        "input" => FormState { value: Some(text), checked: Some(checked), selected_text: None },
        "textarea" => FormState { value: Some(text), ..Default::default() },
        "select" => FormState { selected_text: Some(text), ..Default::default() },
        _ => FormState { checked: Some(checked), ..Default::default() }, // option
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
