//! The tools a model may call, as plain data: the prompt describes them and the model bridge
//! sends them in the API's own field, neither importing the other.

use super::catalog::{Kind, Param, ACTIONS};
use serde::Serialize;
use serde_json::{json, Map, Value};

/// A tool the model may call through the API's own tool-calling field.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ToolSpec {
    pub name: &'static str,
    pub description: &'static str,
    /// JSON Schema of the arguments object.
    pub parameters: Value,
}

/// The element tools the prompt describes, for APIs that take tools in their own field: the
/// catalog's offered actions.
pub fn element_tools() -> Vec<ToolSpec> {
    ACTIONS
        .iter()
        .filter(|a| a.offered)
        .map(|a| ToolSpec { name: a.name, description: a.description, parameters: schema(a.params) })
        .collect()
}

/// The JSON Schema of an arguments object.
fn schema(params: &[Param]) -> Value {
    let properties: Map<String, Value> = params.iter().map(|p| (p.name.to_string(), property(p))).collect();
    let required: Vec<&str> = params.iter().filter(|p| p.required).map(|p| p.name).collect();
    json!({ "type": "object", "properties": properties, "required": required })
}

fn property(p: &Param) -> Value {
    let mut schema = match p.kind {
        Kind::Element | Kind::Integer => json!({ "type": "integer" }),
        Kind::Number => json!({ "type": "number" }),
        Kind::Text => json!({ "type": "string" }),
        Kind::Flag => json!({ "type": "boolean" }),
        Kind::Files => json!({ "type": "array", "items": { "type": "string" } }),
        Kind::OneOf(names) => json!({ "type": "string", "enum": names }),
        Kind::Any => json!({}),
    };
    // The tools go with every request: a description only where the name and type leave the
    // meaning open (which number an element is, a number's unit); the tool's own line says the rest.
    if matches!(p.kind, Kind::Element | Kind::Integer | Kind::Number) {
        schema["description"] = Value::from(p.description);
    }
    schema
}
