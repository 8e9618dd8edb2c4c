//! The tools a model may call, as plain data: the prompt describes them and the model bridge
//! sends them in the API's own field, neither importing the other. Also the input schema of
//! each agent call (`calls`), as the MCP server serves it.

use super::calls::AgentCall;
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

/// The JSON Schema type of a kind (`None`: any JSON).
pub fn json_type(kind: Kind) -> Option<&'static str> {
    match kind {
        Kind::Element | Kind::Integer => Some("integer"),
        Kind::Number => Some("number"),
        Kind::Text | Kind::OneOf(_) => Some("string"),
        Kind::Flag => Some("boolean"),
        Kind::Files => Some("array"),
        Kind::Any => None,
    }
}

/// A kind's schema: its type, and what the type alone does not say.
fn kind_schema(kind: Kind) -> Map<String, Value> {
    let mut schema = Map::new();
    if let Some(ty) = json_type(kind) {
        schema.insert("type".into(), Value::from(ty));
    }
    match kind {
        Kind::Files => {
            schema.insert("items".into(), json!({ "type": "string" }));
        }
        Kind::OneOf(names) => {
            schema.insert("enum".into(), json!(names));
        }
        _ => {}
    }
    schema
}

fn property(p: &Param) -> Value {
    let mut schema = Value::Object(kind_schema(p.kind));
    // The tools go with every request: a description only where the name and type leave the
    // meaning open (which number an element is, a number's unit); the tool's own line says the rest.
    if matches!(p.kind, Kind::Element | Kind::Integer | Kind::Number) {
        schema["description"] = Value::from(p.description);
    }
    schema
}

/// The JSON Schema of an agent call's arguments, as the MCP server serves it: every argument
/// described (an agent reads the list once, not with every request), and each optional one
/// may be `null`, which stands for left out.
pub fn call_schema(call: &AgentCall) -> Value {
    let property = |p: &Param| {
        let mut schema = kind_schema(p.kind);
        if !p.required {
            if let Some(ty) = schema.remove("type") {
                schema.insert("type".into(), json!([ty, "null"]));
            }
            if let Some(Value::Array(names)) = schema.get_mut("enum") {
                names.push(Value::Null);
            }
        }
        if p.kind == Kind::Element {
            schema.insert("minimum".into(), Value::from(0));
        }
        schema.insert("description".into(), Value::from(p.description));
        (p.name.to_string(), Value::Object(schema))
    };
    let required: Vec<&str> = call.params.iter().filter(|p| p.required).map(|p| p.name).collect();
    json!({
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "type": "object",
        "properties": call.params.iter().map(property).collect::<Map<String, Value>>(),
        "required": required,
    })
}
