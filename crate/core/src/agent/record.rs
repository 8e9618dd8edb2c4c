//! The run record: what happened, step by step, as the panel shows it and exports read it.

use super::replay::cache::ElementKey;
use crate::flow::{Flow, FlowStep};
use crate::i18n::Lang;
use crate::model::{ChatMessage, Usage};
use crate::vocab::actions::PlannedAction;
use crate::vocab::tasks::Task;
use serde::{Deserialize, Serialize};
use serde_json::Value;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum RunStatus {
    Running,
    Succeeded,
    /// The model said it was done, but the page read afterwards did not confirm the goal
    /// (or could not be checked): the person should look.
    Unconfirmed,
    Failed,
    Stopped,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum StepKind {
    /// Observing the page and asking the model.
    Plan,
    /// Executing one action on the page.
    Action,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum StepStatus {
    Ok,
    Failed,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TargetInfo {
    pub index: u32,
    pub id: String,
    pub summary: String,
    pub xpath: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub xpath_text: Option<String>,
    #[serde(default)]
    pub tag: String,
    pub rect: crate::vocab::geometry::Rect,
    /// How test tools find it by what a person sees (role and name, label, placeholder, test
    /// id, text), decided when the step acted on it; absent in older records and where the
    /// browser could not tell (exports then use the XPaths).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub locators: Option<crate::describe::locators::Locators>,
    /// For a text: its centre from the top-left of the element holding it (where exports click).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub holder_point: Option<crate::describe::locators::HolderPoint>,
}

impl TargetInfo {
    pub fn of(e: &crate::describe::Element) -> Self {
        TargetInfo {
            index: e.index,
            id: e.id.clone(),
            summary: e.summary(),
            xpath: e.xpath.clone(),
            xpath_text: e.xpath_text.clone(),
            tag: e.tag.clone(),
            rect: e.rect,
            locators: None,
            holder_point: None,
        }
    }

    /// Takes what the browser read about the element as the step acts on it: its locators, and
    /// the text path the page confirmed where the step's reading could not judge one.
    pub fn read_in_page(&mut self, data: Option<crate::describe::locators::LocatorData>) {
        let Some(data) = data else { return };
        self.locators = crate::describe::locators::Locators::of(&data);
        self.holder_point = data.holder_point;
        if self.xpath_text.is_none() {
            self.xpath_text = data.text_path;
        }
    }

    /// How a replay finds this element again.
    pub fn key(&self) -> ElementKey {
        ElementKey {
            xpath: self.xpath.clone(),
            xpath_text: self.xpath_text.clone(),
            tag: self.tag.clone(),
            summary: self.summary.clone(),
            locators: self.locators.clone().map(Box::new),
        }
    }
}

/// One model call as it went: the messages sent (each screenshot replaced by its image
/// reference, `sightline-image:<ref>`) and the reply as the parser read it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Exchange {
    pub request: Vec<ChatMessage>,
    pub reply: String,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Step {
    pub kind: StepKind,
    pub status: StepStatus,
    /// The model's reasoning (plan steps).
    pub thought: String,
    /// Human-readable action, e.g. `Input "buy milk" into [3]`.
    pub action: String,
    pub target: Option<TargetInfo>,
    pub error: Option<String>,
    pub started_ms: f64,
    pub duration_ms: f64,
    pub usage: Option<Usage>,
    /// What this step's model call cost, from the price table (estimated when its usage is).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cost: Option<f64>,
    /// Something worth knowing that did not fail the step (e.g. a screenshot left out).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
    /// Action steps: the action as executed, in CSS pixels (what a replay or an export repeats).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub planned: Option<PlannedAction>,
    /// Locate steps of a task: the description that was located (its cache key on replay).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub locate: Option<String>,
    /// The screenshot, by image reference: what the model saw (plan steps), or the page
    /// after the round (its last action step).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub screenshot: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub exchange: Option<Exchange>,
    /// A plan or locate step answered by the cache instead of the model.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub cached: bool,
    /// A locate step answered without the model: by what (the flow file's XPath, the cache, an
    /// agent's element number). The panel's badge and the report say it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub found_by: Option<FoundBy>,
    /// What the step asked (the person, or the run's settings) and the answers: the page's
    /// dialogs during an action, an upload a file named, the model's question.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub asked: Vec<super::ask::Asked>,
    /// Plan steps: the notes the model kept and its next goal, as it wrote them this step.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub notes: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub next_goal: Option<String>,
    /// What the page reported while this step ran: console errors and warnings, uncaught
    /// exceptions and failed requests (CDP Runtime and Log events), oldest first.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub console: Vec<ConsoleEntry>,
    /// How many more messages the page reported while this step ran than `console` keeps
    /// (a page that fills its console is bounded per step: `lifecycle::CONSOLE_PER_STEP`).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub console_dropped: u32,
    /// Model calls of a run with a planning model: which of the two models made this one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub role: Option<ModelRole>,
}

/// Which model of a run with a planning model made a call: the planner decides the actions,
/// the actor (the grounding model) finds each target the planner described.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ModelRole {
    Planner,
    Actor,
}

/// One model's share of a run: its calls, tokens and cost, priced by its own name.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ModelUse {
    pub role: ModelRole,
    pub model: String,
    pub calls: u32,
    pub usage: Usage,
    /// From the price table, when it lists this model (estimated when the usage is).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cost: Option<f64>,
}

/// One console message or failed request the page reported (levels `error` and `warning` only).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct ConsoleEntry {
    /// `error` or `warning`.
    pub level: String,
    /// `console`, `exception`, `network` (a failed request) or the browser's own source.
    pub source: String,
    pub text: String,
    /// The script or resource it came from, when known.
    pub url: String,
}

