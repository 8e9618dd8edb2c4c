//! The task schema as plain data, for the JavaScript that builds tasks: the worker's
//! `self.sightline.aiTap(tabId, locate, …)` functions and the panel's task form. It comes from
//! [`Task`] itself (names from its serde form, one field list per variant checked against it
//! by the tests below), so no list of task kinds or fields is written a second time in JS.

use crate::vocab::actions::{InputMode, ScrollDirection, ScrollType};
use crate::vocab::tasks::Task;
use serde::Serialize;

/// One kind of task: `{type: "aiInput", group: "act", fields: [...], args: ["locate", "value"]}`.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct TaskKind {
    /// The task's `type`, as `Task` reads it.
    #[serde(rename = "type")]
    pub name: String,
    pub group: TaskGroup,
    /// Every field, in the order the task is written.
    pub fields: Vec<TaskField>,
    /// The fields a script passes in order, before an options object: the required ones and
    /// the text an aiInput types.
    pub args: Vec<&'static str>,
}

/// What a task does, as the panel groups them.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub enum TaskGroup {
    /// Acts on (or finds) one element.
    Act,
    /// Reads data off the page.
    Read,
    /// Judges the page.
    Check,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct TaskField {
    pub name: &'static str,
    pub kind: FieldKind,
    /// Without it the task is not read (serde has no default for it).
    pub required: bool,
    /// The values a `choice` field takes, as `Task` reads them.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub choices: Vec<String>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub enum FieldKind {
    /// Words naming an element or a question about the page (trimmed).
    Description,
    /// Text typed as written.
    Text,
    /// A key name (`Enter`, `Control+A`).
    Key,
    /// Absolute file paths.
    Paths,
    /// Words, or a JSON shape / JSON Schema.
    Data,
    /// One of `choices`.
    Choice,
    /// Milliseconds or pixels.
    Number,
}

/// Every kind of task, in the order the panel lists them.
pub fn task_schema() -> Vec<TaskKind> {
    examples().iter().map(kind_of).collect()
}

/// One task of each kind, every field set: the schema's source for the names.
fn examples() -> Vec<Task> {
    let s = String::new;
    vec![
        Task::Tap { locate: s() },
        Task::DoubleClick { locate: s() },
        Task::RightClick { locate: s() },
        Task::Hover { locate: s() },
        Task::Input { locate: s(), value: s(), mode: InputMode::Replace },
        Task::KeyboardPress { key: s(), locate: Some(s()) },
        Task::Scroll {
            locate: Some(s()),
            direction: ScrollDirection::Down,
            scroll_type: ScrollType::Once,
            distance: Some(0.0),
        },
        Task::Drag { from: s(), to: s() },
        Task::Upload { locate: s(), files: vec![] },
        Task::Locate { locate: s() },
        Task::Query { demand: serde_json::Value::String(s()) },
        Task::Text { question: s() },
        Task::Number { question: s() },
        Task::Boolean { question: s() },
        Task::Ask { question: s() },
        Task::Assert { assertion: s() },
        Task::WaitFor { assertion: s(), timeout_ms: 0, interval_ms: 0 },
    ]
}

fn kind_of(task: &Task) -> TaskKind {
    use FieldKind::*;
    let field = |name, kind, required| TaskField { name, kind, required, choices: vec![] };
    let choice = |name, choices| TaskField { name, kind: Choice, required: false, choices };
    let locate = || field("locate", Description, true);
    let (group, fields) = match task {
        Task::Tap { .. }
        | Task::DoubleClick { .. }
        | Task::RightClick { .. }
        | Task::Hover { .. }
        | Task::Locate { .. } => (TaskGroup::Act, vec![locate()]),
        Task::Input { .. } => (
            TaskGroup::Act,
            vec![
                locate(),
                field("value", Text, false),
                choice("mode", names(&[InputMode::Replace, InputMode::Append, InputMode::Clear])),
            ],
        ),
        Task::KeyboardPress { .. } => {
            (TaskGroup::Act, vec![field("key", Key, true), field("locate", Description, false)])
        }
        Task::Scroll { .. } => (
            TaskGroup::Act,
            vec![
                field("locate", Description, false),
                choice(
                    "direction",
                    names(&[ScrollDirection::Down, ScrollDirection::Up, ScrollDirection::Left, ScrollDirection::Right]),
                ),
                choice("scrollType", names(&[ScrollType::Once, ScrollType::UntilEdge])),
                field("distance", Number, false),
            ],
        ),
        Task::Drag { .. } => (TaskGroup::Act, vec![field("from", Description, true), field("to", Description, true)]),
        Task::Upload { .. } => (TaskGroup::Act, vec![locate(), field("files", Paths, true)]),
        Task::Query { .. } => (TaskGroup::Read, vec![field("demand", Data, true)]),
        Task::Text { .. } | Task::Number { .. } | Task::Boolean { .. } | Task::Ask { .. } => {
            (TaskGroup::Read, vec![field("question", Description, true)])
        }
        Task::Assert { .. } => (TaskGroup::Check, vec![field("assertion", Description, true)]),
        Task::WaitFor { .. } => (
            TaskGroup::Check,
            vec![
                field("assertion", Description, true),
                field("timeoutMs", Number, false),
                field("intervalMs", Number, false),
            ],
        ),
    };
    let args = fields.iter().filter(|f| f.required || f.kind == Text).map(|f| f.name).collect();
    TaskKind { name: type_name(task), group, fields, args }
}

fn type_name(task: &Task) -> String {
    written(task).and_then(|v| Some(v.get("type")?.as_str()?.to_string())).unwrap_or_default()
}

