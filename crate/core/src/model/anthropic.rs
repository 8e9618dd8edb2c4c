//! Anthropic's Messages API, natively: system text apart from the turns, images as base64
//! blocks, `tool_use` blocks for tool calls, and its named stream events.

use super::{error_text, reply_json, ChatMessage, ChatReply, ContentPart, ModelConfig, ModelError, ToolCall, Usage};
use crate::vocab::tools::ToolSpec;
use serde_json::{json, Value};

/// Messages requires a limit; this is used when Settings leaves it empty.
pub const DEFAULT_MAX_TOKENS: u32 = 2048;

pub fn request_body(config: &ModelConfig, messages: &[ChatMessage], tools: &[ToolSpec]) -> Value {
    let mut system = Vec::new();
    let mut turns: Vec<Value> = Vec::new();
    for m in messages {
        if m.role == "system" {
            system.extend(m.content.iter().filter_map(|p| match p {
                ContentPart::Text { text } => Some(text.as_str()),
                ContentPart::ImageUrl { .. } => None,
            }));
            continue;
        }
        let role = if m.role == "assistant" { "assistant" } else { "user" };
        let blocks: Vec<Value> = m.content.iter().map(block).collect();
        // Turns must alternate: consecutive ones of a role become one.
        match turns.last_mut() {
            Some(last) if last["role"] == role => last["content"].as_array_mut().expect("built above").extend(blocks),
            _ => turns.push(json!({ "role": role, "content": blocks })),
        }
    }
    let mut body = json!({
        "model": config.model.trim(),
        "max_tokens": config.max_tokens.unwrap_or(DEFAULT_MAX_TOKENS),
        "messages": turns,
        "stream": config.stream,
    });
    if !system.is_empty() {
        body["system"] = json!(system.join("\n\n"));
    }
    if let Some(t) = config.temperature {
        body["temperature"] = json!(t.clamp(0.0, 1.0)); // Anthropic's range is 0–1
    }
    if !tools.is_empty() {
        body["tools"] = tools
            .iter()
            .map(|t| json!({ "name": t.name, "description": t.description, "input_schema": t.parameters }))
            .collect();
    }
    body
}

fn block(part: &ContentPart) -> Value {
    match part {
        ContentPart::Text { text } => json!({ "type": "text", "text": text }),
        ContentPart::ImageUrl { image_url } => {
            match image_url.url.strip_prefix("data:").and_then(|r| r.split_once(";base64,")) {
                Some((media_type, data)) => {
                    json!({ "type": "image", "source": { "type": "base64", "media_type": media_type, "data": data } })
                }
                None => json!({ "type": "image", "source": { "type": "url", "url": image_url.url } }),
            }
        }
    }
}

fn usage_of(u: &Value) -> Usage {
    let n = |k: &str| u.get(k).and_then(Value::as_u64).unwrap_or(0);
    Usage {
        prompt_tokens: n("input_tokens") + n("cache_creation_input_tokens") + n("cache_read_input_tokens"),
        completion_tokens: n("output_tokens"),
        estimated: false,
    }
}

pub fn read_json(body: &str) -> Result<ChatReply, ModelError> {
    let v = reply_json(body)?;
    let blocks = v
        .get("content")
        .and_then(Value::as_array)
        .ok_or_else(|| ModelError::BadResponse("no content blocks in the answer".into()))?;
    let mut reply = ChatReply::default();
    for b in blocks {
        match b.get("type").and_then(Value::as_str) {
            Some("text") => reply.content.push_str(b.get("text").and_then(Value::as_str).unwrap_or_default()),
            Some("tool_use") => reply.tool_calls.push(ToolCall {
                name: b.get("name").and_then(Value::as_str).unwrap_or_default().to_string(),
                arguments: b.get("input").map(Value::to_string).unwrap_or_else(|| "{}".into()),
            }),
            _ => {} // thinking blocks and future kinds
        }
    }
    reply.usage = v.get("usage").map(usage_of);
    Ok(reply)
}

/// A streamed reply, assembled from Messages stream events.
#[derive(Default)]
pub struct StreamReply {
    content: String,
    /// Tool calls by block index, with their input JSON as it arrives.
    calls: Vec<(u64, ToolCall)>,
    usage: Usage,
    started: bool,
    stopped: bool,
}

impl StreamReply {
    /// Takes one event; returns the text it added (for live display).
    pub fn event(&mut self, name: &str, data: &str) -> Result<&str, ModelError> {
        let v: Value = match serde_json::from_str(data) {
            Ok(v) => v,
            Err(_) if name == "ping" || data.trim().is_empty() => return Ok(""),
            Err(e) => return Err(ModelError::BadResponse(format!("a stream event is not JSON ({e})"))),
        };
        let kind = v.get("type").and_then(Value::as_str).unwrap_or(name);
        let start = self.content.len();
        match kind {
            "message_start" => {
                self.started = true;
                if let Some(u) = v.pointer("/message/usage") {
                    self.usage = usage_of(u);
                }
            }
            "content_block_start" => {
                let index = v.get("index").and_then(Value::as_u64).unwrap_or(0);
                let b = v.get("content_block").cloned().unwrap_or(Value::Null);
                match b.get("type").and_then(Value::as_str) {
                    Some("tool_use") => self.calls.push((
                        index,
                        ToolCall {
                            name: b.get("name").and_then(Value::as_str).unwrap_or_default().to_string(),
                            arguments: String::new(),
                        },
                    )),
                    Some("text") => self.content.push_str(b.get("text").and_then(Value::as_str).unwrap_or_default()),
                    _ => {}
                }
            }
            "content_block_delta" => {
                let index = v.get("index").and_then(Value::as_u64).unwrap_or(0);
                let d = v.get("delta").cloned().unwrap_or(Value::Null);
                match d.get("type").and_then(Value::as_str) {
                    Some("text_delta") => {
                        self.content.push_str(d.get("text").and_then(Value::as_str).unwrap_or_default())
                    }
                    Some("input_json_delta") => {
                        if let Some((_, call)) = self.calls.iter_mut().find(|(i, _)| *i == index) {
                            call.arguments.push_str(d.get("partial_json").and_then(Value::as_str).unwrap_or_default());
                        }
                    }
                    _ => {}
                }
            }
            "message_delta" => {
                if let Some(out) = v.pointer("/usage/output_tokens").and_then(Value::as_u64) {
                    self.usage.completion_tokens = out;
                }
            }
            "message_stop" => self.stopped = true,
            "error" => {
                let err = v.get("error").unwrap_or(&v);
                return Err(ModelError::BadResponse(format!("the stream carried an error: {}", error_text(err))));
            }
            _ => {} // ping, content_block_stop, future events
        }
        Ok(&self.content[start..])
    }

