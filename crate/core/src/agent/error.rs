//! Why a run failed: one error type for the run level, wrapping the typed errors below it
//! (page, model, reply, action, guard). Every error has a stable code (what the panel keys its
//! advice on, and what scripts may match) and a message in the person's language.

use super::advice::{advice, Where};
use super::dialogs::Interrupted;
use super::guard_error::GuardError;
use super::record::RunErrorRecord;
use super::PageError;
use crate::action::ActionError;
use crate::i18n::Lang;
use crate::model::ModelError;
use crate::parse::ParseError;
use std::fmt::{self, Display};

#[derive(Debug, Clone, PartialEq)]
pub enum RunError {
    Page(PageError),
    Model(ModelError),
    /// The reply of a plan or locate call could not be read.
    Reply(ParseError),
    /// The model's replies could not be read this many times in a row.
    Replies {
        times: u32,
        last: ParseError,
    },
    /// The reply of a query could not be read.
    Answer(ParseError),
    /// The reply of an assertion could not be read.
    Verdict(ParseError),
    Action(ActionError),
    Guard(GuardError),
    /// A page dialog nobody could answer was dismissed; the text says which.
    DialogUnanswered(String),
    DialogStopped,
    EmptyInstruction,
    /// The same round ran three times without changing the page.
    Loop {
        round: String,
    },
    StepLimit {
        max_rounds: u32,
    },
    /// The model said it cannot do the instruction.
    ModelCannot {
        reason: String,
    },
    /// The model asked the person, and nobody answered.
    NeedsInput {
        question: String,
    },
    /// An action failed again after the allowed retries.
    ActionFailed {
        action: String,
        error: Box<RunError>,
    },
    TaskInvalid(crate::vocab::tasks::TaskProblem),
    AssertionFailed {
        reason: String,
    },
    StillFalse {
        waited_ms: f64,
        reason: String,
    },
    NotFound {
        reason: String,
    },
    PointedAtNothing {
        what: String,
    },
    NoSuchElement {
        number: u32,
        count: usize,
    },
    /// An agent named element `[number]` from its snapshot, and the page has no such element now.
    UnknownElementNumber {
        number: u32,
        count: usize,
    },
    ElementVanished {
        element: String,
    },
    ElementUnreachable {
        element: String,
    },
    /// A replay with no model to ask found step `step`'s element neither at its XPaths nor by
    /// its locators.
    ReplayLost {
        step: usize,
        element: String,
    },
    UploadRefused {
        files: String,
    },
    UploadOutsideFolder {
        files: String,
        folder: String,
    },
    UploadNeedsAllow {
        files: String,
    },
    UploadStopped,
    /// A flow's `javascript` step, where the person has not allowed the file's scripts.
    ScriptNotAllowed,
    /// A flow's `javascript` step threw, or its value is no JSON (`detail`: the page's words).
    ScriptFailed {
        detail: String,
    },
    /// A flow's item failed (`title`: the item).
    FlowItem {
        title: String,
        error: Box<RunError>,
    },
    /// Several items of a flow failed; the first of them.
    FlowItems {
        failed: usize,
        first: Box<RunError>,
    },
    /// A DOM snapshot from CDP that cannot be read.
    Snapshot(crate::snapshot::cdp::DecodeError),
    /// A screenshot that cannot be decoded, fitted or encoded.
    Screenshot(crate::vision::VisionError),
    /// A flow file that is not one Sightline can run.
    Flow(crate::flow::FlowError),
    /// An edited price table with a bad line.
    Prices(crate::model::usage::PriceError),
    /// Site knowledge in Settings that cannot be kept as written.
    Knowledge(super::options::KnowledgeError),
    /// A pasted block of model variables (Midscene's, OpenAI's) that cannot be used.
    EnvBlock(crate::model::env_block::EnvError),
    /// A saved run (trajectory file) that cannot be replayed; its text says why.
    Trajectory(String),
    /// The GIF could not be made.
    Gif(String),
    /// What the caller handed over is not in the expected form (a request, a file).
    BadInput(String),
    /// Something that should not happen (a result that cannot be encoded).
    Internal(String),
    /// The extension restarted while the run was active: nothing drives it any more.
    Interrupted,
    /// A change asked of a run this worker does not hold open.
    NotOpen {
        id: String,
    },
    /// The person pressed Stop on the agent's session in the panel: what the agent is told,
    /// once (by the call Stop aborted, else by its next call).
    SessionStopped,
    /// An agent's page call was stopped before it finished, and not by the person's Stop (that
    /// one is answered [`RunError::SessionStopped`]): the agent cancelled it. Its answer.
    CallCancelled,
    /// An agent named a run that is neither its session's nor a recording it started.
    NotTheAgents {
        run: String,
    },
    /// A native select has no option by the text or value the model gave.
    NoSuchOption {
        element: u32,
        option: String,
        options: String,
    },
    /// A list box opened, but the option the model named did not show.
    OptionNotShown {
        element: u32,
        option: String,
    },
    /// A wait for a text to show ran out.
    TextNotShown {
        waited_ms: f64,
        text: String,
    },
    /// A wait for a text to go ran out.
    TextStillShown {
        waited_ms: f64,
        text: String,
    },
    /// A check the person recorded does not hold: the element's text or value reads `seen`.
    CheckFailed {
        check: crate::vocab::actions::ElementCheck,
        expected: String,
        seen: String,
        waited_ms: f64,
    },
    /// A run with a planning model: a call of the planning model failed (`model`: its name).
    PlannerModel {
        model: String,
        error: ModelError,
    },
    /// A run with a planning model: a call of the acting model, which finds the planner's
    /// targets, failed.
    ActorModel {
        model: String,
        error: ModelError,
    },
}

