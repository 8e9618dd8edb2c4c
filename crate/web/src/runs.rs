//! The runs this worker holds open, in its WASM memory: recordings between the person's
//! events, runs of the loop between reports. JS stores what it is handed here (IndexedDB) and
//! hands back a stored recording once after a worker restart; it never edits a run.

use super::{from_js, now_ms, options_or_default, to_js, Fault};
use sightline::agent::lifecycle::{close_orphans, OpenRuns, RunChanges, TabFacts};
use sightline::agent::record::{Run, RunErrorRecord};
use sightline::i18n::Lang;
use sightline_web_common::{js_text, not_in_form};
use std::cell::RefCell;
use wasm_bindgen::prelude::*;

thread_local! {
    static OPEN: RefCell<OpenRuns> = RefCell::new(OpenRuns::default());
}

/// The open runs, for one change or look.
pub(super) fn with_open<T>(f: impl FnOnce(&mut OpenRuns) -> T) -> T {
    OPEN.with(|open| f(&mut open.borrow_mut()))
}

pub(super) fn tab_facts(value: JsValue) -> Result<TabFacts, Fault> {
    from_js(value, "the tab ({id, title, url})")
}

/// A run as JS holds it (read from storage): one serde_json reading, as every run is read.
fn run_from_js(value: &JsValue) -> Result<Run, Fault> {
    sightline::boundary::run_from_json(&js_text(value.clone(), "the run")?).map_err(|e| not_in_form("the run", e))
}

/// What crosses to the host for held run `id`: its changes since the last crossing.
pub(super) fn changes(id: &str) -> Result<JsValue, Fault> {
    with_open(|open| open.changes(id).map(|c| to_js(&c)))
        .unwrap_or_else(|| Err(sightline::agent::lifecycle::LifecycleError::NotOpen(id.to_string()).into()))
}

/// "Record my steps": a new recording run `id` on `tab` (`{id, title, url}`), titled `title`
/// or after the tab, written in `language` (`"en"`, `"zh_CN"`; absent: English), held open;
/// returns its changes (`{head, from, steps, closed}`: the record, for the host to hold).
#[wasm_bindgen(js_name = startRecording)]
pub fn start_recording(id: String, title: Option<String>, tab: JsValue, language: JsValue) -> Result<JsValue, Fault> {
    let lang: Lang = options_or_default(language, "the language")?;
    let run = Run::recording(id, title.as_deref(), &tab_facts(tab)?, lang, now_ms());
    let id = run.id.clone();
    with_open(|open| {
        open.open(run);
    });
    changes(&id)
}

/// Whether this worker holds run `id` open (false after a restart until it is resumed).
#[wasm_bindgen(js_name = holdsRun)]
pub fn holds_run(id: &str) -> bool {
    with_open(|open| open.holds(id))
}

/// Holds a stored recording open again (the worker restarted between two of the person's events).
#[wasm_bindgen(js_name = resumeRun)]
pub fn resume_run(run: JsValue) -> Result<(), Fault> {
    let run = run_from_js(&run)?;
    with_open(|open| open.resume(run));
    Ok(())
}

/// Held run `id`'s changes since they last crossed (`{head, from, steps, closed}`), for the
/// record the host holds and stores.
#[wasm_bindgen(js_name = runChanges)]
pub fn run_changes(id: &str) -> Result<JsValue, Fault> {
    changes(id)
}

/// "Record my steps": adds a person's event (`{kind: "tap" | "doubleClick" | "rightClick" |
/// "input" | "key" | "scroll" | "navigate", …}`) to held recording `id`, every secret's value
/// (`secrets`, as in Settings) recorded as its placeholder. Returns `{stepChanged}`: whether
/// the page is to be photographed for the last step.
#[wasm_bindgen(js_name = recordEvent)]
pub fn record_event(id: &str, event: JsValue, secrets: JsValue) -> Result<JsValue, Fault> {
    let event: sightline::agent::recorder::ManualEvent = from_js(event, "the recorded event")?;
    let limits = secret_limits(secrets)?;
    let recorded = with_open(|open| open.record(id, event, &limits, now_ms()))?;
    super::to_js(&recorded)
}

#[derive(serde::Serialize)]
#[serde(rename_all = "camelCase")]
struct StepPhoto {
    reference: String,
    data_url: String,
}

