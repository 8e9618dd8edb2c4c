//! What can be done on a page, as data: the actions a model's reply plans, the input modes and
//! scroll kinds a task names.

use super::wire::internally_tagged;
use serde::{Deserialize, Serialize};
use serde_json::Value;

internally_tagged! {
    tag = "type", name = "PlannedAction";
    #[derive(Clone, Debug, PartialEq, Serialize)]
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
        // The element-numbering families' (generic JSON plan, function calling) further actions.
        /// Double-click element N.
        DoubleClick { target: u32 },
        /// Right-click element N (its context menu).
        RightClick { target: u32 },
        /// Move the pointer over element N (menus and tooltips that open on hover).
        Hover { target: u32 },
        /// Type `value` after what field N holds.
        Append { target: u32, value: String },
        /// Empty field N.
        Clear { target: u32 },
        /// Choose the option whose text is `option`: in a native `<select>` as a person's choice
        /// does (input and change fire), or in a custom list box, which is opened first.
        Select {
            target: u32,
            option: String,
            /// The chosen option's value, once chosen (what a replay or an export sets).
            #[serde(default, skip_serializing_if = "Option::is_none")]
            value: Option<String>,
        },
        /// A point's `Select` (grounding families): the element under the point.
        SelectAt { x: f64, y: f64, option: String },
        /// Scroll the page (no target) or element N until it stops moving.
        ScrollToEdge { target: Option<u32>, direction: ScrollDirection },
        /// Scroll until element N is in view.
        ScrollTo { target: u32 },
        /// Press on element `from`, move, release on element `to`.
        Drag { from: u32, to: u32 },
        /// Click element N (a file field, or the button that opens one) and give the file chooser
        /// these files: paths the person named.
        Upload { target: u32, files: Vec<String> },
        /// Wait until the page shows `text` (or, with `gone`, no longer shows it), at most `timeout_ms`.
        WaitFor {
            text: String,
            #[serde(default)]
            gone: bool,
            #[serde(default = "wait_for_timeout")]
            timeout_ms: u32,
        },
        /// Go back in the tab's history.
        Back,
        /// Go forward in the tab's history.
        Forward,
        /// Load the page again.
        Reload,
        /// Open `url` in a new tab and follow it.
        OpenTab { url: String },
        /// Follow another open tab (its id, as the tab list says).
        SwitchTab { tab: i64 },
        /// Close the tab the run is on and follow the one it came from.
        CloseTab,
        /// Keep a note, or data read off the page, in the run's memory.
        Remember {
            #[serde(default)]
            note: String,
            #[serde(default, skip_serializing_if = "Option::is_none")]
            data: Option<Value>,
        },
        /// A tool call we pass through by name (MCP-style); nothing here runs it.
        Tool { name: String, arguments: Value },
        /// A check the person added while recording (codegen's assert tools): element N shows
        /// `expected` as its text or value, or is visible. The step fails when it does not.
        Expect {
            target: u32,
            check: ElementCheck,
            #[serde(default)]
            expected: String,
        },
    }
}

/// What a recorded check reads off its element.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ElementCheck {
    /// Its visible text, whitespace runs read as one space.
    Text,
    /// A form control's value.
    Value,
    /// That it is there and shown.
    Visible,
}

impl ElementCheck {
    pub fn as_str(self) -> &'static str {
        match self {
            ElementCheck::Text => "text",
            ElementCheck::Value => "value",
            ElementCheck::Visible => "visible",
        }
    }

    /// Whether an element whose content (`Element::content`: its text, or a control's value)
    /// reads `content` meets the check: equal with whitespace runs as one space; a content the
    /// reader cut short (`cut`: its first characters and `…`) need only begin the expected text.
    pub fn holds(self, content: &str, expected: &str, cut: bool) -> bool {
        let (seen, wanted) = (normalized(content), normalized(expected));
        match self {
            ElementCheck::Visible => true,
            ElementCheck::Text | ElementCheck::Value => {
                seen == wanted
                    || (cut
                        && seen
                            .strip_suffix('\u{2026}')
                            .is_some_and(|head| !head.trim().is_empty() && wanted.starts_with(head.trim_end())))
            }
        }
    }
}

