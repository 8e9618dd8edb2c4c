//! Reads the live DOM into a `PageSnapshot`. It decides nothing about elements: the first
//! pass records tags, the attributes classification reads, visibility and form state; then
//! it measures boxes and reads computed styles only for the nodes the core says need them
//! (`describe::nodes_needing_rect`, `PageSnapshot::nodes_needing_style`).
//!
//! Speed comes from few boundary crossings. The DOM nodes of a walk stay on the JS side in one
//! table, and the walker names them by index: no node handle crosses per step. Each node costs
//! one call to a small reader (below) that returns its tag or text with its numbers packed in a
//! character; an entered element costs one more call that appends its children to the table
//! and returns their counts in one number. The boxes classification needs are then measured
//! in one call for all of them (`readBoxes`). The walker decides what is read, skipped and
//! entered.

use sightline::describe::visibility;
use sightline::snapshot::HitTest;
use sightline::snapshot::{
    is_skipped_tag, Clip, FormState, NodeData, PageSnapshot, Positioning, SiblingPositions, SnapNode, StyleFacts,
    TreeKind, Viewport, IN_VIEW_MARGIN, MAX_READ_CHARS, RECORDED_ATTRIBUTES, TEXT_STEP,
};
use sightline::vocab::geometry::Rect;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use web_sys::{Document, Element, Node, Window};

// The small reader the walker calls, one call per node (dom.js).
#[wasm_bindgen(module = "/src/dom.js")]
extern "C" {
    #[wasm_bindgen(js_name = setViewportOnly)]
    fn set_viewport_only(on: bool, margin: f64);
    #[wasm_bindgen(js_name = setRecordedAttributes)]
    fn set_recorded_attributes(names: js_sys::Array);
    #[wasm_bindgen(js_name = setReadLimit)]
    fn set_read_limit(chars: u32);
    #[wasm_bindgen(js_name = watchPage)]
    pub fn watch_page(slot: u32) -> bool;
    #[wasm_bindgen(js_name = pageUnchanged)]
    pub fn page_unchanged(slot: u32) -> bool;
    #[wasm_bindgen(js_name = forgetSlot)]
    pub fn forget_slot(slot: u32);
    #[wasm_bindgen(js_name = forgetPage)]
    pub fn forget_page();
    #[wasm_bindgen(js_name = beginWalk)]
    fn begin_walk(root: &Node);
    #[wasm_bindgen(js_name = endWalk)]
    fn end_walk();
    #[wasm_bindgen(js_name = indexOfNode)]
    fn index_of_node(node: &Node) -> i32;
    #[wasm_bindgen(js_name = readNode)]
    fn read_node(i: u32) -> Option<String>;
    #[wasm_bindgen(js_name = appendChildren)]
    fn append_children(i: u32, hosts_shadow: bool) -> f64;
    #[wasm_bindgen(js_name = takeLeftOut)]
    fn take_left_out() -> String;
    #[wasm_bindgen(js_name = enterFrame)]
    fn enter_frame(i: u32, out: &mut [f64]) -> i32;
    #[wasm_bindgen(js_name = frameDocumentOrigin)]
    fn frame_document_origin(i: u32) -> String;
    #[wasm_bindgen(js_name = readBoxes)]
    fn read_boxes(which: &[u32], out: &mut [f64]);
    #[wasm_bindgen(js_name = readStyle)]
    fn read_style(i: u32, set: u32) -> String;
    #[wasm_bindgen(js_name = coveredAt)]
    fn covered_at(i: u32, x: f64, y: f64) -> bool;
    #[wasm_bindgen(js_name = sharedIds)]
    fn shared_ids(which: &[u32], out: &mut [u8]);
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
    /// The snapshot's `has_base_content`, as it is now: worked out once in the walk, for
    /// `describe_given`.
    pub base_content: Vec<bool>,
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
        self.table.get(node as usize).is_some_and(|&i| covered_at(i, x, y))
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

/// What `readNode` read, from the character its string ends with (dom.js).
#[derive(Clone, Copy)]
enum Read<'a> {
    Element(ElementRead, &'a str),
    Text,
    Blank,
}

/// An element's numbers as `readNode` packs them into one character (`FLAGS` plus bits).
#[derive(Clone, Copy)]
struct ElementRead(u8);

impl ElementRead {
    /// 0: no layout box (display:none); 1: hidden by visibility or opacity; 2: visible.
    fn state(self) -> u8 {
        self.0 & 3
    }
    fn hosts_shadow(self) -> bool {
        self.0 & 4 != 0
    }
    /// Lies outside the view and its margin (viewport-only walks).
    fn outside_view(self) -> bool {
        self.0 & 8 != 0
    }
    fn has_form_text(self) -> bool {
        self.0 & 16 != 0
    }
    fn checked(self) -> bool {
        self.0 & 32 != 0
    }
}

fn classify_read(read: &str) -> Option<Read<'_>> {
    let (&mark, rest) = read.as_bytes().split_last()?;
    match mark {
        b'#' => Some(Read::Text),
        b'!' => Some(Read::Blank),
        // An ASCII mark is one whole character: the rest ends on a character boundary.
        flags @ 0x40..=0x7f => Some(Read::Element(ElementRead(flags - 0x40), &read[..rest.len()])),
        _ => None,
    }
}

