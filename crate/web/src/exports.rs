//! Entry points for the service worker's JS (the content script's are in `reader`). Names are
//! camelCase on the JS side.

use super::bridge::FetchTransport;
use super::host::{Host, HostBrowser};
use super::{from_js, now_ms, options_or_default, to_js, to_json};
use serde::Serialize;
use sightline::agent::replay::trajectory::{self, Trajectory};
use sightline::agent::RunError;
use sightline::agent::{run_instruction, RunOptions};
use sightline::describe::{describe_with, DescribeOptions};
use sightline::model::{Bridge, ChatMessage, ModelClient, ModelConfig, PriceTable, Provider};
use sightline::snapshot::cdp;
use sightline::vision::{self, Capture, Frame, ImageOptions, ImageRule, ModelImage};
use sightline_web_common::Fault;
use sightline_web_common::{js_text, not_in_form, ExtractResult, Timings};
use wasm_bindgen::prelude::*;

/// Parameters for `DOMSnapshot.captureSnapshot` that `describeCdpSnapshot` expects.
#[wasm_bindgen(js_name = cdpSnapshotParams)]
pub fn cdp_snapshot_params() -> Result<JsValue, Fault> {
    to_js(&cdp::capture_params())
}

/// Service worker tooling, CDP path (strict-CSP pages, cross-process frames): describe a page
/// from CDP results in one JSON text `{capture, metrics, frames}`: `capture` is
/// `DOMSnapshot.captureSnapshot(cdpSnapshotParams())`, `metrics` is `Page.getLayoutMetrics`,
/// `frames` is `[{ownerBackendNodeId, capture}]` for frames rendered in other processes.
/// Returns JSON text, as `extractPage` does. (A run's loop decodes the same text itself.)
#[wasm_bindgen(js_name = describeCdpSnapshot)]
pub fn describe_cdp_snapshot(reading: &str, opts: JsValue, capture_ms: f64) -> Result<String, Fault> {
    let opts: DescribeOptions = options_or_default(opts, "the extract options")?;
    let t0 = now_ms();
    let page = cdp::decode_reading(reading)?;
    let t1 = now_ms();
    let extraction = describe_with(&page.snapshot, &opts, &mut page.hit_test());
    let describe_ms = now_ms() - t1;
    let timings =
        Timings { walk_ms: capture_ms + (t1 - t0), style_ms: 0.0, describe_ms, total_ms: capture_ms + now_ms() - t0 };
    to_json(&ExtractResult::new(extraction, timings, "cdp"))
}

