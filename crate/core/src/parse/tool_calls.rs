//! Replies that carry actions as JSON tool calls:
//! - MAI-UI's tagged text: `<thinking>…</thinking><tool_call>{"name":…,"arguments":{"action":…}}</tool_call>`,
//!   and its grounding form `<grounding_think>…</grounding_think><answer>{"coordinate":[x,y]}</answer>`,
//!   on a 0–999 scale;
//! - function calling: `{"name": …, "arguments": {…} or "<json text>"}` (one object or a list).
//!
//! The action is named either by `arguments.action` or by the call's own name; `ask_user` and
//! MCP-style tools pass through as typed actions.

use super::coords::spot_from;
use super::plan::{element_number, key_combo, typed};
use super::repair::repair_json;
use super::{extract_json_object, ParseError, Plan};
use crate::vision::ImageMapping;
use crate::vocab::actions::{MouseButton, PlannedAction, ScrollDirection};
use crate::vocab::family::{CoordSpace, MAI_RANGE};
use serde_json::Value;

pub fn parse_mai_ui(reply: &str, mapping: &ImageMapping) -> Result<Plan, ParseError> {
    if reply.trim().is_empty() {
        return Err(ParseError::Empty);
    }
    let space = CoordSpace::Relative { range: MAI_RANGE };
    let thought = tagged(reply, "thinking").or_else(|| tagged(reply, "grounding_think")).unwrap_or_default();
    let mut plan = Plan { thought, actions: Vec::new(), done: false, error: None };
    let calls: Vec<&str> = all_tagged(reply, "tool_call");
    if calls.is_empty() {
        // Grounding: an answer holding only a coordinate means "this is the element": a tap.
        let answer = tagged(reply, "answer").ok_or_else(|| ParseError::Action {
            text: reply.trim().chars().take(120).collect(),
            problem: "neither <tool_call> nor <answer> found".into(),
        })?;
        let v = read_json(&answer)?;
        let (x, y) = point(&v, &["coordinate", "point", "bbox"], space, mapping, "answer")?
            .ok_or_else(|| schema("answer.coordinate", "missing"))?;
        plan.actions.push(PlannedAction::TapAt { x, y, button: MouseButton::Left, clicks: 1 });
        return Ok(plan);
    }
    for call in calls {
        let v = read_json(call)?;
        apply(&mut plan, &v, space, mapping)?;
    }
    Ok(plan)
}

/// Function-calling replies: a call object, a list of them, or OpenAI's `tool_calls` list.
pub fn parse_function_calls(reply: &str, space: CoordSpace, mapping: &ImageMapping) -> Result<Plan, ParseError> {
    if reply.trim().is_empty() {
        return Err(ParseError::Empty);
    }
    let thought = tagged(reply, "thinking").or_else(|| tagged(reply, "think")).unwrap_or_default();
    let body = super::json_text::strip_thinking(reply);
    // A list of calls, or one call object, whichever opens first.
    let list_at = body.find('[').filter(|&l| body.find('{').is_none_or(|o| l < o));
    let v: Value = match list_at {
        Some(l) => {
            let rest = &body[l..];
            let first = serde_json::Deserializer::from_str(rest).into_iter::<Value>().next();
            match first {
                Some(Ok(v)) => v,
                _ => read_json(&repair_json(rest))?,
            }
        }
        None => read_json(&extract_json_object(&body)?)?,
    };
    let calls: Vec<Value> = match v {
        Value::Array(items) => items,
        Value::Object(ref o) if o.get("tool_calls").is_some_and(Value::is_array) => {
            o["tool_calls"].as_array().cloned().unwrap_or_default()
        }
        other => vec![other],
    };
    let mut plan = Plan { thought, actions: Vec::new(), done: false, error: None };
    for call in &calls {
        // OpenAI wraps the call: {"type":"function","function":{"name","arguments"}}.
        let call = call.get("function").unwrap_or(call);
        apply(&mut plan, call, space, mapping)?;
    }
    Ok(plan)
}

fn read_json(text: &str) -> Result<Value, ParseError> {
    let text = text.trim();
    serde_json::from_str(text)
        .or_else(|e| serde_json::from_str(&repair_json(text)).map_err(|_| ParseError::BadJson(e.to_string())))
}

