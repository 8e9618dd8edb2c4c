//! Entry points for the extension's JS. Names are camelCase on the JS side.

use super::bridge::FetchModel;
use super::host::{Host, HostBrowser};
use super::{dom, from_js, now_ms, to_js};
use crate::agent::{run_instruction, RunOptions};
use crate::describe::{describe_with, DescribeOptions};
use crate::model::ModelConfig;
use crate::snapshot::cdp;
use serde::Serialize;
use wasm_bindgen::prelude::*;

#[wasm_bindgen(start)]
fn start() {
    console_error_panic_hook::set_once();
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Timings {
    walk_ms: f64,
    style_ms: f64,
    describe_ms: f64,
    total_ms: f64,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct ExtractResult {
    #[serde(flatten)]
    extraction: crate::describe::Extraction,
    timings: Timings,
    /// `content-script` (live DOM walk) or `cdp` (DOMSnapshot, for strict-CSP pages).
    source: &'static str,
}

fn options(opts: JsValue) -> Result<DescribeOptions, JsError> {
    if opts.is_undefined() || opts.is_null() {
        return Ok(DescribeOptions::default());
    }
    from_js(opts, "the extract options").map_err(|e| JsError::new(&e))
}

/// Results leave as one JSON string: far cheaper than building thousands of JS objects
/// through the boundary, and a string crosses from the content script to the worker as is.
fn to_json<T: Serialize>(value: &T) -> Result<String, JsError> {
    serde_json::to_string(value).map_err(|e| JsError::new(&format!("could not encode the result: {e}")))
}

/// Content script: walk this document and describe it. Returns the result as JSON text, or
/// `{"remoteFrames": n}` when visible frames hold documents only CDP can read (the service
/// worker then reads the whole page through CDP).
#[wasm_bindgen(js_name = extractPage)]
pub fn extract_page(opts: JsValue) -> Result<String, JsError> {
    let opts = options(opts)?;
    let window = web_sys::window().ok_or_else(|| JsError::new("no window here"))?;
    let t0 = now_ms();
    let (live, walk) = dom::snapshot_document(&window, opts.viewport_only).map_err(|e| JsError::new(&e))?;
    if live.remote_frames > 0 {
        return Ok(format!("{{\"remoteFrames\":{}}}", live.remote_frames));
    }
    let dom::LiveSnapshot { snapshot, mut hits, .. } = live;
    let t1 = now_ms();
    let extraction = describe_with(&snapshot, &opts, &mut hits);
    let describe_ms = now_ms() - t1;
    to_json(&ExtractResult {
        extraction,
        timings: Timings { walk_ms: walk.walk_ms, style_ms: walk.style_ms, describe_ms, total_ms: now_ms() - t0 },
        source: "content-script",
    })
}

/// Parameters for `DOMSnapshot.captureSnapshot` that `describeCdpSnapshot` expects.
#[wasm_bindgen(js_name = cdpSnapshotParams)]
pub fn cdp_snapshot_params() -> Result<JsValue, JsError> {
    to_js(&cdp::capture_params())
}

/// Service worker, CDP path (strict-CSP pages, cross-process frames): describe a page from
/// CDP results, each passed as JSON text. `capture` is `DOMSnapshot.captureSnapshot(cdpSnapshotParams())`,
/// `metrics` is `Page.getLayoutMetrics`, `remoteFrames` is `[{ownerBackendNodeId, capture}]`
/// for frames rendered in other processes. Returns JSON text, as `extractPage` does.
#[wasm_bindgen(js_name = describeCdpSnapshot)]
pub fn describe_cdp_snapshot(capture: &str, metrics: &str, remote_frames: &str, opts: JsValue, capture_ms: f64) -> Result<String, JsError> {
    let opts = options(opts)?;
    let t0 = now_ms();
    let page = cdp::decode(capture, metrics, remote_frames).map_err(|e| JsError::new(&e.to_string()))?;
    let t1 = now_ms();
    let extraction = describe_with(&page.snapshot, &opts, &mut page.hit_test());
    let describe_ms = now_ms() - t1;
    to_json(&ExtractResult {
        extraction,
        timings: Timings { walk_ms: capture_ms + (t1 - t0), style_ms: 0.0, describe_ms, total_ms: capture_ms + now_ms() - t0 },
        source: "cdp",
    })
}

#[derive(serde::Deserialize)]
#[serde(rename_all = "camelCase")]
struct RunArgs {
    id: String,
    instruction: String,
    model: ModelConfig,
    #[serde(default)]
    options: RunOptions,
}

/// Service worker: run one instruction on the host's tab. Resolves to the run record; a
/// failed run is a record with status `failed` and an error, not a rejection.
#[wasm_bindgen(js_name = runInstruction)]
pub async fn run_instruction_js(args: JsValue, host: Host) -> Result<JsValue, JsError> {
    let args: RunArgs = from_js(args, "the run request").map_err(|e| JsError::new(&e))?;
    // `model.apiKey` is read here but never written back out: ModelConfig skips it when serializing.
    let client = FetchModel { stop: Some(host.stop_signal()) };
    let mut browser = HostBrowser { host };
    let run = run_instruction(args.id, &args.instruction, &args.options, &args.model, &mut browser, &client).await;
    to_js(&run)
}

#[derive(serde::Deserialize, Default)]
#[serde(rename_all = "camelCase", default)]
struct LayoutViewports {
    visual_viewport: ViewportWidth,
    css_visual_viewport: ViewportWidth,
}

#[derive(serde::Deserialize, Default)]
#[serde(rename_all = "camelCase", default)]
struct ViewportWidth {
    client_width: f64,
}

/// Service worker: `Page.captureScreenshot` data + `Page.getLayoutMetrics` → `{dataUrl, width, height, devicePixelRatio}`.
#[wasm_bindgen(js_name = describeScreenshot)]
pub fn describe_screenshot(png_base64: String, metrics: JsValue) -> Result<JsValue, JsError> {
    let m: LayoutViewports = from_js(metrics, "the layout metrics").map_err(|e| JsError::new(&e))?;
    let shot = crate::vision::screenshot_from_capture(&png_base64, m.visual_viewport.client_width, m.css_visual_viewport.client_width)
        .ok_or_else(|| JsError::new("the screenshot is not a PNG"))?;
    to_js(&shot)
}

/// `descriptionOfTree` in Midscene's format for a tree in `describe::midscene::MsTree` shape
/// (attributes as `[name, value]` pairs). Used by the differential test against Midscene.
#[wasm_bindgen(js_name = midsceneDescriptionOfTree)]
pub fn midscene_description_of_tree(
    tree: JsValue,
    truncate: Option<u32>,
    filter_non_text: bool,
    visible_only: bool,
) -> Result<String, JsError> {
    let tree: crate::describe::midscene::MsTree = from_js(tree, "the tree").map_err(|e| JsError::new(&e))?;
    Ok(crate::describe::midscene::description_of_tree(&tree, truncate.map(|t| t as usize), filter_non_text, visible_only))
}