/// Text with each run of whitespace as one space, trimmed: how a check compares what it reads.
pub fn normalized(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// How long a `WaitFor` waits when the plan does not say.
pub const WAIT_FOR_TIMEOUT_MS: u32 = 10_000;

fn wait_for_timeout() -> u32 {
    WAIT_FOR_TIMEOUT_MS
}

internally_tagged! {
    tag = "kind", rename_all = "camelCase", name = "Go";
    /// Where a run goes in the browser: the actions that change the tab's document or the tab
    /// itself, carried out by the host with the browser's own tab primitives (they work where no
    /// page can be read, such as the new-tab page).
    #[derive(Clone, Debug, PartialEq, Serialize)]
    pub enum Go {
        Address { url: String },
        Back,
        Forward,
        Reload,
        OpenTab { url: String },
        SwitchTab { tab: i64 },
        /// Close the tab the run is on. The core carries it out as a [`Go::SwitchTab`] to the tab
        /// it chose ([`crate::agent::browser::tab_after_close`]) and a [`Go::CloseOtherTab`]: a host
        /// never has to choose.
        CloseTab,
        /// Close another tab than the one the run is on (an agent's `tabs close`); the run stays.
        CloseOtherTab { tab: i64 },
    }
}

/// An open tab, as the model is shown it.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct TabInfo {
    pub id: i64,
    pub title: String,
    pub url: String,
    /// The tab the run is on.
    pub current: bool,
    /// The tab this one was opened from, while it is open (the browser's own fact).
    #[serde(skip_serializing)]
    pub opener: Option<i64>,
    /// When the run first went on this tab, as an order (0: the tab it started on); `None` for
    /// a tab it has not been on. Read by the core's choice of where to go after a close.
    #[serde(skip_serializing)]
    pub followed: Option<u32>,
}

impl PlannedAction {
    /// The browser-level move this action is, if it is one.
    pub fn go(&self) -> Option<Go> {
        Some(match self {
            PlannedAction::Navigate { url } => Go::Address { url: url.clone() },
            PlannedAction::Back => Go::Back,
            PlannedAction::Forward => Go::Forward,
            PlannedAction::Reload => Go::Reload,
            PlannedAction::OpenTab { url } => Go::OpenTab { url: url.clone() },
            PlannedAction::SwitchTab { tab } => Go::SwitchTab { tab: *tab },
            PlannedAction::CloseTab => Go::CloseTab,
            _ => return None,
        })
    }

    /// The element the action is aimed at, for element-numbering actions (a drag: its source).
    pub fn target(&self) -> Option<u32> {
        match self {
            PlannedAction::Tap { target }
            | PlannedAction::Input { target, .. }
            | PlannedAction::DoubleClick { target }
            | PlannedAction::RightClick { target }
            | PlannedAction::Hover { target }
            | PlannedAction::Append { target, .. }
            | PlannedAction::Clear { target }
            | PlannedAction::Select { target, .. }
            | PlannedAction::ScrollTo { target }
            | PlannedAction::Upload { target, .. }
            | PlannedAction::Expect { target, .. } => Some(*target),
            PlannedAction::Drag { from, .. } => Some(*from),
            PlannedAction::Scroll { target, .. } | PlannedAction::ScrollToEdge { target, .. } => *target,
            _ => None,
        }
    }

    /// The same action aimed at element `n` (its number after the page was read again).
    pub fn retargeted(&self, n: u32) -> PlannedAction {
        let mut a = self.clone();
        match &mut a {
            PlannedAction::Tap { target }
            | PlannedAction::Input { target, .. }
            | PlannedAction::DoubleClick { target }
            | PlannedAction::RightClick { target }
            | PlannedAction::Hover { target }
            | PlannedAction::Append { target, .. }
            | PlannedAction::Clear { target }
            | PlannedAction::Select { target, .. }
            | PlannedAction::ScrollTo { target }
            | PlannedAction::Upload { target, .. }
            | PlannedAction::Expect { target, .. }
            | PlannedAction::Drag { from: target, .. } => *target = n,
            PlannedAction::Scroll { target, .. } | PlannedAction::ScrollToEdge { target, .. } => *target = Some(n),
            _ => {}
        }
        a
    }
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