fn schema(field: &str, problem: &str) -> ParseError {
    ParseError::Schema { field: field.into(), problem: problem.into() }
}

/// Adds one call's action (or its end of task) to the plan.
fn apply(plan: &mut Plan, call: &Value, space: CoordSpace, mapping: &ImageMapping) -> Result<(), ParseError> {
    let name = call.get("name").and_then(Value::as_str).unwrap_or_default();
    let args = match call.get("arguments").or_else(|| call.get("args")).or_else(|| call.get("parameters")) {
        Some(Value::String(s)) => read_json(s)?,
        Some(v) => v.clone(),
        // A bare action object: {"action": "click", "coordinate": […]}.
        None => call.clone(),
    };
    let action = args.get("action").and_then(Value::as_str).unwrap_or(name).to_ascii_lowercase();
    let text =
        |keys: &[&str]| keys.iter().find_map(|k| args.get(*k).and_then(Value::as_str)).unwrap_or_default().to_string();
    let at = |keys: &[&str]| point(&args, keys, space, mapping, "arguments");
    let need = |keys: &[&str]| at(keys)?.ok_or_else(|| schema(&format!("arguments.{}", keys[0]), "missing"));
    const POINT: &[&str] = &["coordinate", "point", "start_box", "bbox", "position"];
    // Element-numbered calls (the function-calling family reads the element list).
    if let Some(target) = args.get("target").and_then(element_number) {
        let act = match action.as_str() {
            "click" | "tap" | "left_click" => PlannedAction::Tap { target },
            "type" | "input" => PlannedAction::Input { target, value: text(&["value", "text", "content"]) },
            "scroll" => PlannedAction::Scroll {
                target: Some(target),
                direction: ScrollDirection::from_name(&text(&["direction"])).unwrap_or(ScrollDirection::Down),
                distance: args.get("distance").and_then(Value::as_f64),
            },
            other => {
                return Err(schema("name", &format!("\"{other}\" does not take an element; use tap, input or scroll")))
            }
        };
        plan.actions.push(act);
        return Ok(());
    }
    let act = match action.as_str() {
        "click" | "tap" | "left_click" | "long_press" => {
            let (x, y) = need(POINT)?;
            PlannedAction::TapAt { x, y, button: MouseButton::Left, clicks: 1 }
        }
        "double_click" | "left_double" => {
            let (x, y) = need(POINT)?;
            PlannedAction::TapAt { x, y, button: MouseButton::Left, clicks: 2 }
        }
        "right_click" | "right_single" => {
            let (x, y) = need(POINT)?;
            PlannedAction::TapAt { x, y, button: MouseButton::Right, clicks: 1 }
        }
        "hover" | "mouse_move" => {
            let (x, y) = need(POINT)?;
            PlannedAction::HoverAt { x, y }
        }
        "type" | "input" | "type_text" => typed(&text(&["text", "content", "value"])),
        "drag" | "left_click_drag" => PlannedAction::DragAt {
            from: need(&["start_coordinate", "start_box", "from"])?,
            to: need(&["end_coordinate", "end_box", "to"])?,
        },
        "swipe" | "scroll" => {
            // MAI-UI swipes like a finger: swiping up brings what is below into view.
            let finger = action == "swipe";
            let name = text(&["direction"]).to_ascii_lowercase();
            let direction = match ScrollDirection::from_name(&name) {
                Some(d) if finger => d.opposite(),
                Some(d) => d,
                None if name.is_empty() => ScrollDirection::Down,
                None => {
                    return Err(schema("arguments.direction", &format!("\"{name}\" is not up, down, left or right")))
                }
            };
            match at(POINT)? {
                Some((x, y)) => PlannedAction::ScrollAt { x, y, direction, distance: None },
                None => PlannedAction::Scroll { target: None, direction, distance: None },
            }
        }
        "key" | "hotkey" | "press" | "keypress" | "keyboardpress" => {
            PlannedAction::KeyPress { key: key_combo(&text(&["key", "keys", "text"])) }
        }
        "system_button" => match text(&["button"]).to_ascii_lowercase().as_str() {
            "enter" => PlannedAction::KeyPress { key: "Enter".into() },
            "back" => PlannedAction::KeyPress { key: "Alt+ArrowLeft".into() },
            other => {
                return Err(schema(
                    "arguments.button",
                    &format!("\"{other}\" has no meaning in a browser tab (back and enter do)"),
                ))
            }
        },
        "wait" => PlannedAction::Wait { ms: super::ui_tars::WAIT_MS },
        "terminate" | "finished" | "done" => {
            plan.done = true;
            if text(&["status"]).eq_ignore_ascii_case("fail") {
                plan.error = Some("the model gave up on the task".into());
            }
            return Ok(());
        }
        "answer" => {
            plan.done = true;
            let answer = text(&["text", "content"]);
            plan.thought = if plan.thought.is_empty() { answer } else { format!("{}\n{answer}", plan.thought) };
            return Ok(());
        }
        "ask_user" | "call_user" => PlannedAction::AskUser { question: text(&["question", "text", "content"]) },
        "" => return Err(schema("name", "the call names no action")),
        _ => {
            // MCP-style tools (`mcp_call`, or any other name) pass through by name.
            let tool = if action == "mcp_call" { text(&["name", "tool"]) } else { action.clone() };
            let arguments = args.get("args").or_else(|| args.get("arguments")).cloned().unwrap_or(args.clone());
            PlannedAction::Tool { name: tool, arguments }
        }
    };
    plan.actions.push(act);
    Ok(())
}

