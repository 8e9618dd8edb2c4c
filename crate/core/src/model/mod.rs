//! Talking to a model. The path of one call:
//! [`provider`] (where it goes, how it is signed) → [`openai`] / [`anthropic`] (the wire
//! format, both ways) → [`bridge`] (retries, streaming, usage) over a [`bridge::Transport`]
//! that the service worker implements with gloo-net (crate/web, `bridge.rs`) and tests with fakes.
//! [`usage`] estimates tokens a server did not count and prices them.

pub mod anthropic;
pub mod bridge;
pub mod openai;
pub mod provider;
pub mod retry;
pub mod sse;
pub mod usage;

pub use bridge::{Bridge, HttpResponse, ResponseBody, Transport};
pub use provider::{HttpRequest, Preset, Provider, Wire};
pub use usage::{Price, PriceTable, Usage};

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// Which prompt style, reply parser and image shape a model needs. The names (kebab-case on
/// the wire) are what settings and `self.sightline.parse` take.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub enum ModelFamily {
    /// Any chat model that reads a page description and a marked screenshot and answers a JSON plan.
    #[default]
    #[serde(rename = "generic")]
    Generic,
    /// Chat models with tool calling: the same element numbers, answered as `{"name", "arguments"}` calls.
    #[serde(rename = "function-calling")]
    FunctionCalling,
    /// UI-TARS 1.0: `Thought:`/`Action:` text, coordinates relative on 0–1000.
    #[serde(rename = "ui-tars-1.0")]
    UiTars10,
    /// UI-TARS 1.5: coordinates in pixels of the smart-resized image.
    #[serde(rename = "ui-tars-1.5")]
    UiTars15,
    /// Doubao-1.5-UI-TARS (Volcengine Ark): UI-TARS text, 0–1000.
    #[serde(rename = "doubao-ui-tars")]
    DoubaoUiTars,
    /// Qwen2.5-VL: tool calls with pixel coordinates on the image padded to multiples of 28.
    #[serde(rename = "qwen2.5-vl")]
    Qwen25Vl,
    /// Qwen3-VL, GLM-4.xV and other 0–1000 grounding models: tool calls, relative coordinates.
    #[serde(rename = "qwen3-vl")]
    Qwen3Vl,
    /// Gemini: tool calls with boxes as `[ymin, xmin, ymax, xmax]` on 0–1000.
    #[serde(rename = "gemini")]
    Gemini,
    /// MAI-UI: `<thinking>` + `<tool_call>` tagged text, 0–999.
    #[serde(rename = "mai-ui")]
    MaiUi,
}

/// How a family's replies are written.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Protocol {
    /// One JSON object naming elements by number (`parse::parse_plan`).
    JsonPlan,
    /// `{"name", "arguments"}` calls (`parse::tool_calls::parse_function_calls`).
    FunctionCalls,
    /// `Thought:` / `Action:` text (`parse::ui_tars`).
    UiTars,
    /// `<thinking>` / `<tool_call>` tagged text (`parse::tool_calls::parse_mai_ui`).
    MaiUi,
}

impl ModelFamily {
    pub const ALL: [ModelFamily; 9] = [
        ModelFamily::Generic,
        ModelFamily::FunctionCalling,
        ModelFamily::UiTars10,
        ModelFamily::UiTars15,
        ModelFamily::DoubaoUiTars,
        ModelFamily::Qwen25Vl,
        ModelFamily::Qwen3Vl,
        ModelFamily::Gemini,
        ModelFamily::MaiUi,
    ];

    pub fn protocol(self) -> Protocol {
        match self {
            ModelFamily::Generic => Protocol::JsonPlan,
            ModelFamily::FunctionCalling | ModelFamily::Qwen25Vl | ModelFamily::Qwen3Vl | ModelFamily::Gemini => Protocol::FunctionCalls,
            ModelFamily::UiTars10 | ModelFamily::UiTars15 | ModelFamily::DoubaoUiTars => Protocol::UiTars,
            ModelFamily::MaiUi => Protocol::MaiUi,
        }
    }

    /// How it writes coordinates; `None` for families that name elements by number.
    pub fn coord_space(self) -> Option<crate::parse::coords::CoordSpace> {
        use crate::parse::coords::CoordSpace;
        let relative = CoordSpace::Relative { range: 1000.0 };
        match self {
            ModelFamily::Generic | ModelFamily::FunctionCalling => None,
            ModelFamily::UiTars10 | ModelFamily::DoubaoUiTars | ModelFamily::Qwen3Vl => Some(relative),
            ModelFamily::UiTars15 | ModelFamily::Qwen25Vl => Some(CoordSpace::ImagePixels),
            ModelFamily::Gemini => Some(CoordSpace::GeminiYx),
            ModelFamily::MaiUi => Some(CoordSpace::Relative { range: crate::parse::tool_calls::MAI_RANGE }),
        }
    }

