//! UI-TARS replies: `Thought:` (or `Reflection:` + `Action_Summary:`) then `Action:` and one
//! or more calls such as `click(start_box='(100,200)')`. Full-width colons are accepted, and
//! every coordinate spelling `coords` reads. Coordinates are relative (0–1000) for UI-TARS
//! 1.0 and pixels of the smart-resized image for 1.5; the caller says which.

use super::coords::spot;
use super::plan::{key_combo, typed};
use super::{ParseError, Plan};
use crate::vision::ImageMapping;
use crate::vocab::actions::{MouseButton, PlannedAction, ScrollDirection};
use crate::vocab::catalog;
use crate::vocab::family::CoordSpace;
use crate::vocab::grounding::{self, Gesture, Grammar};

/// One call as written: its name and its `key=value` arguments (values unquoted, unescaped).
#[derive(Debug, Clone, PartialEq)]
pub struct Call {
    pub name: String,
    pub args: Vec<(String, String)>,
    /// The call's source text, for error messages.
    pub text: String,
}

impl Call {
    fn arg(&self, names: &[&str]) -> Option<&str> {
        self.args.iter().find(|(k, _)| names.contains(&k.as_str())).map(|(_, v)| v.as_str())
    }
}

/// Wait this long for `wait()`: UI-TARS's own agents pause five seconds.
pub const WAIT_MS: u32 = 5_000;

pub fn parse_ui_tars(reply: &str, space: CoordSpace, mapping: &ImageMapping) -> Result<Plan, ParseError> {
    if reply.trim().is_empty() {
        return Err(ParseError::Empty);
    }
    let text = reply.replace('：', ":");
    // The calls follow the last `Action:` (`Action_Summary:` is a different label).
    let action_at = text.rfind("Action:");
    let head = action_at.map_or(text.as_str(), |i| &text[..i]);
    let mut thought = section(head, "Thought:").or_else(|| section(head, "Action_Summary:")).unwrap_or_default();
    if let Some(reflection) = section(head, "Reflection:") {
        if thought.is_empty() {
            thought = reflection;
        }
    }
    let body = action_at.map_or(text.as_str(), |i| &text[i + "Action:".len()..]);
    let calls = scan_calls(body);
    if calls.is_empty() {
        return Err(ParseError::Action {
            text: body.trim().chars().take(120).collect(),
            problem: "no action call such as click(start_box='(x,y)') found".into(),
        });
    }
    let mut plan = Plan { thought, actions: Vec::new(), done: false, error: None, answer: None };
    for call in &calls {
        match to_action(call, space, mapping)? {
            Step::Act(a) => plan.actions.push(a),
            Step::Two(a, b) => plan.actions.extend([a, b]),
            Step::Finished(message) => {
                plan.done = true;
                if !message.is_empty() {
                    plan.answer = Some(message.clone());
                    plan.thought =
                        if plan.thought.is_empty() { message } else { format!("{}\n{message}", plan.thought) };
                }
            }
        }
    }
    Ok(plan)
}

/// The text after `label` up to the next known label.
fn section(head: &str, label: &str) -> Option<String> {
    let start = head.find(label)? + label.len();
    let rest = &head[start..];
    let end =
        ["Reflection:", "Action_Summary:", "Thought:"].iter().filter_map(|l| rest.find(l)).min().unwrap_or(rest.len());
    Some(rest[..end].trim().to_string())
}

enum Step {
    Act(PlannedAction),
    /// Two actions for one call: `type` at a box taps it first.
    Two(PlannedAction, PlannedAction),
    Finished(String),
}

