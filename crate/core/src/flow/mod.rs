//! A flow: steps run one after another, written as Midscene's YAML script (`web:` + `tasks:`
//! of `flow:` items). It is the file our Midscene export writes and Midscene's own CLI runs;
//! reading it here lets the extension and `scripts/run` replay it. Each item becomes an
//! instruction for the planning loop, one AI task (with the XPath the file gives, tried before
//! the cache and the model), a pause, or a script the person allowed (`scripts`).
//! `agent::replay::flow` runs it.

pub mod batch;
pub mod known;
mod scripts;
mod vars;
mod yaml;

pub use batch::{apply_web, parse_batch, BatchIndex, BatchResult, BatchWeb};
pub use scripts::{flow_hash, script_consent, ScriptConsent, ShownScript};
pub use vars::FlowVars;
pub use yaml::{parse_flow, parse_flow_with, FlowError, MAX_FLOW_BYTES};

use crate::vocab::geometry::WindowSize;
use crate::vocab::tasks::Task;
use crate::vocab::wire::internally_tagged;
use serde::{Deserialize, Serialize};

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Flow {
    /// Where the flow starts (`web.url`): absolute, or a path under `serve`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub url: Option<String>,
    /// A folder a runner serves over HTTP for `url` (`web.serve`): the file's own folder or
    /// one in it, relative to the file (an absolute path or a `..` is refused on reading).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub serve: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub viewport: Option<WindowSize>,
    /// How the page's dialogs during actions are answered (`web.dialogs`: ask, accept,
    /// dismiss); a run's own setting comes first.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dialogs: Option<crate::vocab::tasks::DialogPolicy>,
    pub tasks: Vec<FlowTask>,
    /// What the file asks that is not honoured (a key Sightline does not use, a step read but
    /// not run), each with its line and why: the person is told, nothing is dropped silently.
    #[serde(default, alias = "skipped", skip_serializing_if = "Vec::is_empty")]
    pub warnings: Vec<String>,
    /// What the run is told about the task besides each step (`agent: aiActContext`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub context: Option<String>,
    /// The most rounds an instruction may take (`agent: replanningCycleLimit`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_rounds: Option<u32>,
    /// The flow's identity: SHA-256 (hex) of what it runs (`scripts::flow_hash`: its settings
    /// and steps, each script's code as filled in from `${NAME}`s). What the person's
    /// allowance of its scripts is remembered by: a changed file asks again. Said for the
    /// panel; judged from the flow itself, never from this field.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub hash: String,
    /// Where the named results are written as JSON (`web.output`, or a top-level `output:`),
    /// relative to the flow file; the panel offers them as a download instead.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub output: Option<String>,
    /// How the run uses the cache (`agent: cache`); unset: the run's own setting.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cache: Option<FlowCache>,
    /// What the report is called (`agent: testId`, `groupName`, `reportFileName`).
    #[serde(default, skip_serializing_if = "FlowReport::is_empty")]
    pub report: FlowReport,
}

/// `agent: cache`: whether the run reads what earlier runs found and keeps what it finds.
/// Midscene's strategies: `read-write` (the default of `cache: {id}` and `cache: true`),
/// `read-only` (found elements and plans are used, nothing new is kept), `write-only` (nothing
/// is looked up, what is found is kept); `cache: false` uses no cache at all.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct FlowCache {
    pub read: bool,
    pub write: bool,
    /// Midscene's cache id (its cache file's name), kept for the report: Sightline keeps one
    /// cache, by page and prompt, for every run.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id: Option<String>,
}

/// The report's names from `agent:`. `file_name` is a file name only (no folder), checked on
/// reading.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct FlowReport {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub test_id: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub group_name: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub file_name: Option<String>,
}

