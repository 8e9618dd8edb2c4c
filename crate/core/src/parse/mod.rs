//! Reading a model's reply into typed actions.
//!
//! The JSON-plan protocol (see `prompt`): the reply is one JSON object, possibly wrapped in a
//! code fence and preceded by `<think>` blocks. Every failure says what was wrong and where,
//! so the message can go back to the model or to the person.

pub mod answer;
pub mod coords;
mod json_text;
mod plan;
pub mod repair;
pub mod tool_calls;
pub mod ui_tars;

pub use json_text::extract_json_object;
pub use plan::{ParseError, Plan};

use crate::vocab::actions::{PlannedAction, ScrollDirection};
use crate::vocab::family::CoordSpace;
use plan::element_number;
use serde_json::Value;

fn schema(field: impl Into<String>, problem: impl Into<String>) -> ParseError {
    ParseError::Schema { field: field.into(), problem: problem.into() }
}

/// Parses a reply in the protocol of `family`; coordinates are mapped to CSS pixels through
/// the mapping of the screenshot the model saw (required by families that ground on images).
pub fn parse_reply(
    family: crate::vocab::family::ModelFamily,
    reply: &str,
    mapping: Option<&crate::vision::ImageMapping>,
) -> Result<Plan, ParseError> {
    use crate::vocab::family::Protocol;
    let need_mapping = || {
        mapping.ok_or_else(|| ParseError::Action {
            text: String::new(),
            problem: "this model family needs a screenshot to point at; switch screenshots on in Settings".into(),
        })
    };
    match (family.protocol(), family.coord_space()) {
        (Protocol::JsonPlan, _) => parse_plan(reply),
        // Element-numbering calls need no screenshot; a point, if one comes anyway, is read on
        // the screenshot when there is one (without, it lies outside an empty image).
        (Protocol::FunctionCalls, None) => {
            let none = crate::vision::ImageMapping::identity(0, 0, 1.0);
            tool_calls::parse_function_calls(reply, CoordSpace::ImagePixels, mapping.unwrap_or(&none))
        }
        (Protocol::FunctionCalls, Some(space)) => tool_calls::parse_function_calls(reply, space, need_mapping()?),
        (Protocol::UiTars, space) => {
            ui_tars::parse_ui_tars(reply, space.unwrap_or(CoordSpace::Relative { range: 1000.0 }), need_mapping()?)
        }
        (Protocol::MaiUi, _) => tool_calls::parse_mai_ui(reply, need_mapping()?),
    }
}

/// Parses a JSON-plan reply.
pub fn parse_plan(reply: &str) -> Result<Plan, ParseError> {
    if reply.trim().is_empty() {
        return Err(ParseError::Empty);
    }
    let json = extract_json_object(reply)?;
    // Valid JSON is read as is; otherwise the repaired text, and if even that fails, the error
    // names the place in what the model wrote.
    let v: Value = match serde_json::from_str(&json) {
        Ok(v) => v,
        Err(original) => {
            serde_json::from_str(&repair::repair_json(&json)).map_err(|_| ParseError::BadJson(original.to_string()))?
        }
    };
    let obj = v.as_object().ok_or_else(|| schema("(root)", "expected an object"))?;
    let thought = match obj.get("thought") {
        None | Some(Value::Null) => String::new(),
        Some(Value::String(s)) => s.clone(),
        Some(_) => return Err(schema("thought", "expected a string")),
    };
    let error = match obj.get("error") {
        None | Some(Value::Null) => None,
        Some(Value::String(s)) if s.trim().is_empty() => None,
        Some(Value::String(s)) => Some(s.clone()),
        Some(_) => return Err(schema("error", "expected a string or null")),
    };
    let done = match obj.get("done") {
        None | Some(Value::Null) => false,
        Some(Value::Bool(b)) => *b,
        Some(_) => return Err(schema("done", "expected true or false")),
    };
    let actions = match obj.get("actions") {
        None | Some(Value::Null) => Vec::new(),
        Some(Value::Array(items)) => items
            .iter()
            .enumerate()
            .map(|(i, a)| parse_action(a, &format!("actions[{i}]")))
            .collect::<Result<_, _>>()?,
        Some(_) => return Err(schema("actions", "expected a list")),
    };
    if actions.is_empty() && !done && error.is_none() {
        return Err(schema("actions", "no actions, yet neither done nor an error"));
    }
    Ok(Plan { thought, actions, done, error })
}

