//! What can be done on a page, as data: the actions a model's reply plans, the input modes and
//! scroll kinds a task names.

use serde::{Deserialize, Serialize};
use serde_json::Value;

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type")]
pub enum PlannedAction {
    /// Click the element with this number.
    Tap { target: u32 },
    /// Focus the element, clear it, type `value`.
    Input { target: u32, value: String },
    /// Press a key or combination, e.g. `Enter`, `Control+A`.
    KeyPress { key: String },
    /// Scroll the page (no target) or the element under `target`.
    Scroll { target: Option<u32>, direction: ScrollDirection, distance: Option<f64> },
    // Grounding models name points, not elements. Coordinates are viewport CSS pixels,
    // already mapped back from the image the model saw.
    /// Click at a point: `clicks` 2 for a double click, `button` right for a context click.
    TapAt { x: f64, y: f64, button: MouseButton, clicks: u8 },
    /// Move the pointer over a point.
    HoverAt { x: f64, y: f64 },
    /// Press at `from`, move, release at `to`.
    DragAt { from: (f64, f64), to: (f64, f64) },
    /// Type into whatever has focus; `submit` presses Enter after.
    Type { value: String, submit: bool },
    /// Scroll with the pointer at a point.
    ScrollAt { x: f64, y: f64, direction: ScrollDirection, distance: Option<f64> },
    /// Give the page time (loading, animations).
    Wait { ms: u32 },
    /// Open a web address in the tab (a person typed it, or went back or forward).
    Navigate { url: String },
    /// The model needs the person: a question only they can answer.
    AskUser { question: String },
    /// A tool call we pass through by name (MCP-style); nothing here runs it.
    Tool { name: String, arguments: Value },
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum MouseButton {
    Left,
    Right,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ScrollDirection {
    Up,
    Down,
    Left,
    Right,
}

impl ScrollDirection {
    /// `up`, `down`, `left` or `right`, exactly.
    pub fn from_name(name: &str) -> Option<Self> {
        match name {
            "up" => Some(ScrollDirection::Up),
            "down" => Some(ScrollDirection::Down),
            "left" => Some(ScrollDirection::Left),
            "right" => Some(ScrollDirection::Right),
            _ => None,
        }
    }

    pub fn opposite(self) -> Self {
        match self {
            ScrollDirection::Up => ScrollDirection::Down,
            ScrollDirection::Down => ScrollDirection::Up,
            ScrollDirection::Left => ScrollDirection::Right,
            ScrollDirection::Right => ScrollDirection::Left,
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            ScrollDirection::Up => "up",
            ScrollDirection::Down => "down",
            ScrollDirection::Left => "left",
            ScrollDirection::Right => "right",
        }
    }
}

/// How typed text meets what a field already holds.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum InputMode {
    /// Select all, then type over it.
    #[default]
    Replace,
    /// Type after what is there.
    Append,
    /// Empty the field.
    Clear,
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum ScrollType {
    /// One step (`distance`, or most of a viewport).
    #[default]
    Once,
    /// Until the page (or the element) stops moving: its top, bottom, left or right edge.
    UntilEdge,
}
