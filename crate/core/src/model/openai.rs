//! The OpenAI chat-completions wire format, spoken by most providers and local servers:
//! the request body, a JSON reply, and a streamed reply read event by event.

use super::{error_text, reply_json, ChatMessage, ChatReply, ModelConfig, ModelError, ToolCall, Usage};
use crate::vocab::tools::ToolSpec;
use serde_json::{json, Value};

pub fn request_body(config: &ModelConfig, messages: &[ChatMessage], tools: &[ToolSpec]) -> Value {
    let mut body = json!({ "model": config.model.trim(), "messages": messages, "stream": config.stream });
    if let Some(t) = config.temperature {
        body["temperature"] = json!(t);
    }
    if let Some(m) = config.max_tokens {
        body["max_tokens"] = json!(m);
    }
    if config.stream {
        body["stream_options"] = json!({ "include_usage": true });
    }
    if !tools.is_empty() {
        let tools: Vec<Value> = tools
            .iter()
            .map(|t| json!({ "type": "function", "function": { "name": t.name, "description": t.description, "parameters": t.parameters } }))
            .collect();
        body["tools"] = Value::Array(tools);
    }
    body
}

pub fn read_json(body: &str) -> Result<ChatReply, ModelError> {
    let v = reply_json(body)?;
    let message = v
        .pointer("/choices/0/message")
        .ok_or_else(|| ModelError::BadResponse("no choices[0].message in the answer".into()))?;
    let tool_calls = message
        .get("tool_calls")
        .and_then(Value::as_array)
        .map(|calls| {
            calls
                .iter()
                .filter_map(|c| {
                    let f = c.get("function")?;
                    Some(ToolCall {
                        name: f.get("name")?.as_str()?.to_string(),
                        arguments: arguments_text(f.get("arguments")),
                    })
                })
                .collect()
        })
        .unwrap_or_default();
    Ok(ChatReply { content: message_content(message), tool_calls, usage: usage_of(&v), notes: Vec::new() })
}

/// Arguments arrive as JSON text (OpenAI) or, from some servers, as an object.
fn arguments_text(v: Option<&Value>) -> String {
    match v {
        Some(Value::String(s)) => s.clone(),
        Some(other) => other.to_string(),
        None => "{}".into(),
    }
}

/// Message content may be a string or an array of text parts.
fn message_content(message: &Value) -> String {
    match message.get("content") {
        Some(Value::String(s)) => s.clone(),
        Some(Value::Array(parts)) => {
            parts.iter().filter_map(|p| p.get("text").and_then(Value::as_str)).collect::<Vec<_>>().join("")
        }
        _ => String::new(),
    }
}

fn usage_of(v: &Value) -> Option<Usage> {
    let u = v.get("usage").filter(|u| u.is_object())?;
    Some(Usage {
        prompt_tokens: u.get("prompt_tokens").and_then(Value::as_u64).unwrap_or(0),
        completion_tokens: u.get("completion_tokens").and_then(Value::as_u64).unwrap_or(0),
        estimated: false,
    })
}

/// A streamed reply, assembled from `choices[0].delta` pieces.
#[derive(Default)]
pub struct StreamReply {
    content: String,
    calls: Vec<ToolCall>,
    usage: Option<Usage>,
    finished: bool,
    done: bool,
    events: usize,
}

impl StreamReply {
    /// Takes one event's data; returns the text it added (for live display).
    pub fn event(&mut self, data: &str) -> Result<&str, ModelError> {
        let data = data.trim();
        if data == "[DONE]" {
            self.done = true;
            return Ok("");
        }
        if data.is_empty() {
            return Ok("");
        }
        self.events += 1;
        let v: Value = serde_json::from_str(data)
            .map_err(|e| ModelError::BadResponse(format!("a stream event is not JSON ({e})")))?;
        if let Some(err) = v.get("error") {
            return Err(ModelError::BadResponse(format!("the stream carried an error: {}", error_text(err))));
        }
        if let Some(u) = usage_of(&v) {
            self.usage = Some(u);
        }
        if v.pointer("/choices/0/finish_reason").is_some_and(|f| !f.is_null()) {
            self.finished = true;
        }
        if let Some(calls) = v.pointer("/choices/0/delta/tool_calls").and_then(Value::as_array) {
            for c in calls {
                let i = c.get("index").and_then(Value::as_u64).unwrap_or(self.calls.len().saturating_sub(1) as u64)
                    as usize;
                if i > 64 {
                    return Err(ModelError::BadResponse(format!("tool call index {i} in the stream is out of range")));
                }
                while self.calls.len() <= i {
                    self.calls.push(ToolCall { name: String::new(), arguments: String::new() });
                }
                if let Some(name) = c.pointer("/function/name").and_then(Value::as_str) {
                    self.calls[i].name.push_str(name);
                }
                match c.pointer("/function/arguments") {
                    Some(Value::String(s)) => self.calls[i].arguments.push_str(s),
                    Some(v @ Value::Object(_)) => self.calls[i].arguments = v.to_string(),
                    _ => {}
                }
            }
        }
        let start = self.content.len();
        if let Some(piece) = v.pointer("/choices/0/delta/content").and_then(Value::as_str) {
            self.content.push_str(piece);
        }
        Ok(&self.content[start..])
    }

