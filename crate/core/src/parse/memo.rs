//! The model's working memory in a reply, whatever its protocol: short notes it keeps for
//! itself and its next goal. The JSON plan carries them as the fields `notes` and
//! `next_goal`; every other family writes them as `Notes:` and `Next goal:` lines in its
//! reasoning (inside `<thinking>`, or before UI-TARS's `Action:`). Both are optional.

use crate::vocab::family::Protocol;
use serde_json::Value;

#[derive(Clone, Debug, Default, PartialEq)]
pub struct Memo {
    pub notes: Option<String>,
    pub next_goal: Option<String>,
}

const NOTES: &[&str] = &["notes", "note", "memory"];
const NEXT_GOAL: &[&str] = &["next goal", "next_goal", "next"];

/// The memo in `reply`, written in the way of `protocol`.
pub fn read_memo(protocol: Protocol, reply: &str) -> Memo {
    if protocol == Protocol::JsonPlan {
        let json = super::extract_json_object(reply).ok();
        let v: Option<Value> = json.and_then(|j| {
            serde_json::from_str(&j).ok().or_else(|| serde_json::from_str(&super::repair::repair_json(&j)).ok())
        });
        if let Some(v) = v {
            let field = |names: &[&str]| {
                names
                    .iter()
                    .find_map(|n| v.get(*n).and_then(Value::as_str))
                    .map(str::trim)
                    .filter(|s| !s.is_empty())
                    .map(str::to_string)
            };
            return Memo { notes: field(&["notes", "memory"]), next_goal: field(&["next_goal", "nextGoal"]) };
        }
    }
    Memo { notes: labelled(reply, NOTES), next_goal: labelled(reply, NEXT_GOAL) }
}

/// The rest of the first line that starts with one of `labels` and a colon.
fn labelled(reply: &str, labels: &[&str]) -> Option<String> {
    reply.lines().find_map(|line| label_value(line, labels)).map(str::to_string).filter(|s| !s.is_empty())
}

fn label_value<'a>(line: &'a str, labels: &[&str]) -> Option<&'a str> {
    let t = line.trim().trim_start_matches(['-', '*', ' ']);
    let (head, value) = t.split_once(':').or_else(|| t.split_once('：'))?;
    let head = head.trim().trim_matches('*').trim().to_ascii_lowercase();
    // A tag on the same line (`</thinking>`) ends the value.
    let value = value.split('<').next().unwrap_or_default();
    labels.contains(&head.as_str()).then(|| value.trim())
}

/// A reasoning text without its memo lines: the thought as the timeline shows it.
pub fn without_memo(thought: &str) -> String {
    thought
        .lines()
        .filter(|l| label_value(l, NOTES).is_none() && label_value(l, NEXT_GOAL).is_none())
        .collect::<Vec<_>>()
        .join("\n")
        .trim()
        .to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn json_plans_carry_the_memo_as_fields() {
        let reply = r#"```json
{"thought": "open the lamp", "notes": "lamp costs $49; cart empty", "next_goal": "add it to the cart", "actions": [], "done": false}
```"#;
        let m = read_memo(Protocol::JsonPlan, reply);
        assert_eq!(m.notes.as_deref(), Some("lamp costs $49; cart empty"));
        assert_eq!(m.next_goal.as_deref(), Some("add it to the cart"));
        assert_eq!(
            read_memo(Protocol::JsonPlan, r#"{"nextGoal": "pay", "actions": []}"#).next_goal.as_deref(),
            Some("pay")
        );
        assert_eq!(read_memo(Protocol::JsonPlan, r#"{"actions": []}"#), Memo::default());
    }

    #[test]
    fn the_other_families_write_labelled_lines() {
        let tars =
            "Thought: The cart is open.\nNotes: total $98\nNext goal: go to checkout\nAction: click(start_box='(1,2)')";
        let m = read_memo(Protocol::UiTars, tars);
        assert_eq!((m.notes.as_deref(), m.next_goal.as_deref()), (Some("total $98"), Some("go to checkout")));
        let mai = "<thinking>Tap it.\n**Notes**： 2 lamps\nnext goal: pay</thinking><tool_call>{}</tool_call>";
        let m = read_memo(Protocol::MaiUi, mai);
        assert_eq!((m.notes.as_deref(), m.next_goal.as_deref()), (Some("2 lamps"), Some("pay")));
        assert_eq!(read_memo(Protocol::FunctionCalls, "<thinking>tap</thinking>[]"), Memo::default());
        assert_eq!(without_memo("The cart is open.\nNotes: total $98\nNext goal: go"), "The cart is open.");
    }
}
