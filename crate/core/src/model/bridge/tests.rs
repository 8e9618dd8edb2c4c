use super::*;
use crate::model::{ContentPart, ImageUrl, Provider, ToolCall};
use crate::test_util::block_on;
use std::cell::RefCell;
use std::collections::VecDeque;

/// One scripted exchange: a response in pieces, or a failure before any response.
enum Scripted {
    Reply { status: u16, headers: Vec<(String, String)>, pieces: Vec<Vec<u8>> },
    Fail(ModelError),
}

fn reply(status: u16, content_type: &str, body: &str) -> Scripted {
    Scripted::Reply {
        status,
        headers: vec![("content-type".into(), content_type.into())],
        pieces: vec![body.as_bytes().to_vec()],
    }
}

#[derive(Default)]
struct FakeNet {
    script: RefCell<VecDeque<Scripted>>,
    sent: RefCell<Vec<HttpRequest>>,
    slept: RefCell<Vec<u64>>,
    progress: RefCell<Vec<String>>,
    stop_while_sleeping: bool,
}

struct FakeBody(VecDeque<Vec<u8>>);

impl ResponseBody for FakeBody {
    async fn chunk(&mut self) -> Result<Option<Vec<u8>>, ModelError> {
        Ok(self.0.pop_front())
    }
}

impl Transport for FakeNet {
    type Body = FakeBody;
    async fn send(&self, request: &HttpRequest, _timeout_ms: u32) -> Result<(HttpResponse, FakeBody), ModelError> {
        self.sent.borrow_mut().push(request.clone());
        match self.script.borrow_mut().pop_front().expect("a scripted exchange") {
            Scripted::Reply { status, headers, pieces } => {
                Ok((HttpResponse { status, headers }, FakeBody(pieces.into())))
            }
            Scripted::Fail(e) => Err(e),
        }
    }
    async fn sleep(&self, ms: u64) -> Result<(), ModelError> {
        self.slept.borrow_mut().push(ms);
        if self.stop_while_sleeping {
            return Err(ModelError::Aborted);
        }
        Ok(())
    }
    fn epoch_ms(&self) -> f64 {
        0.0
    }
    fn progress(&self, text: &str) {
        self.progress.borrow_mut().push(text.to_string());
    }
}

fn bridge(script: Vec<Scripted>) -> Bridge<FakeNet> {
    Bridge { transport: FakeNet { script: RefCell::new(script.into()), ..Default::default() } }
}

fn config() -> ModelConfig {
    ModelConfig {
        base_url: "http://127.0.0.1:9/v1".into(),
        model: "m".into(),
        api_key: "sk-test-0123456789".into(),
        ..Default::default()
    }
}

fn hello() -> &'static str {
    r#"{"choices":[{"message":{"content":"hello"}}],"usage":{"prompt_tokens":7,"completion_tokens":1}}"#
}

fn ask(b: &Bridge<FakeNet>, c: &ModelConfig) -> Result<ChatReply, ModelError> {
    block_on(b.complete(c, &[ChatMessage::text("user", "hi")]))
}

