//! Reading a model's reply into typed actions.
//!
//! The JSON-plan protocol (see `prompt`): the reply is one JSON object, possibly wrapped in a
//! code fence and preceded by `<think>` blocks. Every failure says what was wrong and where,
//! so the message can go back to the model or to the person.

pub mod answer;
pub mod coords;
mod json_text;
pub mod memo;
mod plan;
pub mod repair;
pub mod tool_calls;
pub mod ui_tars;

pub use json_text::{extract_json_object, strip_thinking};
pub use plan::{ParseError, Plan};

use crate::vocab::actions::{PlannedAction, ScrollDirection};
use crate::vocab::catalog;
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
    plan_of(&plan_json(reply)?)
}

/// The JSON object of a JSON-plan reply.
fn plan_json(reply: &str) -> Result<Value, ParseError> {
    if reply.trim().is_empty() {
        return Err(ParseError::Empty);
    }
    let json = extract_json_object(reply)?;
    // Valid JSON is read as is; otherwise the repaired text, and if even that fails, the error
    // names the place in what the model wrote.
    match serde_json::from_str(&json) {
        Ok(v) => Ok(v),
        Err(original) => {
            serde_json::from_str(&repair::repair_json(&json)).map_err(|_| ParseError::BadJson(original.to_string()))
        }
    }
}

/// An element a planning model named by description, for the acting model to find.
#[derive(Clone, Debug, PartialEq)]
pub struct Described {
    /// The action (its place in the plan) that needs it.
    pub action: usize,
    /// The number standing in for the element in that action until it is found.
    pub placeholder: u32,
    /// The description, as the planner wrote it.
    pub what: String,
}

/// A planning model's plan: actions whose targets are element numbers or descriptions
/// ([`Described`]; their placeholders stand in the actions until the elements are found).
#[derive(Clone, Debug, PartialEq)]
pub struct DescribedPlan {
    pub plan: Plan,
    pub described: Vec<Described>,
}

/// Placeholders count down from here: no page has this many elements.
pub const FIRST_PLACEHOLDER: u32 = u32::MAX;

/// Parses a planning model's reply: the JSON plan, where `target`, `from` and `to` may
/// describe the element in words instead of giving its number.
pub fn parse_described_plan(reply: &str) -> Result<DescribedPlan, ParseError> {
    let mut v = plan_json(reply)?;
    let mut described = Vec::new();
    if let Some(actions) = v.get_mut("actions").and_then(Value::as_array_mut) {
        for (at, action) in actions.iter_mut().enumerate() {
            let Some(fields) = action.as_object_mut() else { continue };
            for name in ["target", "from", "to"] {
                let words = match fields.get(name) {
                    Some(Value::String(s)) if element_number(&Value::String(s.clone())).is_none() => s.trim(),
                    _ => continue,
                };
                // A Scroll's "to": "end" is where it scrolls, not an element.
                if words.is_empty() || (name == "to" && fields.get("from").is_none()) {
                    continue;
                }
                let placeholder = FIRST_PLACEHOLDER - described.len() as u32;
                described.push(Described { action: at, placeholder, what: words.to_string() });
                fields.insert(name.to_string(), Value::from(placeholder));
            }
        }
    }
    Ok(DescribedPlan { plan: plan_of(&v)?, described })
}

fn plan_of(v: &Value) -> Result<Plan, ParseError> {
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
    // An answer ends a plan only in a plan's shape (with its actions or done): a reply of
    // some other schema that happens to hold "answer" is not taken as the end.
    let planned = obj.contains_key("actions") || obj.contains_key("done");
    if actions.is_empty() && !done && error.is_none() && !(planned && obj.get("answer").is_some_and(|a| !a.is_null())) {
        return Err(schema("actions", "no actions, yet neither done nor an error"));
    }
    let answer = match obj.get("answer") {
        None | Some(Value::Null) => None,
        Some(Value::String(s)) if s.trim().is_empty() => None,
        Some(Value::String(s)) => Some(s.clone()),
        Some(other) => Some(other.to_string()),
    };
    // An answer with nothing left to do is the end of the instruction.
    let done = done || (actions.is_empty() && answer.is_some());
    Ok(Plan { thought, actions, done, error, answer })
}