impl RunError {
    /// The stable code: snake_case, never reworded (the panel and scripts key on it).
    pub fn code(&self) -> &'static str {
        match self {
            RunError::Page(PageError::Guard(e)) | RunError::Guard(e) => guard_code(e),
            RunError::Page(PageError::Failed(_)) => "page_failed",
            RunError::Page(PageError::Restricted(_)) => "page_restricted",
            RunError::Page(PageError::Debugger(_)) => "page_debugger",
            RunError::Page(PageError::Unreadable(_)) => "page_unreadable",
            RunError::Page(PageError::NoSuchTab { .. }) => "no_such_tab",
            RunError::Page(PageError::OnlyTab) => "only_tab",
            RunError::Model(e) => model_code(e),
            RunError::Reply(_) => "reply_unreadable",
            RunError::Replies { .. } => "replies_unreadable",
            RunError::Answer(_) => "answer_unreadable",
            RunError::Verdict(_) => "verdict_unreadable",
            RunError::Action(e) => match e {
                ActionError::UnknownTarget { .. } => "element_missing",
                ActionError::OutOfView { .. } => "element_out_of_view",
                ActionError::UnknownKey(_) => "unknown_key",
                ActionError::PointOutOfView { .. } => "point_out_of_view",
                ActionError::NotAnInput(_) => "not_an_input",
                ActionError::NothingAt { .. } => "nothing_to_choose_at",
            },
            RunError::DialogUnanswered(_) => "dialog_unanswered",
            RunError::DialogStopped => "dialog_stopped",
            RunError::EmptyInstruction => "instruction_empty",
            RunError::Loop { .. } => "loop",
            RunError::StepLimit { .. } => "step_limit",
            RunError::ModelCannot { .. } => "model_cannot",
            RunError::NeedsInput { .. } => "needs_input",
            // The failure that ended it says what to do; the action is context.
            RunError::ActionFailed { error, .. }
            | RunError::FlowItem { error, .. }
            | RunError::FlowItems { first: error, .. } => error.code(),
            RunError::TaskInvalid(_) => "task_invalid",
            RunError::AssertionFailed { .. } => "assertion_failed",
            RunError::StillFalse { .. } => "still_false",
            RunError::NotFound { .. } => "not_found",
            RunError::PointedAtNothing { .. } => "pointed_at_nothing",
            RunError::NoSuchElement { .. } => "no_such_element",
            RunError::UnknownElementNumber { .. } => "element_number_unknown",
            RunError::ElementVanished { .. } => "element_vanished",
            RunError::ElementUnreachable { .. } => "element_unreachable",
            RunError::ReplayLost { .. } => "replay_element_lost",
            RunError::UploadRefused { .. } => "upload_refused",
            RunError::UploadOutsideFolder { .. } => "upload_outside_folder",
            RunError::UploadNeedsAllow { .. } => "upload_needs_allow",
            RunError::UploadStopped => "upload_stopped",
            RunError::ScriptNotAllowed => "script_not_allowed",
            RunError::ScriptFailed { .. } => "script_failed",
            RunError::Snapshot(_) => "snapshot_unreadable",
            RunError::Screenshot(_) => "screenshot_unusable",
            RunError::Flow(_) => "flow_invalid",
            RunError::Prices(_) => "prices_invalid",
            RunError::Knowledge(_) => "knowledge_invalid",
            RunError::EnvBlock(_) => "env_block_invalid",
            RunError::Trajectory(_) => "trajectory_invalid",
            RunError::Gif(_) => "gif_failed",
            RunError::BadInput(_) => "bad_input",
            RunError::Internal(_) => "internal",
            RunError::Interrupted => "run_interrupted",
            RunError::NotOpen { .. } => "run_not_open",
            RunError::SessionStopped => "session_stopped",
            RunError::CallCancelled => "call_cancelled",
            RunError::NotTheAgents { .. } => "run_not_agents",
            RunError::NoSuchOption { .. } => "no_such_option",
            RunError::OptionNotShown { .. } => "option_not_shown",
            RunError::TextNotShown { .. } => "text_not_shown",
            RunError::CheckFailed { .. } => "check_failed",
            RunError::TextStillShown { .. } => "text_still_shown",
            RunError::PlannerModel { .. } => "planner_model_failed",
            RunError::ActorModel { .. } => "actor_model_failed",
        }
    }

    /// What a person reads, in `lang`. Details that come from elsewhere (a server's message,
    /// a page's text, a parser's finding) are quoted as they came.
    /// The model's failure this error is, or names a model of (either role's).
    pub fn model_error(&self) -> Option<&ModelError> {
        match self {
            RunError::Model(e) | RunError::PlannerModel { error: e, .. } | RunError::ActorModel { error: e, .. } => {
                Some(e)
            }
            _ => None,
        }
    }

    pub fn message(&self, lang: Lang) -> String {
        let say = |args: &[(&str, &dyn Display)]| lang.say(&format!("error.{}", self.own_code()), args);
        match self {
            RunError::Page(PageError::Guard(e)) | RunError::Guard(e) => guard_message(e, lang),
            RunError::Page(
                PageError::Failed(d) | PageError::Restricted(d) | PageError::Debugger(d) | PageError::Unreadable(d),
            ) => say(&[("detail", d)]),
            RunError::Page(PageError::NoSuchTab { tab, open }) => say(&[("tab", tab), ("open", open)]),
            RunError::Page(PageError::OnlyTab) => say(&[]),
            RunError::Model(e) => model_message(e, lang),
            RunError::Reply(e) | RunError::Answer(e) | RunError::Verdict(e) => say(&[("detail", e)]),
            RunError::Replies { times, last } => say(&[("times", times), ("detail", last)]),
            RunError::Action(e) => match e {
                ActionError::UnknownTarget { target, count } => say(&[("target", target), ("count", count)]),
                ActionError::OutOfView { target, summary } => say(&[("target", target), ("summary", summary)]),
                ActionError::UnknownKey(key) => say(&[("key", key)]),
                ActionError::PointOutOfView { x, y, width, height } => {
                    let r = |v: &f64| format!("{v:.0}");
                    say(&[("x", &r(x)), ("y", &r(y)), ("width", &r(width)), ("height", &r(height))])
                }
                ActionError::NotAnInput(action) => say(&[("action", action)]),
                ActionError::NothingAt { x, y } => say(&[("x", &format!("{x:.0}")), ("y", &format!("{y:.0}"))]),
            },
            RunError::DialogUnanswered(d)
            | RunError::Trajectory(d)
            | RunError::Gif(d)
            | RunError::BadInput(d)
            | RunError::Internal(d) => say(&[("detail", d)]),
            RunError::Snapshot(e) => say(&[("detail", e)]),
            RunError::Screenshot(e) => say(&[("detail", e)]),
            RunError::Flow(e) => say(&[("detail", e)]),
            RunError::Prices(e) => say(&[("detail", e)]),
            RunError::Knowledge(e) => say(&[("detail", e)]),
            RunError::EnvBlock(e) => say(&[("detail", e)]),
            RunError::ScriptFailed { detail } => say(&[("detail", detail)]),
            RunError::DialogStopped
            | RunError::ScriptNotAllowed
            | RunError::EmptyInstruction
            | RunError::UploadStopped
            | RunError::Interrupted
            | RunError::SessionStopped
            | RunError::CallCancelled => say(&[]),
            RunError::Loop { round } => say(&[("round", round)]),
            RunError::StepLimit { max_rounds } => say(&[("max", max_rounds)]),
            RunError::ModelCannot { reason } | RunError::AssertionFailed { reason } | RunError::NotFound { reason } => {
                say(&[("reason", reason)])
            }
            RunError::NeedsInput { question } => say(&[("question", question)]),
            RunError::NotOpen { id } => say(&[("id", id)]),
            RunError::NotTheAgents { run } => say(&[("run", run)]),
            RunError::ActionFailed { action, error } => say(&[("action", action), ("detail", &error.message(lang))]),
            RunError::TaskInvalid(p) => say(&[("problem", &p.message(lang))]),
            RunError::StillFalse { waited_ms, reason } => {
                say(&[("seconds", &format!("{:.1}", waited_ms / 1000.0)), ("reason", reason)])
            }
            RunError::PointedAtNothing { what } => say(&[("what", what)]),
            RunError::NoSuchElement { number, count } | RunError::UnknownElementNumber { number, count } => {
                say(&[("number", number), ("count", count)])
            }
            RunError::ElementVanished { element } | RunError::ElementUnreachable { element } => {
                say(&[("element", element)])
            }
            RunError::ReplayLost { step, element } => say(&[("step", step), ("element", element)]),
            RunError::UploadRefused { files } | RunError::UploadNeedsAllow { files } => say(&[("files", files)]),
            RunError::UploadOutsideFolder { files, folder } => say(&[("files", files), ("folder", folder)]),
            RunError::FlowItem { title, error } => say(&[("title", title), ("detail", &error.message(lang))]),
            RunError::FlowItems { failed, first } => say(&[("failed", failed), ("first", &first.message(lang))]),
            RunError::NoSuchOption { element, option, options } => {
                say(&[("element", element), ("option", option), ("options", options)])
            }
            RunError::OptionNotShown { element, option } => say(&[("element", element), ("option", option)]),
            RunError::TextNotShown { waited_ms, text } | RunError::TextStillShown { waited_ms, text } => {
                say(&[("seconds", &format!("{:.1}", waited_ms / 1000.0)), ("text", text)])
            }
            RunError::CheckFailed { check, expected, seen, waited_ms } => say(&[
                ("what", &lang.say(&format!("check.{}", check.as_str()), &[])),
                ("expected", expected),
                ("seen", seen),
                ("seconds", &format!("{:.1}", waited_ms / 1000.0)),
            ]),
            RunError::PlannerModel { model, error } | RunError::ActorModel { model, error } => {
                say(&[("model", model), ("detail", &model_message(error, lang))])
            }
        }
    }

    /// The code of this error itself, not of one it wraps (its message's key).
    fn own_code(&self) -> &'static str {
        match self {
            RunError::ActionFailed { .. } => "action_failed",
            RunError::FlowItem { .. } => "flow_item",
            RunError::FlowItems { .. } => "flow_items",
            other => other.code(),
        }
    }

    /// The code of the failure behind an error whose code says only which model failed
    /// (through the wrappers that pass codes on); `None` for the rest.
    pub fn cause_code(&self) -> Option<&'static str> {
        match self {
            RunError::PlannerModel { error, .. } | RunError::ActorModel { error, .. } => Some(model_code(error)),
            RunError::ActionFailed { error, .. }
            | RunError::FlowItem { error, .. }
            | RunError::FlowItems { first: error, .. } => error.cause_code(),
            _ => None,
        }
    }

    /// The error as the run record keeps it, ending a run's instruction.
    pub fn record(&self, lang: Lang) -> RunErrorRecord {
        self.record_for(lang, Where::Instruction)
    }

    /// The error as the run record keeps it, with the advice for what it ended (`on`).
    pub fn record_for(&self, lang: Lang, on: Where) -> RunErrorRecord {
        let (code, cause) = (self.code(), self.cause_code());
        RunErrorRecord {
            code: code.to_string(),
            message: self.message(lang),
            cause: cause.map(str::to_string),
            advice: advice(code, cause, on, lang),
        }
    }
}