fn parse_action(v: &Value, at: &str) -> Result<PlannedAction, ParseError> {
    let kind = v
        .get("type")
        .and_then(Value::as_str)
        .ok_or_else(|| schema(format!("{at}.type"), "missing; expected Tap, Input, KeyPress, Scroll or AskUser"))?;
    let target = |required: bool| -> Result<Option<u32>, ParseError> {
        let field = format!("{at}.target");
        match v.get("target") {
            None | Some(Value::Null) if !required => Ok(None),
            None | Some(Value::Null) => Err(schema(field, "missing; expected an element number")),
            Some(t) => {
                element_number(t).map(Some).ok_or_else(|| schema(field, format!("expected an element number, got {t}")))
            }
        }
    };
    let string = |name: &str| -> Result<String, ParseError> {
        match v.get(name) {
            Some(Value::String(s)) => Ok(s.clone()),
            Some(Value::Number(n)) => Ok(n.to_string()),
            _ => Err(schema(format!("{at}.{name}"), "missing; expected a string")),
        }
    };
    match kind {
        "Tap" | "Click" => Ok(PlannedAction::Tap { target: target(true)?.unwrap_or_default() }),
        "Input" | "Type" => {
            Ok(PlannedAction::Input { target: target(true)?.unwrap_or_default(), value: string("value")? })
        }
        "KeyPress" | "KeyboardPress" => Ok(PlannedAction::KeyPress { key: string("key")? }),
        "Scroll" => {
            let name = v.get("direction").and_then(Value::as_str).unwrap_or("down");
            let direction = ScrollDirection::from_name(name).ok_or_else(|| {
                schema(format!("{at}.direction"), format!("\"{name}\" is not up, down, left or right"))
            })?;
            let distance = match v.get("distance") {
                None | Some(Value::Null) => None,
                Some(d) => Some(
                    d.as_f64()
                        .filter(|d| *d > 0.0)
                        .ok_or_else(|| schema(format!("{at}.distance"), "expected a positive number of pixels"))?,
                ),
            };
            Ok(PlannedAction::Scroll { target: target(false)?, direction, distance })
        }
        "AskUser" | "Ask" => Ok(PlannedAction::AskUser { question: string("question")? }),
        other => Err(schema(
            format!("{at}.type"),
            format!("unknown action \"{other}\"; expected Tap, Input, KeyPress, Scroll or AskUser"),
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_fenced_plan_after_thinking() {
        let reply = "<think>the input is [3]</think>\nHere you go:\n```json\n{\"thought\":\"type it\",\"actions\":[{\"type\":\"Input\",\"target\":3,\"value\":\"buy milk\"},{\"type\":\"KeyPress\",\"key\":\"Enter\"}],\"done\":true}\n```";
        let plan = parse_plan(reply).unwrap();
        assert_eq!(plan.thought, "type it");
        assert!(plan.done);
        assert_eq!(
            plan.actions,
            vec![
                PlannedAction::Input { target: 3, value: "buy milk".into() },
                PlannedAction::KeyPress { key: "Enter".into() }
            ]
        );
    }

    #[test]
    fn accepts_string_targets_and_scroll_defaults() {
        let plan = parse_plan(r#"{"actions":[{"type":"Tap","target":"[7]"},{"type":"Scroll"}]}"#).unwrap();
        assert_eq!(plan.actions[0], PlannedAction::Tap { target: 7 });
        assert_eq!(
            plan.actions[1],
            PlannedAction::Scroll { target: None, direction: ScrollDirection::Down, distance: None }
        );
    }

    #[test]
    fn errors_name_the_field() {
        let e = parse_plan(r#"{"actions":[{"type":"Tap"}]}"#).unwrap_err();
        assert_eq!(e.to_string(), "field `actions[0].target`: missing; expected an element number");
        let e = parse_plan(r#"{"actions":[{"type":"Fly","target":1}]}"#).unwrap_err();
        assert!(e.to_string().contains("actions[0].type"));
        let e = parse_plan(r#"{"actions":[{"type":"Input","target":1}]}"#).unwrap_err();
        assert!(e.to_string().contains("actions[0].value"));
        assert_eq!(parse_plan("  "), Err(ParseError::Empty));
        assert_eq!(parse_plan("I cannot help"), Err(ParseError::NoJson));
        assert!(
            matches!(parse_plan(r#"{"actions": [{"type":"Tap","target":}"#), Err(ParseError::Schema { .. })),
            "repaired, then checked"
        );
        let e = parse_plan(r#"{"actions":[]}"#).unwrap_err();
        assert!(e.to_string().contains("neither done nor an error"));
    }

    #[test]
    fn broken_json_is_repaired() {
        let plan =
            parse_plan("```json\n{'thought': 'tap it', 'actions': [{'type': 'Tap', 'target': 4,},], 'done': True\n```")
                .unwrap();
        assert_eq!(plan.actions, vec![PlannedAction::Tap { target: 4 }]);
        assert!(plan.done);
    }

    #[test]
    fn model_error_is_kept() {
        let plan = parse_plan(r#"{"thought":"x","actions":[],"error":"no such button"}"#).unwrap();
        assert_eq!(plan.error.as_deref(), Some("no such button"));
    }
}

/// Random damage to real replies must give plans or typed errors, never a panic.
#[cfg(test)]
mod robustness {
    use super::*;
    use crate::vision::ImageMapping;
    use crate::vocab::family::ModelFamily;

    const SEEDS: [&str; 6] = [
        r#"```json
{"thought":"t","actions":[{"type":"Input","target":3,"value":"milk"},{"type":"KeyPress","key":"Enter"}],"done":true}
```"#,
        "Thought: go\nAction: click(start_box='(100,200)')\n\ntype(content='a\\n')",
        "Reflection: r\nAction_Summary: s\nAction：drag(start_box='<bbox>1 2 3 4</bbox>', end_box='<point>5 6</point>')",
        r#"<thinking>x</thinking><tool_call>{"name":"m","arguments":{"action":"click","coordinate":[1,2]}}</tool_call>"#,
        r#"<thinking>y</thinking>[{"name":"click","arguments":{"coordinate":[10,20]}},{"name":"finished","arguments":{}}]"#,
        r#"<grounding_think>g</grounding_think><answer>{"coordinate":[5,5,9,9]}</answer>"#,
    ];
    const PIECES: [&str; 16] =
        ["{", "}", "[", "]", "(", ")", "'", "\"", ",", ":", "\\", "<", ">", "é中", "\n\n", "Action:"];

    #[test]
    fn damaged_replies_never_panic() {
        let mapping = ImageMapping::identity(1280, 800, 1.0);
        let mut seed = 0x9e37_79b9_7f4a_7c15u64;
        let mut next = move |n: usize| {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            (seed % n as u64) as usize
        };
        for _ in 0..20_000 {
            let mut text: Vec<char> = SEEDS[next(SEEDS.len())].chars().collect();
            for _ in 0..1 + next(4) {
                let at = next(text.len() + 1);
                match next(3) {
                    0 if at < text.len() => {
                        text.remove(at);
                    }
                    1 => text.splice(at..at, PIECES[next(PIECES.len())].chars()).for_each(drop),
                    _ => text.truncate(at),
                }
            }
            let reply: String = text.into_iter().collect();
            for family in ModelFamily::ALL {
                let _ = parse_reply(family, &reply, Some(&mapping));
            }
            let _ = repair::repair_json(&reply);
        }
    }
}
