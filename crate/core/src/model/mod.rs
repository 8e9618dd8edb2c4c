//! Talking to a model. The path of one call:
//! [`provider`] (where it goes, how it is signed) → [`openai`] / [`anthropic`] (the wire
//! format, both ways) → [`bridge`] (retries, streaming, usage) over a [`bridge::Transport`]
//! that the service worker implements with gloo-net (crate/web, `bridge.rs`) and tests with fakes.
//! [`usage`] estimates tokens a server did not count and prices them.

pub mod anthropic;
pub mod bridge;
pub mod env_block;
pub mod openai;
pub mod overflow;
pub mod provider;
pub mod retry;
pub mod sse;
pub mod usage;

pub use bridge::{Bridge, HttpResponse, ResponseBody, Transport};
pub use provider::{HttpRequest, ModelConfig, Preset, Provider, Wire};
pub use usage::{Price, PriceTable, Usage};

use crate::vocab::wire::internally_tagged;
use serde::{Deserialize, Serialize};
use serde_json::Value;

internally_tagged! {
    tag = "type", rename_all = "snake_case", name = "ContentPart";
    #[derive(Clone, Debug, PartialEq, Serialize)]
    pub enum ContentPart {
        Text { text: String },
        ImageUrl { image_url: ImageUrl },
    }
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ImageUrl {
    pub url: String,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ChatMessage {
    pub role: String,
    pub content: Vec<ContentPart>,
}

impl ChatMessage {
    pub fn text(role: &str, text: impl Into<String>) -> Self {
        ChatMessage { role: role.into(), content: vec![ContentPart::Text { text: text.into() }] }
    }

    /// The message with each image's address replaced where `replace` gives another (a
    /// screenshot's data URL by a stand-in, a reference…); text and other images as they are.
    pub fn with_image_urls<'a>(&'a self, mut replace: impl FnMut(&'a str) -> Option<String>) -> ChatMessage {
        let content = self
            .content
            .iter()
            .map(|part| match part {
                ContentPart::ImageUrl { image_url } => match replace(&image_url.url) {
                    Some(url) => ContentPart::ImageUrl { image_url: ImageUrl { url } },
                    None => part.clone(),
                },
                other => other.clone(),
            })
            .collect();
        ChatMessage { role: self.role.clone(), content }
    }
}

/// A call the API returned in its tool-calling field (not in the text).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ToolCall {
    pub name: String,
    /// JSON text, as the wire carries it.
    pub arguments: String,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ChatReply {
    pub content: String,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tool_calls: Vec<ToolCall>,
    pub usage: Option<Usage>,
    /// What happened on the way that did not fail the call, e.g. a retry after HTTP 429.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub notes: Vec<String>,
}

impl ChatReply {
    pub fn text(content: impl Into<String>) -> Self {
        ChatReply { content: content.into(), ..Default::default() }
    }

    /// What the parser reads: the text, plus API tool calls written as the `{"name",
    /// "arguments"}` list that `parse::tool_calls` reads from text, so both arrive one way.
    pub fn parser_text(&self) -> String {
        if self.tool_calls.is_empty() {
            return self.content.clone();
        }
        let calls: Vec<Value> = self
            .tool_calls
            .iter()
            .map(|c| {
                let args =
                    serde_json::from_str::<Value>(&c.arguments).unwrap_or_else(|_| Value::String(c.arguments.clone()));
                serde_json::json!({ "name": c.name, "arguments": args })
            })
            .collect();
        let thought = self.content.trim();
        let calls = Value::Array(calls).to_string();
        if thought.is_empty() {
            calls
        } else {
            format!("<thinking>{thought}</thinking>\n{calls}")
        }
    }
}

#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum ModelError {
    #[error("model settings: {0}")]
    Config(String),
    #[error("the saved API key was entered for {entered_for} and is sent nowhere else: enter the key for {endpoint} in Settings (or remove the saved key if that endpoint needs none)")]
    KeyForAnotherOrigin { entered_for: String, endpoint: String },
    #[error("the model endpoint answered HTTP {status}: {message}")]
    Http { status: u16, message: String },
    #[error("could not reach the model endpoint: {0}")]
    Network(String),
    #[error("the model did not answer within {0} s")]
    Timeout(u32),
    #[error("the request was stopped")]
    Aborted,
    #[error("the model's answer could not be read: {0}")]
    BadResponse(String),
    #[error("{last} (gave up after {retries} retries)")]
    GaveUp { retries: u32, last: Box<ModelError> },
}

/// The model call, implemented per platform.
#[allow(async_fn_in_trait)] // single-threaded wasm: no Send bound wanted
pub trait ModelClient {
    async fn complete(&self, config: &ModelConfig, messages: &[ChatMessage]) -> Result<ChatReply, ModelError>;
}

/// The readable part of an error body: `{"error":{"message":…}}` (OpenAI, Anthropic), else the text.
pub(crate) fn error_message(body: &str) -> String {
    match serde_json::from_str::<Value>(body) {
        Ok(v) => v.get("error").map(error_text).unwrap_or_else(|| crate::describe::truncate_chars(body, 200)),
        Err(_) if body.trim().is_empty() => "(empty body)".into(),
        Err(_) => crate::describe::truncate_chars(body.trim(), 200),
    }
}

/// A whole (not streamed) reply opened the way every wire opens one: JSON, and no `error`
/// object in place of the answer.
pub(crate) fn reply_json(body: &str) -> Result<Value, ModelError> {
    let v: Value = serde_json::from_str(body).map_err(|e| {
        ModelError::BadResponse(format!("not JSON ({e}): {}", crate::describe::truncate_chars(body, 120)))
    })?;
    match v.get("error") {
        Some(err) => Err(ModelError::BadResponse(format!("the endpoint returned an error: {}", error_text(err)))),
        None => Ok(v),
    }
}

pub(crate) fn error_text(err: &Value) -> String {
    err.get("message")
        .and_then(Value::as_str)
        .map(str::to_string)
        .or_else(|| err.as_str().map(str::to_string))
        .unwrap_or_else(|| err.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn config_errors_say_what_to_do() {
        let c = ModelConfig::default();
        assert!(c.validate().unwrap_err().to_string().contains("Settings"));
        let c = ModelConfig { base_url: "ftp://x".into(), model: "m".into(), ..Default::default() };
        assert!(c.validate().unwrap_err().to_string().contains("http://"));
        let c = ModelConfig {
            base_url: "http://x".into(),
            model: "m".into(),
            temperature: Some(7.0),
            ..Default::default()
        };
        assert!(c.validate().unwrap_err().to_string().contains("temperature"));
    }

    #[test]
    fn api_key_never_serialized() {
        let c = ModelConfig {
            api_key: "sk-secret".into(),
            api_key_for: "https://a.example/v1".into(),
            ..Default::default()
        };
        let json = serde_json::to_string(&c).unwrap();
        assert!(!json.contains("sk-secret") && !json.contains("a.example"), "{json}");
    }

    #[test]
    fn a_stored_key_goes_only_to_the_origin_it_was_entered_for() {
        let at = |base: &str, entered_for: &str| ModelConfig {
            base_url: base.into(),
            model: "m".into(),
            api_key: "sk-for-a".into(),
            api_key_for: entered_for.into(),
            ..Default::default()
        };
        assert!(at("http://127.0.0.1:4000/v1", "http://127.0.0.1:4000/v1/").validate().is_ok());
        assert!(
            at("https://api.example.com/v2", "https://API.example.com:443/v1").validate().is_ok(),
            "the path and a default port do not matter"
        );
        for other in ["http://127.0.0.1:4001/v1", "https://api.example.com.evil.net/v1", "http://api.example.com/v1"] {
            let e = at(other, "https://api.example.com/v1").validate().unwrap_err();
            assert!(matches!(e, ModelError::KeyForAnotherOrigin { .. }), "{other}: {e}");
            assert!(!e.to_string().contains("sk-for-a"), "{e}");
        }
        let e = at("http://127.0.0.1:4001/v1", "http://127.0.0.1:4000/v1").validate().unwrap_err();
        assert_eq!(
            e.to_string(),
            "the saved API key was entered for http://127.0.0.1:4000 and is sent nowhere else: enter the key for http://127.0.0.1:4001 in Settings (or remove the saved key if that endpoint needs none)"
        );
        assert!(
            at("http://127.0.0.1:4001/v1", "").validate().is_ok(),
            "a key given with the configuration goes with it"
        );
        let mut keyless = at("http://127.0.0.1:4001/v1", "http://127.0.0.1:4000/v1");
        keyless.api_key.clear();
        assert!(keyless.validate().is_ok(), "no key, nothing to hold back");
    }

    #[test]
    fn api_tool_calls_reach_the_parser_as_text() {
        let reply = ChatReply {
            content: "Tap the box.".into(),
            tool_calls: vec![ToolCall { name: "tap".into(), arguments: r#"{"target":3}"#.into() }],
            ..Default::default()
        };
        let plan =
            crate::parse::parse_reply(crate::vocab::family::ModelFamily::FunctionCalling, &reply.parser_text(), None)
                .unwrap();
        assert_eq!(plan.thought, "Tap the box.");
        assert_eq!(plan.actions, vec![crate::vocab::actions::PlannedAction::Tap { target: 3 }]);
    }
}