fn guard_code(e: &GuardError) -> &'static str {
    match e {
        GuardError::OutsideAllowedSites { .. } => "site_not_allowed",
        GuardError::UnknownSecret { .. } => "secret_unknown",
        GuardError::SecretNotForSite { .. } => "secret_wrong_site",
        GuardError::SecretWithoutSites { .. } => "secret_no_sites",
        GuardError::FrameOutsideAllowedSites { .. } => "secret_frame_outside",
        GuardError::NoFieldFocused { .. } => "secret_no_focus",
        GuardError::NotASecretField { .. } => "secret_wrong_field",
        GuardError::FocusUnknown { .. } => "secret_focus_unknown",
        GuardError::NotAWebAddress { .. } => "not_a_web_address",
        GuardError::TabOutsideAllowedSites { .. } => "tab_not_allowed",
        GuardError::HistoryOutsideAllowedSites { .. } => "history_not_allowed",
    }
}

fn guard_message(e: &GuardError, lang: Lang) -> String {
    let say = |args: &[(&str, &dyn Display)]| lang.say(&format!("error.{}", guard_code(e)), args);
    match e {
        GuardError::OutsideAllowedSites { address, allowed } => say(&[("address", address), ("allowed", allowed)]),
        GuardError::UnknownSecret { name, known } => say(&[("name", name), ("known", known)]),
        GuardError::SecretNotForSite { name, sites, address } => {
            say(&[("name", name), ("sites", sites), ("address", address)])
        }
        GuardError::FrameOutsideAllowedSites { name, address, allowed } => {
            say(&[("name", name), ("address", address), ("allowed", allowed)])
        }
        GuardError::NoFieldFocused { name } | GuardError::SecretWithoutSites { name } => say(&[("name", name)]),
        GuardError::NotASecretField { name, field, selector } => {
            say(&[("name", name), ("field", field), ("selector", selector)])
        }
        GuardError::FocusUnknown { name, why } => say(&[("name", name), ("why", why)]),
        GuardError::NotAWebAddress { address } => say(&[("address", address)]),
        GuardError::TabOutsideAllowedSites { allowed } | GuardError::HistoryOutsideAllowedSites { allowed } => {
            say(&[("allowed", allowed)])
        }
    }
}

