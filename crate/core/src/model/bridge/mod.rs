//! One model call, whatever the provider: build the request, send it over a [`Transport`],
//! read the reply as it streams, try again after rate limits and dropped connections, count
//! tokens the server did not. The transport is the only part that touches the network.

use super::retry::{self, RetryPolicy};
use super::sse::{SseDecoder, SseEvent};
use super::{
    anthropic, error_message, openai, provider, usage, ChatMessage, ChatReply, HttpRequest, ModelClient, ModelConfig,
    ModelError, Wire,
};
use crate::vocab::family::ModelFamily;
use crate::vocab::tools::{element_tools, ToolSpec};

/// Status and headers, available before the body.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct HttpResponse {
    pub status: u16,
    pub headers: Vec<(String, String)>,
}

impl HttpResponse {
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers.iter().find(|(n, _)| n.eq_ignore_ascii_case(name)).map(|(_, v)| v.as_str())
    }
}

/// A response body read piece by piece, as the network delivers it.
#[allow(async_fn_in_trait)]
pub trait ResponseBody {
    /// The next piece, or `None` at the end.
    async fn chunk(&mut self) -> Result<Option<Vec<u8>>, ModelError>;
}

#[allow(async_fn_in_trait)]
pub trait Transport {
    type Body: ResponseBody;
    /// Sends the request. `timeout_ms` covers the whole exchange, body included; the
    /// transport reports it as [`ModelError::Timeout`] and a stop as [`ModelError::Aborted`].
    async fn send(&self, request: &HttpRequest, timeout_ms: u32) -> Result<(HttpResponse, Self::Body), ModelError>;
    /// Waits before a retry; ends early with [`ModelError::Aborted`] when the person stops.
    async fn sleep(&self, ms: u64) -> Result<(), ModelError>;
    /// Wall clock, ms since the epoch (for `Retry-After` dates).
    fn epoch_ms(&self) -> f64;
    /// The reply so far, while it streams.
    fn progress(&self, _text: &str) {}
}

/// Bodies larger than this are refused: no model answer is this long, a broken server might be.
pub const MAX_BODY_BYTES: usize = 16 * 1024 * 1024;

pub struct Bridge<T> {
    pub transport: T,
}

/// The tools sent in the API's own field: only the family that is defined by them.
fn api_tools(family: ModelFamily) -> Vec<ToolSpec> {
    if family == ModelFamily::FunctionCalling {
        element_tools()
    } else {
        Vec::new()
    }
}

/// The HTTP request for one call, for the configured provider.
pub fn build_request(config: &ModelConfig, messages: &[ChatMessage]) -> HttpRequest {
    let (standing_in, payloads) = images_stood_in(messages);
    let body = if payloads.is_empty() {
        written_whole(config, messages)
    } else {
        put_in_place(written_whole(config, &standing_in), &payloads).unwrap_or_else(|| written_whole(config, messages))
    };
    HttpRequest { url: provider::endpoint_url(config), headers: provider::headers(config), body }
}

/// The request body in one JSON writing, images and all.
fn written_whole(config: &ModelConfig, messages: &[ChatMessage]) -> String {
    let tools = api_tools(config.family);
    match config.provider.wire() {
        Wire::OpenAiChat => openai::request_body(config, messages, &tools),
        Wire::AnthropicMessages => anthropic::request_body(config, messages, &tools),
    }
    .to_string()
}

/// Images' base64 shorter than this is written with the rest.
const STAND_IN_FROM: usize = 1024;

/// What stands in for image `n`'s base64 while the body is written: a text no JSON writer leaves
/// as it is (it escapes the control characters), so its written form is found where it went.
fn stand_in(n: usize) -> String {
    format!("\u{1}image {n}\u{1}")
}