/// The model bridge for a run on this host: Stop aborts its requests, streamed text goes to
/// the host's `modelText`.
pub(crate) fn model_client(browser: &HostBrowser) -> Bridge<FetchTransport> {
    let host = &browser.host;
    let on_text =
        js_sys::Reflect::get(host, &"modelText".into()).ok().and_then(|f| f.dyn_into::<js_sys::Function>().ok());
    Bridge { transport: FetchTransport { stop: Some(host.stop_signal()), on_text } }
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
pub async fn run_instruction_js(args: JsValue, host: Host) -> Result<JsValue, Fault> {
    let args: RunArgs = from_js(args, "the run request")?;
    // `model.apiKey` is read here but never written back out: ModelConfig skips it when serializing.
    let mut browser = HostBrowser::new(host, args.options.limits());
    let client = model_client(&browser);
    let run = run_instruction(args.id, &args.instruction, &args.options, &args.model, &mut browser, &client).await;
    super::to_js(&browser.finished(run))
}

#[derive(serde::Deserialize)]
#[serde(rename_all = "camelCase")]
struct TaskArgs {
    id: String,
    task: sightline::vocab::tasks::Task,
    model: ModelConfig,
    #[serde(default)]
    options: RunOptions,
}

/// Service worker: one AI task (`{type: "aiTap", locate}`, `{type: "aiQuery", demand}`, …) on
/// the host's tab. Resolves to its run record; the task's answer is in `result`.
#[wasm_bindgen(js_name = runTask)]
pub async fn run_task_js(args: JsValue, host: Host) -> Result<JsValue, Fault> {
    let args: TaskArgs = from_js(args, "the task")?;
    let mut browser = HostBrowser::new(host, args.options.limits());
    let client = model_client(&browser);
    let run =
        sightline::agent::tasks::run_task(args.id, &args.task, &args.options, &args.model, &mut browser, &client).await;
    super::to_js(&browser.finished(run))
}

#[derive(serde::Deserialize)]
#[serde(rename_all = "camelCase")]
struct FlowArgs {
    id: String,
    flow: sightline::flow::Flow,
    model: ModelConfig,
    #[serde(default)]
    options: RunOptions,
}

/// Service worker: a flow (from `parseFlow`) on the host's tab, item after item, as one run.
/// Resolves to its run record; `flow.items` says how each item went.
#[wasm_bindgen(js_name = runFlow)]
pub async fn run_flow_js(args: JsValue, host: Host) -> Result<JsValue, Fault> {
    let args: FlowArgs = from_js(args, "the flow")?;
    let mut browser = HostBrowser::new(host, args.options.limits());
    let client = model_client(&browser);
    let run = sightline::agent::replay::flow::run_flow(
        args.id,
        &args.flow,
        &args.options,
        &args.model,
        &mut browser,
        &client,
    )
    .await;
    super::to_js(&browser.finished(run))
}

/// A Midscene YAML flow file's text → the flow (`{url, serve, viewport, tasks, warnings, context, maxRounds}`),
/// or an error saying where and why it cannot run. `vars` (`FlowVars`: `{dotenv, env, secrets}`,
/// or undefined): what its `${NAME}`s may stand for.
#[wasm_bindgen(js_name = parseFlow)]
pub fn parse_flow(yaml: &str, vars: JsValue) -> Result<JsValue, Fault> {
    let vars: sightline::flow::FlowVars =
        if vars.is_undefined() || vars.is_null() { Default::default() } else { from_js(vars, "the flow's variables")? };
    to_js(&sightline::flow::parse_flow_with(yaml, &vars)?)
}

/// Whether a flow (from `parseFlow`) may run its javascript steps, given the hashes the person
/// allowed (`allowed`: an array of hex strings): `{hash, scripts: [{task, step, code, name?}],
/// allowed, warning: {en, zh_CN}}`. The panel shows `scripts` as text with Allow / Cancel
/// where `allowed` is false, and keeps `hash` once the person allows.
#[wasm_bindgen(js_name = flowConsent)]
pub fn flow_consent(flow: JsValue, allowed: JsValue) -> Result<JsValue, Fault> {
    let flow: sightline::flow::Flow = from_js(flow, "the flow")?;
    let allowed: Vec<String> = options_or_default(allowed, "the allowed flows")?;
    let consent = sightline::flow::script_consent(&flow, &allowed);
    let mut warning = serde_json::Map::new();
    for lang in sightline::i18n::Lang::ALL {
        if let serde_json::Value::String(name) = serde_json::to_value(lang).unwrap_or_default() {
            warning.insert(name, lang.say("flow.script_consent", &[("count", &consent.scripts.len())]).into());
        }
    }
    let mut out = serde_json::to_value(&consent).map_err(|e| Fault::bad_input(e.to_string()))?;
    out["warning"] = serde_json::Value::Object(warning);
    to_js(&out)
}

/// A batch index file's text (Midscene's `files:`, `concurrent`, `continueOnError`, `retry`,
/// `summary`, `shareBrowserContext`, `web:`) → the index, null when the text is a flow and not
/// an index, or an error saying where and why. `vars` as for `parseFlow`.
#[wasm_bindgen(js_name = parseBatch)]
pub fn parse_batch(yaml: &str, vars: JsValue) -> Result<JsValue, Fault> {
    let vars: sightline::flow::FlowVars = if vars.is_undefined() || vars.is_null() {
        Default::default()
    } else {
        from_js(vars, "the index's variables")?
    };
    to_js(&sightline::flow::parse_batch(yaml, &vars)?)
}

/// A flow (from `parseFlow`) with a batch index's `web:` applied: each key the index gives wins.
#[wasm_bindgen(js_name = applyBatchWeb)]
pub fn apply_batch_web(flow: JsValue, web: JsValue) -> Result<JsValue, Fault> {
    let flow: sightline::flow::Flow = from_js(flow, "the flow")?;
    let web: sightline::flow::BatchWeb = from_js(web, "the index's web")?;
    to_js(&sightline::flow::apply_web(flow, &web))
}

/// A finished flow run (`runFlow`'s record) → how a batch summary names its end: `success`,
/// `partialFailed` (only tasks with `continueOnError` failed) or `failed`.
#[wasm_bindgen(js_name = batchResultType)]
pub fn batch_result_type(run: JsValue) -> Result<String, Fault> {
    let run: sightline::agent::record::Run = from_js(run, "the run")?;
    Ok(sightline::agent::replay::flow::batch_result_type(&run).to_string())
}

/// A batch's results (`[{script, status, error, durationMs, report, attempts, partial}]`) → the
/// summary JSON in Midscene's shape.
#[wasm_bindgen(js_name = batchSummary)]
pub fn batch_summary(results: JsValue, generated_at: &str) -> Result<JsValue, Fault> {
    let results: Vec<sightline::flow::BatchResult> = from_js(results, "the batch's results")?;
    to_js(&sightline::flow::batch::summary(&results, generated_at))
}

/// Every kind of AI task with its fields (`[{type, group, fields: [{name, kind, required,
/// choices?}], args}]`): the worker's task functions and the panel's task form are built from it.
#[wasm_bindgen(js_name = taskSchema)]
pub fn task_schema() -> Result<JsValue, Fault> {
    to_js(&sightline::agent::task_schema::task_schema())
}

fn layout_metrics(json: &str) -> Result<cdp::LayoutMetrics, Fault> {
    sightline::boundary::layout_metrics_from_json(json)
        .map_err(|e| Fault::bad_input(format!("the layout metrics are not in the expected form: {e}")))
}

/// Service worker: the `Page.captureScreenshot` parameters for the viewport or the whole page,
/// given `Page.getLayoutMetrics` as JSON text; a viewport capture needs none (null), so both
/// can be asked for at once. `fitted`: the image options the capture will be fitted by (`{}`:
/// the defaults), or null for a capture kept as it came.
#[wasm_bindgen(js_name = captureParams)]
pub fn capture_params(metrics: Option<String>, full_page: bool, fitted: JsValue) -> Result<JsValue, Fault> {
    let metrics = metrics.as_deref().map(layout_metrics).transpose()?;
    if full_page && metrics.is_none() {
        return Err(Fault::bad_input("a full-page capture needs the layout metrics".into()));
    }
    let fitted = if fitted.is_null() || fitted.is_undefined() { None } else { Some(image_options(fitted)?) };
    to_js(&vision::capture::capture_params(metrics.as_ref(), full_page, fitted.as_ref()))
}

/// Service worker: a capture's bytes (a Uint8Array) + the layout metrics it was taken with →
/// a `Capture` (`{base64, devicePixelRatio, origin}`).
#[wasm_bindgen(js_name = captureFromCdp)]
pub fn capture_from_cdp(bytes: Vec<u8>, metrics: &str, full_page: bool) -> Result<JsValue, Fault> {
    to_js(&Capture::from_cdp(bytes, &layout_metrics(metrics)?, full_page))
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct MarkedImage {
    #[serde(flatten)]
    image: ModelImage,
    labels: Vec<vision::markers::PlacedLabel>,
    ms: f64,
}

fn image_options(opts: JsValue) -> Result<ImageOptions, Fault> {
    options_or_default(opts, "the image options")
}

/// Service worker: the capture fitted to the model and marked with the numbers of the given
/// elements that a description lists (`elements` as in an extraction). What a model is sent.
#[wasm_bindgen(js_name = markScreenshot)]
pub fn mark_screenshot(capture: JsValue, elements: JsValue, opts: JsValue) -> Result<JsValue, Fault> {
    let t0 = now_ms();
    let capture: Capture = from_js(capture, "the capture")?;
    let elements = sightline::boundary::elements_from_json(&js_text(elements, "the elements")?)
        .map_err(|e| not_in_form("the elements", e))?;
    let opts = image_options(opts)?;
    let (image, labels) = vision::pipeline::marked_image(&capture, &elements, &opts)?;
    to_js(&MarkedImage { image, labels, ms: now_ms() - t0 })
}

/// Service worker: a tab's reading and capture as a run's `observe` hands them over (`{page,
/// shot}`, `page` null for no markers) → the capture fitted to the model and marked with the
/// numbers of the elements the description lists. Each crosses in once, the marked image
/// comes out once; `screenshot()` uses this rather than `captureFromCdp` + `markScreenshot`.
#[wasm_bindgen(js_name = markObserved)]
pub fn mark_observed(materials: JsValue, opts: JsValue) -> Result<JsValue, Fault> {
    let t0 = now_ms();
    let opts = image_options(opts)?;
    let (image, labels) = super::materials::marked_image(&materials, &opts)?;
    to_js(&MarkedImage { image, labels, ms: now_ms() - t0 })
}

/// Service worker: the capture with overlays (`[{kind: "highlight"|"bbox", rect} | {kind:
/// "point", x, y}]`, CSS pixels) for the timeline and reports.
#[wasm_bindgen(js_name = drawOverlays)]
pub fn draw_overlays(capture: JsValue, overlays: JsValue, opts: JsValue) -> Result<JsValue, Fault> {
    let capture: Capture = from_js(capture, "the capture")?;
    let overlays: Vec<vision::Overlay> = from_js(overlays, "the overlays")?;
    let opts = image_options(opts)?;
    let frame = Frame::from_capture(&capture, &opts)?;
    let img = frame.with_overlays(&overlays);
    to_js(&frame.finish(&img, opts.format)?)
}

/// `descriptionOfTree` in Midscene's format for a tree in `describe::midscene::MsTree` shape
/// (attributes as `[name, value]` pairs). Used by the differential test against Midscene.
#[wasm_bindgen(js_name = midsceneDescriptionOfTree)]
pub fn midscene_description_of_tree(
    tree: JsValue,
    truncate: Option<u32>,
    filter_non_text: bool,
    visible_only: bool,
) -> Result<String, Fault> {
    let tree =
        sightline::boundary::ms_tree_from_json(&js_text(tree, "the tree")?).map_err(|e| not_in_form("the tree", e))?;
    Ok(sightline::describe::midscene::description_of_tree(
        &tree,
        truncate.map(|t| t as usize),
        filter_non_text,
        visible_only,
    ))
}

#[derive(serde::Deserialize)]
#[serde(rename_all = "camelCase")]
struct ScreenFacts {
    width: f64,
    height: f64,
    #[serde(default = "one")]
    dpr: f64,
}

fn one() -> f64 {
    1.0
}

/// Tooling: reads a reply as `family` would be read in a run, for a viewport of `width` ×
/// `height` CSS px at `dpr`, the screenshot fitted as that family's runs fit it. Resolves to
/// the plan (coordinates in CSS px) or `{error}` with the typed error's message.
#[wasm_bindgen(js_name = parseReply)]
pub fn parse_reply_js(family: JsValue, reply: &str, screen: JsValue) -> Result<JsValue, Fault> {
    let family: sightline::vocab::family::ModelFamily = from_js(family, "the model family")?;
    let s: ScreenFacts = from_js(screen, "the screen ({width, height, dpr})")?;
    let opts = ImageOptions { rule: ImageRule::for_family(family), ..Default::default() };
    let (w, h) = ((s.width * s.dpr).round() as u32, (s.height * s.dpr).round() as u32);
    let mapping = vision::fit::fit(w, h, s.dpr, (0.0, 0.0), &opts)?;
    match sightline::parse::parse_reply(family, reply, Some(&mapping)) {
        Ok(plan) => to_js(&plan),
        Err(e) => to_js(&serde_json::json!({ "error": e.to_string() })),
    }
}

/// Tooling and differential tests: the JSON repair the parsers fall back to.
#[wasm_bindgen(js_name = repairJson)]
pub fn repair_json(text: &str) -> String {
    sightline::parse::repair::repair_json(text)
}

/// Settings: the provider presets (base URL, a model to start from, the family to use).
#[wasm_bindgen(js_name = providerPresets)]
pub fn provider_presets() -> Result<JsValue, Fault> {
    to_js(&Provider::ALL.map(Provider::preset))
}

/// Settings: planner + grounder pairings (both endpoints filled in at once).
#[wasm_bindgen(js_name = modelPairings)]
pub fn model_pairings() -> Result<JsValue, Fault> {
    to_js(&sightline::model::provider::pairings())
}

/// Settings and the headless runner: model settings from Midscene's (or OpenAI's) environment
/// variables, pasted as a block or gathered from the environment: `{model: {baseUrl?, apiKey?,
/// model?, family?}, planner?, ignored}`; a readable error when the block cannot be used.
#[wasm_bindgen(js_name = settingsFromEnv)]
pub fn settings_from_env(text: &str) -> Result<JsValue, Fault> {
    use sightline::model::env_block;
    let pairs = env_block::read_block(text)?;
    to_js(&env_block::settings_from_env(&pairs)?)
}

/// Settings: site knowledge read from its text (entries separated by a blank line, sites on
/// each entry's first line), or a readable error naming the entry.
#[wasm_bindgen(js_name = parseKnowledge)]
pub fn parse_knowledge(text: &str) -> Result<JsValue, Fault> {
    to_js(&sightline::agent::options::knowledge_from_text(text)?)
}

/// Settings: site knowledge as its editable text.
#[wasm_bindgen(js_name = knowledgeText)]
pub fn knowledge_text(entries: JsValue) -> Result<String, Fault> {
    let entries: Vec<sightline::agent::options::SiteKnowledge> =
        from_js(entries, "the site knowledge ([{sites, text}])")?;
    Ok(sightline::agent::options::knowledge_text(&entries))
}

/// Settings: the price table as editable text, from its rows (or the defaults when absent).
#[wasm_bindgen(js_name = priceTableText)]
pub fn price_table_text(rows: JsValue) -> Result<String, Fault> {
    let table: PriceTable = options_or_default(rows, "the price table")?;
    Ok(table.to_text())
}

/// Settings: reads edited price text into rows, or throws saying which line is wrong.
#[wasm_bindgen(js_name = parsePriceTable)]
pub fn parse_price_table(text: &str) -> Result<JsValue, Fault> {
    to_js(&PriceTable::parse(text)?)
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct ModelCheck {
    reply: String,
    usage: Option<sightline::model::Usage>,
    notes: Vec<String>,
    ms: f64,
    endpoint: String,
}

/// Settings' "Test connection": one short request with these settings, through the same
/// bridge a run uses. Resolves to the reply, or rejects with the readable error.
#[wasm_bindgen(js_name = checkModel)]
pub async fn check_model(config: JsValue) -> Result<JsValue, Fault> {
    let config: ModelConfig = from_js(config, "the model settings")?;
    let config = ModelConfig { max_tokens: Some(16), stream: false, ..config };
    let client = Bridge { transport: FetchTransport { stop: None, on_text: None } };
    let t0 = now_ms();
    let messages = [ChatMessage::text("user", "This is a connection test. Reply with the single word OK.")];
    let reply = client.complete(&config, &messages).await?;
    to_js(&ModelCheck {
        reply: reply.parser_text(),
        usage: reply.usage,
        notes: reply.notes,
        ms: now_ms() - t0,
        endpoint: config.endpoint_url(),
    })
}

/// Settings: whether the saved key (entered for the base URL `entered_for`) would be sent to
/// `base_url`, and the origin it was entered for: `{fits, enteredFor}`.
#[wasm_bindgen(js_name = apiKeyFits)]
pub fn api_key_fits(entered_for: &str, base_url: &str) -> Result<JsValue, Fault> {
    let fits = sightline::model::provider::check_key_origin(entered_for, base_url).is_ok();
    let entered = sightline::model::provider::origin_of(entered_for).unwrap_or_else(|| entered_for.trim().to_string());
    to_js(&serde_json::json!({ "fits": fits, "enteredFor": entered }))
}

/// Cache entries (an exported cache's parsed JSON, or the array an earlier version kept in
/// chrome.storage.local) as the records the worker stores, one per entry (`{key, updatedMs,
/// entry}`: see `CacheRecord`); throws saying what is wrong with a bad file.
#[wasm_bindgen(js_name = cacheRecords)]
pub fn cache_records(entries: JsValue) -> Result<JsValue, Fault> {
    let cache: sightline::agent::replay::cache::Cache = from_js(entries, "the file")
        .map_err(|e| Fault::bad_input(format!("not a Sightline cache export: {}", e.message())))?;
    to_js(&cache.0.iter().map(sightline::agent::replay::cache::CacheEntry::record).collect::<Vec<_>>())
}

/// How many entries the cache keeps; past it the oldest go.
#[wasm_bindgen(js_name = cacheLimit)]
pub fn cache_limit() -> usize {
    sightline::agent::replay::cache::MAX_ENTRIES
}

// Runs cross as JSON text here: serde_json is the one deserializer of a `Run` in the module,
// and its copy is the core's (`boundary`).
fn run_of(json: &str) -> Result<sightline::agent::record::Run, Fault> {
    sightline::boundary::run_from_json(json)
        .map_err(|e| Fault::bad_input(format!("the run is not in the expected form: {e}")))
}

/// A run's images (JSON text of reference → data URL).
fn images_of(json: &str) -> Result<std::collections::BTreeMap<String, String>, Fault> {
    sightline::boundary::images_from_json(json)
        .map_err(|e| Fault::bad_input(format!("the images are not in the expected form: {e}")))
}

/// The image references a run's steps use (the worker fetches them to save the run).
#[wasm_bindgen(js_name = trajectoryReferences)]
pub fn trajectory_references(run_json: &str) -> Result<Vec<String>, Fault> {
    Ok(Trajectory::references(&run_of(run_json)?))
}

/// A run and its images (JSON text of reference → data URL) as a trajectory file's JSON text.
#[wasm_bindgen(js_name = saveTrajectory)]
pub fn save_trajectory(run_json: &str, images_json: &str) -> Result<String, Fault> {
    let images = images_of(images_json)?;
    to_json(&Trajectory { format: trajectory::FORMAT, run: run_of(run_json)?, images })
}

/// Reads a trajectory file's text, its images renamed to live under its run; throws saying
/// what is wrong with a file that cannot be used.
#[wasm_bindgen(js_name = loadTrajectory)]
pub fn load_trajectory(text: &str) -> Result<JsValue, Fault> {
    let mut t = Trajectory::from_json(text).map_err(RunError::from)?;
    let prefix = format!("{}/", t.run.id);
    t.rekey(&prefix);
    t.run.loaded();
    super::to_js(&t)
}

/// The cache entries that repeat a run (JSON text) without the model where its targets still match.
#[wasm_bindgen(js_name = replayCache)]
pub fn replay_cache(run_json: &str) -> Result<JsValue, Fault> {
    to_js(&trajectory::replay_cache(&run_of(run_json)?, now_ms()).map_err(RunError::from)?)
}

/// Which page a URL is, as the cache keys it (origin and path).
#[wasm_bindgen(js_name = pageKey)]
pub fn page_key(url: &str) -> String {
    sightline::agent::replay::cache::page_key(url)
}

/// A reading's JSON text with its elements as objects (`{…, elements: [{index, id, kind, …}]}`)
/// in place of the columns the readers send: the tooling's `extract`.
#[wasm_bindgen(js_name = readingWithElements)]
pub fn reading_with_elements(json: &str) -> Result<String, Fault> {
    sightline::boundary::reading_with_objects(json).map_err(|e| Fault::bad_input(e.to_string()))
}

/// What the person can do about a failure of `code` (with `cause`, the failure it wraps) that
/// ended `on` (`"instruction"`, `"flowFile"`, `"savedRunFile"`), in every language the core
/// speaks (`{en, zh_CN}`: the panel words a notice again when its language changes); null where
/// the message says it all.
#[wasm_bindgen]
pub fn advice(code: &str, cause: Option<String>, on: JsValue) -> Result<JsValue, Fault> {
    use sightline::agent::advice::{advice, Where};
    let on: Where = options_or_default(on, "what failed")?;
    let mut by_language = serde_json::Map::new();
    for lang in sightline::i18n::Lang::ALL {
        if let (Some(said), serde_json::Value::String(name)) =
            (advice(code, cause.as_deref(), on, lang), serde_json::to_value(lang).unwrap_or_default())
        {
            by_language.insert(name, said.into());
        }
    }
    to_js(&(!by_language.is_empty()).then_some(by_language))
}

/// Why Sightline cannot work on `url` (`{code, reason}`: Chrome keeps extensions off it), or null.
#[wasm_bindgen]
pub fn restriction(url: &str) -> Result<JsValue, Fault> {
    to_js(&sightline::vocab::address::restriction(url))
}

/// A blank or new-tab page: an instruction may start there by opening an address.
#[wasm_bindgen(js_name = isStartPage)]
pub fn is_start_page(url: &str) -> bool {
    sightline::vocab::address::is_start_page(url)
}

/// Throws, saying why, unless a file (a flow's `web.url`, a saved run's page) may open `url`:
/// an http(s) address on `allowed_sites` (none: any site).
#[wasm_bindgen(js_name = checkOpen)]
pub fn check_open(url: &str, allowed_sites: Vec<String>) -> Result<(), Fault> {
    sightline::agent::guard::Limits::new(&allowed_sites, &[]).check_open(url).map_err(Fault::from)
}

/// Whether `path` lies inside `folder`, by its text (`agent::uploads::inside_folder`): the
/// headless runner checks a flow's upload paths with it after resolving them.
#[wasm_bindgen(js_name = insideFolder)]
pub fn inside_folder(path: &str, folder: &str) -> bool {
    sightline::agent::uploads::inside_folder(path, folder)
}

/// Whether the worker hands the kept image `url` over as the browser's PNG of it before an export
/// reads it: a JPEG within the core's pixel limit (the module carries no JPEG decoder).
#[wasm_bindgen(js_name = browserDecodes)]
pub fn browser_decodes(url: &str) -> bool {
    vision::pipeline::browser_decodes(url)
}

/// A run (JSON text) written for another tool: `format` is `midscene-yaml`, `playwright`,
/// `recorder` (Chrome DevTools Recorder JSON), `report` (HTML) or `gif` (a `data:image/gif`
/// URL); the last two take `images_json`, the run's image references → data URLs (PNG: a kept
/// JPEG as the browser decoded it, `browserDecodes`).
/// `viewport` `{width, height}` (default 1280×800).
#[wasm_bindgen(js_name = exportRun)]
pub fn export_run(
    run_json: &str,
    format: &str,
    viewport: JsValue,
    images_json: Option<String>,
) -> Result<String, Fault> {
    use sightline::export;
    let viewport: sightline::vocab::geometry::WindowSize = if viewport.is_undefined() || viewport.is_null() {
        sightline::vocab::geometry::WindowSize::default()
    } else {
        from_js(viewport, "the viewport ({width, height})")?
    };
    let format = sightline::vocab::formats::format(format).map_err(Fault::bad_input)?;
    let run = run_of(run_json)?;
    if format.images {
        let images = match images_json {
            Some(text) => images_of(&text)?.into_iter().collect(),
            None => Default::default(),
        };
        if format.name == "report" {
            return Ok(export::to_html_report(&run, &images));
        }
        let gif = export::to_gif(&run, &images)?;
        return Ok(format!("data:image/gif;base64,{}", sightline::vision::base64::encode(&gif)?));
    }
    let recording = export::recording_of(&run);
    match format.name {
        "midscene-yaml" => Ok(export::to_midscene_yaml(&recording, viewport)),
        "playwright" => Ok(export::to_playwright(&recording, viewport)),
        "recorder" => serde_json::to_string_pretty(&export::to_recorder(&recording, viewport))
            .map_err(|e| Fault::internal(e.to_string())),
        other => Err(Fault::internal(format!("no exporter for the format {other}"))),
    }
}

/// The export format called `name`: `{name, ending, mime, images, dataUrl}` (`images`: the
/// caller hands over the run's screenshots); throws `bad_input` naming the formats there are.
#[wasm_bindgen(js_name = exportFormat)]
pub fn export_format(name: &str) -> Result<JsValue, Fault> {
    to_js(sightline::vocab::formats::format(name).map_err(Fault::bad_input)?)
}

/// Service worker, "record my steps" on pages where the recorder has no core: the element at
/// a point (viewport CSS px) on a page reading (`{json}` or `{cdp, opts}`, as the worker read
/// it), as `describeTarget` answers.
#[wasm_bindgen(js_name = elementAtPoint)]
pub fn element_at_point(page: JsValue, x: f64, y: f64) -> Result<JsValue, Fault> {
    use sightline::agent::recorder::Picked;
    let extraction = super::materials::extraction(&page)?;
    match sightline::describe::element_at(&extraction.elements, (x, y), sightline::describe::Aim::Innermost) {
        Some(e) => to_js(&Picked::of(e, |k| e.attr(k))),
        None => Ok(JsValue::NULL),
    }
}

/// Service worker, "record my steps": what a check on the element at `xpath` reads on the page
/// as read (its text, or a control's value, as a replay compares it); null when it is not there.
#[wasm_bindgen(js_name = checkReads)]
pub fn check_reads(page: JsValue, xpath: &str) -> Result<Option<String>, Fault> {
    let extraction = super::materials::extraction(&page)?;
    Ok(sightline::agent::recorder::check_reads(&extraction, xpath))
}

/// Service worker, "record my steps": the locators of an element a person acted on, decided
/// from what `locatorData` read (`LocatorData`, or null); null when nothing names it.
#[wasm_bindgen(js_name = locatorsOf)]
pub fn locators_of(data: JsValue) -> Result<JsValue, Fault> {
    use sightline::describe::locators::{LocatorData, Locators};
    if data.is_null() || data.is_undefined() {
        return Ok(JsValue::NULL);
    }
    let data: LocatorData = from_js(data, "the element's locator data")?;
    match Locators::of(&data) {
        Some(l) => to_js(&l),
        None => Ok(JsValue::NULL),
    }
}

#[wasm_bindgen(js_name = describeRecorded)]
/// Service worker: a finished recording (JSON text) with each element named by the model from
/// its step's screenshot (`images`: JSON `{ref: dataUrl}`, taken at `devicePixelRatio`);
/// returns the run as JSON text. Failures are notes on the steps, not rejections.
pub async fn describe_recorded(
    run_json: String,
    images_json: String,
    device_pixel_ratio: f64,
    model: JsValue,
) -> Result<String, Fault> {
    let mut run = run_of(&run_json)?;
    let images: std::collections::HashMap<String, String> = images_of(&images_json)?.into_iter().collect();
    let config: ModelConfig = from_js(model, "the model settings")?;
    let client = Bridge { transport: FetchTransport { stop: None, on_text: None } };
    sightline::agent::recorder::describe_targets(&mut run, &images, device_pixel_ratio.max(0.1), &config, &client)
        .await;
    to_json(&run)
}
