//! An agent's calls through the loopback bridge (`sightline-mcp`): the core plans each call
//! (`sightline::agent::remote`), records it in the agent session's run held open here, and
//! words the answer; the bridge's JS (extension/background/agents.js) only carries plans out.

use super::host::{Host, HostBrowser};
use super::runs::{tab_facts, with_open};
use super::{from_js, now_ms, options_or_default, to_js, Fault};
use sightline::agent::lifecycle::{LifecycleError, RunChanges, TabFacts};
use sightline::agent::pairing;
use sightline::agent::record::{Run, RunErrorRecord};
use sightline::agent::remote::{self, Call};
use sightline::agent::RunOptions;
use sightline::i18n::Lang;
use sightline::model::ModelConfig;
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
    let id = run.id.clone();
    with_open(|open| {
        open.open(run);
    });
    super::runs::changes(&id)
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
    with_open(|open| open.agent_step(id, label, error.as_deref(), tab.as_ref(), started_ms, now_ms()).map(|_| ()))?;
    super::runs::changes(id)
}

/// The agents' socket closed (and the calls it sent have returned): its sessions `ids` end
/// (every step kept) and are let go of; the sessions the person stopped are forgotten. The
/// records to store.
#[wasm_bindgen(js_name = endAgentSessions)]
pub fn end_agent_sessions(ids: Vec<String>) -> Result<JsValue, Fault> {
    to_js(&with_open(|open| {
        let crossed: Vec<(String, usize)> = ids.iter().map(|id| (id.clone(), open.crossed(id))).collect();
        let from = |id: &str| crossed.iter().find(|(i, _)| i == id).map_or(0, |(_, n)| *n);
        let ended = open.end_agent_sessions(&ids, now_ms());
        ended
            .into_iter()
            .map(|run| {
                let from = from(&run.id);
                RunChanges::closing(run, from)
            })
            .collect::<Vec<_>>()
    }))
}

/// The person's Stop on session `id` (no call of it in flight any more): its run ends stopped,
/// every step kept, and is let go of; the agent's next call is refused once. The record to
/// store, or `null` when the person had stopped it already (it is stopped: nothing new).
#[wasm_bindgen(js_name = stopAgentSession)]
pub fn stop_agent_session(id: &str) -> Result<JsValue, Fault> {
    to_js(&with_open(|open| {
        let from = open.crossed(id);
        open.stop_agent_session(id, now_ms()).map(|run| run.map(|run| RunChanges::closing(run, from)))
    })?)
}

/// The person's Stop cut short a call on session `id` (it has returned): the session ends
/// stopped, and this call tells its agent. `{run, error: {code, message}}`: the record to store
/// (`null`: stopped already) and the error the call answers (`session_stopped`).
#[wasm_bindgen(js_name = stopAgentCall)]
pub fn stop_agent_call(id: &str) -> Result<JsValue, Fault> {
    #[derive(serde::Serialize)]
    struct Stopped {
        run: Option<RunChanges>,
        error: RunErrorRecord,
    }
    let (run, told) = with_open(|open| {
        let from = open.crossed(id);
        open.stop_agent_call(id, now_ms()).map(|(run, told)| (run.map(|run| RunChanges::closing(run, from)), told))
    })?;
    to_js(&Stopped { run, error: told.record(Lang::En) })
}

#[derive(serde::Deserialize)]
#[serde(rename_all = "camelCase")]
struct CallArgs {
    run_id: String,
    /// The call as the bridge carried it (`{tool, args}`): planned again here, so what runs
    /// is what the core read, not a copy of its plan.
    call: Call,
    model: ModelConfig,
    #[serde(default)]
    options: RunOptions,
}

/// Carries out a call that runs on the host's tab — a page task, an instruction, a choice's
/// locate, or a move of the browser (navigate, tabs), each through the run's guard — in session
/// `runId`; resolves to `{ok, text, result, error?: {code, message}, tab}` (`tab`: where the
/// agent's calls act now; the session's record is reported as it goes).
#[wasm_bindgen(js_name = agentCall)]
pub async fn agent_call(args: JsValue, host: Host) -> Result<JsValue, Fault> {
    #[derive(serde::Serialize)]
    struct Answered {
        #[serde(flatten)]
        answer: remote::Answer,
        tab: TabFacts,
    }
    /// A move is answered as it ends; a page call once its console messages are merged in.
    enum Done {
        Moved(remote::Answer),
        Called(remote::CallOutcome),
    }
    let args: CallArgs = from_js(args, "the agent's call")?;
    let planned = remote::plan(&args.call, args.options.language)
        .map_err(|e| Fault::bad_input(format!("the agent's call is not one Sightline can make: {e}")))?;
    let mut run = with_open(|open| open.get(&args.run_id).cloned())
        .ok_or_else(|| Fault::from(LifecycleError::NotOpen(args.run_id.clone())))?;
    let mut browser = HostBrowser::new(host, args.options.limits());
    let moved = if planned.plan.moves_the_browser() {
        Done::Moved(remote::carry_out_move(&mut run, &planned.label, &planned.plan, &args.options, &mut browser).await)
    } else {
        let client = super::exports::model_client(&browser);
        Done::Called(
            remote::carry_out_call(
                &mut run,
                &planned.label,
                &planned.plan,
                &args.options,
                &args.model,
                &mut browser,
                &client,
            )
            .await,
        )
    };
    // The held record is the one reported last, with the console messages the loop's copy lacks
    // (the answer lists them); the session follows the tab the call ended on, as a run of the
    // loop does.
    let tab = browser.tab();
    run.on_tab(&tab);
    let answer = with_open(|open| {
        if let Some(held) = open.get(&run.id) {
            run.keep_console_of(held);
        }
        let answer = match moved {
            Done::Moved(answer) => answer,
            Done::Called(done) => remote::answer(&run, done.from + 1, &done.outcome),
        };
        open.open(run);
        answer
    });
    to_js(&Answered { answer, tab })
}