fn to_action(call: &Call, space: CoordSpace, mapping: &ImageMapping) -> Result<Step, ParseError> {
    let point = |names: &[&str]| -> Result<Option<(f64, f64)>, ParseError> {
        call.arg(names).map(|v| spot(v, space, mapping).map(|s| s.center())).transpose()
    };
    let need = |names: &[&str]| -> Result<(f64, f64), ParseError> {
        point(names)?
            .ok_or_else(|| ParseError::Action { text: call.text.clone(), problem: format!("missing {}", names[0]) })
    };
    const START: &[&str] = &["start_box", "start_point", "point", "box", "coordinate", "_0"];
    const END: &[&str] = &["end_box", "end_point", "end_coordinate"];
    let tap = |button, clicks| -> Result<Step, ParseError> {
        let (x, y) = need(START)?;
        Ok(Step::Act(PlannedAction::TapAt { x, y, button, clicks }))
    };
    let unknown = || ParseError::Action {
        text: call.text.clone(),
        problem: format!(
            "unknown action \"{}\"; expected {}",
            call.name.to_ascii_lowercase(),
            catalog::either(&grounding::offered(Grammar::UiTars))
        ),
    };
    let action = grounding::by_ui_tars_name(&call.name).ok_or_else(unknown)?;
    match action.gesture {
        Gesture::Click => tap(MouseButton::Left, 1),
        Gesture::DoubleClick => tap(MouseButton::Left, 2),
        Gesture::RightClick => tap(MouseButton::Right, 1),
        Gesture::Hover => {
            let (x, y) = need(START)?;
            Ok(Step::Act(PlannedAction::HoverAt { x, y }))
        }
        Gesture::Drag => Ok(Step::Act(PlannedAction::DragAt { from: need(START)?, to: need(END)? })),
        Gesture::Key => {
            let key = key_combo(call.arg(&["key", "hotkey", "keys", "_0"]).unwrap_or_default());
            if key.is_empty() {
                return Err(ParseError::Action { text: call.text.clone(), problem: "missing key".into() });
            }
            Ok(Step::Act(PlannedAction::KeyPress { key }))
        }
        Gesture::Type => {
            let text = typed(call.arg(&["content", "text", "value", "_0"]).unwrap_or_default());
            // With a box: into the field there, which a tap focuses first.
            Ok(match point(&["start_box", "start_point", "point", "box", "coordinate"])? {
                Some((x, y)) => Step::Two(PlannedAction::TapAt { x, y, button: MouseButton::Left, clicks: 1 }, text),
                None => Step::Act(text),
            })
        }
        Gesture::Select => {
            let (x, y) = need(START)?;
            let option = call.arg(&["option", "value", "content", "text", "_1"]).unwrap_or_default().to_string();
            if option.trim().is_empty() {
                return Err(ParseError::Action { text: call.text.clone(), problem: "missing option".into() });
            }
            Ok(Step::Act(PlannedAction::SelectAt { x, y, option }))
        }
        // A swipe between two boxes drags; a swipe in a direction scrolls as a finger does:
        // swiping up brings what is below into view.
        Gesture::Swipe => match (point(START)?, point(END)?) {
            (Some(from), Some(to)) => Ok(Step::Act(PlannedAction::DragAt { from, to })),
            (at, _) => {
                let name = call.arg(&["direction", "_1"]).unwrap_or("up").trim().to_ascii_lowercase();
                let direction = ScrollDirection::from_name(&name)
                    .ok_or_else(|| ParseError::Action {
                        text: call.text.clone(),
                        problem: format!("direction \"{name}\" is not up, down, left or right"),
                    })?
                    .opposite();
                Ok(Step::Act(match at {
                    Some((x, y)) => PlannedAction::ScrollAt { x, y, direction, distance: None },
                    None => PlannedAction::Scroll { target: None, direction, distance: None },
                }))
            }
        },
        Gesture::Navigate => {
            let url = call.arg(&["url", "app_name", "app", "content", "text", "_0"]).unwrap_or_default();
            if url.trim().is_empty() {
                return Err(ParseError::Action { text: call.text.clone(), problem: "missing url".into() });
            }
            Ok(Step::Act(PlannedAction::Navigate { url: super::plan::web_address(url) }))
        }
        Gesture::Back => Ok(Step::Act(PlannedAction::Back)),
        Gesture::Forward => Ok(Step::Act(PlannedAction::Forward)),
        Gesture::Reload => Ok(Step::Act(PlannedAction::Reload)),
        Gesture::OpenTab => {
            let url = call.arg(&["url", "content", "_0"]).unwrap_or_default();
            Ok(Step::Act(PlannedAction::OpenTab { url: super::plan::web_address(url) }))
        }
        Gesture::SwitchTab => match call.arg(&["tab", "tab_id", "_0"]).and_then(|t| t.trim().parse().ok()) {
            Some(tab) => Ok(Step::Act(PlannedAction::SwitchTab { tab })),
            None => Err(ParseError::Action { text: call.text.clone(), problem: "missing tab id".into() }),
        },
        Gesture::CloseTab => Ok(Step::Act(PlannedAction::CloseTab)),
        Gesture::Remember => {
            let note = call.arg(&["note", "content", "text", "_0"]).unwrap_or_default().to_string();
            if note.trim().is_empty() {
                return Err(ParseError::Action { text: call.text.clone(), problem: "missing note".into() });
            }
            Ok(Step::Act(PlannedAction::Remember { note, data: None }))
        }
        Gesture::Scroll => {
            let name = call.arg(&["direction", "_1"]).unwrap_or("down").trim().to_ascii_lowercase();
            let direction = ScrollDirection::from_name(&name).ok_or_else(|| ParseError::Action {
                text: call.text.clone(),
                problem: format!("direction \"{name}\" is not up, down, left or right"),
            })?;
            Ok(Step::Act(match point(START)? {
                Some((x, y)) => PlannedAction::ScrollAt { x, y, direction, distance: None },
                None => PlannedAction::Scroll { target: None, direction, distance: None },
            }))
        }
        Gesture::Wait => Ok(Step::Act(match call.arg(&["text", "content"]).filter(|t| !t.trim().is_empty()) {
            Some(text) => PlannedAction::WaitFor {
                text: text.to_string(),
                gone: false,
                timeout_ms: crate::vocab::actions::WAIT_FOR_TIMEOUT_MS,
            },
            None => PlannedAction::Wait { ms: WAIT_MS },
        })),
        Gesture::Finished => Ok(Step::Finished(call.arg(&["content", "text", "_0"]).unwrap_or_default().to_string())),
        Gesture::AskUser => Ok(Step::Act(PlannedAction::AskUser {
            question: call.arg(&["content", "question", "text", "_0"]).unwrap_or_default().to_string(),
        })),
        // MAI-UI's own calls: no UI-TARS name reads as them.
        Gesture::SystemButton | Gesture::Answer => Err(unknown()),
    }
}