/// A point (or a box's centre) from the first of `keys` present, in CSS pixels.
fn point(
    args: &Value,
    keys: &[&str],
    space: CoordSpace,
    mapping: &ImageMapping,
    at: &str,
) -> Result<Option<(f64, f64)>, ParseError> {
    let Some((key, v)) = keys.iter().find_map(|k| args.get(*k).map(|v| (*k, v))) else { return Ok(None) };
    let nums = match v {
        Value::String(s) => super::coords::numbers_in(s),
        other => flatten_numbers(other),
    };
    spot_from(&nums, space, mapping)
        .map(|s| Some(s.center()))
        .map_err(|problem| ParseError::Coordinates { text: format!("{at}.{key} = {v}"), problem })
}

fn flatten_numbers(v: &Value) -> Vec<f64> {
    match v {
        Value::Number(n) => n.as_f64().into_iter().collect(),
        Value::String(s) => s.trim().parse().ok().into_iter().collect(),
        Value::Array(items) => items.iter().flat_map(flatten_numbers).collect(),
        _ => Vec::new(),
    }
}

fn tagged(text: &str, tag: &str) -> Option<String> {
    all_tagged(text, tag).first().map(|s| s.trim().to_string())
}

/// The bodies of every `<tag>…</tag>`; an unclosed last one runs to the end.
fn all_tagged<'a>(text: &'a str, tag: &str) -> Vec<&'a str> {
    let (open, close) = (format!("<{tag}>"), format!("</{tag}>"));
    let mut out = Vec::new();
    let mut rest = text;
    while let Some(s) = rest.find(&open) {
        let body = &rest[s + open.len()..];
        match body.find(&close) {
            Some(e) => {
                out.push(&body[..e]);
                rest = &body[e + close.len()..];
            }
            None => {
                out.push(body);
                break;
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn m() -> ImageMapping {
        ImageMapping::identity(999, 999, 1.0)
    }

    #[test]
    fn mai_ui_navigation_and_grounding() {
        let plan = parse_mai_ui(
            "<thinking>Tap the search box.</thinking>\n<tool_call>\n{\"name\": \"mobile_use\", \"arguments\": {\"action\": \"click\", \"coordinate\": [100, 200]}}\n</tool_call>",
            &m(),
        )
        .unwrap();
        assert_eq!(plan.thought, "Tap the search box.");
        assert_eq!(
            plan.actions,
            vec![PlannedAction::TapAt { x: 100.0, y: 200.0, button: MouseButton::Left, clicks: 1 }]
        );
        let g = parse_mai_ui(
            "<grounding_think>the red one</grounding_think><answer>{\"coordinate\":[10,20,30,40]}</answer>",
            &m(),
        )
        .unwrap();
        assert_eq!(g.actions, vec![PlannedAction::TapAt { x: 20.0, y: 30.0, button: MouseButton::Left, clicks: 1 }]);
    }

    #[test]
    fn mai_ui_vocabulary() {
        let call = |args: &str| {
            parse_mai_ui(&format!("<tool_call>{{\"name\":\"mobile_use\",\"arguments\":{args}}}</tool_call>"), &m())
                .unwrap()
        };
        assert_eq!(
            call(r#"{"action":"type","text":"milk\n"}"#).actions,
            vec![PlannedAction::Type { value: "milk".into(), submit: true }]
        );
        assert_eq!(
            call(r#"{"action":"swipe","direction":"up"}"#).actions,
            vec![PlannedAction::Scroll { target: None, direction: ScrollDirection::Down, distance: None }]
        );
        assert_eq!(
            call(r#"{"action":"drag","start_coordinate":[1,2],"end_coordinate":[3,4]}"#).actions,
            vec![PlannedAction::DragAt { from: (1.0, 2.0), to: (3.0, 4.0) }]
        );
        assert_eq!(
            call(r#"{"action":"system_button","button":"enter"}"#).actions,
            vec![PlannedAction::KeyPress { key: "Enter".into() }]
        );
        let done = call(r#"{"action":"terminate","status":"fail"}"#);
        assert!(done.done && done.error.is_some());
        let answer = call(r#"{"action":"answer","text":"42"}"#);
        assert!(answer.done && answer.thought == "42");
        assert_eq!(
            call(r#"{"action":"ask_user","text":"Which account?"}"#).actions,
            vec![PlannedAction::AskUser { question: "Which account?".into() }]
        );
        let mcp = parse_mai_ui(
            r#"<tool_call>{"name":"mcp_call","arguments":{"name":"amap.route","args":{"to":"home"}}}</tool_call>"#,
            &m(),
        )
        .unwrap();
        assert_eq!(
            mcp.actions,
            vec![PlannedAction::Tool { name: "amap.route".into(), arguments: serde_json::json!({"to":"home"}) }]
        );
        assert!(parse_mai_ui(
            r#"<tool_call>{"name":"mobile_use","arguments":{"action":"system_button","button":"home"}}</tool_call>"#,
            &m()
        )
        .is_err());
        assert!(parse_mai_ui("<tool_call>{\"name\":\"mobile_use\",\"arguments\":{\"action\":\"click\",\"coordinate\":[1200,5]}}</tool_call>", &m()).unwrap_err().to_string().contains("outside 0–999"));
    }

    #[test]
    fn function_calls_in_every_wrapping() {
        let space = CoordSpace::ImagePixels;
        let one =
            parse_function_calls(r#"{"name":"click","arguments":"{\"coordinate\":[10,20]}"}"#, space, &m()).unwrap();
        assert_eq!(one.actions, vec![PlannedAction::TapAt { x: 10.0, y: 20.0, button: MouseButton::Left, clicks: 1 }]);
        let openai = parse_function_calls(
            r#"{"tool_calls":[{"type":"function","function":{"name":"computer","arguments":"{\"action\":\"type\",\"text\":\"hi\"}"}}]}"#,
            space,
            &m(),
        )
        .unwrap();
        assert_eq!(openai.actions, vec![PlannedAction::Type { value: "hi".into(), submit: false }]);
        let list = parse_function_calls(
            r#"[{"name":"scroll","arguments":{"direction":"down"}},{"name":"finished","arguments":{}}]"#,
            space,
            &m(),
        )
        .unwrap();
        assert!(list.done && list.actions.len() == 1);
        assert!(parse_function_calls("no calls here", space, &m()).is_err());
        let numbered = parse_function_calls(r#"[{"name":"input","arguments":{"target":3,"value":"milk"}},{"name":"press","arguments":{"key":"Enter"}}]"#, space, &m()).unwrap();
        assert_eq!(
            numbered.actions,
            vec![
                PlannedAction::Input { target: 3, value: "milk".into() },
                PlannedAction::KeyPress { key: "Enter".into() }
            ]
        );
    }
}