impl FlowReport {
    pub fn is_empty(&self) -> bool {
        self.test_id.is_none() && self.group_name.is_none() && self.file_name.is_none()
    }
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct FlowTask {
    pub name: String,
    /// Go on with the next task when this one fails (the flow still fails at the end).
    #[serde(default)]
    pub continue_on_error: bool,
    pub steps: Vec<FlowStep>,
}

internally_tagged! {
    tag = "kind", rename_all = "camelCase", name = "FlowStep";
    #[derive(Clone, Debug, PartialEq, Serialize)]
    pub enum FlowStep {
        /// An instruction for the planning loop (`aiAct`).
        Act { instruction: String },
        /// One AI task. `xpath`: where the file says its element is; `name`: the key its
        /// answer is kept under in the flow's result.
        Task {
            task: Task,
            #[serde(default, skip_serializing_if = "Option::is_none")]
            xpath: Option<String>,
            #[serde(default, skip_serializing_if = "Option::is_none")]
            name: Option<String>,
        },
        /// A pause.
        Sleep { ms: u32 },
        /// Open a web address (a navigation a person recorded).
        Navigate { url: String },
        /// Code the file runs in the page (`javascript:`), as an expression or a promise's
        /// value (Midscene's `evaluateJavaScript`); its value, as JSON, is kept under `name`.
        /// Runs only where the person allowed this file's scripts (`scripts`).
        Script {
            code: String,
            #[serde(default, skip_serializing_if = "Option::is_none")]
            name: Option<String>,
        },
        /// Go back or forward in the tab's history, or reload (as a person did).
        History { go: FlowHistory },
        /// Choose an option by its text in the `<select>` at `xpath` (a choice a person
        /// recorded); `value`: the option's value, when the file gives it.
        Select {
            xpath: String,
            option: String,
            #[serde(default, skip_serializing_if = "Option::is_none")]
            value: Option<String>,
        },
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum FlowHistory {
    Back,
    Forward,
    Reload,
}

impl FlowStep {
    /// How the step reads in the panel and the runner's output.
    pub fn title(&self) -> String {
        match self {
            FlowStep::Act { instruction } => format!("aiAct \u{201c}{}\u{201d}", instruction.trim()),
            FlowStep::Task { task, .. } => task.title(),
            FlowStep::Sleep { ms } => format!("sleep {ms} ms"),
            FlowStep::Navigate { url } => format!("Go to {url}"),
            FlowStep::Script { code, .. } => {
                let line = code.trim().lines().next().unwrap_or_default();
                let more = code.trim().lines().nth(1).is_some() || line.chars().count() > 60;
                let head: String = line.chars().take(60).collect();
                format!("javascript \u{201c}{head}{}\u{201d}", if more { "\u{2026}" } else { "" })
            }
            FlowStep::History { go: FlowHistory::Back } => "Go back".into(),
            FlowStep::History { go: FlowHistory::Forward } => "Go forward".into(),
            FlowStep::History { go: FlowHistory::Reload } => "Reload the page".into(),
            FlowStep::Select { option, .. } => {
                format!("Choose \u{201c}{}\u{201d} in {}", option.trim(), self.describe())
            }
        }
    }

    /// The element a step acts on, in words, where the file names it by XPath alone (a
    /// choice): what a model is asked to find when the XPath no longer holds.
    pub fn describe(&self) -> String {
        match self {
            FlowStep::Select { xpath, .. } => format!("the drop-down list at {xpath}"),
            other => other.title(),
        }
    }
}

impl Flow {
    /// The flow's name: its tasks' names.
    pub fn title(&self) -> String {
        let names: Vec<&str> = self.tasks.iter().map(|t| t.name.trim()).filter(|n| !n.is_empty()).collect();
        if names.is_empty() {
            "Flow".into()
        } else {
            names.join(" · ")
        }
    }

    /// The `javascript` steps, in order.
    pub fn scripts(&self) -> impl Iterator<Item = (usize, usize, &FlowStep)> {
        self.tasks.iter().enumerate().flat_map(|(t, task)| {
            task.steps
                .iter()
                .enumerate()
                .filter(|(_, s)| matches!(s, FlowStep::Script { .. }))
                .map(move |(n, s)| (t, n, s))
        })
    }

    pub fn step_count(&self) -> usize {
        self.tasks.iter().map(|t| t.steps.len()).sum()
    }
}

#[cfg(test)]
mod tests;