/// Finds every `name(args)` in `text`, quote- and bracket-aware.
pub fn scan_calls(text: &str) -> Vec<Call> {
    let chars: Vec<char> = text.chars().collect();
    let mut calls = Vec::new();
    let mut i = 0;
    while i < chars.len() {
        if !(chars[i].is_ascii_alphabetic() || chars[i] == '_')
            || (i > 0 && (chars[i - 1].is_alphanumeric() || chars[i - 1] == '_'))
        {
            i += 1;
            continue;
        }
        let start = i;
        while i < chars.len() && (chars[i].is_ascii_alphanumeric() || chars[i] == '_') {
            i += 1;
        }
        if chars.get(i) != Some(&'(') {
            continue;
        }
        let name: String = chars[start..i].iter().collect();
        let Some(end) = closing_paren(&chars, i) else { break };
        let inner: String = chars[i + 1..end].iter().collect();
        calls.push(Call { name, args: parse_args(&inner), text: chars[start..=end].iter().collect() });
        i = end + 1;
    }
    calls
}

/// The index of the `)` matching the `(` at `open`; `None` for a call never closed.
fn closing_paren(chars: &[char], open: usize) -> Option<usize> {
    let (mut depth, mut quote, mut i) = (0i32, None::<char>, open);
    while i < chars.len() {
        let c = chars[i];
        match quote {
            Some(_) if c == '\\' => i += 1,
            Some(q) if c == q => quote = None,
            Some(_) => {}
            None => match c {
                '\'' | '"' => quote = Some(c),
                '(' | '[' => depth += 1,
                ')' | ']' => {
                    depth -= 1;
                    if depth == 0 {
                        return Some(i);
                    }
                }
                _ => {}
            },
        }
        i += 1;
    }
    None
}

/// `a='x', b=(1,2)` → pairs; a value without `key=` is named `_0`, `_1`… by position.
fn parse_args(inner: &str) -> Vec<(String, String)> {
    let mut parts = Vec::new();
    let (mut depth, mut quote, mut current, mut escaped) = (0i32, None::<char>, String::new(), false);
    for c in inner.chars() {
        if let Some(q) = quote {
            current.push(c);
            if escaped {
                escaped = false;
            } else if c == '\\' {
                escaped = true;
            } else if c == q {
                quote = None;
            }
            continue;
        }
        match c {
            '\'' | '"' => {
                quote = Some(c);
                current.push(c);
            }
            '(' | '[' | '<' => {
                depth += 1;
                current.push(c);
            }
            ')' | ']' | '>' => {
                depth -= 1;
                current.push(c);
            }
            ',' if depth <= 0 => parts.push(std::mem::take(&mut current)),
            _ => current.push(c),
        }
    }
    if !current.trim().is_empty() {
        parts.push(current);
    }
    let mut positional = 0;
    parts
        .into_iter()
        .map(|part| {
            let part = part.trim();
            let key_end =
                part.find('=').filter(|&i| part[..i].chars().all(|c| c.is_ascii_alphanumeric() || c == '_') && i > 0);
            match key_end {
                Some(i) => (part[..i].trim().to_string(), unquote(part[i + 1..].trim())),
                None => {
                    positional += 1;
                    (format!("_{}", positional - 1), unquote(part))
                }
            }
        })
        .collect()
}