/// The messages with the base64 of each data-URL image (the screenshots, hundreds of KB each)
/// replaced by a short stand-in, and those base64 texts in order. Only base64 that JSON writes
/// as it is (no quote, backslash or control character) is stood in for.
fn images_stood_in(messages: &[ChatMessage]) -> (Vec<ChatMessage>, Vec<&str>) {
    let mut payloads = Vec::new();
    let standing_in = messages
        .iter()
        .map(|m| {
            m.with_image_urls(|url| {
                let (head, payload) = url.strip_prefix("data:").and_then(|_| url.split_once(";base64,"))?;
                if payload.len() < STAND_IN_FROM || payload.bytes().any(|b| b == b'"' || b == b'\\' || b < 0x20) {
                    return None;
                }
                let url = format!("{head};base64,{}", stand_in(payloads.len()));
                payloads.push(payload);
                Some(url)
            })
        })
        .collect();
    (standing_in, payloads)
}

/// The body written with stand-ins, each replaced by its base64: byte for byte the body written
/// with the images in it, as base64 is written as it is. `None` when a stand-in is not found
/// exactly once (a text of the page that looks like one).
fn put_in_place(body: String, payloads: &[&str]) -> Option<String> {
    let mut at = Vec::with_capacity(payloads.len());
    for (n, payload) in payloads.iter().enumerate() {
        let written = serde_json::to_string(&stand_in(n)).ok()?;
        let written = &written[1..written.len() - 1];
        let mut found = body.match_indices(written);
        let (start, _) = found.next()?;
        if found.next().is_some() {
            return None;
        }
        at.push((start, written.len(), *payload));
    }
    crate::order::sort_by_key(&mut at, |&(start, ..)| start);
    let mut out = String::with_capacity(body.len() + payloads.iter().map(|p| p.len()).sum::<usize>());
    let mut from = 0;
    for (start, len, payload) in at {
        out.push_str(&body[from..start]);
        out.push_str(payload);
        from = start + len;
    }
    out.push_str(&body[from..]);
    Some(out)
}

struct Failure {
    error: ModelError,
    retry_after_ms: Option<u64>,
}

impl From<ModelError> for Failure {
    fn from(error: ModelError) -> Self {
        Failure { error, retry_after_ms: None }
    }
}

impl<T: Transport> ModelClient for Bridge<T> {
    async fn complete(&self, config: &ModelConfig, messages: &[ChatMessage]) -> Result<ChatReply, ModelError> {
        config.validate()?;
        let request = build_request(config, messages);
        let policy = RetryPolicy::new(config.max_retries);
        let mut notes = Vec::new();
        let mut attempt = 0;
        loop {
            let failure = match self.attempt(config, &request).await {
                Ok(mut reply) => {
                    if reply.usage.as_ref().is_none_or(|u| u.total() == 0) {
                        reply.usage = Some(usage::estimate(config, messages, &reply.parser_text()));
                    }
                    reply.notes = notes;
                    return Ok(reply);
                }
                Err(f) => f,
            };
            let error = redact(failure.error, &config.api_key);
            match retry::delay_ms(&policy, attempt, &error, failure.retry_after_ms) {
                Some(ms) => {
                    notes.push(format!("{error}; tried again after {:.1} s", ms as f64 / 1000.0));
                    self.transport.sleep(ms).await?;
                    attempt += 1;
                }
                None => {
                    let error = match failure.retry_after_ms {
                        Some(ms) if retry::retryable(&error) && ms > policy.max_retry_after_ms => with_hint(
                            error,
                            &format!("the endpoint asks to wait {} s; try again later", ms.div_ceil(1000)),
                        ),
                        _ => error,
                    };
                    return Err(if attempt == 0 {
                        error
                    } else {
                        ModelError::GaveUp { retries: attempt, last: Box::new(error) }
                    });
                }
            }
        }
    }
}

