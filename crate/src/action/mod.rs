//! Turning a planned action into trusted input: the CDP `Input.*` commands the service
//! worker sends through `chrome.debugger`. Pure: element lookup and key tables only.

mod keys;

pub use keys::key_events;

use crate::describe::{Element, Extraction};
use crate::parse::{PlannedAction, ScrollDirection};
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
        PlannedAction::KeyPress { key } => key_events(key),
        PlannedAction::Scroll { target, direction, distance } => {
            let vp = &page.viewport;
            let (x, y) = match target {
                Some(t) => visible_point(*t, page)?,
                None => (vp.width / 2.0, vp.height / 2.0),
            };
            let along_y = matches!(direction, ScrollDirection::Up | ScrollDirection::Down);
            let step = distance.unwrap_or(if along_y { vp.height } else { vp.width } * SCROLL_FRACTION);
            let (dx, dy) = match direction {
                ScrollDirection::Up => (0.0, -step),
                ScrollDirection::Down => (0.0, step),
                ScrollDirection::Left => (-step, 0.0),
                ScrollDirection::Right => (step, 0.0),
            };
            Ok(vec![InputCommand::new(
                "Input.dispatchMouseEvent",
                json!({ "type": "mouseWheel", "x": x, "y": y, "deltaX": dx, "deltaY": dy }),
            )])
        }
    }
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
    crate::describe::visibility::hit_point(&e.shown_rect(), &page.viewport.rect())
        .ok_or_else(|| ActionError::OutOfView { target, summary: e.summary() })
}

fn click(x: f64, y: f64) -> Vec<InputCommand> {
    let ev = |kind: &str| {
        InputCommand::new(
            "Input.dispatchMouseEvent",
            json!({ "type": kind, "x": x, "y": y, "button": "left", "buttons": if kind == "mousePressed" { 1 } else { 0 }, "clickCount": 1 }),
        )
    };
    vec![
        InputCommand::new("Input.dispatchMouseEvent", json!({ "type": "mouseMoved", "x": x, "y": y })),
        ev("mousePressed"),
        ev("mouseReleased"),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::describe::{describe, DescribeOptions};
    use crate::geometry::Rect;
    use crate::snapshot::test_support::Builder;

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
    fn scroll_defaults_to_most_of_a_viewport() {
        let cmds = commands_for(&PlannedAction::Scroll { target: None, direction: ScrollDirection::Down, distance: None }, &page()).unwrap();
        assert_eq!(cmds[0].params["deltaY"].as_f64(), Some(640.0));
        assert_eq!(cmds[0].params["x"].as_f64(), Some(640.0));
    }
}
