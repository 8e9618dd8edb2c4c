//! Turning a planned action into trusted input: the CDP `Input.*` commands the service
//! worker sends through `chrome.debugger`. Pure: element lookup and key tables only.

mod keys;

pub use keys::{key_events, KeyCombo, Modifier};

use crate::describe::{Element, Extraction};
use crate::vocab::actions::{InputMode, MouseButton, PlannedAction, ScrollDirection};
use serde::{Deserialize, Serialize};
use serde_json::{json, Value};

/// One CDP command.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct InputCommand {
    pub method: String,
    pub params: Value,
}

impl InputCommand {
    fn new(method: &str, params: Value) -> Self {
        InputCommand { method: method.into(), params }
    }
}

#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum ActionError {
    #[error("element [{target}] does not exist on this page (the description lists {count} elements)")]
    UnknownTarget { target: u32, count: usize },
    #[error("element [{target}] ({summary}) lies outside the visible area; scroll to it first")]
    OutOfView { target: u32, summary: String },
    #[error("unknown key \"{0}\"")]
    UnknownKey(String),
    #[error("the point ({x:.0}, {y:.0}) lies outside the visible area ({width:.0}×{height:.0})")]
    PointOutOfView { x: f64, y: f64, width: f64, height: f64 },
    #[error("\"{0}\" is not something Sightline can do on a page")]
    NotAnInput(String),
    #[error("nothing to choose from lies at ({x:.0}, {y:.0})")]
    NothingAt { x: f64, y: f64 },
}

impl ActionError {
    /// The part of the message the page wrote (an element's summary), which a prompt fences.
    pub fn page_text(&self) -> Option<&str> {
        match self {
            ActionError::OutOfView { summary, .. } => Some(summary),
            _ => None,
        }
    }
}

/// Default scroll step: most of a viewport, so consecutive views overlap a little.
const SCROLL_FRACTION: f64 = 0.8;

