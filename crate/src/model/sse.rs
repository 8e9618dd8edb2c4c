//! Reads an OpenAI chat-completions SSE stream into one reply.

use super::{usage_of, ChatReply, ModelError};
use serde_json::Value;

/// Joins the `choices[0].delta.content` pieces of a complete SSE body. A stream cut before
/// `[DONE]` and before any finish reason is an error: the answer may be half a JSON plan.
pub fn parse_sse_completion(body: &str) -> Result<ChatReply, ModelError> {
    let mut content = String::new();
    let mut usage = None;
    let mut finished = false;
    let mut done = false;
    let mut events = 0;
    for line in body.lines() {
        let Some(data) = line.strip_prefix("data:") else { continue };
        let data = data.trim();
        if data == "[DONE]" {
            done = true;
            break;
        }
        if data.is_empty() {
            continue;
        }
        events += 1;
        let v: Value = serde_json::from_str(data)
            .map_err(|e| ModelError::BadResponse(format!("a stream event is not JSON ({e})")))?;
        if let Some(err) = v.get("error") {
            return Err(ModelError::BadResponse(format!("the stream carried an error: {err}")));
        }
        if let Some(piece) = v.pointer("/choices/0/delta/content").and_then(Value::as_str) {
            content.push_str(piece);
        }
        if v.pointer("/choices/0/finish_reason").map_or(false, |f| !f.is_null()) {
            finished = true;
        }
        if let Some(u) = usage_of(&v) {
            usage = Some(u);
        }
    }
    if events == 0 {
        return Err(ModelError::BadResponse("the stream held no events".into()));
    }
    if !done && !finished {
        return Err(ModelError::BadResponse("the stream ended before the answer was complete".into()));
    }
    Ok(ChatReply { content, usage })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn joins_deltas_and_reads_usage() {
        let body = "data: {\"choices\":[{\"delta\":{\"role\":\"assistant\",\"content\":\"Hel\"}}]}\n\n\
                    data: {\"choices\":[{\"delta\":{\"content\":\"lo\"},\"finish_reason\":null}]}\n\n\
                    data: {\"choices\":[{\"delta\":{},\"finish_reason\":\"stop\"}]}\n\n\
                    data: {\"choices\":[],\"usage\":{\"prompt_tokens\":3,\"completion_tokens\":1}}\n\n\
                    data: [DONE]\n\n";
        let r = parse_sse_completion(body).unwrap();
        assert_eq!(r.content, "Hello");
        assert_eq!(r.usage.unwrap().prompt_tokens, 3);
    }

    #[test]
    fn truncated_stream_is_an_error() {
        let body = "data: {\"choices\":[{\"delta\":{\"content\":\"{\\\"act\"}}]}\n\n";
        assert!(parse_sse_completion(body).unwrap_err().to_string().contains("before the answer was complete"));
        assert!(parse_sse_completion("").is_err());
        assert!(parse_sse_completion("data: {oops\n\n").is_err());
    }
}
