//! What a reply says, whatever its protocol: the plan, the ways reading it fails, and the small
//! readers every protocol shares.

use crate::vocab::actions::PlannedAction;
use serde::{Deserialize, Serialize};
use serde_json::Value;

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Plan {
    pub thought: String,
    pub actions: Vec<PlannedAction>,
    /// The instruction is complete once these actions have run.
    pub done: bool,
    /// The model reports it cannot do the instruction.
    pub error: Option<String>,
    /// What the model answers the person with when it is done (the data asked for, or what
    /// was done): `answer` in a JSON plan, `finished`'s text, MAI-UI's `answer`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub answer: Option<String>,
}

#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum ParseError {
    #[error("the reply is empty")]
    Empty,
    #[error("the reply holds no JSON object")]
    NoJson,
    #[error("the reply's JSON is broken: {0}")]
    BadJson(String),
    #[error("field `{field}`: {problem}")]
    Schema { field: String, problem: String },
    #[error("the coordinates \"{text}\": {problem}")]
    Coordinates { text: String, problem: String },
    #[error("the action \"{text}\": {problem}")]
    Action { text: String, problem: String },
}

/// Keys as models write them (`ctrl c`, `ctrl+c`, `Enter`) → `ctrl+c`, as `action::key_events` reads them.
pub(crate) fn key_combo(text: &str) -> String {
    text.split(|c: char| c.is_whitespace() || c == '+').filter(|k| !k.is_empty()).collect::<Vec<_>>().join("+")
}

/// Text to type into the focused field; a trailing newline means "and submit".
pub(crate) fn typed(content: &str) -> PlannedAction {
    PlannedAction::Type { value: content.trim_end_matches('\n').to_string(), submit: content.ends_with('\n') }
}

/// Element numbers arrive as 3, "3" or "[3]".
pub(crate) fn element_number(v: &Value) -> Option<u32> {
    match v {
        Value::Number(n) => n.as_u64().and_then(|n| u32::try_from(n).ok()),
        Value::String(s) => s.trim().trim_start_matches('[').trim_end_matches(']').parse().ok(),
        _ => None,
    }
}

/// An address as a model writes it (`example.com/a`, `https://…`), with the scheme a browser's
/// address bar would add; text that names no host (an app's name) stays as written and is
/// refused where it is opened.
pub(crate) fn web_address(text: &str) -> String {
    let t = text.trim();
    let has_scheme = t.split_once(':').is_some_and(|(s, _)| {
        !s.is_empty() && s.chars().all(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '.'))
    }) && !t.split_once(':').is_some_and(|(_, rest)| rest.starts_with(|c: char| c.is_ascii_digit()));
    let looks_like_host = !t.contains(char::is_whitespace) && (t.contains('.') || t.starts_with("localhost"));
    if has_scheme || !looks_like_host {
        t.to_string()
    } else {
        format!("https://{t}")
    }
}
