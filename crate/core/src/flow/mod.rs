//! A flow: steps run one after another, written as Midscene's YAML script (`web:` + `tasks:`
//! of `flow:` items). It is the file our Midscene export writes and Midscene's own CLI runs;
//! reading it here lets the extension and `scripts/run` replay it. Each item becomes an
//! instruction for the planning loop, one AI task (with the XPath the file gives, tried before
//! the cache and the model), or a pause. `agent::replay::flow` runs it.

pub mod batch;
mod vars;
mod yaml;

pub use batch::{apply_web, parse_batch, BatchIndex, BatchResult, BatchWeb};
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

    pub fn step_count(&self) -> usize {
        self.tasks.iter().map(|t| t.steps.len()).sum()
    }
}

#[cfg(test)]
mod tests;