/// Resolves targets against the extraction the plan was made from and returns the commands.
pub fn commands_for(action: &PlannedAction, page: &Extraction) -> Result<Vec<InputCommand>, ActionError> {
    match action {
        PlannedAction::Tap { target } => {
            let (x, y) = visible_point(*target, page)?;
            Ok(click(x, y))
        }
        PlannedAction::Input { target, value } => {
            let (x, y) = visible_point(*target, page)?;
            let mut cmds = click(x, y);
            cmds.extend(key_events("Control+A")?);
            cmds.extend(key_events("Backspace")?);
            if !value.is_empty() {
                cmds.push(InputCommand::new("Input.insertText", json!({ "text": value })));
            }
            Ok(cmds)
        }
        PlannedAction::DoubleClick { target } | PlannedAction::RightClick { target } => {
            let (x, y) = visible_point(*target, page)?;
            let right = matches!(action, PlannedAction::RightClick { .. });
            Ok(if right { press(x, y, MouseButton::Right, 1) } else { press(x, y, MouseButton::Left, 2) })
        }
        PlannedAction::Hover { target } => {
            let (x, y) = visible_point(*target, page)?;
            Ok(vec![InputCommand::new("Input.dispatchMouseEvent", json!({ "type": "mouseMoved", "x": x, "y": y }))])
        }
        PlannedAction::Append { target, value } => {
            let (x, y) = visible_point(*target, page)?;
            fill_at(x, y, value, InputMode::Append, page)
        }
        PlannedAction::Clear { target } => {
            let (x, y) = visible_point(*target, page)?;
            fill_at(x, y, "", InputMode::Clear, page)
        }
        PlannedAction::Drag { from, to } => {
            let from = visible_point(*from, page)?;
            let to = visible_point(*to, page)?;
            commands_for(&PlannedAction::DragAt { from, to }, page)
        }
        PlannedAction::KeyPress { key } => key_events(key),
        PlannedAction::Scroll { target, direction, distance } => {
            let vp = &page.viewport;
            let (x, y) = match target {
                Some(t) => visible_point(*t, page)?,
                None => (vp.width / 2.0, vp.height / 2.0),
            };
            Ok(vec![wheel(x, y, *direction, *distance, page)])
        }
        PlannedAction::TapAt { x, y, button, clicks } => {
            let (x, y) = in_view(*x, *y, page)?;
            Ok(press(x, y, *button, (*clicks).clamp(1, 3)))
        }
        PlannedAction::HoverAt { x, y } => {
            let (x, y) = in_view(*x, *y, page)?;
            Ok(vec![InputCommand::new("Input.dispatchMouseEvent", json!({ "type": "mouseMoved", "x": x, "y": y }))])
        }
        PlannedAction::DragAt { from, to } => {
            let (fx, fy) = in_view(from.0, from.1, page)?;
            let (tx, ty) = in_view(to.0, to.1, page)?;
            let mouse = |kind: &str, x: f64, y: f64, buttons: u8| {
                InputCommand::new(
                    "Input.dispatchMouseEvent",
                    json!({ "type": kind, "x": x, "y": y, "button": "left", "buttons": buttons, "clickCount": 1 }),
                )
            };
            let mut cmds = vec![mouse("mouseMoved", fx, fy, 0), mouse("mousePressed", fx, fy, 1)];
            // Intermediate moves: drag-and-drop code listens for movement, not a jump.
            for k in 1..=DRAG_STEPS {
                let t = k as f64 / DRAG_STEPS as f64;
                cmds.push(mouse("mouseMoved", fx + (tx - fx) * t, fy + (ty - fy) * t, 1));
            }
            cmds.push(mouse("mouseReleased", tx, ty, 0));
            Ok(cmds)
        }
        PlannedAction::Type { value, submit } => {
            let mut cmds = Vec::new();
            if !value.is_empty() {
                cmds.push(InputCommand::new("Input.insertText", json!({ "text": value })));
            }
            if *submit {
                cmds.extend(key_events("Enter")?);
            }
            Ok(cmds)
        }
        PlannedAction::ScrollAt { x, y, direction, distance } => {
            let (x, y) = in_view(*x, *y, page)?;
            Ok(vec![wheel(x, y, *direction, *distance, page)])
        }
        PlannedAction::Wait { .. } => Ok(Vec::new()),
        PlannedAction::Navigate { url } => {
            if !is_web_address(url) {
                return Err(ActionError::NotAnInput(format!(
                    "opening \u{201c}{url}\u{201d}: only http and https addresses are opened"
                )));
            }
            Ok(vec![InputCommand::new("Page.navigate", json!({ "url": url }))])
        }
        PlannedAction::AskUser { .. } => Err(ActionError::NotAnInput("ask the user".into())),
        // The run loop carries these out through the browser's own primitives, not input.
        PlannedAction::Select { .. }
        | PlannedAction::SelectAt { .. }
        | PlannedAction::ScrollToEdge { .. }
        | PlannedAction::ScrollTo { .. }
        | PlannedAction::Upload { .. }
        | PlannedAction::WaitFor { .. }
        | PlannedAction::Back
        | PlannedAction::Forward
        | PlannedAction::Reload
        | PlannedAction::OpenTab { .. }
        | PlannedAction::SwitchTab { .. }
        | PlannedAction::CloseTab
        | PlannedAction::Expect { .. }
        | PlannedAction::Remember { .. } => Err(ActionError::NotAnInput(format!("{action:?}"))),
        PlannedAction::Tool { name, .. } => Err(ActionError::NotAnInput(format!("tool {name}"))),
    }
}

/// An http or https address: the only kind a recording or flow file may open (not
/// javascript:, file: or the browser's own pages).
pub fn is_web_address(url: &str) -> bool {
    let scheme = url.split(':').next().unwrap_or_default().to_ascii_lowercase();
    scheme == "http" || scheme == "https"
}

