//! The panel's history search: which kept runs a person's query finds.
//!
//! A query is words (split at whitespace) and `"quoted phrases"`; a run matches when every one
//! of them occurs, case and width folded, in what the person sees of the run: its instruction,
//! its page's address and title, the task it ran, its flow's task names and its steps' actions. The
//! empty query matches every run. The order of the runs is kept.

use serde::Deserialize;

/// What the search reads of a kept run (a run record's fields of the same names; the rest is
/// ignored, so a record of any version is read).
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct RunText {
    pub id: String,
    pub instruction: String,
    pub url: String,
    pub title: Option<String>,
    pub steps: Vec<StepText>,
    pub task: Option<serde_json::Value>,
    pub flow: Option<serde_json::Value>,
}

/// What the search reads of a step: its action as the timeline shows it.
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct StepText {
    pub action: String,
}

/// The words and phrases of `query`, folded: `"a b"` is one phrase, the rest split at
/// whitespace; an unclosed quote runs to the end.
pub fn terms(query: &str) -> Vec<String> {
    let mut out = Vec::new();
    for (i, part) in query.split('"').enumerate() {
        if i % 2 == 1 {
            let phrase = fold(part.trim());
            if !phrase.is_empty() {
                out.push(phrase);
            }
        } else {
            out.extend(part.split_whitespace().map(fold));
        }
    }
    out
}

/// Lower case, with full-width ASCII (as CJK input methods type it) read as ASCII.
fn fold(text: &str) -> String {
    text.chars()
        .map(|c| match c {
            '\u{FF01}'..='\u{FF5E}' => char::from_u32(c as u32 - 0xFEE0).unwrap_or(c),
            '\u{3000}' => ' ',
            c => c,
        })
        .flat_map(char::to_lowercase)
        .collect()
}

/// The run's searchable text, folded.
fn haystack(run: &RunText) -> String {
    let mut parts: Vec<String> = vec![run.instruction.clone(), run.url.clone(), run.title.clone().unwrap_or_default()];
    if let Some(task) = &run.task {
        parts.push(strings(task).join(" "));
    }
    let tasks = run.flow.as_ref().and_then(|f| f.pointer("/flow/tasks")).and_then(|t| t.as_array());
    parts.extend(tasks.into_iter().flatten().filter_map(|t| t.get("name")?.as_str().map(str::to_string)));
    parts.extend(run.steps.iter().map(|s| s.action.clone()));
    fold(&parts.join("\n"))
}

/// Every string in a JSON value (a task's type, its description, its value).
fn strings(value: &serde_json::Value) -> Vec<String> {
    match value {
        serde_json::Value::String(s) => vec![s.clone()],
        serde_json::Value::Array(items) => items.iter().flat_map(strings).collect(),
        serde_json::Value::Object(map) => map.values().flat_map(strings).collect(),
        _ => Vec::new(),
    }
}

/// Whether `run` holds every term of `query`.
pub fn matches(run: &RunText, query: &str) -> bool {
    let terms = terms(query);
    terms.is_empty() || {
        let text = haystack(run);
        terms.iter().all(|t| text.contains(t.as_str()))
    }
}

/// The ids of the `runs` that `query` finds, in their order.
pub fn search(runs: &[RunText], query: &str) -> Vec<String> {
    runs.iter().filter(|run| matches(run, query)).map(|run| run.id.clone()).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn run(value: serde_json::Value) -> RunText {
        serde_json::from_value(value).unwrap()
    }

    fn sample() -> Vec<RunText> {
        vec![
            run(json!({"id": "a", "instruction": "Add a todo ‘buy milk’", "url": "http://127.0.0.1:8080/todo.html",
                "title": "todos", "status": "succeeded", "steps": [{"action": "input \"What needs to be done?\""}], "usage": {}})),
            run(
                json!({"id": "b", "instruction": "aiTap", "url": "https://shop.example/cart", "task": {"type": "aiTap", "locate": "the Checkout button"},
                "steps": [{"action": "tap \"Checkout\""}]}),
            ),
            run(
                json!({"id": "c", "instruction": "Flow", "url": "https://shop.example/", "flow": {"flow": {"tasks": [{"name": "nightly checkout", "steps": []}]}, "items": []},
                "steps": []}),
            ),
        ]
    }

    #[test]
    fn every_word_must_occur_anywhere_in_the_run_case_folded() {
        let runs = sample();
        assert_eq!(search(&runs, "MILK todo"), vec!["a"]);
        assert_eq!(search(&runs, "milk checkout"), Vec::<String>::new());
        // The address, the task's words, the flow's task names, the steps' actions.
        assert_eq!(search(&runs, "shop.example"), vec!["b", "c"]);
        assert_eq!(search(&runs, "checkout button"), vec!["b"]);
        assert_eq!(search(&runs, "nightly"), vec!["c"]);
        assert_eq!(search(&runs, "needs"), vec!["a"]);
    }

    #[test]
    fn a_quoted_phrase_must_occur_whole() {
        let runs = sample();
        assert_eq!(search(&runs, "\"buy milk\""), vec!["a"]);
        assert_eq!(search(&runs, "\"milk buy\""), Vec::<String>::new());
        // An unclosed quote runs to the end; empty quotes are no term.
        assert_eq!(search(&runs, "todo \"buy mi"), vec!["a"]);
        assert_eq!(search(&runs, "\"\" cart"), vec!["b"]);
    }

    #[test]
    fn the_empty_query_finds_every_run_in_order() {
        let runs = sample();
        assert_eq!(search(&runs, ""), vec!["a", "b", "c"]);
        assert_eq!(search(&runs, "  \t "), vec!["a", "b", "c"]);
        assert!(matches(&runs[0], ""));
    }

    #[test]
    fn full_width_letters_match_their_ascii() {
        let runs = sample();
        assert_eq!(search(&runs, "ＭＩＬＫ"), vec!["a"]);
        assert!(matches(&runs[1], "ｓｈｏｐ"));
        assert!(!matches(&runs[1], "ｍｉｌｋ"));
    }

    #[test]
    fn a_record_of_another_shape_is_still_read() {
        let old = run(json!({"id": "z", "instruction": "old run", "steps": [{"kind": "act"}], "extra": 1}));
        assert!(matches(&old, "old"));
        assert_eq!(terms("a  \"b c\"  d"), vec!["a", "b c", "d"]);
    }
}
