//! Tasks as the API, flows and the panel name them (`aiTap`, `aiQuery`, …), and how a run
//! answers page dialogs: data every floor above reads.

use super::actions::{InputMode, ScrollDirection, ScrollType};
use super::wire::internally_tagged;
use serde::{Deserialize, Serialize};
use serde_json::Value;

fn down() -> ScrollDirection {
    ScrollDirection::Down
}
fn wait_timeout() -> u32 {
    15_000
}
fn wait_interval() -> u32 {
    1_000
}

internally_tagged! {
    tag = "type", name = "Task";
    /// A task as `self.sightline.ai(tabId, task)` takes it: `{type: "aiTap", locate: "…"}`.
    #[derive(Clone, Debug, PartialEq, Serialize)]
    pub enum Task {
        #[serde(rename = "aiTap")]
        Tap { locate: String },
        #[serde(rename = "aiDoubleClick")]
        DoubleClick { locate: String },
        #[serde(rename = "aiRightClick")]
        RightClick { locate: String },
        #[serde(rename = "aiHover")]
        Hover { locate: String },
        #[serde(rename = "aiInput")]
        Input {
            locate: String,
            #[serde(default)]
            value: String,
            #[serde(default)]
            mode: InputMode,
        },
        #[serde(rename = "aiKeyboardPress")]
        KeyboardPress {
            key: String,
            /// Focus this element first (a click), else the key goes to what has focus.
            #[serde(default)]
            locate: Option<String>,
        },
        #[serde(rename = "aiScroll", rename_all = "camelCase")]
        Scroll {
            /// Scroll inside this element, else the page.
            #[serde(default)]
            locate: Option<String>,
            #[serde(default = "down")]
            direction: ScrollDirection,
            #[serde(default)]
            scroll_type: ScrollType,
            #[serde(default)]
            distance: Option<f64>,
        },
        #[serde(rename = "aiDrag")]
        Drag { from: String, to: String },
        /// Clicks the element (a file field, or the button that opens one) and gives the file
        /// chooser it opens these files: absolute paths on the machine the browser runs on.
        #[serde(rename = "aiUpload")]
        Upload { locate: String, files: Vec<String> },
        #[serde(rename = "aiLocate")]
        Locate { locate: String },
        /// `demand`: the data wanted, in words or as a JSON shape / JSON Schema.
        #[serde(rename = "aiQuery")]
        Query { demand: Value },
        #[serde(rename = "aiBoolean")]
        Boolean { question: String },
        #[serde(rename = "aiNumber")]
        Number { question: String },
        #[serde(rename = "aiString")]
        Text { question: String },
        #[serde(rename = "aiAsk")]
        Ask { question: String },
        #[serde(rename = "aiAssert")]
        Assert { assertion: String },
        #[serde(rename = "aiWaitFor", rename_all = "camelCase")]
        WaitFor {
            assertion: String,
            #[serde(default = "wait_timeout")]
            timeout_ms: u32,
            #[serde(default = "wait_interval")]
            interval_ms: u32,
        },
    }
}

impl Task {
    /// How the task reads in the panel and the run list.
    pub fn title(&self) -> String {
        let q = |s: &str| format!("\u{201c}{}\u{201d}", s.trim());
        match self {
            Task::Tap { locate } => format!("aiTap {}", q(locate)),
            Task::DoubleClick { locate } => format!("aiDoubleClick {}", q(locate)),
            Task::RightClick { locate } => format!("aiRightClick {}", q(locate)),
            Task::Hover { locate } => format!("aiHover {}", q(locate)),
            Task::Input { locate, value, .. } if locate.trim().is_empty() => {
                format!("aiInput type {} into what has focus", q(value))
            }
            Task::Input { locate, value, mode } => match mode {
                InputMode::Clear => format!("aiInput clear {}", q(locate)),
                InputMode::Append => format!("aiInput append {} to {}", q(value), q(locate)),
                InputMode::Replace => format!("aiInput {} into {}", q(value), q(locate)),
            },
            Task::KeyboardPress { key, locate } => format!(
                "aiKeyboardPress {key}{}",
                locate.as_deref().map(|l| format!(" in {}", q(l))).unwrap_or_default()
            ),
            Task::Scroll { locate, direction, scroll_type, .. } => format!(
                "aiScroll {}{}{}",
                direction.as_str(),
                if *scroll_type == ScrollType::UntilEdge { " to the end" } else { "" },
                locate.as_deref().map(|l| format!(" in {}", q(l))).unwrap_or_default()
            ),
            Task::Drag { from, to } => format!("aiDrag {} to {}", q(from), q(to)),
            Task::Upload { locate, files } => {
                let names: Vec<&str> = files.iter().map(|f| f.rsplit(['/', '\\']).next().unwrap_or(f)).collect();
                format!("aiUpload {} to {}", q(&names.join(", ")), q(locate))
            }
            Task::Locate { locate } => format!("aiLocate {}", q(locate)),
            Task::Query { demand } => format!("aiQuery {}", q(&demand_text(demand))),
            Task::Boolean { question } => format!("aiBoolean {}", q(question)),
            Task::Number { question } => format!("aiNumber {}", q(question)),
            Task::Text { question } => format!("aiString {}", q(question)),
            Task::Ask { question } => format!("aiAsk {}", q(question)),
            Task::Assert { assertion } => format!("aiAssert {}", q(assertion)),
            Task::WaitFor { assertion, .. } => format!("aiWaitFor {}", q(assertion)),
        }
    }