fn model_code(e: &ModelError) -> &'static str {
    match e {
        ModelError::Config(_) => "model_settings",
        ModelError::KeyForAnotherOrigin { .. } => "model_key_elsewhere",
        ModelError::Http { status: 401 | 403, .. } => "model_auth",
        ModelError::Http { .. } => "model_http",
        ModelError::Network(_) => "model_unreachable",
        ModelError::Timeout(_) => "model_timeout",
        ModelError::Aborted => "model_aborted",
        ModelError::BadResponse(_) => "model_bad_response",
        // What failed last says what to do about it.
        ModelError::GaveUp { last, .. } => model_code(last),
    }
}

fn model_message(e: &ModelError, lang: Lang) -> String {
    let say = |key: &str, args: &[(&str, &dyn Display)]| lang.say(&format!("error.{key}"), args);
    match e {
        ModelError::Config(d) | ModelError::Network(d) | ModelError::BadResponse(d) => {
            say(model_code(e), &[("detail", d)])
        }
        ModelError::KeyForAnotherOrigin { entered_for, endpoint } => {
            say(model_code(e), &[("entered_for", entered_for), ("endpoint", endpoint)])
        }
        ModelError::Http { status, message } => say(model_code(e), &[("status", status), ("detail", message)]),
        ModelError::Timeout(seconds) => say(model_code(e), &[("seconds", seconds)]),
        ModelError::Aborted => say(model_code(e), &[]),
        ModelError::GaveUp { retries, last } => {
            say("model_gave_up", &[("last", &model_message(last, lang)), ("retries", retries)])
        }
    }
}

