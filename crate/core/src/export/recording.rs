//! A run as replayable steps: what each exporter writes out, in its own language.
//!
//! A task run is one step named by the task itself (its locate prompt, value, answer); an
//! instruction run is the actions that ran, each on the element the run resolved, described in
//! words (the element's summary) and by its XPaths.

use crate::action::KeyCombo;
use crate::agent::record::{Run, StepKind, StepStatus, TargetInfo};
use crate::describe::locators::Locators;
use crate::describe::xpath::{element_of, TREE_SEPARATOR};
use crate::vocab::actions::InputMode;
use crate::vocab::actions::ScrollType;
use crate::vocab::actions::{ElementCheck, MouseButton, PlannedAction, ScrollDirection};
use crate::vocab::tasks::Task;
use serde_json::Value;

#[derive(Clone, Debug, PartialEq)]
pub struct Recording {
    /// The instruction or task title.
    pub title: String,
    /// Where the run started.
    pub url: String,
    pub steps: Vec<RecStep>,
    /// The run's language: the comments exports write are in it.
    pub language: crate::i18n::Lang,
}

/// An element as exports find it again: words for a model, XPaths for a script.
#[derive(Clone, Debug, PartialEq)]
pub struct Target {
    /// What a person (or Midscene's model) would call it.
    pub describe: String,
    /// Order-sensitive path; segments joined by ` >>> ` cross frames and shadow roots. A text's
    /// names the text node (Midscene's flows take it so); scripts act on the element holding it
    /// (`segments`, `element_xpath_text`).
    pub xpath: String,
    /// Text-based path, where the text names one element.
    pub xpath_text: Option<String>,
    /// For a text: its centre from the top-left of the element holding it, as read when the
    /// step acted (`LocatorData::holder_point`).
    pub holder_point: Option<crate::describe::locators::HolderPoint>,
    /// Its centre when recorded, viewport CSS px.
    pub point: (f64, f64),
    /// Its width and height when recorded.
    pub size: (f64, f64),
    /// Lower-case tag name (a `select` is chosen from, not typed into).
    pub tag: String,
    /// Role and name, label, placeholder, test id, text: how Playwright and the Recorder find
    /// it by what a person sees (absent in records made before they were read).
    pub locators: Option<Locators>,
}

impl Target {
    fn of(info: &TargetInfo, describe: Option<&str>) -> Self {
        let (x, y) = info.rect.center();
        Target {
            describe: describe.map(str::trim).filter(|d| !d.is_empty()).unwrap_or(&info.summary).to_string(),
            xpath: info.xpath.clone(),
            xpath_text: info.xpath_text.clone(),
            holder_point: info.holder_point,
            point: (x, y),
            size: (info.rect.width, info.rect.height),
            tag: info.tag.clone(),
            locators: info.locators.clone(),
        }
    }

    /// The path segments of the element a script acts on (for a text, the element holding it:
    /// a Playwright locator for a text node never resolves), one per document or shadow tree
    /// (frames and shadow hosts first).
    pub fn segments(&self) -> Vec<&str> {
        element_of(&self.xpath).split(TREE_SEPARATOR).collect()
    }

    /// `xpath_text` of the element a script acts on (see `segments`).
    pub fn element_xpath_text(&self) -> Option<&str> {
        self.xpath_text.as_deref().map(element_of)
    }

    /// Where a script clicks inside the element it acts on, from its top-left: for a text, the
    /// text's centre in the element holding it, where read (else that element's middle: the
    /// text may share it with other content); None for an element (its middle).
    pub fn click_offset(&self) -> Option<crate::describe::locators::HolderPoint> {
        (element_of(&self.xpath) != self.xpath).then_some(self.holder_point).flatten()
    }

    /// True when the target is a text (its path names a text node): scripts reach the element
    /// holding it, whose text may hold more than this one.
    pub fn is_text(&self) -> bool {
        element_of(&self.xpath) != self.xpath
    }

    /// True when the element sits in the top document (no frame or shadow root between).
    pub fn in_top_document(&self) -> bool {
        !self.xpath.contains(TREE_SEPARATOR)
    }
}