#[test]
fn retries_429_honouring_retry_after_then_succeeds() {
    let limited = Scripted::Reply {
        status: 429,
        headers: vec![("Retry-After".into(), "2".into())],
        pieces: vec![br#"{"error":{"message":"rate limited"}}"#.to_vec()],
    };
    let b = bridge(vec![limited, reply(503, "text/plain", "busy"), reply(200, "application/json", hello())]);
    let r = ask(&b, &config()).unwrap();
    assert_eq!(r.content, "hello");
    assert_eq!(*b.transport.slept.borrow(), vec![2000, 2000], "Retry-After first, then backoff for the second retry");
    assert_eq!(r.notes.len(), 2);
    assert!(r.notes[0].contains("HTTP 429: rate limited"), "{:?}", r.notes);
    assert_eq!(b.transport.sent.borrow().len(), 3);
}

#[test]
fn gives_up_after_the_configured_retries_and_says_so() {
    let net = || Scripted::Fail(ModelError::Network("connection reset".into()));
    let b = bridge(vec![net(), net(), net(), net()]);
    let e = ask(&b, &config()).unwrap_err();
    assert!(matches!(e, ModelError::GaveUp { retries: 3, .. }), "{e:?}");
    assert!(e.to_string().contains("connection reset") && e.to_string().contains("3 retries"));
    assert_eq!(*b.transport.slept.borrow(), vec![1000, 2000, 4000]);
}

#[test]
fn does_not_retry_what_another_try_cannot_fix() {
    for (scripted, expect) in [
        (reply(401, "application/json", r#"{"error":{"message":"bad key"}}"#), "HTTP 401"),
        (Scripted::Fail(ModelError::Timeout(60)), "within 60 s"),
        (reply(200, "application/json", "<html>"), "could not be read"),
    ] {
        let b = bridge(vec![scripted]);
        let e = ask(&b, &config()).unwrap_err();
        assert!(e.to_string().contains(expect), "{e}");
        assert!(b.transport.slept.borrow().is_empty());
    }
    let b = bridge(vec![Scripted::Reply {
        status: 429,
        headers: vec![("retry-after".into(), "600".into())],
        pieces: vec![],
    }]);
    assert!(ask(&b, &config()).unwrap_err().to_string().contains("asks to wait 600 s"));
}

#[test]
fn stop_during_a_retry_wait_ends_the_call() {
    let mut b = bridge(vec![reply(503, "text/plain", "busy")]);
    b.transport.stop_while_sleeping = true;
    assert_eq!(ask(&b, &config()).unwrap_err(), ModelError::Aborted);
}

#[test]
fn the_key_never_appears_in_errors() {
    let echo = r#"{"error":{"message":"Incorrect API key provided: sk-test-0123456789"}}"#;
    let b = bridge(vec![reply(401, "application/json", echo)]);
    let e = ask(&b, &config()).unwrap_err().to_string();
    assert!(!e.contains("sk-test-0123456789") && e.contains("[API key]"), "{e}");
}

#[test]
fn streams_report_progress_and_split_utf8_survives() {
    let body = "data: {\"choices\":[{\"delta\":{\"content\":\"héllo \"}}]}\n\ndata: {\"choices\":[{\"delta\":{\"content\":\"wörld\"},\"finish_reason\":\"stop\"}]}\n\ndata: [DONE]\n\n";
    let bytes = body.as_bytes();
    let pieces: Vec<Vec<u8>> = bytes.chunks(7).map(<[u8]>::to_vec).collect();
    let b = bridge(vec![Scripted::Reply {
        status: 200,
        headers: vec![("Content-Type".into(), "text/event-stream".into())],
        pieces,
    }]);
    let r = ask(&b, &ModelConfig { stream: true, ..config() }).unwrap();
    assert_eq!(r.content, "héllo wörld");
    assert_eq!(b.transport.progress.borrow().last().unwrap(), "héllo wörld");
    assert!(b.transport.progress.borrow().len() >= 2, "progress before the end");
    assert!(r.usage.unwrap().estimated, "no usage in the stream: estimated");
}

#[test]
fn unlabelled_streams_are_still_read() {
    let body = "data: {\"choices\":[{\"delta\":{\"content\":\"ok\"},\"finish_reason\":\"stop\"}]}\n\n";
    let r = ask(&bridge(vec![reply(200, "text/plain", body)]), &config()).unwrap();
    assert_eq!(r.content, "ok");
}

#[test]
fn anthropic_goes_to_messages_with_its_headers() {
    let body = r#"{"content":[{"type":"text","text":"hi"}],"usage":{"input_tokens":3,"output_tokens":1}}"#;
    let b = bridge(vec![reply(200, "application/json", body)]);
    let c = ModelConfig { provider: Provider::Anthropic, ..config() };
    let r = ask(&b, &c).unwrap();
    assert_eq!(r.content, "hi");
    let sent = &b.transport.sent.borrow()[0];
    assert!(sent.url.ends_with("/messages"));
    assert_eq!(sent.header("x-api-key"), Some("sk-test-0123456789"));
    let json: serde_json::Value = serde_json::from_str(&sent.body).unwrap();
    assert_eq!(json["max_tokens"], 2048);
}

#[test]
fn function_calling_sends_tools_and_reads_calls() {
    let body = r#"{"choices":[{"message":{"content":null,"tool_calls":[{"type":"function","function":{"name":"tap","arguments":"{\"target\":5}"}}]}}]}"#;
    let b = bridge(vec![reply(200, "application/json", body)]);
    let c = ModelConfig { family: ModelFamily::FunctionCalling, ..config() };
    let r = ask(&b, &c).unwrap();
    assert_eq!(r.tool_calls, vec![ToolCall { name: "tap".into(), arguments: r#"{"target":5}"#.into() }]);
    let json: serde_json::Value = serde_json::from_str(&b.transport.sent.borrow()[0].body).unwrap();
    assert!(json["tools"].as_array().is_some_and(|t| !t.is_empty()));
    let b = bridge(vec![reply(200, "application/json", hello())]);
    ask(&b, &config()).unwrap();
    let json: serde_json::Value = serde_json::from_str(&b.transport.sent.borrow()[0].body).unwrap();
    assert!(json.get("tools").is_none(), "other families answer in text");
}

#[test]
fn oversized_bodies_are_refused() {
    let huge = vec![b'x'; MAX_BODY_BYTES + 1];
    let b = bridge(vec![Scripted::Reply { status: 200, headers: vec![], pieces: vec![huge] }]);
    assert!(ask(&b, &config()).unwrap_err().to_string().contains("longer than"));
}

fn image(url: String) -> ContentPart {
    ContentPart::ImageUrl { image_url: ImageUrl { url } }
}

#[test]
fn a_body_with_images_put_in_place_is_the_body_written_whole() {
    let screen = |seed: u8| {
        let bytes: Vec<u8> = (0..6000u32).map(|i| (i as u8).wrapping_mul(31).wrapping_add(seed)).collect();
        format!("data:image/png;base64,{}", crate::vision::base64::encode(&bytes).unwrap())
    };
    let text = |t: &str| ContentPart::Text { text: t.to_string() };
    let cases: Vec<Vec<ChatMessage>> = vec![
        // A screenshot after the page's text, quotes, non-ASCII and control characters in it.
        vec![
            ChatMessage::text("system", "You check statements."),
            ChatMessage {
                role: "user".into(),
                content: vec![text("[1] a \"link\" ¶ — 文字\n\ttab \u{1} end"), image(screen(1))],
            },
        ],
        // A history of screens (in order), a small image and a JPEG, an image by address.
        vec![
            ChatMessage { role: "user".into(), content: vec![image(screen(2)), text("then")] },
            ChatMessage::text("assistant", "tapped"),
            ChatMessage {
                role: "user".into(),
                content: vec![
                    image(screen(3)),
                    image("data:image/png;base64,iVBORw0KGgo=".into()),
                    image(screen(4).replace("image/png", "image/jpeg")),
                    image("https://example.com/a.png".into()),
                ],
            },
        ],
        // A page text that reads like a stand-in: written whole instead.
        vec![ChatMessage { role: "user".into(), content: vec![text("\u{1}image 0\u{1}"), image(screen(5))] }],
        // A data URL whose payload JSON would escape is written with the rest.
        vec![ChatMessage { role: "user".into(), content: vec![image(format!("{}\"\\", screen(6))), image(screen(7))] }],
    ];
    for provider in [Provider::Openai, Provider::Anthropic] {
        for family in [ModelFamily::Generic, ModelFamily::FunctionCalling] {
            let c = ModelConfig { provider, family, ..config() };
            for messages in &cases {
                let body = build_request(&c, messages).body;
                assert_eq!(body, written_whole(&c, messages), "{provider:?} {family:?}");
                assert!(serde_json::from_str::<serde_json::Value>(&body).is_ok());
            }
        }
    }
    // The screenshots really were stood in for (and put back) in the first case.
    let (standing_in, payloads) = images_stood_in(&cases[0]);
    assert_eq!(payloads.len(), 1);
    assert!(serde_json::to_string(&standing_in).unwrap().len() < 1000, "the 8,000 characters of base64 stood in for");
}