/// Enum values as serde writes them.
fn names<T: Serialize>(values: &[T]) -> Vec<String> {
    values.iter().filter_map(|v| Some(written(v)?.as_str()?.to_string())).collect()
}

/// A value as serde_json writes it, read back: through its text, as the module writes tasks
/// anyway (`to_value` compiled a second writer of every task).
fn written<T: Serialize>(value: &T) -> Option<serde_json::Value> {
    serde_json::from_str(&serde_json::to_string(value).ok()?).ok()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::{json, Map, Value};
    use std::collections::BTreeSet;

    /// Every variant, by number: a new kind of task does not compile here until it is listed
    /// in `examples()` (the test below checks the numbers are all there).
    fn variant_no(task: &Task) -> usize {
        match task {
            Task::Tap { .. } => 0,
            Task::DoubleClick { .. } => 1,
            Task::RightClick { .. } => 2,
            Task::Hover { .. } => 3,
            Task::Input { .. } => 4,
            Task::KeyboardPress { .. } => 5,
            Task::Scroll { .. } => 6,
            Task::Drag { .. } => 7,
            Task::Upload { .. } => 8,
            Task::Locate { .. } => 9,
            Task::Query { .. } => 10,
            Task::Text { .. } => 11,
            Task::Number { .. } => 12,
            Task::Boolean { .. } => 13,
            Task::Ask { .. } => 14,
            Task::Assert { .. } => 15,
            Task::WaitFor { .. } => 16,
        }
    }

    #[test]
    fn every_kind_of_task_is_listed_once() {
        let numbers: Vec<usize> = examples().iter().map(variant_no).collect();
        assert_eq!(numbers, (0..17).collect::<Vec<_>>());
        let names: BTreeSet<String> = task_schema().into_iter().map(|k| k.name).collect();
        assert_eq!(names.len(), 17);
        assert!(names.iter().all(|n| n.starts_with("ai")), "{names:?}");
    }

    /// A value `Task` reads for a field of this kind.
    fn sample(field: &TaskField) -> Value {
        match field.kind {
            FieldKind::Paths => json!(["/tmp/a.txt"]),
            FieldKind::Number => json!(500),
            FieldKind::Choice => json!(field.choices.last().expect("a choice field has choices")),
            _ => json!("the Save button"),
        }
    }

    #[test]
    fn the_fields_are_the_ones_task_reads_and_writes() {
        for (example, kind) in examples().iter().zip(task_schema()) {
            let written: BTreeSet<String> = match serde_json::to_value(example).unwrap() {
                Value::Object(map) => map.keys().filter(|k| *k != "type").cloned().collect(),
                other => panic!("{other}"),
            };
            let listed: BTreeSet<String> = kind.fields.iter().map(|f| f.name.to_string()).collect();
            assert_eq!(written, listed, "{}", kind.name);

            // All fields given: read, every choice and value as listed.
            let mut full = Map::new();
            full.insert("type".into(), json!(kind.name));
            for f in &kind.fields {
                full.insert(f.name.into(), sample(f));
            }
            let read: Task =
                serde_json::from_value(Value::Object(full.clone())).unwrap_or_else(|e| panic!("{}: {e}", kind.name));
            assert_eq!(type_name(&read), kind.name);
            for f in kind.fields.iter().filter(|f| f.kind == FieldKind::Choice) {
                for c in &f.choices {
                    let mut one = full.clone();
                    one.insert(f.name.into(), json!(c));
                    serde_json::from_value::<Task>(Value::Object(one))
                        .unwrap_or_else(|e| panic!("{} {}={c}: {e}", kind.name, f.name));
                }
            }
            // Each field left out: read exactly when it is not required.
            for f in &kind.fields {
                let mut without = full.clone();
                without.remove(f.name);
                let ok = serde_json::from_value::<Task>(Value::Object(without)).is_ok();
                assert_eq!(ok, !f.required, "{} without {}", kind.name, f.name);
            }
        }
    }

    #[test]
    fn choices_are_every_value_of_their_enum() {
        let schema = task_schema();
        let choices = |task: &str, field: &str| {
            let kind = schema.iter().find(|k| k.name == task).unwrap();
            kind.fields.iter().find(|f| f.name == field).unwrap().choices.clone()
        };
        // Exhaustive matches: a new value does not compile until it is listed in kind_of.
        let _ = |m: InputMode| match m {
            InputMode::Replace | InputMode::Append | InputMode::Clear => (),
        };
        let _ = |d: ScrollDirection| match d {
            ScrollDirection::Up | ScrollDirection::Down | ScrollDirection::Left | ScrollDirection::Right => (),
        };
        let _ = |t: ScrollType| match t {
            ScrollType::Once | ScrollType::UntilEdge => (),
        };
        assert_eq!(choices("aiInput", "mode"), ["replace", "append", "clear"]);
        assert_eq!(choices("aiScroll", "direction"), ["down", "up", "left", "right"]);
        assert_eq!(choices("aiScroll", "scrollType"), ["once", "untilEdge"]);
    }

    #[test]
    fn script_arguments_are_the_required_fields_and_typed_text() {
        let args = |name: &str| task_schema().into_iter().find(|k| k.name == name).unwrap().args;
        assert_eq!(args("aiTap"), ["locate"]);
        assert_eq!(args("aiInput"), ["locate", "value"]);
        assert_eq!(args("aiKeyboardPress"), ["key"]);
        assert!(args("aiScroll").is_empty());
        assert_eq!(args("aiDrag"), ["from", "to"]);
        assert_eq!(args("aiUpload"), ["locate", "files"]);
        assert_eq!(args("aiQuery"), ["demand"]);
        assert_eq!(args("aiWaitFor"), ["assertion"]);
    }
}
