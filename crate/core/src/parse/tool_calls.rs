//! Replies that carry actions as JSON tool calls:
//! - MAI-UI's tagged text: `<thinking>…</thinking><tool_call>{"name":…,"arguments":{"action":…}}</tool_call>`,
//!   and its grounding form `<grounding_think>…</grounding_think><answer>{"coordinate":[x,y]}</answer>`,
//!   on a 0–999 scale;
//! - function calling: `{"name": …, "arguments": {…} or "<json text>"}` (one object or a list).
//!
//! The action is named either by `arguments.action` or by the call's own name; `ask_user` and
//! MCP-style tools pass through as typed actions.

use super::coords::spot_from;
use super::plan::{element_number, key_combo, typed, web_address};
use super::repair::repair_json;
use super::{extract_json_object, ParseError, Plan};
use crate::vision::ImageMapping;
use crate::vocab::actions::{MouseButton, PlannedAction, ScrollDirection};
use crate::vocab::catalog;
use crate::vocab::family::{CoordSpace, MAI_RANGE};
use crate::vocab::grounding::{self, Gesture};
use serde_json::Value;

pub fn parse_mai_ui(reply: &str, mapping: &ImageMapping) -> Result<Plan, ParseError> {
    if reply.trim().is_empty() {
        return Err(ParseError::Empty);
    }
    let space = CoordSpace::Relative { range: MAI_RANGE };
    let thought = tagged(reply, "thinking").or_else(|| tagged(reply, "grounding_think")).unwrap_or_default();
    let mut plan = Plan { thought, actions: Vec::new(), done: false, error: None, answer: None };
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
    let mut plan = Plan { thought, actions: Vec::new(), done: false, error: None, answer: None };
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
    // The element catalog's name for it, for calls that name an element by number; a call at a
    // point is read by its grounding action (`vocab::grounding`), and any other passes through.
    let named = catalog::by_call_name(&action).map_or(action.as_str(), |a| a.name);
    let text =
        |keys: &[&str]| keys.iter().find_map(|k| args.get(*k).and_then(Value::as_str)).unwrap_or_default().to_string();
    let at = |keys: &[&str]| point(&args, keys, space, mapping, "arguments");
    let need = |keys: &[&str]| at(keys)?.ok_or_else(|| schema(&format!("arguments.{}", keys[0]), "missing"));
    const POINT: &[&str] = &["coordinate", "point", "start_box", "bbox", "position"];
    let files = || -> Result<Vec<String>, ParseError> {
        match args.get("files").or_else(|| args.get("paths")) {
            Some(Value::Array(items)) => items
                .iter()
                .map(|f| f.as_str().map(str::to_string))
                .collect::<Option<Vec<_>>>()
                .filter(|f| !f.is_empty())
                .ok_or_else(|| schema("arguments.files", "expected a list of file paths")),
            Some(Value::String(one)) if !one.trim().is_empty() => Ok(vec![one.clone()]),
            _ => Err(schema("arguments.files", "missing; expected a list of file paths")),
        }
    };
    let option = || -> Result<String, ParseError> {
        let o = text(&["option", "value", "text"]);
        if o.trim().is_empty() {
            return Err(schema("arguments.option", "missing; expected the text of the option to choose"));
        }
        Ok(o)
    };
    let to_end = args.get("to_end").and_then(Value::as_bool).unwrap_or(false)
        || matches!(text(&["to"]).to_ascii_lowercase().as_str(), "end" | "edge");
    let direction = |finger: bool| -> Result<ScrollDirection, ParseError> {
        let name = text(&["direction"]).to_ascii_lowercase();
        match ScrollDirection::from_name(&name) {
            // A finger's swipe up brings what is below into view.
            Some(d) if finger => Ok(d.opposite()),
            Some(d) => Ok(d),
            None if name.is_empty() => Ok(ScrollDirection::Down),
            None => Err(schema("arguments.direction", &format!("\"{name}\" is not up, down, left or right"))),
        }
    };
    // Element-numbered calls (the function-calling family reads the element list).
    if let Some(target) = args.get("target").and_then(element_number) {
        let act = match named {
            "tap" => PlannedAction::Tap { target },
            "double_click" => PlannedAction::DoubleClick { target },
            "right_click" => PlannedAction::RightClick { target },
            "hover" => PlannedAction::Hover { target },
            "input" => {
                let value = text(&["value", "text", "content"]);
                match text(&["mode"]).to_ascii_lowercase().as_str() {
                    "" | "replace" => PlannedAction::Input { target, value },
                    "append" => PlannedAction::Append { target, value },
                    "clear" => PlannedAction::Clear { target },
                    other => {
                        return Err(schema("arguments.mode", &format!("\"{other}\" is not replace, append or clear")))
                    }
                }
            }
            "append" => PlannedAction::Append { target, value: text(&["value", "text", "content"]) },
            "clear" => PlannedAction::Clear { target },
            "select_option" => PlannedAction::Select { target, option: option()?, value: None },
            "scroll" if to_end => PlannedAction::ScrollToEdge { target: Some(target), direction: direction(false)? },
            "scroll" => PlannedAction::Scroll {
                target: Some(target),
                direction: direction(false)?,
                distance: args.get("distance").and_then(Value::as_f64).filter(|d| *d > 0.0 && d.is_finite()),
            },
            "scroll_to" => PlannedAction::ScrollTo { target },
            "upload" => PlannedAction::Upload { target, files: files()? },
            // A key pressed in an element: focus it with a tap first.
            "key" => {
                plan.actions.push(PlannedAction::Tap { target });
                PlannedAction::KeyPress { key: key_combo(&text(&["key", "keys", "text"])) }
            }
            other => {
                return Err(schema(
                    "name",
                    &format!("\"{other}\" does not take an element; see the tools listed for what does"),
                ))
            }
        };
        plan.actions.push(act);
        return Ok(());
    }
    // A drag between two numbered elements.
    if let (Some(from), Some(to)) = (args.get("from").and_then(element_number), args.get("to").and_then(element_number))
    {
        if named == "drag" {
            plan.actions.push(PlannedAction::Drag { from, to });
            return Ok(());
        }
    }
    let url = || -> Result<String, ParseError> {
        let u = text(&["url", "address", "text", "app_name", "app"]);
        if u.trim().is_empty() {
            return Err(schema("arguments.url", "missing; expected a web address"));
        }
        Ok(web_address(&u))
    };
    let Some(point_action) = grounding::by_tool_name(&action) else {
        if action.is_empty() {
            return Err(schema("name", "the call names no action"));
        }
        // MCP-style tools (`mcp_call`, or any other name) pass through by name.
        let tool = if action == "mcp_call" { text(&["name", "tool"]) } else { action.clone() };
        let arguments = args.get("args").or_else(|| args.get("arguments")).cloned().unwrap_or(args.clone());
        plan.actions.push(PlannedAction::Tool { name: tool, arguments });
        return Ok(());
    };
    let act = match point_action.gesture {
        Gesture::Click => {
            let (x, y) = need(POINT)?;
            PlannedAction::TapAt { x, y, button: MouseButton::Left, clicks: 1 }
        }
        Gesture::DoubleClick => {
            let (x, y) = need(POINT)?;
            PlannedAction::TapAt { x, y, button: MouseButton::Left, clicks: 2 }
        }
        Gesture::RightClick => {
            let (x, y) = need(POINT)?;
            PlannedAction::TapAt { x, y, button: MouseButton::Right, clicks: 1 }
        }
        Gesture::Hover => {
            let (x, y) = need(POINT)?;
            PlannedAction::HoverAt { x, y }
        }
        Gesture::Type => {
            // Typed at a point: into the field there, which a tap focuses first.
            if let Some((x, y)) = at(POINT)? {
                plan.actions.push(PlannedAction::TapAt { x, y, button: MouseButton::Left, clicks: 1 });
            }
            typed(&text(&["text", "content", "value"]))
        }
        Gesture::Select => {
            let (x, y) = need(POINT)?;
            PlannedAction::SelectAt { x, y, option: option()? }
        }
        Gesture::Drag => PlannedAction::DragAt {
            from: need(&["start_coordinate", "start_box", "from"])?,
            to: need(&["end_coordinate", "end_box", "to"])?,
        },
        Gesture::Swipe | Gesture::Scroll => {
            // A swipe from one point to another drags; otherwise it scrolls like a finger.
            let finger = point_action.gesture == Gesture::Swipe;
            if let (true, Some(from), Some(to)) =
                (finger, at(&["start_coordinate", "start_box", "from"])?, at(&["end_coordinate", "end_box", "to"])?)
            {
                PlannedAction::DragAt { from, to }
            } else {
                let direction = direction(finger)?;
                match at(POINT)? {
                    Some((x, y)) => PlannedAction::ScrollAt { x, y, direction, distance: None },
                    None if to_end => PlannedAction::ScrollToEdge { target: None, direction },
                    None => PlannedAction::Scroll { target: None, direction, distance: None },
                }
            }
        }
        Gesture::Key => PlannedAction::KeyPress { key: key_combo(&text(&["key", "keys", "text"])) },
        Gesture::SystemButton => match text(&["button"]).to_ascii_lowercase().as_str() {
            "enter" => PlannedAction::KeyPress { key: "Enter".into() },
            "back" => PlannedAction::Back,
            other => {
                return Err(schema(
                    "arguments.button",
                    &format!("\"{other}\" has no meaning in a browser tab (back and enter do)"),
                ))
            }
        },
        Gesture::Wait => match text(&["text"]) {
            t if !t.trim().is_empty() => PlannedAction::WaitFor {
                text: t,
                gone: args.get("gone").and_then(Value::as_bool).unwrap_or(false),
                timeout_ms: args
                    .get("timeout")
                    .and_then(Value::as_f64)
                    .filter(|ms| *ms > 0.0)
                    .map_or(crate::vocab::actions::WAIT_FOR_TIMEOUT_MS, |ms| ms.min(60_000.0) as u32),
            },
            _ => PlannedAction::Wait {
                ms: args
                    .get("ms")
                    .and_then(Value::as_f64)
                    .filter(|ms| *ms > 0.0)
                    .map_or(super::ui_tars::WAIT_MS, |ms| ms.min(60_000.0) as u32),
            },
        },
        Gesture::Navigate => PlannedAction::Navigate { url: url()? },
        Gesture::Back => PlannedAction::Back,
        Gesture::Forward => PlannedAction::Forward,
        Gesture::Reload => PlannedAction::Reload,
        Gesture::OpenTab => PlannedAction::OpenTab { url: url()? },
        Gesture::SwitchTab => {
            match args.get("tab").and_then(|t| t.as_i64().or_else(|| t.as_str()?.trim().parse().ok())) {
                Some(tab) => PlannedAction::SwitchTab { tab },
                None => return Err(schema("arguments.tab", "missing; expected a tab id from the list of open tabs")),
            }
        }
        Gesture::CloseTab => PlannedAction::CloseTab,
        Gesture::Remember => {
            let note = text(&["note", "text"]);
            let data = args.get("data").filter(|d| !d.is_null()).cloned();
            if note.trim().is_empty() && data.is_none() {
                return Err(schema("arguments.note", "missing; expected a note or data to remember"));
            }
            PlannedAction::Remember { note, data }
        }
        Gesture::Finished => {
            plan.done = true;
            if text(&["status"]).eq_ignore_ascii_case("fail") {
                plan.error = Some("the model gave up on the task".into());
            }
            let answer = text(&["text", "content", "answer"]);
            if !answer.trim().is_empty() {
                plan.answer = Some(answer);
            }
            return Ok(());
        }
        Gesture::Answer => {
            plan.done = true;
            let answer = text(&["text", "content"]);
            plan.thought = if plan.thought.is_empty() { answer.clone() } else { format!("{}\n{answer}", plan.thought) };
            plan.answer = Some(answer);
            return Ok(());
        }
        Gesture::AskUser => PlannedAction::AskUser { question: text(&["question", "text", "content"]) },
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
    fn element_tools_cover_the_action_set() {
        let none = ImageMapping::identity(0, 0, 1.0);
        let calls = r#"[{"name":"double_click","arguments":{"target":1}},{"name":"right_click","arguments":{"target":2}},
            {"name":"hover","arguments":{"target":3}},{"name":"input","arguments":{"target":4,"value":"x","mode":"append"}},
            {"name":"input","arguments":{"target":4,"value":"","mode":"clear"}},{"name":"select_option","arguments":{"target":5,"option":"M"}},
            {"name":"scroll","arguments":{"direction":"down","to_end":true}},{"name":"scroll_to","arguments":{"target":9}},
            {"name":"drag","arguments":{"from":6,"to":7}},{"name":"upload","arguments":{"target":8,"files":["/tmp/a.txt"]}},
            {"name":"wait","arguments":{"text":"Done"}},{"name":"navigate","arguments":{"url":"https://x.test/"}},
            {"name":"back","arguments":{}},{"name":"forward","arguments":{}},{"name":"reload","arguments":{}},
            {"name":"open_tab","arguments":{"url":"x.test"}},{"name":"switch_tab","arguments":{"tab":"7"}},
            {"name":"close_tab","arguments":{}},{"name":"remember","arguments":{"note":"n"}},
            {"name":"finished","arguments":{"text":"the answer is 4"}}]"#;
        let plan = parse_function_calls(calls, CoordSpace::ImagePixels, &none).unwrap();
        assert_eq!(
            plan.actions,
            vec![
                PlannedAction::DoubleClick { target: 1 },
                PlannedAction::RightClick { target: 2 },
                PlannedAction::Hover { target: 3 },
                PlannedAction::Append { target: 4, value: "x".into() },
                PlannedAction::Clear { target: 4 },
                PlannedAction::Select { target: 5, option: "M".into(), value: None },
                PlannedAction::ScrollToEdge { target: None, direction: ScrollDirection::Down },
                PlannedAction::ScrollTo { target: 9 },
                PlannedAction::Drag { from: 6, to: 7 },
                PlannedAction::Upload { target: 8, files: vec!["/tmp/a.txt".into()] },
                PlannedAction::WaitFor {
                    text: "Done".into(),
                    gone: false,
                    timeout_ms: crate::vocab::actions::WAIT_FOR_TIMEOUT_MS
                },
                PlannedAction::Navigate { url: "https://x.test/".into() },
                PlannedAction::Back,
                PlannedAction::Forward,
                PlannedAction::Reload,
                PlannedAction::OpenTab { url: "https://x.test".into() },
                PlannedAction::SwitchTab { tab: 7 },
                PlannedAction::CloseTab,
                PlannedAction::Remember { note: "n".into(), data: None },
            ]
        );
        assert!(plan.done && plan.answer.as_deref() == Some("the answer is 4"));
        for (call, field) in [
            (r#"{"name":"select_option","arguments":{"target":5}}"#, "arguments.option"),
            (r#"{"name":"upload","arguments":{"target":5}}"#, "arguments.files"),
            (r#"{"name":"switch_tab","arguments":{}}"#, "arguments.tab"),
            (r#"{"name":"navigate","arguments":{}}"#, "arguments.url"),
            (r#"{"name":"input","arguments":{"target":1,"mode":"loud"}}"#, "arguments.mode"),
        ] {
            match parse_function_calls(call, CoordSpace::ImagePixels, &none) {
                Err(ParseError::Schema { field: f, .. }) => assert_eq!(f, field, "{call}"),
                other => panic!("{call}: {other:?}"),
            }
        }
    }

    #[test]
    fn grounding_calls_map_type_at_a_point_select_and_open() {
        let plan = parse_mai_ui(
            r#"<tool_call>{"name":"mobile_use","arguments":{"action":"type","text":"milk","coordinate":[100,200]}}</tool_call>"#,
            &m(),
        )
        .unwrap();
        assert_eq!(
            plan.actions,
            vec![
                PlannedAction::TapAt { x: 100.0, y: 200.0, button: MouseButton::Left, clicks: 1 },
                PlannedAction::Type { value: "milk".into(), submit: false }
            ],
            "the box is tapped before typing"
        );
        let call = |args: &str| {
            parse_mai_ui(&format!("<tool_call>{{\"name\":\"mobile_use\",\"arguments\":{args}}}</tool_call>"), &m())
                .unwrap()
                .actions
        };
        assert_eq!(
            call(r#"{"action":"open","text":"shop.test"}"#),
            vec![PlannedAction::Navigate { url: "https://shop.test".into() }]
        );
        assert_eq!(call(r#"{"action":"system_button","button":"back"}"#), vec![PlannedAction::Back]);
        assert_eq!(
            call(r#"{"action":"select_option","coordinate":[10,20],"option":"M"}"#),
            vec![PlannedAction::SelectAt { x: 10.0, y: 20.0, option: "M".into() }]
        );
        let answer =
            parse_mai_ui(r#"<tool_call>{"name":"m","arguments":{"action":"answer","text":"42"}}</tool_call>"#, &m())
                .unwrap();
        assert_eq!(answer.answer.as_deref(), Some("42"));
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
