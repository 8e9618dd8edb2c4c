//! The model bridge's [`Transport`] over gloo-net, in the service worker where the API key
//! lives; no page or content script ever sees it. The body is read from its ReadableStream
//! piece by piece, so a streamed answer shows in the panel as it arrives.

use gloo_net::http::Request;
use sightline::model::{HttpRequest, HttpResponse, ModelError, ResponseBody, Transport};
use wasm_bindgen::{JsCast, JsValue};
use wasm_bindgen_futures::JsFuture;
use web_sys::{AbortSignal, ReadableStreamDefaultReader};

pub struct FetchTransport {
    /// Fires when the person presses Stop.
    pub stop: Option<AbortSignal>,
    /// Called with the reply so far while it streams.
    pub on_text: Option<js_sys::Function>,
}

pub struct FetchBody {
    reader: Option<ReadableStreamDefaultReader>,
    stop: Option<AbortSignal>,
    timeout: AbortSignal,
    timeout_s: u32,
}

impl FetchBody {
    fn error(&self, e: JsValue) -> ModelError {
        if self.stop.as_ref().is_some_and(AbortSignal::aborted) {
            ModelError::Aborted
        } else if self.timeout.aborted() {
            ModelError::Timeout(self.timeout_s)
        } else {
            ModelError::Network(format!("the answer was cut off: {}", js_message(&e)))
        }
    }
}

impl ResponseBody for FetchBody {
    async fn chunk(&mut self) -> Result<Option<Vec<u8>>, ModelError> {
        let Some(reader) = &self.reader else { return Ok(None) };
        let result = JsFuture::from(reader.read()).await.map_err(|e| self.error(e))?;
        let done = js_sys::Reflect::get(&result, &"done".into()).map(|d| d.is_truthy()).unwrap_or(true);
        if done {
            self.reader = None;
            return Ok(None);
        }
        let value = js_sys::Reflect::get(&result, &"value".into()).map_err(|e| self.error(e))?;
        Ok(Some(value.dyn_into::<js_sys::Uint8Array>().map(|a| a.to_vec()).unwrap_or_default()))
    }
}

impl Transport for FetchTransport {
    type Body = FetchBody;

    async fn send(&self, request: &HttpRequest, timeout_ms: u32) -> Result<(HttpResponse, FetchBody), ModelError> {
        let timeout = AbortSignal::timeout_with_u32(timeout_ms);
        let signals = js_sys::Array::of1(&timeout);
        if let Some(stop) = &self.stop {
            signals.push(stop);
        }
        let signal = AbortSignal::any(&signals);
        let mut builder = Request::post(&request.url);
        for (name, value) in &request.headers {
            builder = builder.header(name, value);
        }
        let req = builder
            .abort_signal(Some(&signal))
            // The body's UTF-8 bytes, copied out of WASM memory once: as a JS string it would be
            // decoded from UTF-8 here and encoded again by fetch (a 475 KB body with its
            // screenshot: ~10 ms of the worker's time).
            .body(js_sys::Uint8Array::from(request.body.as_bytes()))
            .map_err(|e| ModelError::Network(e.to_string()))?;
        let timeout_s = timeout_ms / 1000;
        let response = req.send().await.map_err(|e| {
            if self.stop.as_ref().is_some_and(AbortSignal::aborted) {
                ModelError::Aborted
            } else if timeout.aborted() {
                ModelError::Timeout(timeout_s)
            } else {
                ModelError::Network(network_message(&e))
            }
        })?;
        let head = HttpResponse { status: response.status(), headers: response.headers().entries().collect() };
        let reader =
            response.body().and_then(|stream| stream.get_reader().dyn_into::<ReadableStreamDefaultReader>().ok());
        Ok((head, FetchBody { reader, stop: self.stop.clone(), timeout, timeout_s }))
    }

    async fn sleep(&self, ms: u64) -> Result<(), ModelError> {
        // Short slices, so Stop ends the wait within a fifth of a second.
        let mut left = ms as i32;
        while left > 0 {
            if self.stop.as_ref().is_some_and(AbortSignal::aborted) {
                return Err(ModelError::Aborted);
            }
            let slice = left.min(200);
            let promise = js_sys::Promise::new(&mut |resolve, _| {
                let global: web_sys::WorkerGlobalScope = js_sys::global().unchecked_into();
                let _ = global.set_timeout_with_callback_and_timeout_and_arguments_0(&resolve, slice);
            });
            let _ = JsFuture::from(promise).await;
            left -= slice;
        }
        if self.stop.as_ref().is_some_and(AbortSignal::aborted) {
            return Err(ModelError::Aborted);
        }
        Ok(())
    }

    fn epoch_ms(&self) -> f64 {
        js_sys::Date::now()
    }

    fn progress(&self, text: &str) {
        if let Some(f) = &self.on_text {
            let _ = f.call1(&JsValue::NULL, &JsValue::from_str(text));
        }
    }
}

fn js_message(e: &JsValue) -> String {
    e.dyn_ref::<js_sys::Error>()
        .map(|err| String::from(err.message()))
        .or_else(|| e.as_string())
        .unwrap_or_else(|| format!("{e:?}"))
}

/// gloo's errors wrap a JS TypeError whose text ("Failed to fetch") is all the browser says.
fn network_message(e: &gloo_net::Error) -> String {
    match e {
        gloo_net::Error::JsError(js) => format!("{} (is the base URL right and the server running?)", js.message),
        other => other.to_string(),
    }
}