impl Display for RunError {
    /// English: what logs and tests read.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message(Lang::En))
    }
}

impl std::error::Error for RunError {}

impl From<PageError> for RunError {
    fn from(e: PageError) -> Self {
        RunError::Page(e)
    }
}

impl From<ModelError> for RunError {
    fn from(e: ModelError) -> Self {
        RunError::Model(e)
    }
}

impl From<ActionError> for RunError {
    fn from(e: ActionError) -> Self {
        RunError::Action(e)
    }
}

impl From<GuardError> for RunError {
    fn from(e: GuardError) -> Self {
        RunError::Guard(e)
    }
}

impl From<crate::snapshot::cdp::DecodeError> for RunError {
    fn from(e: crate::snapshot::cdp::DecodeError) -> Self {
        RunError::Snapshot(e)
    }
}

impl From<crate::vision::VisionError> for RunError {
    fn from(e: crate::vision::VisionError) -> Self {
        RunError::Screenshot(e)
    }
}

impl From<crate::flow::FlowError> for RunError {
    fn from(e: crate::flow::FlowError) -> Self {
        RunError::Flow(e)
    }
}

impl From<crate::model::usage::PriceError> for RunError {
    fn from(e: crate::model::usage::PriceError) -> Self {
        RunError::Prices(e)
    }
}

impl From<super::options::KnowledgeError> for RunError {
    fn from(e: super::options::KnowledgeError) -> Self {
        RunError::Knowledge(e)
    }
}

impl From<crate::model::env_block::EnvError> for RunError {
    fn from(e: crate::model::env_block::EnvError) -> Self {
        RunError::EnvBlock(e)
    }
}

impl From<crate::vocab::tasks::TaskProblem> for RunError {
    fn from(e: crate::vocab::tasks::TaskProblem) -> Self {
        RunError::TaskInvalid(e)
    }
}

