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
    vec![
        ToolSpec {
            name: "tap",
            description: "Click element N.",
            parameters: object(json!({ "target": target }), &["target"]),
        },
        ToolSpec {
            name: "input",
            description: "Replace the content of field N with text.",
            parameters: object(json!({ "target": target, "value": { "type": "string" } }), &["target", "value"]),
        },
        ToolSpec {
            name: "key",
            description: "Press a key or combination such as Enter or Control+A.",
            parameters: object(json!({ "key": { "type": "string" } }), &["key"]),
        },
        ToolSpec {
            name: "scroll",
            description: "Scroll the page, or element N when given.",
            parameters: object(
                json!({ "direction": { "type": "string", "enum": ["up", "down", "left", "right"] }, "target": target }),
                &["direction"],
            ),
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