/// "Record my steps": the page as held recording `id`'s last step keeps it, from a reading of
/// the elements in view and a capture (`{page, shot}`): sensitive fields and anything showing
/// one of `secrets` painted over. Returns `{reference, dataUrl}`, the PNG data URL to keep
/// under the reference the step now shows, or null when the recording has no step.
#[wasm_bindgen(js_name = photographStep)]
pub fn photograph_step(id: &str, materials: JsValue, secrets: JsValue) -> Result<JsValue, Fault> {
    let observation = super::materials::observation(&materials)?;
    let capture = observation.capture.ok_or_else(|| Fault::bad_input("the step's screenshot was not taken".into()))?;
    let limits = secret_limits(secrets)?;
    let data_url = sightline::agent::recorder::step_screenshot(&capture, observation.extraction.elements, &limits)?;
    let reference = with_open(|open| open.photographed(id, capture.device_pixel_ratio, now_ms()))?;
    match reference {
        Some(reference) => super::to_js(&StepPhoto { reference, data_url }),
        None => Ok(JsValue::NULL),
    }
}

/// The last step of held recording `id` could not be photographed (`reason`: the browser's
/// error): the step notes it, with `secrets` concealed.
#[wasm_bindgen(js_name = stepPhotoFailed)]
pub fn step_photo_failed(id: &str, reason: &str, secrets: JsValue) -> Result<(), Fault> {
    let limits = secret_limits(secrets)?;
    Ok(with_open(|open| open.photo_failed(id, reason, &limits))?)
}

/// Ends held recording `id` (its steps kept) and lets go of it; returns its last changes.
#[wasm_bindgen(js_name = stopRecording)]
pub fn stop_recording(id: &str) -> Result<JsValue, Fault> {
    let changes = with_open(|open| {
        let from = open.crossed(id);
        open.stop_recording(id, now_ms()).map(|run| RunChanges::closing(run, from))
    })?;
    to_js(&changes)
}

/// A run the core rejected (bad arguments): its latest report or a new record of
/// `instruction` on `tab`, failed with the rejection's `code` and `message`; returns its last
/// changes (the host holds what was reported).
#[wasm_bindgen(js_name = failedRun)]
pub fn failed_run(id: &str, instruction: &str, tab: JsValue, code: &str, message: &str) -> Result<JsValue, Fault> {
    let tab = tab_facts(tab)?;
    let error = RunErrorRecord { code: code.to_string(), message: message.to_string(), cause: None, advice: None };
    to_js(&with_open(|open| {
        let from = open.crossed(id);
        RunChanges::closing(open.reject(id, instruction, &tab, error, now_ms()), from)
    }))
}

/// After a worker restart: of the stored `runs`, those left running that nothing drives any
/// more (`live`: ids the worker still drives or records, besides those held here), ended as
/// failed with their steps kept. Returns the records to store.
#[wasm_bindgen(js_name = closeOrphanedRuns)]
pub fn close_orphaned_runs(runs: JsValue, live: Vec<String>) -> Result<JsValue, Fault> {
    let runs: Vec<Run> = match runs.dyn_into::<js_sys::Array>() {
        // A record this version cannot read is not one it could have left running.
        Ok(list) => list.iter().filter_map(|r| run_from_js(&r).ok()).collect(),
        Err(_) => return Err(Fault::bad_input("the stored runs are not a list".into())),
    };
    let mut live = live;
    live.extend(runs.iter().filter(|r| with_open(|open| open.holds(&r.id))).map(|r| r.id.clone()));
    to_js(&close_orphans(runs, &live, now_ms()))
}

/// The guard limits that mask the person's secrets in what a recording keeps (events and step photos).
fn secret_limits(secrets: JsValue) -> Result<sightline::agent::guard::Limits, Fault> {
    let secrets: Vec<sightline::agent::guard::Secret> = super::options_or_default(secrets, "the secrets")?;
    Ok(sightline::agent::guard::Limits::new(&[], &secrets))
}

/// The panel's history search: the ids of the stored `runs` (newest first) that `query`
/// finds (`agent::history`: every word or quoted phrase in the run's instruction, address,
/// title, task, flow task names or steps), in their order.
#[wasm_bindgen(js_name = searchRuns)]
pub fn search_runs(runs: JsValue, query: &str) -> Result<Vec<String>, Fault> {
    let runs: Vec<sightline::agent::history::RunText> = from_js(runs, "the runs")?;
    Ok(sightline::agent::history::search(&runs, query))
}
