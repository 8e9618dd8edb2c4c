//! The tools a model may call, as plain data: the prompt describes them and the model bridge
//! sends them in the API's own field, neither importing the other.

use serde::Serialize;
use serde_json::{json, Value};

/// A tool the model may call through the API's own tool-calling field.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ToolSpec {
    pub name: &'static str,
    pub description: &'static str,
    /// JSON Schema of the arguments object.
    pub parameters: Value,
}

/// The element tools the prompt describes (`prompt::ELEMENT_TOOLS_PROMPT`), for APIs that take tools in their own field.
pub fn element_tools() -> Vec<ToolSpec> {
    let target = json!({ "type": "integer", "description": "the element's number in the list" });
    let object =
        |props: Value, required: &[&str]| json!({ "type": "object", "properties": props, "required": required });
    let url = json!({ "type": "string", "description": "a web address" });
    let none = || object(json!({}), &[]);
    let element = |name: &'static str, description: &'static str| ToolSpec {
        name,
        description,
        parameters: object(json!({ "target": target }), &["target"]),
    };
    vec![
        element("tap", "Click element N."),
        element("double_click", "Double-click element N."),
        element("right_click", "Right-click element N (its context menu)."),
        element("hover", "Move the pointer over element N (menus and tips that open on hover)."),
        ToolSpec {
            name: "input",
            description: "Type into field N: replace its content (the default), append to it, or clear it.",
            parameters: object(
                json!({ "target": target, "value": { "type": "string" }, "mode": { "type": "string", "enum": ["replace", "append", "clear"] } }),
                &["target", "value"],
            ),
        },
        ToolSpec {
            name: "select_option",
            description: "Choose the option with this text in select or list box N.",
            parameters: object(json!({ "target": target, "option": { "type": "string" } }), &["target", "option"]),
        },
        ToolSpec {
            name: "key",
            description: "Press a key or combination such as Enter or Control+A.",
            parameters: object(json!({ "key": { "type": "string" } }), &["key"]),
        },
        ToolSpec {
            name: "scroll",
            description: "Scroll the page, or element N when given; to_end scrolls until it stops.",
            parameters: object(
                json!({ "direction": { "type": "string", "enum": ["up", "down", "left", "right"] }, "target": target, "to_end": { "type": "boolean" } }),
                &["direction"],
            ),
        },
        element("scroll_to", "Scroll until element N is in view."),
        ToolSpec {
            name: "drag",
            description: "Drag element N onto element M.",
            parameters: object(json!({ "from": target, "to": target }), &["from", "to"]),
        },
        ToolSpec {
            name: "upload",
            description: "Give file field N (or the button that opens one) these files: only paths the person gave.",
            parameters: object(
                json!({ "target": target, "files": { "type": "array", "items": { "type": "string" } } }),
                &["target", "files"],
            ),
        },
        ToolSpec {
            name: "wait",
            description: "Wait a while (ms), or until the page shows a text (or, with gone, no longer shows it).",
            parameters: object(
                json!({ "ms": { "type": "integer" }, "text": { "type": "string" }, "gone": { "type": "boolean" }, "timeout": { "type": "integer" } }),
                &[],
            ),
        },
        ToolSpec {
            name: "navigate",
            description: "Open an address in this tab.",
            parameters: object(json!({ "url": url }), &["url"]),
        },
        ToolSpec { name: "back", description: "Go back in this tab's history.", parameters: none() },
        ToolSpec { name: "forward", description: "Go forward in this tab's history.", parameters: none() },
        ToolSpec { name: "reload", description: "Load the page again.", parameters: none() },
        ToolSpec {
            name: "open_tab",
            description: "Open an address in a new tab and go on there.",
            parameters: object(json!({ "url": url }), &["url"]),
        },
        ToolSpec {
            name: "switch_tab",
            description: "Go on in another open tab, by its id in the list of open tabs.",
            parameters: object(json!({ "tab": { "type": "integer" } }), &["tab"]),
        },
        ToolSpec {
            name: "close_tab",
            description: "Close this tab and go back to the one before.",
            parameters: none(),
        },
        ToolSpec {
            name: "remember",
            description: "Keep a note, or data read off the page, for later steps.",
            parameters: object(json!({ "note": { "type": "string" }, "data": {} }), &[]),
        },
        ToolSpec {
            name: "finished",
            description: "The instruction is done; say what was done, or give the answer asked for.",
            parameters: object(json!({ "text": { "type": "string" } }), &["text"]),
        },
        ToolSpec {
            name: "ask_user",
            description: "Only when the person alone can decide: ask them.",
            parameters: object(json!({ "question": { "type": "string" } }), &["question"]),
        },
    ]
}
