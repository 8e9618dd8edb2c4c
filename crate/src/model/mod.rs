//! Talking to a model: configuration, the chat-completions wire format, and reading replies
//! (plain JSON or an SSE stream). The HTTP call itself is behind [`ModelClient`]; the
//! service worker implements it with gloo-net (`web::bridge`), tests with fakes.

mod sse;

pub use sse::parse_sse_completion;

use serde::{Deserialize, Serialize};
use serde_json::{json, Value};

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
    /// OpenAI-compatible base URL, e.g. `https://api.openai.com/v1` or `http://127.0.0.1:11434/v1`.
    pub base_url: String,
    #[serde(skip_serializing)]
    pub api_key: String,
    pub model: String,
    pub family: ModelFamily,
    pub temperature: Option<f64>,
    pub max_tokens: Option<u32>,
    pub stream: bool,
    pub timeout_ms: u32,
}

impl Default for ModelConfig {
    fn default() -> Self {
        ModelConfig {
            base_url: String::new(),
            api_key: String::new(),
            model: String::new(),
            family: ModelFamily::Generic,
            temperature: Some(0.0),
            max_tokens: Some(2048),
            stream: false,
            timeout_ms: 120_000,
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
        Ok(())
    }

    /// `{base}/chat/completions`, accepting a base that already names the endpoint.
    pub fn chat_url(&self) -> String {
        let base = self.base_url.trim().trim_end_matches('/');
        if base.ends_with("/chat/completions") {
            base.to_string()
        } else {
            format!("{base}/chat/completions")
        }
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

/// The body of an OpenAI-compatible chat-completions request.
pub fn request_body(config: &ModelConfig, messages: &[ChatMessage]) -> Value {
    let mut body = json!({ "model": config.model, "messages": messages, "stream": config.stream });
    if let Some(t) = config.temperature {
        body["temperature"] = json!(t);
    }
    if let Some(m) = config.max_tokens {
        body["max_tokens"] = json!(m);
    }
    if config.stream {
        body["stream_options"] = json!({ "include_usage": true });
    }
    body
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Usage {
    pub prompt_tokens: u64,
    pub completion_tokens: u64,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ChatReply {
    pub content: String,
    pub usage: Option<Usage>,
}

#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum ModelError {
    #[error("model settings: {0}")]
    Config(String),
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
}

/// The model call, implemented per platform.
#[allow(async_fn_in_trait)] // single-threaded wasm: no Send bound wanted
pub trait ModelClient {
    async fn complete(&self, config: &ModelConfig, messages: &[ChatMessage]) -> Result<ChatReply, ModelError>;
}

/// Reads a finished HTTP response: SSE when the server streamed, JSON otherwise.
pub fn read_response(status: u16, content_type: &str, body: &str) -> Result<ChatReply, ModelError> {
    if !(200..300).contains(&status) {
        return Err(ModelError::Http { status, message: error_message(body) });
    }
    if content_type.contains("text/event-stream") || body.trim_start().starts_with("data:") {
        return parse_sse_completion(body);
    }
    parse_json_completion(body)
}

fn parse_json_completion(body: &str) -> Result<ChatReply, ModelError> {
    let v: Value = serde_json::from_str(body)
        .map_err(|e| ModelError::BadResponse(format!("not JSON ({e}): {}", crate::describe::truncate_chars(body, 120))))?;
    if let Some(err) = v.get("error") {
        return Err(ModelError::BadResponse(format!("the endpoint returned an error: {}", error_text(err))));
    }
    let message = v
        .pointer("/choices/0/message")
        .ok_or_else(|| ModelError::BadResponse("no choices[0].message in the answer".into()))?;
    Ok(ChatReply { content: message_content(message), usage: usage_of(&v) })
}

/// Message content may be a string or an array of text parts.
pub(crate) fn message_content(message: &Value) -> String {
    match message.get("content") {
        Some(Value::String(s)) => s.clone(),
        Some(Value::Array(parts)) => parts
            .iter()
            .filter_map(|p| p.get("text").and_then(Value::as_str))
            .collect::<Vec<_>>()
            .join(""),
        _ => String::new(),
    }
}

pub(crate) fn usage_of(v: &Value) -> Option<Usage> {
    let u = v.get("usage")?;
    Some(Usage {
        prompt_tokens: u.get("prompt_tokens").and_then(Value::as_u64).unwrap_or(0),
        completion_tokens: u.get("completion_tokens").and_then(Value::as_u64).unwrap_or(0),
    })
}

/// The readable part of an error body: OpenAI's `{"error":{"message":…}}`, else the text.
fn error_message(body: &str) -> String {
    match serde_json::from_str::<Value>(body) {
        Ok(v) => v.get("error").map(error_text).unwrap_or_else(|| crate::describe::truncate_chars(body, 200)),
        Err(_) if body.trim().is_empty() => "(empty body)".into(),
        Err(_) => crate::describe::truncate_chars(body.trim(), 200),
    }
}

fn error_text(err: &Value) -> String {
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
    fn chat_url_joins_once() {
        let mut c = ModelConfig { base_url: "http://127.0.0.1:1/v1/".into(), ..Default::default() };
        assert_eq!(c.chat_url(), "http://127.0.0.1:1/v1/chat/completions");
        c.base_url = "https://x/v1/chat/completions".into();
        assert_eq!(c.chat_url(), "https://x/v1/chat/completions");
    }

    #[test]
    fn config_errors_say_what_to_do() {
        let c = ModelConfig::default();
        assert!(c.validate().unwrap_err().to_string().contains("Settings"));
        let c = ModelConfig { base_url: "ftp://x".into(), model: "m".into(), ..Default::default() };
        assert!(c.validate().unwrap_err().to_string().contains("http://"));
    }

    #[test]
    fn api_key_never_serialized() {
        let c = ModelConfig { api_key: "sk-secret".into(), ..Default::default() };
        assert!(!serde_json::to_string(&c).unwrap().contains("sk-secret"));
    }

    #[test]
    fn request_body_has_messages_and_image() {
        let c = ModelConfig { model: "m".into(), ..Default::default() };
        let msgs = vec![ChatMessage {
            role: "user".into(),
            content: vec![
                ContentPart::Text { text: "hi".into() },
                ContentPart::ImageUrl { image_url: ImageUrl { url: "data:image/png;base64,AA".into() } },
            ],
        }];
        let b = request_body(&c, &msgs);
        assert_eq!(b["messages"][0]["content"][1]["type"], "image_url");
        assert_eq!(b["messages"][0]["content"][1]["image_url"]["url"], "data:image/png;base64,AA");
        assert_eq!(b["model"], "m");
        assert_eq!(b["stream"], false);
    }

    #[test]
    fn reads_json_and_errors() {
        let ok = r#"{"choices":[{"message":{"role":"assistant","content":"hello"}}],"usage":{"prompt_tokens":5,"completion_tokens":2}}"#;
        let r = read_response(200, "application/json", ok).unwrap();
        assert_eq!(r.content, "hello");
        assert_eq!(r.usage, Some(Usage { prompt_tokens: 5, completion_tokens: 2 }));
        let e = read_response(429, "application/json", r#"{"error":{"message":"slow down"}}"#).unwrap_err();
        assert_eq!(e, ModelError::Http { status: 429, message: "slow down".into() });
        assert!(matches!(read_response(200, "", "<html>"), Err(ModelError::BadResponse(_))));
        assert!(matches!(read_response(200, "", "{}"), Err(ModelError::BadResponse(_))));
    }
}