fn parse_action(v: &Value, at: &str) -> Result<PlannedAction, ParseError> {
    let kind = v
        .get("type")
        .and_then(Value::as_str)
        .ok_or_else(|| schema(format!("{at}.type"), format!("missing; expected {}", catalog::plan_types())))?;
    let unknown =
        || schema(format!("{at}.type"), format!("unknown action \"{kind}\"; expected {}", catalog::plan_types()));
    // The catalog's own type for whichever name the plan wrote.
    let kind = catalog::by_plan_type(kind).and_then(|a| a.plan_type).ok_or_else(unknown)?;
    let number = |name: &str, required: bool| -> Result<Option<u32>, ParseError> {
        let field = format!("{at}.{name}");
        match v.get(name) {
            None | Some(Value::Null) if !required => Ok(None),
            None | Some(Value::Null) => Err(schema(field, "missing; expected an element number")),
            Some(t) => {
                element_number(t).map(Some).ok_or_else(|| schema(field, format!("expected an element number, got {t}")))
            }
        }
    };
    let target = |required: bool| number("target", required);
    let element = || -> Result<u32, ParseError> { Ok(target(true)?.unwrap_or_default()) };
    let string = |name: &str| -> Result<String, ParseError> {
        match v.get(name) {
            Some(Value::String(s)) => Ok(s.clone()),
            Some(Value::Number(n)) => Ok(n.to_string()),
            _ => Err(schema(format!("{at}.{name}"), "missing; expected a string")),
        }
    };
    let optional = |name: &str| -> Result<Option<String>, ParseError> {
        match v.get(name) {
            None | Some(Value::Null) => Ok(None),
            Some(_) => string(name).map(Some),
        }
    };
    let direction = || -> Result<ScrollDirection, ParseError> {
        let name = v.get("direction").and_then(Value::as_str).unwrap_or("down");
        ScrollDirection::from_name(name)
            .ok_or_else(|| schema(format!("{at}.direction"), format!("\"{name}\" is not up, down, left or right")))
    };
    let positive = |name: &str, what: &str| -> Result<Option<f64>, ParseError> {
        match v.get(name) {
            None | Some(Value::Null) => Ok(None),
            Some(d) => Some(
                d.as_f64()
                    .filter(|d| *d > 0.0 && d.is_finite())
                    .ok_or_else(|| schema(format!("{at}.{name}"), format!("expected a positive number of {what}"))),
            )
            .transpose(),
        }
    };
    match kind {
        "Tap" => Ok(PlannedAction::Tap { target: element()? }),
        "DoubleClick" => Ok(PlannedAction::DoubleClick { target: element()? }),
        "RightClick" => Ok(PlannedAction::RightClick { target: element()? }),
        "Hover" => Ok(PlannedAction::Hover { target: element()? }),
        "Input" => {
            let target = element()?;
            match optional("mode")?.as_deref().map(str::to_ascii_lowercase).as_deref() {
                None | Some("replace") => Ok(PlannedAction::Input { target, value: string("value")? }),
                Some("append") => Ok(PlannedAction::Append { target, value: string("value")? }),
                Some("clear") => Ok(PlannedAction::Clear { target }),
                Some(other) => {
                    Err(schema(format!("{at}.mode"), format!("\"{other}\" is not replace, append or clear")))
                }
            }
        }
        "Append" => Ok(PlannedAction::Append { target: element()?, value: string("value")? }),
        "Clear" => Ok(PlannedAction::Clear { target: element()? }),
        "Select" => {
            let option = optional("option")?.or(optional("value")?).unwrap_or_default();
            if option.trim().is_empty() {
                return Err(schema(format!("{at}.option"), "missing; expected the text of the option to choose"));
            }
            Ok(PlannedAction::Select { target: element()?, option, value: None })
        }
        "KeyPress" => Ok(PlannedAction::KeyPress { key: string("key")? }),
        "Scroll" => {
            let to_end = v.get("to_end").and_then(Value::as_bool).unwrap_or(false)
                || matches!(
                    optional("to")?.as_deref().map(str::to_ascii_lowercase).as_deref(),
                    Some("end" | "edge" | "bottom" | "top")
                );
            if to_end {
                return Ok(PlannedAction::ScrollToEdge { target: target(false)?, direction: direction()? });
            }
            Ok(PlannedAction::Scroll {
                target: target(false)?,
                direction: direction()?,
                distance: positive("distance", "pixels")?,
            })
        }
        "ScrollTo" => Ok(PlannedAction::ScrollTo { target: element()? }),
        "Drag" => Ok(PlannedAction::Drag {
            from: number("from", true)?.unwrap_or_default(),
            to: number("to", true)?.unwrap_or_default(),
        }),
        "Upload" => {
            let files = match v.get("files") {
                Some(Value::Array(items)) => items
                    .iter()
                    .map(|f| f.as_str().map(str::to_string))
                    .collect::<Option<Vec<_>>>()
                    .filter(|f| !f.is_empty())
                    .ok_or_else(|| schema(format!("{at}.files"), "expected a list of file paths"))?,
                Some(Value::String(one)) => vec![one.clone()],
                _ => return Err(schema(format!("{at}.files"), "missing; expected a list of file paths")),
            };
            Ok(PlannedAction::Upload { target: element()?, files })
        }
        "Wait" => match optional("text")? {
            Some(text) if !text.trim().is_empty() => Ok(PlannedAction::WaitFor {
                text,
                gone: v.get("gone").and_then(Value::as_bool).unwrap_or(false),
                timeout_ms: positive("timeout", "milliseconds")?
                    .map_or(crate::vocab::actions::WAIT_FOR_TIMEOUT_MS, |ms| ms.min(60_000.0) as u32),
            }),
            _ => Ok(PlannedAction::Wait {
                ms: positive("ms", "milliseconds")?.map_or(1_000, |ms| ms.min(60_000.0) as u32),
            }),
        },
        "Navigate" => Ok(PlannedAction::Navigate { url: plan::web_address(&string("url")?) }),
        "Back" => Ok(PlannedAction::Back),
        "Forward" => Ok(PlannedAction::Forward),
        "Reload" => Ok(PlannedAction::Reload),
        "OpenTab" => Ok(PlannedAction::OpenTab { url: plan::web_address(&string("url")?) }),
        "SwitchTab" => match v.get("tab").and_then(Value::as_i64) {
            Some(tab) => Ok(PlannedAction::SwitchTab { tab }),
            None => Err(schema(format!("{at}.tab"), "missing; expected a tab id from the list of open tabs")),
        },
        "CloseTab" => Ok(PlannedAction::CloseTab),
        "Remember" => {
            let note = optional("note")?.unwrap_or_default();
            let data = v.get("data").filter(|d| !d.is_null()).cloned();
            if note.trim().is_empty() && data.is_none() {
                return Err(schema(format!("{at}.note"), "missing; expected a note or data to remember"));
            }
            Ok(PlannedAction::Remember { note, data })
        }
        "AskUser" => Ok(PlannedAction::AskUser { question: string("question")? }),
        _ => Err(unknown()),
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
    fn every_action_of_the_plan_grammar_reads() {
        let reply = r#"{"thought":"t","actions":[
            {"type":"DoubleClick","target":1},{"type":"RightClick","target":2},{"type":"Hover","target":3},
            {"type":"Input","target":4,"value":"more","mode":"append"},{"type":"Input","target":4,"value":"","mode":"clear"},
            {"type":"Select","target":5,"option":"Large"},{"type":"Scroll","direction":"down","to":"end"},
            {"type":"ScrollTo","target":9},{"type":"Drag","from":6,"to":7},
            {"type":"Upload","target":8,"files":["/home/me/a.pdf"]},{"type":"Wait","ms":500},
            {"type":"Wait","text":"Ready","timeout":3000},{"type":"Navigate","url":"example.com/shop"},
            {"type":"Back"},{"type":"Forward"},{"type":"Reload"},{"type":"OpenTab","url":"https://a.test/"},
            {"type":"SwitchTab","tab":12},{"type":"CloseTab"},{"type":"Remember","note":"price","data":{"p":4}},
            {"type":"AskUser","question":"which?"}],"done":false}"#;
        let plan = parse_plan(reply).unwrap();
        assert_eq!(
            plan.actions,
            vec![
                PlannedAction::DoubleClick { target: 1 },
                PlannedAction::RightClick { target: 2 },
                PlannedAction::Hover { target: 3 },
                PlannedAction::Append { target: 4, value: "more".into() },
                PlannedAction::Clear { target: 4 },
                PlannedAction::Select { target: 5, option: "Large".into(), value: None },
                PlannedAction::ScrollToEdge { target: None, direction: ScrollDirection::Down },
                PlannedAction::ScrollTo { target: 9 },
                PlannedAction::Drag { from: 6, to: 7 },
                PlannedAction::Upload { target: 8, files: vec!["/home/me/a.pdf".into()] },
                PlannedAction::Wait { ms: 500 },
                PlannedAction::WaitFor { text: "Ready".into(), gone: false, timeout_ms: 3000 },
                PlannedAction::Navigate { url: "https://example.com/shop".into() },
                PlannedAction::Back,
                PlannedAction::Forward,
                PlannedAction::Reload,
                PlannedAction::OpenTab { url: "https://a.test/".into() },
                PlannedAction::SwitchTab { tab: 12 },
                PlannedAction::CloseTab,
                PlannedAction::Remember { note: "price".into(), data: Some(serde_json::json!({"p": 4})) },
                PlannedAction::AskUser { question: "which?".into() },
            ]
        );
        // What runs is written back out as the same JSON and read in again (a recorded step).
        for a in &plan.actions {
            let text = serde_json::to_string(a).unwrap();
            assert_eq!(&serde_json::from_str::<PlannedAction>(&text).unwrap(), a, "{text}");
        }
        let done = parse_plan(r#"{"thought":"read it","actions":[],"answer":"3 items, $12"}"#).unwrap();
        assert!(done.done, "an answer with nothing left to do ends the instruction");
        assert_eq!(done.answer.as_deref(), Some("3 items, $12"));
        assert!(
            parse_plan(r#"{"answer":"tap it","confidence":0.9}"#).is_err(),
            "another schema's answer is not a plan's end"
        );
    }

    #[test]
    fn bad_actions_give_typed_errors() {
        for (reply, field) in [
            (r#"{"actions":[{"type":"Select","target":5}]}"#, "actions[0].option"),
            (r#"{"actions":[{"type":"Input","target":1,"value":"x","mode":"shout"}]}"#, "actions[0].mode"),
            (r#"{"actions":[{"type":"Drag","from":1}]}"#, "actions[0].to"),
            (r#"{"actions":[{"type":"Upload","target":1,"files":[]}]}"#, "actions[0].files"),
            (r#"{"actions":[{"type":"Upload","target":1}]}"#, "actions[0].files"),
            (r#"{"actions":[{"type":"SwitchTab"}]}"#, "actions[0].tab"),
            (r#"{"actions":[{"type":"Remember"}]}"#, "actions[0].note"),
            (r#"{"actions":[{"type":"Wait","ms":-5}]}"#, "actions[0].ms"),
            (r#"{"actions":[{"type":"Navigate"}]}"#, "actions[0].url"),
            (r#"{"actions":[{"type":"Hover"}]}"#, "actions[0].target"),
        ] {
            match parse_plan(reply) {
                Err(ParseError::Schema { field: f, .. }) => assert_eq!(f, field, "{reply}"),
                other => panic!("{reply}: {other:?}"),
            }
        }
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

#[cfg(test)]
mod described_tests {
    use super::*;

    #[test]
    fn a_planners_descriptions_stand_as_placeholders_and_numbers_stay() {
        let reply = r#"{"thought":"t","actions":[
            {"type":"Tap","target":"the Search button"},
            {"type":"Input","target":"[4]","value":"lamp"},
            {"type":"Drag","from":"the first card","to":7},
            {"type":"Scroll","direction":"down","to":"end"}],"done":false}"#;
        let p = parse_described_plan(reply).unwrap();
        assert_eq!(
            p.described,
            [
                Described { action: 0, placeholder: FIRST_PLACEHOLDER, what: "the Search button".into() },
                Described { action: 2, placeholder: FIRST_PLACEHOLDER - 1, what: "the first card".into() },
            ]
        );
        assert_eq!(
            p.plan.actions,
            [
                PlannedAction::Tap { target: FIRST_PLACEHOLDER },
                PlannedAction::Input { target: 4, value: "lamp".into() },
                PlannedAction::Drag { from: FIRST_PLACEHOLDER - 1, to: 7 },
                PlannedAction::ScrollToEdge { target: None, direction: ScrollDirection::Down },
            ]
        );
        assert_eq!(parse_described_plan("no plan here"), Err(ParseError::NoJson));
    }
}
