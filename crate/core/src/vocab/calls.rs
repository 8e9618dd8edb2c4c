//! The calls a coding agent makes through `sightline-mcp`, each declared once: its name, its
//! arguments with their kinds, what it does and an example. The MCP server serves its tool list
//! and input schemas from here (`tools::call_schema`), checks the arguments' JSON types by it
//! (`type_problem`), and `agent::remote::plan` knows a call and reads its arguments by it.
//!
//! An agent names an element by number or in words, where a model's action (`catalog`) takes
//! a number, so the calls that mirror an action say which (`actions`) and why they differ.

use super::catalog::{Kind, Param};
use serde_json::Value;

/// One call as an agent names and makes it.
#[derive(Clone, Copy, Debug)]
pub struct AgentCall {
    /// The MCP tool's name.
    pub name: &'static str,
    /// One line: the MCP tool's description.
    pub description: &'static str,
    pub params: &'static [Param],
    /// An example call's arguments, as JSON.
    pub example: &'static str,
    /// The catalog actions (`catalog::ACTIONS` names) this call carries out as a model's would.
    pub actions: &'static [&'static str],
    /// Why the call's name differs from its action's, where it does.
    pub differs: &'static str,
}

const fn arg(name: &'static str, kind: Kind, required: bool, description: &'static str) -> Param {
    Param { name, kind, required, description, sketch: "" }
}

const ELEMENT: Param =
    arg("element", Kind::Element, false, "The element's number as the last snapshot shows it ([12] \u{2192} 12).");
const DESCRIPTION: Param = arg(
    "description",
    Kind::Text,
    false,
    "Plain words naming the element (\"the Sign in button\"), used when no number is given.",
);
/// An element by number or in words, where the catalog's actions take `target`, a number.
const TARGET: &[Param] = &[ELEMENT, DESCRIPTION];
const QUESTION: Param = arg("question", Kind::Text, true, "The question about the page.");

