//! Entry points for the content script: reading the page it runs in. This is the small module
//! the content script compiles in every page it reads (scripts/build); it links the core's
//! reading part and nothing of the service worker's module (crate/web).
#![cfg(target_arch = "wasm32")]

pub mod dom;

use sightline::describe::{describe_given, DescribeOptions};
use sightline_web_common::{now_ms, to_js, to_json, ExtractResult, Fault, Timings};
use wasm_bindgen::prelude::*;

/// The extract options (absent: the defaults), read from the JS object itself
/// (serde-wasm-bindgen): this module reads no JSON text, and serde_json's reader would add about
/// 9 KB gzipped to it for this one small struct. (The worker's module reads JS values as JSON
/// text: `sightline_web_common::from_js`.)
fn describe_options(opts: JsValue) -> Result<DescribeOptions, Fault> {
    if opts.is_undefined() || opts.is_null() {
        return Ok(DescribeOptions::default());
    }
    serde_wasm_bindgen::from_value(opts)
        .map_err(|e| Fault::bad_input(format!("the extract options is not in the expected form: {e}")))
}

#[wasm_bindgen(start)]
fn start() {
    console_error_panic_hook::set_once();
}

/// Content script: walk this document and describe it. Returns the result as JSON text (in
/// ASCII, `boundary::to_ascii_json`), or `{"remoteFrames": n}` when visible frames hold
/// documents only CDP can read (the service worker then reads the whole page through CDP).
///
/// The last reading of each reach is kept (`kept`): the in-view one a step reads, and the whole
/// page. Asked again with the same options while the page watch says nothing has changed, the
/// kept reading is answered without walking the page.
#[wasm_bindgen(js_name = extractPage)]
pub fn extract_page(opts: JsValue) -> Result<JsValue, Fault> {
    let key = js_sys::JSON::stringify(&opts).map(String::from).unwrap_or_default();
    let opts = describe_options(opts)?;
    let window = web_sys::window().ok_or_else(|| Fault::internal("no window here".into()))?;
    let t0 = now_ms();
    let slot = kept::Slot::of(&opts);
    if let Some(json) = kept::again(slot, &key, t0)? {
        return Ok(json);
    }
    let (live, walk) = dom::snapshot_document(&window, opts.skips_beyond_view())?;
    if live.remote_frames > 0 {
        return Ok(format!("{{\"remoteFrames\":{}}}", live.remote_frames).into());
    }
    let dom::LiveSnapshot { snapshot, base_content, mut hits, .. } = live;
    let t1 = now_ms();
    let extraction = describe_given(&snapshot, &base_content, &opts, &mut hits);
    let describe_ms = now_ms() - t1;
    let timings = Timings { walk_ms: walk.walk_ms, style_ms: walk.style_ms, describe_ms, total_ms: now_ms() - t0 };
    let result = ExtractResult::new(extraction, timings, "content-script");
    let json = sightline::boundary::to_ascii_json(&result, kept::expected_len(slot))
        .map_err(|e| Fault::internal(format!("could not encode the result: {e}")))?;
    drop(result);
    let out = JsValue::from_str(&json);
    // While the walk's node table lives (`hits`): the watch notes the fields it read.
    kept::keep(slot, key, json);
    drop(hits);
    Ok(out)
}

/// The last readings, kept in the page while nothing has changed since (`dom.js`, `watchPage`):
/// a later step on a page that did not change (an assertion after a query, a round without
/// input: a note, a wait) pays a fraction of the walk, and so does a step needing the whole page (a
/// locate by the element list, a cached element off screen). One reading per slot, the latest.
mod kept {
    use super::{now_ms, to_json, Fault, JsValue, Timings};
    use sightline::describe::DescribeOptions;
    use std::cell::{Cell, RefCell};

    /// Which kept reading: a step's in-view one, or the whole page's (each read with its options).
    #[derive(Clone, Copy, PartialEq, Eq)]
    pub enum Slot {
        InView = 0,
        Whole = 1,
    }

    impl Slot {
        pub fn of(opts: &DescribeOptions) -> Slot {
            if opts.skips_beyond_view() {
                Slot::InView
            } else {
                Slot::Whole
            }
        }
    }

    struct Kept {
        /// The options it was read with (JSON text).
        options: String,
        /// The reading's JSON text as it was answered.
        json: String,
        /// Where its timings begin (`ExtractResult` writes them after the extraction's fields).
        head: usize,
    }

    thread_local! {
        static KEPT: RefCell<[Option<Kept>; 2]> = const { RefCell::new([None, None]) };
        /// The length of the last whole-page reading's text.
        static LAST_LEN: Cell<usize> = const { Cell::new(0) };
    }

    const TIMINGS: &str = ",\"timings\":";

    /// Room to reserve for a reading's text: a whole-page reading of a page is about as long
    /// as the one before it (a 205k-element page's is 19 MB, grown otherwise by doubling).
    pub fn expected_len(slot: Slot) -> usize {
        match slot {
            Slot::Whole => LAST_LEN.get() + LAST_LEN.get() / 16,
            Slot::InView => 64 * 1024,
        }
    }