    pub fn check(&self) -> Result<(), TaskProblem> {
        let empty = |s: &str, problem: TaskProblem| if s.trim().is_empty() { Err(problem) } else { Ok(()) };
        match self {
            // Typing with no element: into what has focus (a flow's `aiInput` with `mode: typeOnly`).
            Task::Input { locate, mode: InputMode::Append, .. } if locate.trim().is_empty() => Ok(()),
            Task::Tap { locate }
            | Task::DoubleClick { locate }
            | Task::RightClick { locate }
            | Task::Hover { locate }
            | Task::Locate { locate }
            | Task::Input { locate, .. } => empty(locate, TaskProblem::EmptyLocate),
            Task::Drag { from, to } => {
                empty(from, TaskProblem::EmptyDragSource).and(empty(to, TaskProblem::EmptyDropTarget))
            }
            Task::Upload { locate, files } => {
                empty(locate, TaskProblem::EmptyLocate)?;
                if files.is_empty() {
                    return Err(TaskProblem::NoFiles);
                }
                match files.iter().find(|f| !is_absolute_path(f)) {
                    Some(f) => Err(TaskProblem::RelativePath(f.clone())),
                    None => Ok(()),
                }
            }
            Task::KeyboardPress { key, .. } if key.trim().is_empty() => Err(TaskProblem::NoKey),
            Task::Query { demand } if demand_text(demand).trim().is_empty() => Err(TaskProblem::EmptyQuery),
            Task::Boolean { question }
            | Task::Number { question }
            | Task::Text { question }
            | Task::Ask { question }
                if question.trim().is_empty() =>
            {
                Err(TaskProblem::EmptyQuestion)
            }
            Task::Assert { assertion } | Task::WaitFor { assertion, .. } if assertion.trim().is_empty() => {
                Err(TaskProblem::EmptyAssertion)
            }
            _ => Ok(()),
        }
    }
}

/// What is wrong with a task as given, before anything runs.
#[derive(Clone, Debug, PartialEq)]
pub enum TaskProblem {
    EmptyLocate,
    EmptyDragSource,
    EmptyDropTarget,
    NoFiles,
    RelativePath(String),
    NoKey,
    EmptyQuery,
    EmptyQuestion,
    EmptyAssertion,
}

impl TaskProblem {
    pub fn message(&self, lang: crate::i18n::Lang) -> String {
        let key = match self {
            TaskProblem::EmptyLocate => "task.empty_locate",
            TaskProblem::EmptyDragSource => "task.empty_drag_source",
            TaskProblem::EmptyDropTarget => "task.empty_drop_target",
            TaskProblem::NoFiles => "task.no_files",
            TaskProblem::RelativePath(_) => "task.relative_path",
            TaskProblem::NoKey => "task.no_key",
            TaskProblem::EmptyQuery => "task.empty_query",
            TaskProblem::EmptyQuestion => "task.empty_question",
            TaskProblem::EmptyAssertion => "task.empty_assertion",
        };
        match self {
            TaskProblem::RelativePath(path) => lang.say(key, &[("path", path)]),
            _ => lang.say(key, &[]),
        }
    }
}

impl std::fmt::Display for TaskProblem {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message(crate::i18n::Lang::En))
    }
}

/// `/home/me/a.pdf`, `C:\\Users\\me\\a.pdf`, `\\\\server\\share\\a.pdf`.
fn is_absolute_path(p: &str) -> bool {
    let b = p.as_bytes();
    p.starts_with('/')
        || p.starts_with("\\\\")
        || (b.len() > 2 && b[0].is_ascii_alphabetic() && b[1] == b':' && (b[2] == b'\\' || b[2] == b'/'))
}

pub fn demand_text(demand: &Value) -> String {
    match demand {
        Value::String(s) => s.clone(),
        other => format!(
            "JSON of this shape (a JSON Schema, or an example whose values say what goes there):\n{}",
            serde_json::to_string_pretty(other).unwrap_or_default()
        ),
    }
}

/// How a run answers the dialogs its actions raise.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum DialogPolicy {
    /// Ask the person (a run without one dismisses the dialog and fails the step).
    #[default]
    Ask,
    /// OK to every dialog: confirm true, a prompt its default text, beforeunload leaves.
    Accept,
    /// Cancel to every dialog: confirm false, a prompt null, beforeunload stays.
    Dismiss,
}

impl DialogPolicy {
    pub const NAMES: &'static str = "ask, accept, dismiss";

    pub fn from_name(name: &str) -> Option<Self> {
        match name.trim().to_ascii_lowercase().as_str() {
            "ask" => Some(DialogPolicy::Ask),
            "accept" => Some(DialogPolicy::Accept),
            "dismiss" => Some(DialogPolicy::Dismiss),
            _ => None,
        }
    }
}