/// A call on one element, as the catalog's action of the same name.
const fn on_element(name: &'static str, description: &'static str) -> AgentCall {
    AgentCall { name, description, params: TARGET, example: r#"{"element": 12}"#, actions: &[], differs: "" }
}

/// A call that reads the page or runs a task and mirrors no model action.
const fn own(
    name: &'static str,
    description: &'static str,
    params: &'static [Param],
    example: &'static str,
) -> AgentCall {
    AgentCall { name, description, params, example, actions: &[], differs: "" }
}

pub const CALLS: &[AgentCall] = &[
    AgentCall {
        name: "tabs",
        description: "Browser tabs of the selected tab's window on the allowed sites: list them, open one (url), select the one the other tools act on (tab), or close one.",
        params: &[
            arg("action", Kind::OneOf(&["list", "open", "select", "close"]), true, "list | open | select | close"),
            arg("url", Kind::Text, false, "The address to open (open)."),
            arg(
                "tab",
                Kind::Integer,
                false,
                "The tab's id from `list` (select, close; close without it closes the selected tab).",
            ),
        ],
        example: r#"{"action": "select", "tab": 2}"#,
        actions: &["open_tab", "switch_tab", "close_tab"],
        differs: "one tool with an action: an agent also lists the tabs (a model is shown them), and selecting \
                  one only points the other tools at it",
    },
    AgentCall {
        name: "navigate",
        description: "Open an address in the selected tab (only the person's allowed sites), or go back / forward / reload.",
        params: &[arg("url", Kind::Text, true, "An http(s) address on the person's allowed sites, or back | forward | reload.")],
        example: r#"{"url": "https://example.com"}"#,
        actions: &["navigate", "back", "forward", "reload"],
        differs: "the history steps are words in url: one tool where a model has four actions",
    },
    own(
        "snapshot",
        "The selected tab as text: URL, title, and a compact description of the page where every element you can act on has a number ([12]). Use the numbers as `element` in the other tools.",
        &[],
        "{}",
    ),
    own(
        "screenshot",
        "A screenshot of the selected tab with the snapshot's element numbers drawn on it.",
        &[arg("full_page", Kind::Flag, false, "The whole page instead of the viewport.")],
        r#"{"full_page": true}"#,
    ),
    own(
        "act",
        "Carry out an instruction on the selected tab through Sightline's whole agent loop (it looks, plans, acts and checks, step after step), with progress notifications. Answers what happened.",
        &[arg("instruction", Kind::Text, true, "What should happen, in plain words (\"add milk to the list and mark it done\").")],
        r#"{"instruction": "add milk to the list"}"#,
    ),
    AgentCall { actions: &["tap"], ..on_element("tap", "Click an element, by its number or a description.") },
    AgentCall {
        actions: &["double_click"],
        ..on_element("double_click", "Double-click an element, by its number or a description.")
    },
    AgentCall {
        actions: &["right_click"],
        ..on_element("right_click", "Right-click an element, by its number or a description.")
    },
    AgentCall { actions: &["hover"], ..on_element("hover", "Move the mouse over an element, by its number or a description.") },
    AgentCall {
        name: "input",
        description: "Type text into a field (by number or description): replace its text (default), append, or clear it. Secrets the person stored are typed as their placeholders ({{name}}) say, only into their own sites.",
        params: &[
            ELEMENT,
            DESCRIPTION,
            arg("text", Kind::Text, false, "The text to type."),
            arg("mode", Kind::OneOf(&["replace", "append", "clear"]), false, "replace (default) | append | clear"),
        ],
        example: r#"{"element": 3, "text": "buy milk"}"#,
        actions: &["input"],
        differs: "",
    },
    AgentCall {
        name: "choose_option",
        description: "Choose an option of a drop-down list (by number or description) by the option's visible text.",
        params: &[ELEMENT, DESCRIPTION, arg("option", Kind::Text, true, "The option to choose, by its visible text.")],
        example: r#"{"element": 4, "option": "Blue"}"#,
        actions: &["select_option"],
        differs: "agents have called it choose_option since the bridge's first tools, before the catalog named the \
                  model's action; renaming it would break their scripts",
    },
    AgentCall {
        name: "key",
        description: "Press a key or chord (Enter, Escape, Control+A), optionally in an element first.",
        params: &[arg("key", Kind::Text, true, "A key or chord: Enter, Escape, Control+A, ArrowDown."), ELEMENT, DESCRIPTION],
        example: r#"{"key": "Enter"}"#,
        actions: &["key"],
        differs: "",
    },
    AgentCall {
        name: "scroll",
        description: "Scroll the page, or inside an element, in a direction: by a distance, one screen, or to the edge.",
        params: &[
            arg("direction", Kind::OneOf(&["down", "up", "left", "right"]), false, "down (default) | up | left | right"),
            arg("distance", Kind::Number, false, "Pixels; one screen when left out."),
            arg("to_edge", Kind::Flag, false, "Scroll until the edge."),
            ELEMENT,
            DESCRIPTION,
        ],
        example: r#"{"direction": "down", "to_edge": true}"#,
        actions: &["scroll"],
        differs: "",
    },
    AgentCall {
        name: "drag",
        description: "Drag one element onto another (each by number or description).",
        params: &[
            arg("from_element", Kind::Element, false, "The dragged element's number."),
            arg("from", Kind::Text, false, "The dragged element, in words."),
            arg("to_element", Kind::Element, false, "The drop target's number."),
            arg("to", Kind::Text, false, "The drop target, in words."),
        ],
        example: r#"{"from_element": 1, "to": "the bin"}"#,
        actions: &["drag"],
        differs: "",
    },
    AgentCall {
        name: "upload",
        description: "Give files to a file field or the button that opens one (by number or description). Paths outside the person's upload folder need their Allow in the panel.",
        params: &[
            ELEMENT,
            DESCRIPTION,
            arg("files", Kind::Files, true, "Absolute paths of the files, on the machine Chrome runs on."),
        ],
        example: r#"{"element": 5, "files": ["/home/me/cv.pdf"]}"#,
        actions: &["upload"],
        differs: "",
    },
    own(
        "query",
        "Read data off the page: the answer as JSON.",
        &[arg("demand", Kind::Any, true, "The data wanted, in words or as a JSON shape ({\"names\": \"string[]\"}).")],
        r#"{"demand": {"names": "string[]"}}"#,
    ),
    own("boolean", "A yes/no question about the page: true or false.", &[QUESTION], r#"{"question": "Is the cart empty?"}"#),
    own(
        "number",
        "A question about the page whose answer is a number.",
        &[QUESTION],
        r#"{"question": "How many items are in the cart?"}"#,
    ),
    own(
        "assert",
        "Check that a statement holds on the page; a tool error with the reason when it does not.",
        &[arg("assertion", Kind::Text, true, "The statement that should hold on the page.")],
        r#"{"assertion": "the cart shows 2 items"}"#,
    ),
    own(
        "wait_for",
        "Wait until a statement holds on the page (checked every second), up to timeout_ms.",
        &[
            arg("assertion", Kind::Text, true, "The statement to wait for."),
            arg("timeout_ms", Kind::Integer, false, "How long to wait, in milliseconds (15000 when left out)."),
        ],
        r#"{"assertion": "the cart shows 2 items", "timeout_ms": 5000}"#,
    ),
    own(
        "console_messages",
        "Console errors and warnings, and failed network requests, on the selected tab since the last call of this tool.",
        &[],
        "{}",
    ),
    own(
        "record",
        "Record what the person does on the selected tab (on the allowed sites) as a run (start), until stop, which answers the run's id; a recording the person started is theirs.",
        &[
            arg("action", Kind::OneOf(&["start", "stop"]), true, "start | stop"),
            arg("title", Kind::Text, false, "The recording's title (start)."),
        ],
        r#"{"action": "start", "title": "checkout"}"#,
    ),
    own(
        "export_run",
        "This session's run, or a recording this agent started, written for another tool: a Midscene YAML flow, a Playwright spec, a Chrome Recorder JSON file, or an HTML report.",
        &[
            arg("format", Kind::Text, true, "midscene-yaml | playwright | recorder | report"),
            arg("run", Kind::Text, false, "The run's id; this agent session's run when left out."),
        ],
        r#"{"format": "playwright"}"#,
    ),
];

/// The call of this name (exactly: MCP names tools exactly).
pub fn by_name(name: &str) -> Option<&'static AgentCall> {
    CALLS.iter().find(|c| c.name == name)
}

impl AgentCall {
    /// The declared argument of this name.
    pub fn param(&self, name: &str) -> Option<&'static Param> {
        self.params.iter().find(|p| p.name == name)
    }
}