impl ConsoleEntry {
    /// How the panel, the report and an agent read it: `[error] text (url)`.
    pub fn line(&self) -> String {
        let mut line = format!("[{}] {}", self.level, self.text);
        if !self.url.is_empty() {
            line.push_str(&format!(" ({})", self.url));
        }
        line
    }
}

impl Step {
    /// A step that went fine so far, with nothing filled in yet.
    pub fn new(kind: StepKind, started_ms: f64) -> Self {
        Step {
            kind,
            status: StepStatus::Ok,
            thought: String::new(),
            action: String::new(),
            target: None,
            error: None,
            started_ms,
            duration_ms: 0.0,
            usage: None,
            cost: None,
            note: None,
            planned: None,
            locate: None,
            screenshot: None,
            exchange: None,
            cached: false,
            found_by: None,
            role: None,
            asked: Vec::new(),
            notes: None,
            next_goal: None,
            console: Vec::new(),
            console_dropped: 0,
        }
    }
}

/// How a locate step found its element without the model.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum FoundBy {
    /// The XPath the flow file gives for it.
    Xpath,
    /// What an earlier run found for the same description on this page.
    Cache,
    /// The element number an agent took from its snapshot.
    Number,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Run {
    pub id: String,
    pub instruction: String,
    pub url: String,
    pub status: RunStatus,
    pub steps: Vec<Step>,
    /// Why the run failed: `{code, message}` (runs saved before codes held the message alone).
    #[serde(default, deserialize_with = "RunErrorRecord::deserialize_stored")]
    pub error: Option<RunErrorRecord>,
    pub started_ms: f64,
    pub ended_ms: Option<f64>,
    pub model_calls: u32,
    pub usage: Usage,
    /// From the price table, when it lists the model (estimated when the usage is).
    #[serde(default)]
    pub cost: Option<f64>,
    /// The question the run waits on the person to answer: the model's, a page dialog, an upload.
    #[serde(default, skip_serializing_if = "Option::is_none", deserialize_with = "super::ask::stored::deserialize")]
    pub question: Option<super::ask::Question>,
    /// What a task returned: the data of a query, the verdict of an assertion, a located element.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub result: Option<serde_json::Value>,
    /// The task this run carried out; `None` for an instruction (the planning loop).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub task: Option<Task>,
    /// A flow file's run: the flow and which steps each of its items took.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub flow: Option<FlowRecord>,
    /// The browser tab the run acts on: the one it followed last.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tab_id: Option<i64>,
    /// That tab's title, as last seen.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// "Record my steps": the person's steps, not a model's.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub recorded: bool,
    /// A recording's screenshots: device pixels per CSS pixel (what finds a step's element on them).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub device_pixel_ratio: Option<f64>,
    /// The person's language: the record's captions, notes and errors are written in it.
    #[serde(default)]
    pub language: Lang,
    /// What the check after the model's "done" found on the page read afterwards.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub check: Option<SuccessCheck>,
    /// What the model kept across steps: its latest notes and next goal, and the data it gathered.
    #[serde(default, skip_serializing_if = "RunMemory::is_empty")]
    pub memory: RunMemory,
    /// A run with a planning model: each model's calls, tokens and cost (planner first); the
    /// totals above are their sums. Empty when one model did everything.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub models: Vec<ModelUse>,
    /// An agent session's run: the recordings its agent started, the only runs besides this one
    /// the agent may stop, export or read (`OpenRuns::agent_may_use`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub agent_runs: Vec<String>,
}

/// A run's error as kept and shown: the stable code the panel keys its advice on, and the
/// message in the run's language.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct RunErrorRecord {
    pub code: String,
    pub message: String,
    /// The code of the failure this error wraps when its own code names only where it
    /// happened (`planner_model_failed` → `model_auth`): what to do about it is the cause's.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cause: Option<String>,
    /// What the person can do about it, in the run's language (`agent::advice`); none where the
    /// message says it all (and in records kept before the core gave advice).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub advice: Option<String>,
}