    pub fn finish(self) -> Result<ChatReply, ModelError> {
        if !self.started {
            return Err(ModelError::BadResponse("the stream held no message".into()));
        }
        if !self.stopped {
            return Err(ModelError::BadResponse("the stream ended before the answer was complete".into()));
        }
        let tool_calls = self
            .calls
            .into_iter()
            .map(|(_, mut c)| {
                if c.arguments.trim().is_empty() {
                    c.arguments = "{}".into();
                }
                c
            })
            .collect();
        Ok(ChatReply { content: self.content, tool_calls, usage: Some(self.usage), notes: Vec::new() })
    }
}

#[cfg(test)]
mod tests {
    use super::super::{sse::SseDecoder, ImageUrl};
    use super::*;

    fn stream(body: &str) -> Result<ChatReply, ModelError> {
        let mut d = SseDecoder::new();
        let mut events = d.feed(body.as_bytes());
        events.extend(d.finish());
        let mut r = StreamReply::default();
        for e in events {
            r.event(&e.event, &e.data)?;
        }
        r.finish()
    }

    #[test]
    fn system_apart_images_as_blocks_turns_merged() {
        let c = ModelConfig { model: "claude".into(), max_tokens: None, temperature: Some(1.5), ..Default::default() };
        let msgs = vec![
            ChatMessage::text("system", "be brief"),
            ChatMessage::text("user", "one"),
            ChatMessage {
                role: "user".into(),
                content: vec![ContentPart::ImageUrl {
                    image_url: ImageUrl { url: "data:image/jpeg;base64,QUJD".into() },
                }],
            },
        ];
        let b = request_body(&c, &msgs, &crate::vocab::tools::element_tools());
        assert_eq!(b["system"], "be brief");
        assert_eq!(b["max_tokens"], DEFAULT_MAX_TOKENS);
        assert_eq!(b["temperature"], 1.0);
        assert_eq!(b["messages"].as_array().unwrap().len(), 1);
        assert_eq!(
            b["messages"][0]["content"][1]["source"],
            json!({"type":"base64","media_type":"image/jpeg","data":"QUJD"})
        );
        assert_eq!(b["tools"][0]["input_schema"]["type"], "object");
    }

    #[test]
    fn reads_text_tool_use_and_usage() {
        let body = r#"{"type":"message","content":[{"type":"text","text":"Tapping."},{"type":"tool_use","id":"t","name":"tap","input":{"target":4}}],
            "usage":{"input_tokens":10,"cache_read_input_tokens":5,"output_tokens":3}}"#;
        let r = read_json(body).unwrap();
        assert_eq!(r.content, "Tapping.");
        assert_eq!(r.tool_calls, vec![ToolCall { name: "tap".into(), arguments: r#"{"target":4}"#.into() }]);
        assert_eq!(r.usage, Some(Usage { prompt_tokens: 15, completion_tokens: 3, estimated: false }));
        assert!(read_json(r#"{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}"#)
            .unwrap_err()
            .to_string()
            .contains("Overloaded"));
    }

    #[test]
    fn streams_assemble_text_and_tool_input() {
        let body = "event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"usage\":{\"input_tokens\":12,\"output_tokens\":1}}}\n\n\
            event: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":0,\"content_block\":{\"type\":\"text\",\"text\":\"\"}}\n\n\
            event: ping\ndata: {\"type\": \"ping\"}\n\n\
            event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\",\"text\":\"Hi \"}}\n\n\
            event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\",\"text\":\"there\"}}\n\n\
            event: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":1,\"content_block\":{\"type\":\"tool_use\",\"name\":\"tap\",\"input\":{}}}\n\n\
            event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":1,\"delta\":{\"type\":\"input_json_delta\",\"partial_json\":\"{\\\"target\\\":\"}}\n\n\
            event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":1,\"delta\":{\"type\":\"input_json_delta\",\"partial_json\":\"7}\"}}\n\n\
            event: message_delta\ndata: {\"type\":\"message_delta\",\"delta\":{\"stop_reason\":\"tool_use\"},\"usage\":{\"output_tokens\":9}}\n\n\
            event: message_stop\ndata: {\"type\":\"message_stop\"}\n\n";
        let r = stream(body).unwrap();
        assert_eq!(r.content, "Hi there");
        assert_eq!(r.tool_calls[0].arguments, r#"{"target":7}"#);
        assert_eq!(r.usage, Some(Usage { prompt_tokens: 12, completion_tokens: 9, estimated: false }));
        let cut = body.split("event: message_delta").next().unwrap();
        assert!(stream(cut).unwrap_err().to_string().contains("before the answer was complete"));
        assert!(stream("event: error\ndata: {\"type\":\"error\",\"error\":{\"message\":\"Overloaded\"}}\n\n").is_err());
    }
}