impl From<Interrupted> for RunError {
    fn from(e: Interrupted) -> Self {
        match e {
            Interrupted::Page(e) => RunError::Page(e),
            Interrupted::Unanswered(why) => RunError::DialogUnanswered(why),
            Interrupted::Stopped => RunError::DialogStopped,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// One of each kind of error, with the English each renders today (from the wrapped
    /// error's own `Display` where it wraps one).
    fn samples() -> Vec<RunError> {
        let parse = ParseError::NoJson;
        vec![
            RunError::Page(PageError::Failed("the tab was closed".into())),
            RunError::Page(PageError::Restricted(
                "Sightline cannot work on chrome://settings/: a browser page.".into(),
            )),
            RunError::Page(PageError::Debugger("cannot control this tab: another debugger is attached.".into())),
            RunError::Page(PageError::Unreadable("reading the page failed: no answer from the page".into())),
            RunError::Page(PageError::Guard(GuardError::NoFieldFocused { name: "pw".into() })),
            RunError::Model(ModelError::Config("no model name is set: open Settings and enter one".into())),
            RunError::Model(ModelError::KeyForAnotherOrigin {
                entered_for: "https://a.example".into(),
                endpoint: "https://b.example".into(),
            }),
            RunError::Model(ModelError::Http { status: 401, message: "bad key".into() }),
            RunError::Model(ModelError::Http { status: 500, message: "oops".into() }),
            RunError::Model(ModelError::Network("refused".into())),
            RunError::Model(ModelError::Timeout(30)),
            RunError::Model(ModelError::Aborted),
            RunError::Model(ModelError::BadResponse("no choices".into())),
            RunError::Model(ModelError::GaveUp { retries: 2, last: Box::new(ModelError::Network("refused".into())) }),
            RunError::Reply(parse.clone()),
            RunError::Replies { times: 3, last: parse.clone() },
            RunError::Answer(parse.clone()),
            RunError::Verdict(parse),
            RunError::Action(ActionError::UnknownTarget { target: 9, count: 4 }),
            RunError::Action(ActionError::OutOfView { target: 2, summary: "button \"Save\"".into() }),
            RunError::Action(ActionError::UnknownKey("Hyper".into())),
            RunError::Action(ActionError::PointOutOfView { x: 1.4, y: 2.6, width: 800.0, height: 600.0 }),
            RunError::Action(ActionError::NotAnInput("fly".into())),
            RunError::Guard(GuardError::OutsideAllowedSites {
                address: "https://x.example".into(),
                allowed: "a.example".into(),
            }),
            RunError::Guard(GuardError::UnknownSecret { name: "pw".into(), known: " (known: a)".into() }),
            RunError::Guard(GuardError::SecretNotForSite {
                name: "pw".into(),
                sites: "a.example".into(),
                address: "b.example".into(),
            }),
            RunError::Guard(GuardError::SecretWithoutSites { name: "pw".into() }),
            RunError::Guard(GuardError::FrameOutsideAllowedSites {
                name: "pw".into(),
                address: "b.example".into(),
                allowed: "a.example".into(),
            }),
            RunError::Guard(GuardError::NotASecretField {
                name: "pw".into(),
                field: "input".into(),
                selector: String::new(),
            }),
            RunError::Guard(GuardError::FocusUnknown { name: "pw".into(), why: "nested frame".into() }),
            RunError::Guard(GuardError::NotAWebAddress { address: "file:///etc".into() }),
            RunError::DialogUnanswered("the page's confirm dialog was dismissed".into()),
            RunError::DialogStopped,
            RunError::EmptyInstruction,
            RunError::Loop { round: "Tap [1]".into() },
            RunError::StepLimit { max_rounds: 10 },
            RunError::ModelCannot { reason: "no such button".into() },
            RunError::NeedsInput { question: "which one?".into() },
            RunError::ActionFailed {
                action: "Tap [3]".into(),
                error: Box::new(RunError::Action(ActionError::UnknownTarget { target: 3, count: 2 })),
            },
            RunError::TaskInvalid(crate::vocab::tasks::TaskProblem::NoKey),
            RunError::AssertionFailed { reason: "no".into() },
            RunError::StillFalse { waited_ms: 1500.0, reason: "no".into() },
            RunError::NotFound { reason: "no".into() },
            RunError::PointedAtNothing { what: "Save".into() },
            RunError::NoSuchElement { number: 7, count: 3 },
            RunError::UnknownElementNumber { number: 9999, count: 3 },
            RunError::ElementVanished { element: "button".into() },
            RunError::ElementUnreachable { element: "button".into() },
            RunError::UploadRefused { files: "/a".into() },
            RunError::UploadOutsideFolder { files: "/a".into(), folder: "/b".into() },
            RunError::UploadNeedsAllow { files: "/a".into() },
            RunError::UploadStopped,
            RunError::FlowItem { title: "Add".into(), error: Box::new(RunError::EmptyInstruction) },
            RunError::FlowItems {
                failed: 2,
                first: Box::new(RunError::FlowItem {
                    title: "Add".into(),
                    error: Box::new(RunError::EmptyInstruction),
                }),
            },
            RunError::Snapshot(crate::snapshot::cdp::DecodeError::NoDocument),
            RunError::Screenshot(crate::vision::VisionError::Empty),
            RunError::Flow(crate::flow::FlowError::Empty),
            RunError::Prices(crate::model::usage::PriceError { line: 2, problem: "no price".into() }),
            RunError::Trajectory("not a Sightline trajectory: no run".into()),
            RunError::Gif("the GIF could not be encoded: too big".into()),
            RunError::BadInput("the task is not in the expected form".into()),
            RunError::Internal("could not encode the result".into()),
            RunError::Interrupted,
            RunError::NotOpen { id: "r1".into() },
            RunError::Page(PageError::NoSuchTab { tab: 4, open: "1, 2".into() }),
            RunError::Page(PageError::OnlyTab),
            RunError::Action(ActionError::NothingAt { x: 10.0, y: 20.0 }),
            RunError::NoSuchOption { element: 3, option: "XL".into(), options: "S | M | L".into() },
            RunError::OptionNotShown { element: 5, option: "Red".into() },
            RunError::TextNotShown { waited_ms: 5000.0, text: "Saved".into() },
            RunError::TextStillShown { waited_ms: 5000.0, text: "Loading".into() },
            RunError::CheckFailed {
                check: crate::vocab::actions::ElementCheck::Text,
                expected: "3 items left".into(),
                seen: "2 items left".into(),
                waited_ms: 5000.0,
            },
            RunError::Knowledge(super::super::options::KnowledgeError::NoText(2)),
            RunError::EnvBlock(crate::model::env_block::EnvError::NothingFound),
            RunError::PlannerModel { model: "gpt-4.1".into(), error: ModelError::Network("connection refused".into()) },
            RunError::ActorModel {
                model: "ui-tars-1.5-7b".into(),
                error: ModelError::Http { status: 500, message: "overloaded".into() },
            },
            RunError::SessionStopped,
            RunError::CallCancelled,
            RunError::Guard(GuardError::TabOutsideAllowedSites { allowed: "example.com".into() }),
            RunError::Guard(GuardError::HistoryOutsideAllowedSites { allowed: "example.com".into() }),
            RunError::NotTheAgents { run: "r-1".into() },
            RunError::ReplayLost { step: 3, element: "checkbox #5".into() },
            RunError::ScriptNotAllowed,
            RunError::ScriptFailed { detail: "ReferenceError: x is not defined".into() },
        ]
    }

    /// The codes are the panel's and the scripts' contract: this list changes only by adding.
    const CODES: &[&str] = &[
        "page_failed",
        "page_restricted",
        "page_debugger",
        "page_unreadable",
        "secret_no_focus",
        "model_settings",
        "model_key_elsewhere",
        "model_auth",
        "model_http",
        "model_unreachable",
        "model_timeout",
        "model_aborted",
        "model_bad_response",
        "model_unreachable",
        "reply_unreadable",
        "replies_unreadable",
        "answer_unreadable",
        "verdict_unreadable",
        "element_missing",
        "element_out_of_view",
        "unknown_key",
        "point_out_of_view",
        "not_an_input",
        "site_not_allowed",
        "secret_unknown",
        "secret_wrong_site",
        "secret_no_sites",
        "secret_frame_outside",
        "secret_wrong_field",
        "secret_focus_unknown",
        "not_a_web_address",
        "dialog_unanswered",
        "dialog_stopped",
        "instruction_empty",
        "loop",
        "step_limit",
        "model_cannot",
        "needs_input",
        "element_missing",
        "task_invalid",
        "assertion_failed",
        "still_false",
        "not_found",
        "pointed_at_nothing",
        "no_such_element",
        "element_number_unknown",
        "element_vanished",
        "element_unreachable",
        "upload_refused",
        "upload_outside_folder",
        "upload_needs_allow",
        "upload_stopped",
        "instruction_empty",
        "instruction_empty",
        "snapshot_unreadable",
        "screenshot_unusable",
        "flow_invalid",
        "prices_invalid",
        "trajectory_invalid",
        "gif_failed",
        "bad_input",
        "internal",
        "run_interrupted",
        "run_not_open",
        "no_such_tab",
        "only_tab",
        "nothing_to_choose_at",
        "no_such_option",
        "option_not_shown",
        "text_not_shown",
        "text_still_shown",
        "check_failed",
        "knowledge_invalid",
        "env_block_invalid",
        "planner_model_failed",
        "actor_model_failed",
        "session_stopped",
        "call_cancelled",
        "tab_not_allowed",
        "history_not_allowed",
        "run_not_agents",
        "replay_element_lost",
        "script_not_allowed",
        "script_failed",
    ];

    #[test]
    fn a_failed_model_call_of_either_role_hands_over_its_cause() {
        let auth = ModelError::Http { status: 401, message: "invalid key".into() };
        let planner = RunError::PlannerModel { model: "gpt-4.1".into(), error: auth.clone() };
        let record = planner.record(Lang::En);
        assert_eq!((record.code.as_str(), record.cause.as_deref()), ("planner_model_failed", Some("model_auth")));
        // Through retries given up and a flow item wrapping it, the cause is the last failure's.
        let gave_up = ModelError::GaveUp { retries: 3, last: Box::new(ModelError::Network("refused".into())) };
        let actor = RunError::ActorModel { model: "ui-tars".into(), error: gave_up };
        let item = RunError::FlowItem { title: "aiTap “Save”".into(), error: Box::new(actor) };
        let record = item.record(Lang::ZhCn);
        assert_eq!((record.code.as_str(), record.cause.as_deref()), ("actor_model_failed", Some("model_unreachable")));
        // Errors that are their own cause carry none, and the record says nothing of it.
        let plain = RunError::Model(auth).record(Lang::En);
        assert_eq!((plain.code.as_str(), plain.cause.as_deref()), ("model_auth", None));
        assert!(!serde_json::to_string(&plain).unwrap().contains("cause"));
    }

    /// Every code has its advice decided in `agent::advice`: its own, none (the message says
    /// it), through its cause, or the default of editing what was asked, listed on purpose.
    #[test]
    fn every_code_has_its_advice_decided() {
        use crate::agent::advice::{ADVISED, SELF_EXPLAINED};
        const EDIT: &[&str] = &[
            "page_failed",
            "page_unreadable",
            "model_aborted",
            "model_bad_response",
            "reply_unreadable",
            "replies_unreadable",
            "answer_unreadable",
            "verdict_unreadable",
            "element_missing",
            "element_out_of_view",
            "unknown_key",
            "point_out_of_view",
            "not_an_input",
            "dialog_unanswered",
            "dialog_stopped",
            "instruction_empty",
            "model_cannot",
            "needs_input",
            "assertion_failed",
            "still_false",
            "not_found",
            "pointed_at_nothing",
            "no_such_element",
            "element_number_unknown",
            "element_vanished",
            "element_unreachable",
            "upload_refused",
            "upload_stopped",
            "snapshot_unreadable",
            "screenshot_unusable",
            "prices_invalid",
            "trajectory_invalid",
            "gif_failed",
            "bad_input",
            "internal",
            "run_not_open",
            "no_such_tab",
            "nothing_to_choose_at",
            "no_such_option",
            "option_not_shown",
            "text_not_shown",
            "text_still_shown",
            "knowledge_invalid",
            "env_block_invalid",
            "script_failed",
            // Advised through their cause (a model's failure), else edit.
            "planner_model_failed",
            "actor_model_failed",
        ];
        for code in CODES {
            let lists = [ADVISED.contains(code), SELF_EXPLAINED.contains(code), EDIT.contains(code)];
            assert_eq!(
                lists.iter().filter(|l| **l).count(),
                1,
                "{code}: decide its advice in agent::advice (or list it to edit)"
            );
        }
    }

    #[test]
    fn codes_are_stable() {
        let codes: Vec<&str> = samples().iter().map(RunError::code).collect();
        assert_eq!(codes, CODES);
    }

    /// The error a wrapper passes its code on from, if it is one.
    fn wrapped(e: &RunError) -> Option<RunError> {
        match e {
            RunError::ActionFailed { error, .. }
            | RunError::FlowItem { error, .. }
            | RunError::FlowItems { first: error, .. } => Some((**error).clone()),
            RunError::Model(ModelError::GaveUp { last, .. }) => Some(RunError::Model((**last).clone())),
            RunError::Page(PageError::Guard(g)) => Some(RunError::Guard(g.clone())),
            _ => None,
        }
    }

    #[test]
    fn each_kind_of_error_has_its_own_code_and_wrappers_pass_theirs_on() {
        let mut seen = std::collections::BTreeMap::new();
        for e in samples() {
            let code = e.code();
            assert!(code.chars().all(|c| c.is_ascii_lowercase() || c == '_'), "{code} is not snake_case");
            match wrapped(&e) {
                Some(inner) => assert_eq!(code, inner.code(), "{e:?}"),
                None => {
                    if let Some(other) = seen.insert(code, format!("{e:?}")) {
                        panic!("{code} names two kinds of error: {other} and {e:?}");
                    }
                }
            }
        }
    }

    #[test]
    fn english_messages_are_the_wrapped_errors_own_words() {
        for e in samples() {
            let inner = match &e {
                RunError::Page(p) => Some(p.to_string()),
                RunError::Model(m) => Some(m.to_string()),
                RunError::Action(a) => Some(a.to_string()),
                RunError::Guard(g) => Some(g.to_string()),
                RunError::TaskInvalid(t) => Some(t.to_string()),
                RunError::Snapshot(x) => Some(x.to_string()),
                RunError::Screenshot(x) => Some(x.to_string()),
                RunError::Flow(x) => Some(x.to_string()),
                RunError::Prices(x) => Some(x.to_string()),
                RunError::Knowledge(x) => Some(x.to_string()),
                RunError::EnvBlock(x) => Some(x.to_string()),
                _ => None,
            };
            if let Some(inner) = inner {
                assert_eq!(e.message(Lang::En), inner, "{e:?}");
            }
        }
        assert_eq!(
            RunError::Reply(ParseError::NoJson).to_string(),
            "could not read the model's reply: the reply holds no JSON object"
        );
        assert_eq!(
            RunError::FlowItems {
                failed: 2,
                first: Box::new(RunError::FlowItem {
                    title: "Add".into(),
                    error: Box::new(RunError::EmptyInstruction)
                })
            }
            .to_string(),
            "2 steps failed; the first, Add: the instruction is empty: say what to do on the page"
        );
    }

    #[test]
    fn every_error_reads_in_chinese_with_its_details() {
        for e in samples() {
            let zh = e.message(Lang::ZhCn);
            assert!(!zh.is_empty() && !zh.contains('{'), "{e:?}: {zh}");
            let ours =
                !matches!(e, RunError::Page(PageError::Failed(_)) | RunError::BadInput(_) | RunError::Internal(_));
            assert!(!ours || zh != e.message(Lang::En), "{e:?} is not translated");
        }
        assert_eq!(
            RunError::Model(ModelError::Http { status: 401, message: "bad key".into() }).message(Lang::ZhCn),
            "模型端点拒绝了请求（HTTP 401）：bad key"
        );
        assert_eq!(
            RunError::StepLimit { max_rounds: 4 }.record(Lang::ZhCn),
            RunErrorRecord {
                code: "step_limit".into(),
                message: "在 4 次模型调用内未完成指令；请尝试更小的指令，或提高步数上限".into(),
                cause: None,
                advice: Some("请把指令拆成更小的几条，或在设置中提高步数上限。".into()),
            }
        );
    }
}

#[cfg(test)]
mod stored {
    use super::super::record::{Run, RunErrorRecord};
    use crate::i18n::Lang;
    use serde_json::json;

    fn run_with_error(error: serde_json::Value) -> serde_json::Value {
        let mut run = serde_json::to_value(Run::new("r1".into(), "add a todo", 1.0)).unwrap();
        run["error"] = error;
        run
    }

    #[test]
    fn runs_saved_before_codes_still_load() {
        let old: Run =
            serde_json::from_value(run_with_error(json!("could not reach the model endpoint: refused"))).unwrap();
        assert_eq!(
            old.error,
            Some(RunErrorRecord {
                code: RunErrorRecord::UNCODED.into(),
                message: "could not reach the model endpoint: refused".into(),
                cause: None,
                advice: None,
            })
        );
        let mut without = run_with_error(json!(null));
        without.as_object_mut().unwrap().remove("language");
        let without: Run = serde_json::from_value(without).unwrap();
        assert_eq!((without.error, without.language), (None, Lang::En), "no error and no language: English");
    }

    #[test]
    fn a_coded_error_keeps_its_code_and_message_both_ways() {
        let error = super::RunError::StepLimit { max_rounds: 3 }.record(Lang::En);
        let run: Run = serde_json::from_value(run_with_error(serde_json::to_value(&error).unwrap())).unwrap();
        assert_eq!(run.error.as_ref(), Some(&error));
        let text = serde_json::to_value(&run).unwrap();
        assert_eq!(text["error"], json!({ "code": "step_limit", "message": error.message, "advice": error.advice }));
    }
}