/// What one `appendChildren` appended: children `start..start + count` of the node table, the
/// first `in_shadow` of them from the shadow root; `left_out` when `takeLeftOut` has runs.
struct Appended {
    start: u32,
    in_shadow: u32,
    count: u32,
    left_out: bool,
}

impl Appended {
    /// From the number `appendChildren` packs its counts in (dom.js, `COUNT_BITS`), appended
    /// after a table of `table_len` nodes.
    fn unpack(packed: f64, table_len: u32) -> Appended {
        const COUNT_BITS: u64 = 1 << 26;
        let packed = packed as u64;
        let (counts, left_out) = (packed >> 1, packed & 1 == 1);
        let (in_shadow, count) = ((counts / COUNT_BITS) as u32, (counts % COUNT_BITS) as u32);
        Appended { start: table_len, in_shadow, count, left_out }
    }
}

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

/// What waits on the walk's stack: a node to visit, or, in a viewport-only walk, a run of
/// siblings `appendChildren` left out as out of view, unread: their tags still count in the
/// XPath positions of the siblings after them.
enum Pending {
    Visit(Visit),
    LeftOut { parent: u32, tree: Option<TreeKind>, tag: String, count: u32 },
}

/// Pushes node `parent`'s children, as `appendChildren` appended them (`start`, `in_shadow`,
/// `count`) and, where it left some out (`left_out`, its runs), those runs in their places, onto
/// the walk's stack: last first, so they pop in document order, each child as `visit` makes it.
fn push_children(
    stack: &mut Vec<Pending>,
    (start, in_shadow, count): (u32, u32, u32),
    left_out: Option<String>,
    parent: u32,
    visit: impl Fn(u32, Option<TreeKind>) -> Visit,
) {
    let tree_of = |child: u32| (child < start + in_shadow).then_some(TreeKind::Shadow);
    let end = start + count;
    let Some(runs) = left_out else {
        // The usual case: straight onto the stack, no list per element.
        stack.extend((start..end).rev().map(|c| Pending::Visit(visit(c, tree_of(c)))));
        return;
    };
    let appended = |range: std::ops::Range<u32>| range.map(|c| Pending::Visit(visit(c, tree_of(c))));
    let mut order = Vec::new();
    let mut next = start;
    let mut fields = runs.split('\0');
    while let (Some(before), Some(tree), Some(tag), Some(n)) =
        (fields.next(), fields.next(), fields.next(), fields.next())
    {
        let upto = next.saturating_add(before.parse().unwrap_or(0)).min(end);
        order.extend(appended(next..upto));
        next = upto;
        let tree = (tree == "1").then_some(TreeKind::Shadow);
        order.push(Pending::LeftOut { parent, tree, tag: tag.to_string(), count: n.parse().unwrap_or(0) });
    }
    order.extend(appended(next..end));
    stack.extend(order.into_iter().rev());
}