/// Strips one pair of matching quotes and undoes `\'`, `\"`, `\\` and `\n`.
fn unquote(v: &str) -> String {
    let inner = match (v.chars().next(), v.chars().last()) {
        (Some(a), Some(b)) if v.len() >= 2 && a == b && (a == '\'' || a == '"') => &v[1..v.len() - 1],
        _ => v,
    };
    let mut out = String::with_capacity(inner.len());
    let mut chars = inner.chars();
    while let Some(c) = chars.next() {
        if c == '\\' {
            match chars.next() {
                Some('n') => out.push('\n'),
                Some('t') => out.push('\t'),
                Some(other) => out.push(other),
                None => out.push('\\'),
            }
        } else {
            out.push(c);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rel() -> CoordSpace {
        CoordSpace::Relative { range: 1000.0 }
    }

    fn m() -> ImageMapping {
        ImageMapping::identity(1000, 500, 1.0)
    }

    #[test]
    fn thought_and_one_click() {
        let plan =
            parse_ui_tars("Thought: The button is at the top.\nAction: click(start_box='(100,200)')", rel(), &m())
                .unwrap();
        assert_eq!(plan.thought, "The button is at the top.");
        assert_eq!(
            plan.actions,
            vec![PlannedAction::TapAt { x: 100.0, y: 100.0, button: MouseButton::Left, clicks: 1 }]
        );
    }

    #[test]
    fn every_coordinate_spelling() {
        let want = PlannedAction::TapAt { x: 500.0, y: 250.0, button: MouseButton::Left, clicks: 1 };
        for call in [
            "click(start_box='(500,500)')",
            "click(start_box='[500,500]')",
            "click(start_box='[400,400,600,600]')",
            "click(start_box='<bbox>400 400 600 600</bbox>')",
            "click(point='<point>500 500</point>')",
            "click(start_point='<point>500 500</point>')",
            "click(start_box='<|box_start|>(500,500)<|box_end|>')",
            "click(start_box=\"(500, 500)\")",
        ] {
            let plan = parse_ui_tars(&format!("Thought: x\nAction: {call}"), rel(), &m()).unwrap();
            assert_eq!(plan.actions, vec![want.clone()], "{call}");
        }
    }

    #[test]
    fn every_action() {
        let reply = "Reflection: it did not open\nAction_Summary: try again twice\nAction：left_double(start_box='(100,100)')\n\n\
            right_single(start_box='(100,100)')\n\ndrag(start_box='(100,100)', end_box='(200,200)')\n\nhotkey(key='ctrl c')\n\n\
            type(content='buy milk\\n')\n\nscroll(start_box='(500,500)', direction='up')\n\nwait()\n\nhover(start_box='(10,10)')\n\ncall_user()";
        let plan = parse_ui_tars(reply, rel(), &m()).unwrap();
        assert_eq!(plan.thought, "try again twice");
        assert_eq!(
            plan.actions,
            vec![
                PlannedAction::TapAt { x: 100.0, y: 50.0, button: MouseButton::Left, clicks: 2 },
                PlannedAction::TapAt { x: 100.0, y: 50.0, button: MouseButton::Right, clicks: 1 },
                PlannedAction::DragAt { from: (100.0, 50.0), to: (200.0, 100.0) },
                PlannedAction::KeyPress { key: "ctrl+c".into() },
                PlannedAction::Type { value: "buy milk".into(), submit: true },
                PlannedAction::ScrollAt { x: 500.0, y: 250.0, direction: ScrollDirection::Up, distance: None },
                PlannedAction::Wait { ms: WAIT_MS },
                PlannedAction::HoverAt { x: 10.0, y: 5.0 },
                PlannedAction::AskUser { question: String::new() },
            ]
        );
    }

    #[test]
    fn type_at_a_box_swipe_and_open_map_to_our_actions() {
        let plan = parse_ui_tars("Action: type(content='milk\\n', start_box='(100,200)')", rel(), &m()).unwrap();
        assert_eq!(
            plan.actions,
            vec![
                PlannedAction::TapAt { x: 100.0, y: 100.0, button: MouseButton::Left, clicks: 1 },
                PlannedAction::Type { value: "milk".into(), submit: true },
            ],
            "the box is tapped first, not dropped"
        );
        let swipe = parse_ui_tars("Action: swipe(start_box='(100,100)', end_box='(300,100)')", rel(), &m()).unwrap();
        assert_eq!(swipe.actions, vec![PlannedAction::DragAt { from: (100.0, 50.0), to: (300.0, 50.0) }]);
        let swipe = parse_ui_tars("Action: swipe(direction='up')", rel(), &m()).unwrap();
        assert_eq!(
            swipe.actions,
            vec![PlannedAction::Scroll { target: None, direction: ScrollDirection::Down, distance: None }],
            "a finger swiping up shows what is below"
        );
        for call in ["open_url(url='https://shop.test/')", "open_app(app_name='shop.test/')"] {
            let plan = parse_ui_tars(&format!("Action: {call}"), rel(), &m()).unwrap();
            assert_eq!(plan.actions, vec![PlannedAction::Navigate { url: "https://shop.test/".into() }], "{call}");
        }
        let more = parse_ui_tars(
            "Action: go_back()\n\ngo_forward()\n\nreload()\n\nopen_tab(url='https://a.test/')\n\nswitch_tab(tab='5')\n\nclose_tab()\n\nremember(content='total 12')\n\nselect_option(start_box='(10,10)', option='M')\n\nwait(text='Ready')",
            rel(),
            &m(),
        )
        .unwrap();
        assert_eq!(
            more.actions,
            vec![
                PlannedAction::Back,
                PlannedAction::Forward,
                PlannedAction::Reload,
                PlannedAction::OpenTab { url: "https://a.test/".into() },
                PlannedAction::SwitchTab { tab: 5 },
                PlannedAction::CloseTab,
                PlannedAction::Remember { note: "total 12".into(), data: None },
                PlannedAction::SelectAt { x: 10.0, y: 5.0, option: "M".into() },
                PlannedAction::WaitFor {
                    text: "Ready".into(),
                    gone: false,
                    timeout_ms: crate::vocab::actions::WAIT_FOR_TIMEOUT_MS
                },
            ]
        );
        for bad in
            ["swipe(direction='sideways')", "switch_tab(tab='x')", "open_url()", "select_option(start_box='(1,1)')"]
        {
            assert!(parse_ui_tars(&format!("Action: {bad}"), rel(), &m()).is_err(), "{bad}");
        }
        let done = parse_ui_tars("Action: finished(content='42 items')", rel(), &m()).unwrap();
        assert_eq!(done.answer.as_deref(), Some("42 items"));
    }

    #[test]
    fn finished_and_typed_quotes() {
        let plan = parse_ui_tars("Thought: done\nAction: finished(content='It\\'s 42')", rel(), &m()).unwrap();
        assert!(plan.done && plan.actions.is_empty());
        assert_eq!(plan.thought, "done\nIt's 42");
        let plan = parse_ui_tars("Action: type(content='say \"hi\", ok')", rel(), &m()).unwrap();
        assert_eq!(plan.actions, vec![PlannedAction::Type { value: "say \"hi\", ok".into(), submit: false }]);
    }

    #[test]
    fn absolute_pixels_for_1_5() {
        let mapping =
            ImageMapping { scale_x: 1288.0 / 1280.0, scale_y: 812.0 / 800.0, ..ImageMapping::identity(1288, 812, 1.0) };
        let plan = parse_ui_tars("Action: click(start_box='(644,406)')", CoordSpace::ImagePixels, &mapping).unwrap();
        let PlannedAction::TapAt { x, y, .. } = plan.actions[0] else { panic!("{plan:?}") };
        assert!((x - 640.0).abs() < 1e-9 && (y - 400.0).abs() < 1e-9, "({x}, {y})");
    }

    #[test]
    fn errors_say_what_was_wrong() {
        let e = parse_ui_tars("Action: fly(start_box='(1,1)')", rel(), &m()).unwrap_err();
        assert!(e.to_string().contains("unknown action \"fly\""), "{e}");
        let e = parse_ui_tars("Action: click()", rel(), &m()).unwrap_err();
        assert!(e.to_string().contains("missing start_box"), "{e}");
        let e = parse_ui_tars("Action: click(start_box='(1200,10)')", rel(), &m()).unwrap_err();
        assert!(e.to_string().contains("outside 0–1000"), "{e}");
        assert_eq!(parse_ui_tars("", rel(), &m()), Err(ParseError::Empty));
        assert!(parse_ui_tars("I think we are done here.", rel(), &m()).is_err());
    }
}
