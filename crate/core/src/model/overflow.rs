//! A provider refusing a request as longer than its context window, recognised in each
//! provider's own words, so a run can send a shorter request once instead of failing.

use super::ModelError;

/// What providers say when a request does not fit the model's context (lower case):
/// OpenAI and Azure (`context_length_exceeded`, "maximum context length is N tokens"),
/// vLLM and other OpenAI-compatible servers (the same words, or "the input length"), Anthropic
/// ("prompt is too long: N tokens > M maximum"), Gemini ("the input token count (N) exceeds the
/// maximum number of tokens allowed"), DashScope/Qwen ("range of input length should be"),
/// Ollama and llama.cpp ("exceeds the context", "context size"), Mistral ("too large for model").
const SAID: &[&str] = &[
    "context_length_exceeded",
    "maximum context length",
    "context length",
    "context window",
    "context size",
    "exceeds the context",
    "prompt is too long",
    "input is too long",
    "too many tokens",
    "input token count",
    "exceeds the maximum number of tokens",
    "range of input length",
    "input length",
    "reduce the length",
    "too large for model",
];

/// Whether `error` is the endpoint refusing the request for its length: HTTP 413 (the body is
/// too large), or an error status whose message says the request exceeds the context.
pub fn is_context_overflow(error: &ModelError) -> bool {
    match error {
        ModelError::GaveUp { last, .. } => is_context_overflow(last),
        ModelError::Http { status: 413, .. } => true,
        // 429 is a rate limit, whatever its words ("request too large for … tokens per min").
        ModelError::Http { status: 400..=428 | 430..=599, message } => {
            let said = message.to_lowercase();
            SAID.iter().any(|s| said.contains(s))
        }
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn http(status: u16, message: &str) -> ModelError {
        ModelError::Http { status, message: message.into() }
    }

    #[test]
    fn each_providers_context_refusal_is_recognised_and_nothing_else() {
        for (status, message) in [
            (400, "This model's maximum context length is 128000 tokens. However, your messages resulted in 131072 tokens."),
            (400, "prompt is too long: 215430 tokens > 200000 maximum"),
            (400, "The input token count (1200345) exceeds the maximum number of tokens allowed (1048576)."),
            (400, "Range of input length should be [1, 30720]"),
            (400, "This model's maximum context length is 32768 tokens. However, you requested 40210 tokens (39186 in the messages, 1024 in the completion)."),
            (500, "the input length exceeds the context length"),
            (400, "Prompt contains 40000 tokens and 0 draft tokens, too large for model with 32768 maximum context length"),
            (413, "Payload Too Large"),
            (400, "Error code: context_length_exceeded"),
        ] {
            assert!(is_context_overflow(&http(status, message)), "{status} {message}");
        }
        let wrapped = ModelError::GaveUp { retries: 2, last: Box::new(http(413, "")) };
        assert!(is_context_overflow(&wrapped));
        for other in [
            http(401, "Incorrect API key provided"),
            http(429, "Rate limit reached for requests"),
            http(429, "Request too large for gpt-4o in organization org-x on tokens per min (TPM): Limit 30000, Requested 41000."),
            http(400, "Invalid image: the image is not a PNG"),
            http(200, "maximum context length"),
            ModelError::Timeout(60),
            ModelError::Network("connection refused".into()),
            ModelError::BadResponse("the reply is longer than the maximum context length".into()),
        ] {
            assert!(!is_context_overflow(&other), "{other}");
        }
    }
}