/// Whether a JSON value is of the kind an argument declares.
pub fn fits(kind: Kind, value: &Value) -> bool {
    match kind {
        Kind::Element => value.as_u64().is_some_and(|n| u32::try_from(n).is_ok()),
        Kind::Integer => value.is_i64() || value.is_u64(),
        Kind::Number => value.is_number(),
        Kind::Text | Kind::OneOf(_) => value.is_string(),
        Kind::Flag => value.is_boolean(),
        Kind::Files => value.as_array().is_some_and(|items| items.iter().all(Value::is_string)),
        Kind::Any => true,
    }
}

/// What is wrong with the JSON types of a call's arguments as its schema says them: a required
/// one missing, or one of the wrong kind (`null` stands for left out). `None` when they fit.
/// What the values mean is `agent::remote::plan`'s to judge.
pub fn type_problem(call: &AgentCall, args: &serde_json::Map<String, Value>) -> Option<String> {
    call.params.iter().find_map(|p| match args.get(p.name).filter(|v| !v.is_null()) {
        None if p.required => Some(format!("{} is missing", p.name)),
        Some(v) if !fits(p.kind, v) => Some(format!("{} must be {}", p.name, kind_words(p.kind))),
        _ => None,
    })
}

fn kind_words(kind: Kind) -> &'static str {
    match kind {
        Kind::Element => "an element number",
        Kind::Integer => "a whole number",
        Kind::Number => "a number",
        Kind::Text | Kind::OneOf(_) => "text",
        Kind::Flag => "true or false",
        Kind::Files => "a list of paths",
        Kind::Any => "JSON",
    }
}