#[derive(Clone, Debug, PartialEq)]
pub enum Op {
    Tap,
    DoubleClick,
    RightClick,
    Hover,
    /// Replace the field's content (`append`: add to it).
    Input {
        value: String,
        append: bool,
    },
    /// Type into whatever has focus.
    Type {
        value: String,
    },
    /// A key, read once through the key table (`ctrl+c` is `Control+c` in every export).
    Key {
        key: KeyCombo,
    },
    Scroll {
        direction: ScrollDirection,
        distance: Option<f64>,
        to_edge: bool,
    },
    /// Drag the target onto `to` (an element, or a point when only a point is known).
    Drag {
        /// Boxed: a target with its locators is several times the size of any other op.
        to: Option<Box<Target>>,
        to_point: (f64, f64),
        to_describe: String,
    },
    Upload {
        files: Vec<String>,
    },
    Wait {
        ms: u32,
    },
    /// Open a web address.
    Navigate {
        url: String,
    },
    /// Choose an option by its text (`value`: the option's value, when known).
    Select {
        option: String,
        value: Option<String>,
    },
    /// Back, forward or reload: the browser's history.
    History {
        go: History,
    },
    /// Wait until the page shows (or no longer shows) a text.
    WaitText {
        text: String,
        gone: bool,
        timeout_ms: u32,
    },
    /// A question answered from the page: `kind` is the Midscene flow key (aiQuery, aiString…).
    Read {
        kind: &'static str,
        prompt: Value,
        answer: Option<Value>,
    },
    Locate,
    Assert {
        assertion: String,
    },
    WaitFor {
        assertion: String,
        timeout_ms: u32,
    },
    /// A check the person recorded on the target: its text or value reads `expected`, or it
    /// is visible. Replays with no model, as scripts' assertions do.
    Check {
        check: ElementCheck,
        expected: String,
    },
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum History {
    Back,
    Forward,
    Reload,
}

#[derive(Clone, Debug, PartialEq)]
pub struct RecStep {
    pub op: Op,
    pub target: Option<Target>,
    /// The step as the panel captioned it.
    pub caption: String,
    pub duration_ms: f64,
    /// The screenshot taken with it (an image reference), if any.
    pub screenshot: Option<String>,
}

/// The steps of a run that can be replayed: actions that ran, in order. Failed actions are
/// left out (the run went on without them); a task run is its task.
pub fn recording_of(run: &Run) -> Recording {
    if let Some(flow) = &run.flow {
        // A flow run: each item's steps, as the item would record alone.
        let steps = flow.item_runs(run).iter().flat_map(|part| recording_of(part).steps).collect();
        return Recording { title: run.instruction.clone(), url: run.url.clone(), steps, language: run.language };
    }
    let steps = match &run.task {
        Some(task) => task_steps(run, task),
        None => run
            .steps
            .iter()
            .filter(|s| s.kind == StepKind::Action && s.status == StepStatus::Ok)
            .flat_map(action_steps)
            .collect(),
    };
    Recording { title: run.instruction.clone(), url: run.url.clone(), steps, language: run.language }
}

fn action_steps(step: &crate::agent::record::Step) -> Vec<RecStep> {
    let Some(planned) = step.planned.as_ref() else { return Vec::new() };
    let target = step.target.as_ref().map(|t| Target::of(t, step.locate.as_deref()));
    let one = |op: Op| {
        vec![RecStep {
            op,
            target: target.clone(),
            caption: step.action.clone(),
            duration_ms: step.duration_ms,
            screenshot: step.screenshot.clone(),
        }]
    };
    match planned {
        PlannedAction::Tap { .. } => one(Op::Tap),
        PlannedAction::TapAt { clicks, button, .. } => one(match (button, clicks) {
            (MouseButton::Right, _) => Op::RightClick,
            (_, 2..) => Op::DoubleClick,
            _ => Op::Tap,
        }),
        PlannedAction::HoverAt { .. } => one(Op::Hover),
        PlannedAction::Input { value, .. } => one(Op::Input { value: value.clone(), append: false }),
        PlannedAction::Type { value, submit } => {
            // A grounding model's "type": into the element it resolved, else into the focus.
            let mut steps = one(match &target {
                Some(_) => Op::Input { value: value.clone(), append: false },
                None => Op::Type { value: value.clone() },
            });
            if *submit {
                steps.push(RecStep {
                    op: Op::Key { key: key_of("Enter") },
                    target: None,
                    caption: "Press Enter".into(),
                    duration_ms: 0.0,
                    screenshot: None,
                });
            }
            steps
        }
        PlannedAction::KeyPress { key } => one(Op::Key { key: key_of(key) }),
        PlannedAction::Scroll { direction, distance, .. } | PlannedAction::ScrollAt { direction, distance, .. } => {
            one(Op::Scroll { direction: *direction, distance: *distance, to_edge: false })
        }
        PlannedAction::DragAt { to, .. } => {
            one(Op::Drag { to: None, to_point: *to, to_describe: format!("the point ({:.0}, {:.0})", to.0, to.1) })
        }
        PlannedAction::Wait { ms } => one(Op::Wait { ms: *ms }),
        PlannedAction::Navigate { url } => one(Op::Navigate { url: url.clone() }),
        PlannedAction::DoubleClick { .. } => one(Op::DoubleClick),
        PlannedAction::RightClick { .. } => one(Op::RightClick),
        PlannedAction::Hover { .. } => one(Op::Hover),
        PlannedAction::Append { value, .. } => one(Op::Input { value: value.clone(), append: true }),
        PlannedAction::Clear { .. } => one(Op::Input { value: String::new(), append: false }),
        PlannedAction::Select { option, value, .. } => one(Op::Select { option: option.clone(), value: value.clone() }),
        PlannedAction::SelectAt { option, .. } => one(Op::Select { option: option.clone(), value: None }),
        PlannedAction::ScrollToEdge { direction, .. } => {
            one(Op::Scroll { direction: *direction, distance: None, to_edge: true })
        }
        PlannedAction::Upload { files, .. } => one(Op::Upload { files: files.clone() }),
        PlannedAction::Expect { check, expected, .. } => one(Op::Check { check: *check, expected: expected.clone() }),
        PlannedAction::WaitFor { text, gone, timeout_ms } => {
            one(Op::WaitText { text: text.clone(), gone: *gone, timeout_ms: *timeout_ms })
        }
        PlannedAction::Back => one(Op::History { go: History::Back }),
        PlannedAction::Forward => one(Op::History { go: History::Forward }),
        PlannedAction::Reload => one(Op::History { go: History::Reload }),
        // Scrolling an element into view happens on its own where a replay acts on it; notes
        // and tabs have no step in the exported formats (a tab's page is opened by its address).
        PlannedAction::OpenTab { url } => one(Op::Navigate { url: url.clone() }),
        // A drag runs (and is recorded) as the points it went between.
        PlannedAction::Drag { .. }
        | PlannedAction::ScrollTo { .. }
        | PlannedAction::SwitchTab { .. }
        | PlannedAction::CloseTab
        | PlannedAction::Remember { .. }
        | PlannedAction::AskUser { .. }
        | PlannedAction::Tool { .. } => Vec::new(),
    }
}

fn task_steps(run: &Run, task: &Task) -> Vec<RecStep> {
    // The elements the task resolved, in order (a drag resolves two).
    let mut targets = run.steps.iter().filter_map(|s| s.target.as_ref());
    let mut next = |describe: &str| targets.next().map(|t| Target::of(t, Some(describe)));
    let answer = run.result.clone();
    let read = |kind: &'static str, prompt: Value| Op::Read { kind, prompt, answer: answer.clone() };
    let (op, target) = match task {
        Task::Tap { locate } => (Op::Tap, next(locate)),
        Task::DoubleClick { locate } => (Op::DoubleClick, next(locate)),
        Task::RightClick { locate } => (Op::RightClick, next(locate)),
        Task::Hover { locate } => (Op::Hover, next(locate)),
        Task::Locate { locate } => (Op::Locate, next(locate)),
        Task::Input { locate, value, .. } if locate.trim().is_empty() => (Op::Type { value: value.clone() }, None),
        Task::Input { locate, value, mode } => {
            let value = if *mode == InputMode::Clear { String::new() } else { value.clone() };
            (Op::Input { value, append: *mode == InputMode::Append }, next(locate))
        }
        Task::KeyboardPress { key, locate } => (Op::Key { key: key_of(key) }, locate.as_deref().and_then(&mut next)),
        Task::Scroll { locate, direction, scroll_type, distance } => (
            Op::Scroll { direction: *direction, distance: *distance, to_edge: *scroll_type == ScrollType::UntilEdge },
            locate.as_deref().and_then(&mut next),
        ),
        Task::Drag { from, to } => {
            let source = next(from);
            let dest = next(to);
            let to_point = dest.as_ref().map_or((0.0, 0.0), |d| d.point);
            (Op::Drag { to: dest.map(Box::new), to_point, to_describe: to.clone() }, source)
        }
        Task::Upload { locate, files } => (Op::Upload { files: files.clone() }, next(locate)),
        Task::Query { demand } => (read("aiQuery", demand.clone()), None),
        Task::Boolean { question } => (read("aiBoolean", Value::String(question.clone())), None),
        Task::Number { question } => (read("aiNumber", Value::String(question.clone())), None),
        Task::Text { question } => (read("aiString", Value::String(question.clone())), None),
        Task::Ask { question } => (read("aiAsk", Value::String(question.clone())), None),
        Task::Assert { assertion } => (Op::Assert { assertion: assertion.clone() }, None),
        Task::WaitFor { assertion, timeout_ms, .. } => {
            (Op::WaitFor { assertion: assertion.clone(), timeout_ms: *timeout_ms }, None)
        }
    };
    let ok = run.status == crate::agent::record::RunStatus::Succeeded;
    // A task that failed to find its element has nothing to replay; checks are kept either way.
    let needs_target = matches!(
        op,
        Op::Tap
            | Op::DoubleClick
            | Op::RightClick
            | Op::Hover
            | Op::Input { .. }
            | Op::Upload { .. }
            | Op::Drag { .. }
            | Op::Locate
    );
    if needs_target && (target.is_none() || !ok) {
        return Vec::new();
    }
    let duration_ms = run.ended_ms.map_or(0.0, |end| end - run.started_ms);
    let screenshot = run.steps.iter().rev().find_map(|s| s.screenshot.clone());
    vec![RecStep { op, target, caption: run.instruction.clone(), duration_ms, screenshot }]
}

/// The key as the key table names it; one it does not know (a press that cannot have run, as
/// the replay refuses it too) is kept as written.
pub fn key_of(written: &str) -> KeyCombo {
    KeyCombo::parse(written).unwrap_or_else(|_| KeyCombo { modifiers: Vec::new(), key: written.to_string() })
}