impl<T: Transport> Bridge<T> {
    async fn attempt(&self, config: &ModelConfig, request: &HttpRequest) -> Result<ChatReply, Failure> {
        let (response, mut body) = self.transport.send(request, config.timeout_ms.max(1_000)).await?;
        if !(200..300).contains(&response.status) {
            let text = read_all(&mut body, 64 * 1024).await.unwrap_or_default();
            return Err(Failure {
                error: ModelError::Http { status: response.status, message: error_message(&text) },
                retry_after_ms: retry::retry_after_ms(&response.headers, self.transport.epoch_ms()),
            });
        }
        let wire = config.provider.wire();
        if response.header("content-type").is_some_and(|t| t.contains("text/event-stream")) {
            return Ok(self.read_stream(wire, &mut body).await?);
        }
        let text = read_all(&mut body, MAX_BODY_BYTES).await?;
        // Some servers stream without saying so.
        if text.trim_start().starts_with("data:") || text.trim_start().starts_with("event:") {
            let mut stream = Stream::new(wire);
            let mut decoder = SseDecoder::new();
            for e in decoder.feed(text.as_bytes()).into_iter().chain(decoder.finish()) {
                stream.event(&e)?;
            }
            return Ok(stream.finish()?);
        }
        Ok(match wire {
            Wire::OpenAiChat => openai::read_json(&text)?,
            Wire::AnthropicMessages => anthropic::read_json(&text)?,
        })
    }

    async fn read_stream(&self, wire: Wire, body: &mut T::Body) -> Result<ChatReply, ModelError> {
        let mut stream = Stream::new(wire);
        let mut decoder = SseDecoder::new();
        let mut live = String::new();
        let mut total = 0;
        while let Some(bytes) = body.chunk().await? {
            total += bytes.len();
            if total > MAX_BODY_BYTES {
                return Err(too_long());
            }
            let mut grew = false;
            for e in decoder.feed(&bytes) {
                let piece = stream.event(&e)?;
                grew |= !piece.is_empty();
                live.push_str(&piece);
            }
            if grew {
                self.transport.progress(&live);
            }
        }
        for e in decoder.finish() {
            stream.event(&e)?;
        }
        stream.finish()
    }
}

enum Stream {
    OpenAi(openai::StreamReply),
    Anthropic(anthropic::StreamReply),
}

impl Stream {
    fn new(wire: Wire) -> Self {
        match wire {
            Wire::OpenAiChat => Stream::OpenAi(Default::default()),
            Wire::AnthropicMessages => Stream::Anthropic(Default::default()),
        }
    }

    fn event(&mut self, e: &SseEvent) -> Result<String, ModelError> {
        Ok(match self {
            Stream::OpenAi(s) => s.event(&e.data)?.to_string(),
            Stream::Anthropic(s) => s.event(&e.event, &e.data)?.to_string(),
        })
    }

    fn finish(self) -> Result<ChatReply, ModelError> {
        match self {
            Stream::OpenAi(s) => s.finish(),
            Stream::Anthropic(s) => s.finish(),
        }
    }
}

fn too_long() -> ModelError {
    ModelError::BadResponse(format!("the answer is longer than {} MB", MAX_BODY_BYTES / (1024 * 1024)))
}

async fn read_all<B: ResponseBody>(body: &mut B, limit: usize) -> Result<String, ModelError> {
    let mut bytes = Vec::new();
    while let Some(piece) = body.chunk().await? {
        bytes.extend_from_slice(&piece);
        if bytes.len() > limit {
            return Err(too_long());
        }
    }
    Ok(String::from_utf8_lossy(&bytes).into_owned())
}

/// Removes the key from anything that might be shown or stored: some endpoints echo the key
/// they were sent in their error messages.
fn redact(error: ModelError, key: &str) -> ModelError {
    let key = key.trim();
    if key.len() < 4 {
        return error;
    }
    let clean = |s: String| s.replace(key, "[API key]");
    match error {
        ModelError::Config(s) => ModelError::Config(clean(s)),
        ModelError::Http { status, message } => ModelError::Http { status, message: clean(message) },
        ModelError::Network(s) => ModelError::Network(clean(s)),
        ModelError::BadResponse(s) => ModelError::BadResponse(clean(s)),
        ModelError::GaveUp { retries, last } => ModelError::GaveUp { retries, last: Box::new(redact(*last, key)) },
        other => other,
    }
}

fn with_hint(error: ModelError, hint: &str) -> ModelError {
    match error {
        ModelError::Http { status, message } => ModelError::Http { status, message: format!("{message} ({hint})") },
        ModelError::Network(s) => ModelError::Network(format!("{s} ({hint})")),
        other => other,
    }
}

#[cfg(test)]
mod tests;