/// Before a call on session `id`: `{state: "open"}`, `{state: "notHeld"}` (the call opens a new
/// session), or `{state: "continued", ended, opened}`: the session was full, ended (`ended`, to
/// store) and goes on as `nextId` (`opened`, to store). Throws `session_stopped` once after the
/// person stopped it.
#[wasm_bindgen(js_name = agentSessionOpen)]
pub fn agent_session_open(id: &str, next_id: &str) -> Result<JsValue, Fault> {
    to_js(&with_open(|open| open.agent_session_open(id, next_id, now_ms()))?)
}

/// Session `id`'s agent started recording `recording`: the session's record to store.
#[wasm_bindgen(js_name = agentRecorded)]
pub fn agent_recorded(id: &str, recording: &str) -> Result<JsValue, Fault> {
    with_open(|open| open.agent_recorded(id, recording).map(|_| ()))?;
    super::runs::changes(id)
}

/// The run session `id`'s agent may stop, export or read: `run` (absent: the session's own)
/// when it is the session's or a recording it started; throws `run_not_agents` for any other.
#[wasm_bindgen(js_name = agentMayUse)]
pub fn agent_may_use(id: &str, run: Option<String>) -> Result<String, Fault> {
    Ok(with_open(|open| open.agent_may_use(id, run.as_deref()))?)
}

/// Throws `tab_not_allowed` when the agent's tab at `url` lies outside the allowed sites of
/// `options` (recording the person's steps there is refused).
#[wasm_bindgen(js_name = agentTabAllowed)]
pub fn agent_tab_allowed(url: &str, options: JsValue) -> Result<(), Fault> {
    let options: RunOptions = options_or_default(options, "the run options")?;
    Ok(remote::check_tab(&options.limits(), url)?)
}

/// Text an agent gets from a page or about one (an export of a run), fenced as page content.
#[wasm_bindgen(js_name = agentFenced)]
pub fn agent_fenced(text: &str) -> String {
    remote::fenced(text)
}

/// An agent's `console_messages` from the entries of its tab at `url`
/// (`[{level, source, text, url}]`), screened with `options`' secrets, bounded and fenced;
/// throws `tab_not_allowed` outside the allowed sites.
#[wasm_bindgen(js_name = consoleText)]
pub fn console_text(entries: JsValue, url: &str, options: JsValue) -> Result<String, Fault> {
    let entries: Vec<sightline::agent::record::ConsoleEntry> = from_js(entries, "the console messages")?;
    let options: RunOptions = options_or_default(options, "the run options")?;
    Ok(remote::console_text(entries, url, &options.limits())?)
}

/// The extension's first message on a new connection to sightline-mcp (`agent::pairing`):
/// `nonce` is the connection's 32 fresh bytes (`crypto.getRandomValues`), which the worker
/// keeps for [`pairing_confirm`]. The token is never sent.
#[wasm_bindgen(js_name = pairingHello)]
pub fn pairing_hello(nonce: &[u8]) -> Result<String, Fault> {
    let nonce = pairing::Nonce::from_bytes(nonce).map_err(|e| Fault::bad_input(e.to_string()))?;
    Ok(pairing::hello(&nonce))
}

/// The answer to the server's first message (`text`) on the connection whose hello carried
/// `nonce`: `{ok: true, message}` (the extension's proof, to send) once the server has proved
/// it knows `token`; else `{ok: false, code, error}`, and the worker closes the connection
/// and carries nothing of it out (another program on the port, or a revoked token).
#[wasm_bindgen(js_name = pairingConfirm)]
pub fn pairing_confirm(token: &str, nonce: &[u8], text: &str) -> Result<JsValue, Fault> {
    #[derive(serde::Serialize)]
    #[serde(untagged)]
    enum Confirmed {
        Ok { ok: bool, message: String },
        Err { ok: bool, code: &'static str, error: String },
    }
    let confirmed = match pairing::Nonce::from_bytes(nonce).and_then(|n| pairing::confirm(token, &n, text)) {
        Ok(message) => Confirmed::Ok { ok: true, message },
        Err(e) => Confirmed::Err { ok: false, code: e.code(), error: e.to_string() },
    };
    to_js(&confirmed)
}