/// Click into the field at a point, then replace, extend or empty its text.
pub fn fill_at(
    x: f64,
    y: f64,
    value: &str,
    mode: InputMode,
    page: &Extraction,
) -> Result<Vec<InputCommand>, ActionError> {
    let (x, y) = in_view(x, y, page)?;
    let mut cmds = click(x, y);
    match mode {
        InputMode::Replace | InputMode::Clear => {
            cmds.extend(key_events("Control+A")?);
            cmds.extend(key_events("Backspace")?);
        }
        InputMode::Append => cmds.extend(key_events("Control+End")?),
    }
    if mode != InputMode::Clear && !value.is_empty() {
        cmds.push(InputCommand::new("Input.insertText", json!({ "text": value })));
    }
    Ok(cmds)
}

/// Where to put the pointer on an element: the middle of its part visible in the viewport.
pub fn element_point(e: &Element, page: &Extraction) -> Option<(f64, f64)> {
    crate::describe::visibility::hit_point(&e.shown_rect(), &page.viewport.rect())
}

const DRAG_STEPS: u32 = 5;

fn wheel(x: f64, y: f64, direction: ScrollDirection, distance: Option<f64>, page: &Extraction) -> InputCommand {
    let vp = &page.viewport;
    let along_y = matches!(direction, ScrollDirection::Up | ScrollDirection::Down);
    let step = distance.unwrap_or(if along_y { vp.height } else { vp.width } * SCROLL_FRACTION);
    let (dx, dy) = match direction {
        ScrollDirection::Up => (0.0, -step),
        ScrollDirection::Down => (0.0, step),
        ScrollDirection::Left => (-step, 0.0),
        ScrollDirection::Right => (step, 0.0),
    };
    InputCommand::new(
        "Input.dispatchMouseEvent",
        json!({ "type": "mouseWheel", "x": x, "y": y, "deltaX": dx, "deltaY": dy }),
    )
}

/// A model's point, checked against the viewport it saw.
fn in_view(x: f64, y: f64, page: &Extraction) -> Result<(f64, f64), ActionError> {
    let vp = &page.viewport;
    let ok = x.is_finite() && y.is_finite() && x >= 0.0 && y >= 0.0 && x < vp.width.max(1.0) && y < vp.height.max(1.0);
    ok.then_some((x, y)).ok_or(ActionError::PointOutOfView { x, y, width: vp.width, height: vp.height })
}

pub fn find_element(target: u32, page: &Extraction) -> Result<&Element, ActionError> {
    page.elements
        .iter()
        .find(|e| e.index == target)
        .ok_or(ActionError::UnknownTarget { target, count: page.elements.len() })
}

/// The middle of the part of the element a person can see in the viewport.
fn visible_point(target: u32, page: &Extraction) -> Result<(f64, f64), ActionError> {
    let e = find_element(target, page)?;
    element_point(e, page).ok_or_else(|| ActionError::OutOfView { target, summary: e.summary() })
}

fn click(x: f64, y: f64) -> Vec<InputCommand> {
    press(x, y, MouseButton::Left, 1)
}