impl RunErrorRecord {
    /// The code of errors kept before errors had codes.
    pub const UNCODED: &'static str = "uncoded";

    /// Reads `{code, message}`, or a plain message as runs saved before codes kept it. Read
    /// through a Value, not serde's untagged buffering (see `vocab::wire`).
    pub(crate) fn deserialize_stored<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Option<Self>, D::Error> {
        match Option::<Value>::deserialize(d)? {
            None => Ok(None),
            Some(Value::String(message)) => {
                Ok(Some(RunErrorRecord { code: Self::UNCODED.into(), message, cause: None, advice: None }))
            }
            Some(coded) => crate::vocab::objects::from_value(coded).map(Some).map_err(serde::de::Error::custom),
        }
    }
}

/// The verdict of the check of an instruction's goal on the page after the model said done.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SuccessCheck {
    /// The page shows the goal reached.
    pub confirmed: bool,
    /// The checker's reason, or why no check could be made.
    pub reason: String,
}

/// The model's memory over a run, in browser-use's spirit: short notes and the next goal it
/// rewrites each step, and what it gathered (remembered data, query results) across pages.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct RunMemory {
    #[serde(skip_serializing_if = "String::is_empty")]
    pub notes: String,
    #[serde(skip_serializing_if = "String::is_empty")]
    pub next_goal: String,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub gathered: Vec<Gathered>,
}

impl RunMemory {
    pub fn is_empty(&self) -> bool {
        self.notes.is_empty() && self.next_goal.is_empty() && self.gathered.is_empty()
    }
}

/// One piece of data the model gathered, and the page it came from.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Gathered {
    pub url: String,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub note: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub data: Option<Value>,
}

impl Run {
    pub fn new(id: String, instruction: &str, started_ms: f64) -> Self {
        Run {
            id,
            instruction: instruction.to_string(),
            url: String::new(),
            status: RunStatus::Running,
            steps: Vec::new(),
            error: None,
            started_ms,
            ended_ms: None,
            model_calls: 0,
            usage: Usage::default(),
            cost: None,
            question: None,
            result: None,
            task: None,
            flow: None,
            tab_id: None,
            title: None,
            recorded: false,
            device_pixel_ratio: None,
            language: Lang::En,
            check: None,
            memory: RunMemory::default(),
            models: Vec::new(),
            agent_runs: Vec::new(),
        }
    }
}

fn is_zero(n: &u32) -> bool {
    *n == 0
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct FlowRecord {
    /// The flow as read from its file: what a replay runs again.
    pub flow: Flow,
    /// The items that ran (or are running), in order.
    pub items: Vec<FlowItem>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct FlowItem {
    /// Where it sits in the flow: `flow.tasks[task].steps[step]`.
    pub task: usize,
    pub step: usize,
    pub title: String,
    pub status: RunStatus,
    /// Why it failed: `{code, message}` (flows saved before codes held the message alone).
    #[serde(default, skip_serializing_if = "Option::is_none", deserialize_with = "RunErrorRecord::deserialize_stored")]
    pub error: Option<RunErrorRecord>,
    /// What a task returned (an answer, a verdict, a location).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub result: Option<Value>,
    /// The page it began on.
    pub url: String,
    /// Its steps are `run.steps[first_step..first_step + steps]`.
    pub first_step: usize,
    pub steps: usize,
    pub started_ms: f64,
    pub duration_ms: f64,
}

impl FlowRecord {
    /// One item as a run of its own (its steps, task, outcome): what exports and replays
    /// already know how to read.
    pub fn item_run(&self, run: &Run, item: &FlowItem) -> Run {
        let step = self.step_of(item);
        let mut part = Run::new(format!("{}/{}.{}", run.id, item.task, item.step), &item.title, item.started_ms);
        if let Some(FlowStep::Act { instruction }) = step {
            part.instruction = instruction.clone();
        }
        part.task = match step {
            Some(FlowStep::Task { task, .. }) => Some(task.clone()),
            _ => None,
        };
        part.url = item.url.clone();
        part.status = item.status;
        part.error = item.error.clone();
        part.result = item.result.clone();
        part.ended_ms = Some(item.started_ms + item.duration_ms);
        let end = (item.first_step + item.steps).min(run.steps.len());
        part.steps = run.steps.get(item.first_step.min(end)..end).unwrap_or_default().to_vec();
        part
    }

    /// The flow step an item ran.
    pub fn step_of(&self, item: &FlowItem) -> Option<&FlowStep> {
        self.flow.tasks.get(item.task).and_then(|t| t.steps.get(item.step))
    }

    /// Every item as a run of its own, in order.
    pub fn item_runs(&self, run: &Run) -> Vec<Run> {
        self.items.iter().map(|item| self.item_run(run, item)).collect()
    }
}