    /// The kept reading when it was read with `options` and the page is unchanged since: its text
    /// up to the timings, then the rest of an `ExtractResult` as serde writes it (its timings,
    /// source and `reused`), joined as JS strings, not copied in WASM.
    pub fn again(slot: Slot, options: &str, t0: f64) -> Result<Option<JsValue>, Fault> {
        let head = KEPT.with_borrow(|kept| match &kept[slot as usize] {
            Some(k) if k.options == options && super::dom::page_unchanged(slot as u32) => {
                Some(js_sys::JsString::from(&k.json[..k.head]))
            }
            _ => None,
        });
        let Some(head) = head else { return Ok(None) };
        let timings = to_json(&Timings { walk_ms: 0.0, style_ms: 0.0, describe_ms: 0.0, total_ms: now_ms() - t0 })?;
        let rest = format!("{TIMINGS}{timings},\"source\":\"content-script\",\"reused\":true}}");
        Ok(Some(head.concat(&JsValue::from_str(&rest)).into()))
    }

    /// Drops the kept readings and stops the page watch: nothing of this reader stays reachable
    /// from the page (its watch's listeners held the module, so all its memory).
    pub fn forget() {
        drop_readings();
        LAST_LEN.set(0);
    }

    /// Drops the kept readings and stops the page watch, keeping the size a whole reading had.
    pub fn drop_readings() {
        KEPT.set([None, None]);
        super::dom::forget_page();
    }

    /// Keeps `json` (not a copy), read with `options`, while the page watch can see every change to it.
    pub fn keep(slot: Slot, options: String, json: String) {
        if slot == Slot::Whole {
            LAST_LEN.set(json.len());
        }
        let head = json.rfind(TIMINGS);
        let kept = match head {
            Some(head) if super::dom::watch_page(slot as u32) => Some(Kept { options, json, head }),
            Some(_) => None, // the page watch cannot see it all (it has no mark either)
            None => {
                super::dom::forget_slot(slot as u32);
                None
            }
        };
        KEPT.with_borrow_mut(|k| k[slot as usize] = kept);
    }
}

/// Content script, when a script of another build replaces this one in the tab: lets go of the
/// page (`kept::forget`), so the page holds nothing of this module any more and it can be freed.
#[wasm_bindgen]
pub fn retire() {
    kept::forget();
}

/// Content script, after it changed the page itself (scrolled an element into view): the kept
/// readings go, as the scroll events that would end them come only with the next frame.
#[wasm_bindgen(js_name = forgetReadings)]
pub fn forget_readings() {
    kept::drop_readings();
}

/// Content script, "record my steps": the element a person acted on (`node`, an event's
/// target), as the model's description would list it: `{…target, sensitive, field}`, or null
/// when no listed element holds it. The nearest listed element containing the node is taken.
/// Content script, "record my steps": an element the description does not list (the row whose
/// hover showed a button), as a recorded target: its path, the box the page measured (`x`,
/// `y`, `width`, `height`) and its words (`text`, the row's text), or null where the reading
/// did not keep the node.
#[wasm_bindgen(js_name = describeNode)]
pub fn describe_node(
    node: &web_sys::Node,
    x: f64,
    y: f64,
    width: f64,
    height: f64,
    text: &str,
) -> Result<JsValue, Fault> {
    use sightline::agent::recorder::Picked;
    let window = web_sys::window().ok_or_else(|| Fault::internal("no window here".into()))?;
    let (live, _) = dom::snapshot_document(&window, false)?;
    let Some(at) = live.hits.snapshot_index_of(node) else { return Ok(JsValue::NULL) };
    let rect = sightline::vocab::geometry::Rect::new(x, y, width, height);
    match Picked::of_node(&live.snapshot, at as usize, rect, text) {
        Some(picked) => to_js(&picked),
        None => Ok(JsValue::NULL),
    }
}

#[wasm_bindgen(js_name = describeTarget)]
pub fn describe_target(node: &web_sys::Node) -> Result<JsValue, Fault> {
    use sightline::agent::recorder::Picked;
    let window = web_sys::window().ok_or_else(|| Fault::internal("no window here".into()))?;
    let (live, _) = dom::snapshot_document(&window, false)?;
    let dom::LiveSnapshot { snapshot, base_content, mut hits, .. } = live;
    let Some(mut at) = hits.snapshot_index_of(node) else { return Ok(JsValue::NULL) };
    let extraction = describe_given(&snapshot, &base_content, &DescribeOptions::default(), &mut hits);
    loop {
        if let Some(e) = extraction.elements.iter().find(|e| e.node == at) {
            let snap = &snapshot.nodes[e.node as usize];
            return to_js(&Picked::of(e, |k| snap.attr(k)));
        }
        match snapshot.nodes[at as usize].parent {
            Some(p) => at = p,
            None => return Ok(JsValue::NULL),
        }
    }
}