/// Walks the document. With `viewport_only`, subtrees lying wholly outside the viewport and
/// its margin (`IN_VIEW_MARGIN`) are not entered (a `position: fixed` element nested in one is
/// missed): `appendChildren` judges each child list in one call and leaves those out unread.
pub fn snapshot_document(
    window: &Window,
    viewport_only: bool,
) -> Result<(LiveSnapshot, WalkTimings), sightline_web_common::Fault> {
    let document =
        window.document().ok_or_else(|| sightline_web_common::Fault::internal("this page has no document".into()))?;
    let root = document
        .document_element()
        .ok_or_else(|| sightline_web_common::Fault::internal("this page has no root element".into()))?;
    let perf = window.performance();
    let now = || perf.as_ref().map_or(0.0, |p| p.now());
    let t0 = now();

    let names = js_sys::Array::new();
    for name in RECORDED_ATTRIBUTES {
        names.push(&JsValue::from_str(name));
    }
    set_recorded_attributes(names);
    set_read_limit(MAX_READ_CHARS as u32);
    set_viewport_only(viewport_only, IN_VIEW_MARGIN);
    begin_walk(&root);
    // The node table's length, as the walk grows it (`beginWalk` puts the root in; each
    // `appendChildren` appends at the end, `enterFrame` a frame's root): where children begin.
    let mut table_len: u32 = 1;
    // Built before any early return, so the node table is always released.
    let mut hits = DomHits { table: Vec::new() };
    let mut out = [0.0f64; 6];

    let mut snap = PageSnapshot {
        url: window.location().href().unwrap_or_default(),
        title: document.title(),
        viewport: viewport_of(window, &document, &root),
        nodes: Vec::new(),
        partial: false,
        shared_ids: None,
        skipped_ids: Vec::new(), // the page's id index answers (`shared_ids`)
    };
    // Parallel to `snap.nodes`: the frame each node is in.
    let mut frame_of: Vec<u32> = Vec::new();
    // Per frame: its document's viewport origin in top-viewport CSS pixels (frame 0: the top).
    let mut frame_origins: Vec<(f64, f64)> = vec![(0.0, 0.0)];
    // Per frame: its document's web origin (frame 0, the top, is the page's own).
    let mut frame_web_origins: Vec<String> = vec![String::new()];
    let mut remote_frames = 0;
    let mut positions = SiblingPositions::default();
    // Whether the walk left any part of the page unread (viewport_only): `PageSnapshot::partial`.
    let mut left_unread = false;
    // Explicit stack: a 10,000-deep page must not overflow anything.
    let mut stack = vec![Pending::Visit(Visit { node: 0, parent: None, tree: None, enters: None, frame: 0 })];
    while let Some(pending) = stack.pop() {
        let v = match pending {
            Pending::Visit(v) => v,
            Pending::LeftOut { parent, tree, tag, count } => {
                positions.pass(Some(parent), tree, &tag, count);
                continue;
            }
        };
        let index = snap.nodes.len() as u32;
        let Some(mut read) = read_node(v.node) else { continue }; // neither element nor text
        let Some(kind) = classify_read(&read) else { continue };
        if let Read::Element(element, packed) = kind {
            let (tag, attributes, form_text) = unpack(packed, element.has_form_text());
            let checked = element.checked();
            // Counted before any skipping: XPath steps count every sibling in the DOM.
            let position = positions.next(v.parent, v.tree, &tag);
            if is_skipped_tag(&tag) {
                continue;
            }
            if element.outside_view() {
                left_unread = true;
                continue;
            }
            let state = element.state();
            let hosts_shadow = element.hosts_shadow();
            let mut visible = state == 2;
            // No box at all (display:none): nothing beneath can render either,
            // except under display:contents, whose children keep their boxes.
            if state == 0 {
                let values = read_style(v.node, DISPLAY_STYLE);
                let (display, visibility) = values.split_once('\n').unwrap_or((&values, ""));
                if display != "contents" {
                    continue;
                }
                // Its children render in its place: they show as its parent does, unless its
                // own (inherited) visibility hides them. checkVisibility says false for want of a box.
                visible = v.parent.is_some_and(|p| snap.nodes[p as usize].visible) && visibility == "visible";
            }
            let form = form_text.map(|text| form_state(&tag, text, checked));
            let is_frame = tag == "iframe" || tag == "frame";
            if is_frame {
                // A frame shows its document, not its children (fallback content).
                match enter_frame(v.node, &mut out) {
                    -1 if state == 2 => remote_frames += 1,
                    -1 => {}
                    inner_root => {
                        table_len = inner_root as u32 + 1; // pushed at the end of the table
                        let outer = frame_origins[v.frame as usize];
                        frame_origins.push((outer.0 + out[2], outer.1 + out[3]));
                        frame_web_origins.push(frame_document_origin(v.node));
                        let frame = (frame_origins.len() - 1) as u32;
                        let tree = Some(TreeKind::Frame);
                        let visit = Visit { node: inner_root as u32, parent: Some(index), tree, enters: tree, frame };
                        stack.push(Pending::Visit(visit));
                    }
                }
            } else {
                let appended = Appended::unpack(append_children(v.node, hosts_shadow), table_len);
                table_len += appended.count;
                let left_out = appended.left_out.then(take_left_out);
                left_unread |= left_out.is_some();
                let visit = |node, tree| Visit { node, parent: Some(index), tree, enters: tree, frame: v.frame };
                push_children(&mut stack, (appended.start, appended.in_shadow, appended.count), left_out, index, visit);
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
        } else {
            let position = positions.next(v.parent, v.tree, TEXT_STEP);
            if matches!(kind, Read::Blank) {
                continue; // whitespace only
            }
            read.pop(); // the TEXT mark after its data
            let text = read;
            let parent_visible = v.parent.is_some_and(|p| snap.nodes[p as usize].visible);
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

    // Second pass: measure only the boxes classification will read. Which nodes have base
    // content is worked out once, and again only if measuring hides a text without a box.
    let mut base_content = snap.has_base_content();
    let needing_rect = sightline::describe::nodes_needing_rect(&snap, &base_content);
    let iframes = (0..snap.nodes.len() as u32).filter(|&i| snap.nodes[i as usize].clip == Some(Clip::FRAME));
    let mut to_measure: Vec<u32> = needing_rect.iter().copied().chain(iframes).collect();
    to_measure.sort_unstable();
    to_measure.dedup();
    let table = &hits.table;
    let reader = BoxReader { table, frame_of: &frame_of, frame_origins: &frame_origins };
    if reader.measure(&mut snap, &to_measure) {
        base_content = snap.has_base_content();
    }
    let t1 = now();
    for i in snap.nodes_needing_style(&base_content) {
        let values = read_style(table[i as usize], BACKGROUND_STYLES);
        let mut v = values.split('\n');
        let (color, image, font) = (v.next().unwrap_or(""), v.next().unwrap_or(""), v.next().unwrap_or(""));
        snap.nodes[i as usize].style = Some(StyleFacts::from_computed(color, image, font));
    }
    // Clipping, for boxes in view: an ancestor's overflow is read only where its box leaves
    // part of such a box outside.
    let mut overflow_read = vec![false; snap.nodes.len()];
    for &c in &needing_rect {
        let Some(rect) = snap.nodes[c as usize].rect.filter(|r| visibility::is_clip_checked(&snap, r)) else {
            continue;
        };
        let mut ancestor = snap.nodes[c as usize].parent;
        while let Some(a) = ancestor.map(|a| a as usize) {
            if snap.nodes[a].rect.is_none() {
                reader.measure(&mut snap, &[a as u32]); // an element: no text is hidden
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
            snap.nodes[i as usize].positioning =
                Some(Positioning::from_computed(&read_style(table[i as usize], POSITION_STYLE)));
        }
    }
    snap.partial = left_unread;
    snap.shared_ids = Some(shared_id_nodes(&snap, &hits.table));
    let t2 = now();
    Ok((
        LiveSnapshot { snapshot: snap, base_content, hits, remote_frames },
        WalkTimings { walk_ms: t1 - t0, style_ms: t2 - t1 },
    ))
}

/// The read elements whose id another element of their tree also has, read or not: the page's
/// id index answers (`sharedIds`), so an element hidden, in `<head>` or beyond the view counts
/// too, and paths anchor only on ids that name one element.
fn shared_id_nodes(snap: &PageSnapshot, table: &[u32]) -> Vec<u32> {
    let with_id: Vec<u32> = (0..snap.nodes.len() as u32)
        .filter(|&i| snap.nodes[i as usize].attr("id").is_some_and(|id| !id.is_empty()))
        .collect();
    if with_id.is_empty() {
        return Vec::new();
    }
    let in_table: Vec<u32> = with_id.iter().map(|&i| table[i as usize]).collect();
    let mut shared = vec![0u8; with_id.len()];
    shared_ids(&in_table, &mut shared);
    with_id.into_iter().zip(shared).filter(|&(_, s)| s != 0).map(|(i, _)| i).collect()
}

/// Measures nodes into the snapshot, in top-viewport coordinates.
struct BoxReader<'a> {
    /// Parallel to the snapshot's nodes: index in the node table.
    table: &'a [u32],
    frame_of: &'a [u32],
    frame_origins: &'a [(f64, f64)],
}

impl BoxReader<'_> {
    /// Measures the nodes `which` (snapshot indices) in one call: a whole page's boxes cost one
    /// crossing instead of one each. True when a visible text turned out to have no box (it is
    /// no longer visible: what was worked out from visibility is out of date).
    fn measure(&self, snap: &mut PageSnapshot, which: &[u32]) -> bool {
        let table: Vec<u32> = which.iter().map(|&i| self.table[i as usize]).collect();
        let mut boxes = vec![0.0f64; 4 * which.len()];
        read_boxes(&table, &mut boxes);
        let mut hid = false;
        for (&i, b) in which.iter().zip(boxes.chunks_exact(4)) {
            hid |= self.record(snap, i as usize, [b[0], b[1], b[2], b[3]]);
        }
        hid
    }

    /// Records a node's box; true when it hides a visible text (one without a box).
    fn record(&self, snap: &mut PageSnapshot, i: usize, [x, y, width, height]: [f64; 4]) -> bool {
        let (dx, dy) = self.frame_origins[self.frame_of[i] as usize];
        let r = Rect::new(x + dx, y + dy, width, height);
        let node = &mut snap.nodes[i];
        if matches!(node.data, NodeData::Text { .. }) {
            let has_area = r.width > 0.0 || r.height > 0.0;
            node.rect = has_area.then_some(r);
            let hid = node.visible && !has_area;
            node.visible &= has_area;
            hid
        } else {
            node.rect = Some(r);
            false
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
        "input" => FormState { value: Some(text), checked: Some(checked), ..Default::default() },
        "textarea" => FormState { value: Some(text), ..Default::default() },
        // The selected option's text, then each option's, separated by U+0001 (`readNode`).
        "select" => {
            let mut parts = text.split('\u{1}').map(str::to_string);
            let selected_text = parts.next();
            FormState { selected_text, options: parts.collect(), ..Default::default() }
        }
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
