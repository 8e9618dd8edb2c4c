//! An agent's calls through the loopback bridge (`sightline-mcp`): the core plans each call
//! (`sightline::agent::remote`), records it in the agent session's run held open here, and
//! words the answer; the bridge's JS (extension/background/agents.js) only carries plans out.

use super::host::{Host, HostBrowser};
use super::runs::{tab_facts, with_open};
use super::{from_js, now_ms, options_or_default, to_js, Fault};
use sightline::agent::lifecycle::{LifecycleError, TabFacts};
use sightline::agent::record::{Run, RunErrorRecord};
use sightline::agent::remote::{self, Call, Plan};
use sightline::agent::RunOptions;
use sightline::i18n::Lang;
use sightline::model::ModelConfig;
use sightline::vocab::tasks::Task;
use wasm_bindgen::prelude::*;

/// What a call (`{tool, args}`) asks for, its steps labelled in `language` (absent: English):
/// `{ok: true, plan: {label, kind, …}}`, or `{ok: false, code, error}` saying what is wrong
/// with it (the agent gets an invalid-params error with that code).
#[wasm_bindgen(js_name = agentPlan)]
pub fn agent_plan(call: JsValue, language: JsValue) -> Result<JsValue, Fault> {
    #[derive(serde::Serialize)]
    #[serde(untagged)]
    enum Planned {
        Ok { ok: bool, plan: remote::Planned },
        Err { ok: bool, code: &'static str, error: String },
    }
    let lang: Lang = options_or_default(language, "the language")?;
    let planned = match from_js::<Call>(call, "the call ({tool, args})") {
        Err(e) => Planned::Err { ok: false, code: "call_invalid", error: e.message().to_string() },
        Ok(call) => match remote::plan(&call, lang) {
            Ok(plan) => Planned::Ok { ok: true, plan },
            Err(e) => Planned::Err { ok: false, code: e.code(), error: e.to_string() },
        },
    };
    to_js(&planned)
}

/// The page for an agent's snapshot or screenshot, from a reading (`{page, shot}`) with the
/// run options (allowed sites, secrets, image settings): `{text, image?, mimeType?}`.
#[wasm_bindgen(js_name = agentObserve)]
pub fn agent_observe(materials: JsValue, options: JsValue, with_image: bool) -> Result<JsValue, Fault> {
    let observation = super::materials::observation(&materials)?;
    let options: RunOptions = options_or_default(options, "the run options")?;
    to_js(&remote::observe(observation, &options, with_image)?)
}

/// A tab (`{id, title, url}`), or none (`null`).
fn maybe_tab(tab: JsValue) -> Result<Option<TabFacts>, Fault> {
    if tab.is_null() || tab.is_undefined() {
        return Ok(None);
    }
    tab_facts(tab).map(Some)
}

/// A new agent session's run on `tab` (`null` while the agent has none), named after `agent`,
/// written in `language`, held open: the record to store.
#[wasm_bindgen(js_name = agentSession)]
pub fn agent_session(id: String, agent: &str, tab: JsValue, language: JsValue) -> Result<JsValue, Fault> {
    let lang: Lang = options_or_default(language, "the language")?;
    let run = Run::agent_session(id, agent, maybe_tab(tab)?.as_ref(), lang, now_ms());
    with_open(|open| to_js(open.open(run)))
}

/// A call that is no page task becomes a step of session `id` (`error`: its message, when it
/// failed), started at `startedMs`, the session now on `tab` (`null`: unchanged): the record to store.
#[wasm_bindgen(js_name = agentStep)]
pub fn agent_step(
    id: &str,
    label: &str,
    error: Option<String>,
    tab: JsValue,
    started_ms: f64,
) -> Result<JsValue, Fault> {
    let tab = maybe_tab(tab)?;
    with_open(|open| match open.agent_step(id, label, error.as_deref(), tab.as_ref(), started_ms, now_ms()) {
        Ok(run) => to_js(run),
        Err(e) => Err(e.into()),
    })
}

/// The agents' socket closed (and the calls it sent have returned): its sessions `ids` end
/// (every step kept) and are let go of; the sessions the person stopped are forgotten. The
/// records to store.
#[wasm_bindgen(js_name = endAgentSessions)]
pub fn end_agent_sessions(ids: Vec<String>) -> Result<JsValue, Fault> {
    to_js(&with_open(|open| open.end_agent_sessions(&ids, now_ms())))
}

/// The person's Stop on session `id` (no call of it in flight any more): its run ends stopped,
/// every step kept, and is let go of; the agent's next call is refused once. The record to
/// store, or `null` when the person had stopped it already (it is stopped: nothing new).
#[wasm_bindgen(js_name = stopAgentSession)]
pub fn stop_agent_session(id: &str) -> Result<JsValue, Fault> {
    to_js(&with_open(|open| open.stop_agent_session(id, now_ms()))?)
}

/// The person's Stop cut short a call on session `id` (it has returned): the session ends
/// stopped, and this call tells its agent. `{run, error: {code, message}}`: the record to store
/// (`null`: stopped already) and the error the call answers (`session_stopped`).
#[wasm_bindgen(js_name = stopAgentCall)]
pub fn stop_agent_call(id: &str) -> Result<JsValue, Fault> {
    #[derive(serde::Serialize)]
    struct Stopped {
        run: Option<Run>,
        error: RunErrorRecord,
    }
    let (run, told) = with_open(|open| open.stop_agent_call(id, now_ms()))?;
    to_js(&Stopped { run, error: told.record(Lang::En) })
}

/// Before a call on session `id`: true while it is open, false when it is not held (a new
/// session is opened); throws `session_stopped` once after the person stopped it.
#[wasm_bindgen(js_name = agentSessionOpen)]
pub fn agent_session_open(id: &str) -> Result<bool, Fault> {
    Ok(with_open(|open| open.agent_session_open(id))?)
}

#[derive(serde::Deserialize)]
#[serde(rename_all = "camelCase")]
struct CallArgs {
    run_id: String,
    plan: PlanIn,
    model: ModelConfig,
    #[serde(default)]
    options: RunOptions,
}

/// The page-task half of a plan, as `agentPlan` gave it (`{label, kind, …}`, as `remote::Plan`
/// writes it). Read as plain fields and matched here: serde's own internally tagged enum,
/// flattened into this, buffered the map and compiled a reader of every field for that buffer.
#[derive(serde::Deserialize)]
struct PlanIn {
    label: String,
    kind: String,
    #[serde(default)]
    task: Option<Task>,
    #[serde(default)]
    instruction: Option<String>,
    #[serde(default)]
    locate: Option<Task>,
    #[serde(default)]
    option: Option<String>,
}

impl PlanIn {
    /// The plan to carry out: a task, an instruction, or a choice's locate and option.
    fn request(self) -> Result<Plan, Fault> {
        let bad =
            |problem: String| Fault::bad_input(format!("the agent's call is not in the expected form: {problem}"));
        let missing = |field: &str| bad(format!("missing field `{field}`"));
        match self.kind.as_str() {
            "task" => Ok(Plan::Task { task: self.task.ok_or_else(|| missing("task"))? }),
            "instruction" => {
                Ok(Plan::Instruction { instruction: self.instruction.ok_or_else(|| missing("instruction"))? })
            }
            "choose" => Ok(Plan::Choose {
                locate: self.locate.ok_or_else(|| missing("locate"))?,
                option: self.option.ok_or_else(|| missing("option"))?,
            }),
            other => Err(bad(format!("unknown variant `{other}`, expected one of `task`, `instruction`, `choose`"))),
        }
    }
}

/// Carries out a page call (a task, an instruction, a choice's locate) in session `runId` on
/// the host's tab; resolves to `{ok, text, result, error?: {code, message}}` (the session's
/// record is reported as it goes).
#[wasm_bindgen(js_name = agentCall)]
pub async fn agent_call(args: JsValue, host: Host) -> Result<JsValue, Fault> {
    let args: CallArgs = from_js(args, "the agent's call")?;
    let label = args.plan.label.clone();
    let request = args.plan.request()?;
    let mut run = with_open(|open| open.get(&args.run_id).cloned())
        .ok_or_else(|| Fault::from(LifecycleError::NotOpen(args.run_id.clone())))?;
    let mut browser = HostBrowser::new(host);
    let client = super::exports::model_client(&browser);
    let done =
        remote::carry_out_call(&mut run, &label, &request, &args.options, &args.model, &mut browser, &client).await;
    // The held record is the one reported last, with the console messages the loop's copy lacks;
    // the session follows the tab the call ended on, as a run of the loop does.
    run.on_tab(&browser.tab());
    let answer = with_open(|open| {
        if let Some(held) = open.get(&run.id) {
            run.keep_console_of(held);
        }
        let answer = remote::answer(&run, done.from + 1, &done.outcome);
        open.open(run);
        answer
    });
    to_js(&answer)
}

/// An agent's `console_messages` from the tab's entries (`[{level, source, text, url}]`).
#[wasm_bindgen(js_name = consoleText)]
pub fn console_text(entries: JsValue) -> Result<String, Fault> {
    let entries: Vec<sightline::agent::record::ConsoleEntry> = from_js(entries, "the console messages")?;
    Ok(remote::console_text(&entries))
}