/// Move, then press and release `clicks` times (the count rising, as a real double click does).
fn press(x: f64, y: f64, button: MouseButton, clicks: u8) -> Vec<InputCommand> {
    let (name, bit) = match button {
        MouseButton::Left => ("left", 1),
        MouseButton::Right => ("right", 2),
    };
    let mut cmds = vec![InputCommand::new("Input.dispatchMouseEvent", json!({ "type": "mouseMoved", "x": x, "y": y }))];
    for count in 1..=clicks {
        for (kind, buttons) in [("mousePressed", bit), ("mouseReleased", 0)] {
            cmds.push(InputCommand::new(
                "Input.dispatchMouseEvent",
                json!({ "type": kind, "x": x, "y": y, "button": name, "buttons": buttons, "clickCount": count }),
            ));
        }
    }
    cmds
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::describe::{describe, DescribeOptions};
    use crate::snapshot::test_support::Builder;
    use crate::vocab::geometry::Rect;

    fn page() -> Extraction {
        let mut b = Builder::new();
        let body = b.el(None, "body", &[], Rect::new(0.0, 0.0, 1280.0, 800.0));
        b.el(Some(body), "input", &[], Rect::new(100.0, 100.0, 200.0, 40.0));
        b.el(Some(body), "button", &[("aria-label", "Far")], Rect::new(100.0, 1000.0, 80.0, 30.0));
        b.el(Some(body), "button", &[], Rect::new(1200.0, 10.0, 200.0, 30.0));
        describe(&b.snap, &DescribeOptions::default())
    }

    #[test]
    fn input_clicks_clears_and_inserts() {
        let cmds = commands_for(&PlannedAction::Input { target: 1, value: "buy milk".into() }, &page()).unwrap();
        assert_eq!(cmds[1].params["type"], "mousePressed");
        assert_eq!((cmds[1].params["x"].as_f64(), cmds[1].params["y"].as_f64()), (Some(200.0), Some(120.0)));
        let last = cmds.last().unwrap();
        assert_eq!(last.method, "Input.insertText");
        assert_eq!(last.params["text"], "buy milk");
        assert!(cmds.iter().any(|c| c.params["commands"] == json!(["selectAll"])));
    }

    #[test]
    fn targets_are_checked() {
        let p = page();
        assert_eq!(
            commands_for(&PlannedAction::Tap { target: 9 }, &p).unwrap_err(),
            ActionError::UnknownTarget { target: 9, count: 3 }
        );
        let e = commands_for(&PlannedAction::Tap { target: 2 }, &p).unwrap_err();
        assert!(e.to_string().contains("scroll to it first") && e.to_string().contains("Far"));
        // Partly visible: click inside the visible part.
        let cmds = commands_for(&PlannedAction::Tap { target: 3 }, &p).unwrap();
        assert_eq!(cmds[0].params["x"].as_f64(), Some(1240.0));
    }

    #[test]
    fn points_become_mouse_input_and_are_checked() {
        let p = page();
        let dbl =
            commands_for(&PlannedAction::TapAt { x: 10.0, y: 20.0, button: MouseButton::Left, clicks: 2 }, &p).unwrap();
        let counts: Vec<_> =
            dbl.iter().filter(|c| c.params["type"] == "mousePressed").map(|c| c.params["clickCount"].clone()).collect();
        assert_eq!(counts, [json!(1), json!(2)]);
        let right = commands_for(&PlannedAction::TapAt { x: 10.0, y: 20.0, button: MouseButton::Right, clicks: 1 }, &p)
            .unwrap();
        assert_eq!(right[1].params["button"], "right");
        let e = commands_for(&PlannedAction::TapAt { x: 1500.0, y: 20.0, button: MouseButton::Left, clicks: 1 }, &p)
            .unwrap_err();
        assert!(e.to_string().contains("outside the visible area"));
        let drag = commands_for(&PlannedAction::DragAt { from: (10.0, 10.0), to: (110.0, 60.0) }, &p).unwrap();
        assert_eq!(drag.last().unwrap().params["type"], "mouseReleased");
        assert_eq!(drag.last().unwrap().params["x"].as_f64(), Some(110.0));
        let typed = commands_for(&PlannedAction::Type { value: "hi".into(), submit: true }, &p).unwrap();
        assert_eq!(typed[0].method, "Input.insertText");
        assert_eq!(typed.last().unwrap().params["key"], "Enter");
        assert!(commands_for(&PlannedAction::AskUser { question: "which?".into() }, &p).is_err());
    }

    #[test]
    fn scroll_defaults_to_most_of_a_viewport() {
        let cmds = commands_for(
            &PlannedAction::Scroll { target: None, direction: ScrollDirection::Down, distance: None },
            &page(),
        )
        .unwrap();
        assert_eq!(cmds[0].params["deltaY"].as_f64(), Some(640.0));
        assert_eq!(cmds[0].params["x"].as_f64(), Some(640.0));
    }
}