    /// The image shape the model was trained on.
    pub fn image_rule(self) -> crate::vision::ImageRule {
        use crate::vision::ImageRule;
        match self {
            ModelFamily::UiTars10 => ImageRule::UI_TARS_1_0,
            ModelFamily::UiTars15 => ImageRule::UI_TARS_1_5,
            ModelFamily::DoubaoUiTars => ImageRule::DOUBAO_UI_TARS,
            ModelFamily::Qwen25Vl => ImageRule::QwenPad28,
            _ => ImageRule::AsIs,
        }
    }

    /// Families that see only the screenshot: the element list would cost tokens they do not use.
    pub fn grounds_on_image(self) -> bool {
        self.coord_space().is_some()
    }
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct ModelConfig {
    /// Which preset the endpoint came from: decides the wire format and the auth header.
    pub provider: Provider,
    /// The API root, e.g. `https://api.openai.com/v1` or `http://127.0.0.1:11434/v1`.
    pub base_url: String,
    /// Read from settings in the service worker; never serialized, so no record carries it.
    #[serde(skip_serializing)]
    pub api_key: String,
    /// The base URL the stored key was entered for: the key is sent to that origin only, so a
    /// changed endpoint (in Settings, or a caller's override) never receives it. Empty when
    /// the key came together with this configuration (the headless runner's own).
    #[serde(skip_serializing)]
    pub api_key_for: String,
    pub model: String,
    pub family: ModelFamily,
    pub temperature: Option<f64>,
    pub max_tokens: Option<u32>,
    pub stream: bool,
    pub timeout_ms: u32,
    /// Azure's `api-version` query parameter, for deployment-style URLs.
    pub api_version: String,
    /// Retries after 429, 5xx and network errors (0 turns them off).
    pub max_retries: u32,
}

impl Default for ModelConfig {
    fn default() -> Self {
        ModelConfig {
            provider: Provider::Custom,
            base_url: String::new(),
            api_key: String::new(),
            api_key_for: String::new(),
            model: String::new(),
            family: ModelFamily::Generic,
            temperature: Some(0.0),
            max_tokens: Some(2048),
            stream: false,
            timeout_ms: 120_000,
            api_version: String::new(),
            max_retries: 3,
        }
    }
}

impl ModelConfig {
    /// Checks what can be checked before any request, with a message a person can act on.
    pub fn validate(&self) -> Result<(), ModelError> {
        let url = self.base_url.trim();
        if url.is_empty() {
            return Err(ModelError::Config("no model endpoint is set: open Settings and enter a base URL".into()));
        }
        if !(url.starts_with("http://") || url.starts_with("https://")) {
            return Err(ModelError::Config(format!(
                "the base URL \"{url}\" must start with http:// or https://"
            )));
        }
        if self.model.trim().is_empty() {
            return Err(ModelError::Config("no model name is set: open Settings and enter one".into()));
        }
        if let Some(t) = self.temperature {
            if !(0.0..=2.0).contains(&t) {
                return Err(ModelError::Config(format!("temperature {t} is outside 0–2")));
            }
        }
        if self.max_tokens == Some(0) {
            return Err(ModelError::Config("max tokens must be at least 1".into()));
        }
        provider::check(self)
    }

    /// The endpoint this configuration posts to.
    pub fn endpoint_url(&self) -> String {
        provider::endpoint_url(self)
    }
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum ContentPart {
    Text { text: String },
    ImageUrl { image_url: ImageUrl },
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
}

/// A tool the model may call through the API's own tool-calling field.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ToolSpec {
    pub name: &'static str,
    pub description: &'static str,
    /// JSON Schema of the arguments object.
    pub parameters: Value,
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
                let args = serde_json::from_str::<Value>(&c.arguments).unwrap_or_else(|_| Value::String(c.arguments.clone()));
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
        let c = ModelConfig { base_url: "http://x".into(), model: "m".into(), temperature: Some(7.0), ..Default::default() };
        assert!(c.validate().unwrap_err().to_string().contains("temperature"));
    }

    #[test]
    fn api_key_never_serialized() {
        let c = ModelConfig { api_key: "sk-secret".into(), api_key_for: "https://a.example/v1".into(), ..Default::default() };
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
        assert!(at("https://api.example.com/v2", "https://API.example.com:443/v1").validate().is_ok(), "the path and a default port do not matter");
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
        assert!(at("http://127.0.0.1:4001/v1", "").validate().is_ok(), "a key given with the configuration goes with it");
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
        let plan = crate::parse::parse_reply(ModelFamily::FunctionCalling, &reply.parser_text(), None).unwrap();
        assert_eq!(plan.thought, "Tap the box.");
        assert_eq!(plan.actions, vec![crate::parse::PlannedAction::Tap { target: 3 }]);
    }
}
