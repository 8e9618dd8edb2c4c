//! `ModelClient` over gloo-net: the model request leaves from the service worker, where the
//! API key lives; no page or content script ever sees it.

use crate::model::{read_response, request_body, ChatMessage, ChatReply, ModelClient, ModelConfig, ModelError};
use gloo_net::http::Request;

use web_sys::AbortSignal;

pub struct FetchModel {
    /// Fires when the person presses Stop.
    pub stop: Option<AbortSignal>,
}

impl ModelClient for FetchModel {
    async fn complete(&self, config: &ModelConfig, messages: &[ChatMessage]) -> Result<ChatReply, ModelError> {
        config.validate()?;
        let timeout = AbortSignal::timeout_with_u32(config.timeout_ms.max(1_000));
        let signals = js_sys::Array::of1(&timeout);
        if let Some(stop) = &self.stop {
            signals.push(stop);
        }
        let signal = AbortSignal::any(&signals);
        let mut request = Request::post(&config.chat_url()).header("Content-Type", "application/json");
        if !config.api_key.trim().is_empty() {
            request = request.header("Authorization", &format!("Bearer {}", config.api_key.trim()));
        }
        let body = request_body(config, messages).to_string();
        let request = request
            .abort_signal(Some(&signal))
            .body(body)
            .map_err(|e| ModelError::Network(e.to_string()))?;
        let response = request.send().await.map_err(|e| {
            if self.stop.as_ref().map_or(false, |s| s.aborted()) {
                ModelError::Aborted
            } else if timeout.aborted() {
                ModelError::Timeout(config.timeout_ms / 1000)
            } else {
                ModelError::Network(network_message(&e))
            }
        })?;
        let status = response.status();
        let content_type = response.headers().get("content-type").unwrap_or_default();
        let text = response.text().await.map_err(|e| {
            if timeout.aborted() {
                ModelError::Timeout(config.timeout_ms / 1000)
            } else {
                ModelError::Network(format!("the answer was cut off: {}", network_message(&e)))
            }
        })?;
        read_response(status, &content_type, &text)
    }
}

/// gloo's errors wrap a JS TypeError whose text ("Failed to fetch") is all the browser says.
fn network_message(e: &gloo_net::Error) -> String {
    match e {
        gloo_net::Error::JsError(js) => format!("{} (is the base URL right and the server running?)", js.message),
        other => other.to_string(),
    }
}