    /// The whole reply. A stream cut before `[DONE]` and before any finish reason is an
    /// error: the answer may be half a plan.
    pub fn finish(self) -> Result<ChatReply, ModelError> {
        if self.events == 0 {
            return Err(ModelError::BadResponse("the stream held no events".into()));
        }
        if !self.done && !self.finished {
            return Err(ModelError::BadResponse("the stream ended before the answer was complete".into()));
        }
        let tool_calls = self.calls.into_iter().filter(|c| !c.name.is_empty()).collect();
        Ok(ChatReply { content: self.content, tool_calls, usage: self.usage, notes: Vec::new() })
    }
}

#[cfg(test)]
mod tests {
    use super::super::{ContentPart, ImageUrl};
    use super::*;

    fn stream(body: &str) -> Result<ChatReply, ModelError> {
        let mut d = super::super::sse::SseDecoder::new();
        let mut r = StreamReply::default();
        let mut events = d.feed(body.as_bytes());
        events.extend(d.finish());
        for e in events {
            r.event(&e.data)?;
        }
        r.finish()
    }

    #[test]
    fn body_has_messages_image_and_tools() {
        let c = ModelConfig { model: "m".into(), ..Default::default() };
        let msgs = vec![ChatMessage {
            role: "user".into(),
            content: vec![
                ContentPart::Text { text: "hi".into() },
                ContentPart::ImageUrl { image_url: ImageUrl { url: "data:image/png;base64,AA".into() } },
            ],
        }];
        let b = request_body(&c, &msgs, &[]);
        assert_eq!(b["messages"][0]["content"][1]["image_url"]["url"], "data:image/png;base64,AA");
        assert_eq!(b["stream"], false);
        assert!(b.get("tools").is_none());
        let tools = crate::vocab::tools::element_tools();
        let b = request_body(&c, &msgs, &tools);
        assert_eq!(b["tools"][0]["type"], "function");
        assert_eq!(b["tools"][0]["function"]["name"], "tap");
    }

    #[test]
    fn reads_json_with_usage_and_tool_calls() {
        let ok = r#"{"choices":[{"message":{"role":"assistant","content":"hello"}}],"usage":{"prompt_tokens":5,"completion_tokens":2}}"#;
        let r = read_json(ok).unwrap();
        assert_eq!(r.content, "hello");
        assert_eq!(r.usage, Some(Usage { prompt_tokens: 5, completion_tokens: 2, estimated: false }));
        let calls = r#"{"choices":[{"message":{"content":null,"tool_calls":[{"id":"c1","type":"function","function":{"name":"tap","arguments":"{\"target\":2}"}}]}}]}"#;
        let r = read_json(calls).unwrap();
        assert_eq!(r.tool_calls, vec![ToolCall { name: "tap".into(), arguments: r#"{"target":2}"#.into() }]);
        assert!(matches!(read_json("<html>"), Err(ModelError::BadResponse(_))));
        assert!(matches!(read_json("{}"), Err(ModelError::BadResponse(_))));
        assert!(read_json(r#"{"error":{"message":"quota"}}"#).unwrap_err().to_string().contains("quota"));
    }

    #[test]
    fn streams_join_text_and_tool_call_pieces() {
        let body = "data: {\"choices\":[{\"delta\":{\"role\":\"assistant\",\"content\":\"Hel\"}}]}\n\n\
                    data: {\"choices\":[{\"delta\":{\"content\":\"lo\"},\"finish_reason\":null}]}\n\n\
                    data: {\"choices\":[{\"delta\":{\"tool_calls\":[{\"index\":0,\"function\":{\"name\":\"tap\",\"arguments\":\"{\\\"tar\"}}]}}]}\n\n\
                    data: {\"choices\":[{\"delta\":{\"tool_calls\":[{\"index\":0,\"function\":{\"arguments\":\"get\\\":3}\"}}]}}]}\n\n\
                    data: {\"choices\":[{\"delta\":{},\"finish_reason\":\"tool_calls\"}]}\n\n\
                    data: {\"choices\":[],\"usage\":{\"prompt_tokens\":3,\"completion_tokens\":1}}\n\n\
                    data: [DONE]\n\n";
        let r = stream(body).unwrap();
        assert_eq!(r.content, "Hello");
        assert_eq!(r.tool_calls, vec![ToolCall { name: "tap".into(), arguments: r#"{"target":3}"#.into() }]);
        assert_eq!(r.usage.unwrap().prompt_tokens, 3);
    }

    #[test]
    fn cut_or_broken_streams_are_errors() {
        let body = "data: {\"choices\":[{\"delta\":{\"content\":\"{\\\"act\"}}]}\n\n";
        assert!(stream(body).unwrap_err().to_string().contains("before the answer was complete"));
        assert!(stream("").is_err());
        assert!(stream("data: {oops\n\n").is_err());
        assert!(stream("data: {\"error\":{\"message\":\"overloaded\"}}\n\n")
            .unwrap_err()
            .to_string()
            .contains("overloaded"));
    }
}
