//! The binding layer: the only code that touches web-sys/js-sys. Each file implements one
//! core seam with browser APIs, as Ruffle's web crate does:
//! - [`dom`]: walks the live DOM into a `PageSnapshot` (content script).
//! - [`bridge`]: `ModelClient` over gloo-net (service worker).
//! - [`host`]: `Browser` over the service worker's JS host object (chrome.debugger, messaging).
//! - [`exports`]: the functions the service worker's JS calls; [`reader`]: the content script's.
//!
//! With the `reader` feature only `dom` and `reader` are built: the content script's module.

#[cfg(not(feature = "reader"))]
mod bridge;
pub mod dom;
#[cfg(not(feature = "reader"))]
mod exports;
#[cfg(not(feature = "reader"))]
mod host;
mod reader;

/// Rust values to plain JS objects (maps as objects, tuples as arrays).
fn to_js<T: serde::Serialize>(value: &T) -> Result<wasm_bindgen::JsValue, wasm_bindgen::JsError> {
    value
        .serialize(&serde_wasm_bindgen::Serializer::json_compatible())
        .map_err(|e| wasm_bindgen::JsError::new(&format!("could not pass a result to JavaScript: {e}")))
}

/// Optional options: absent means the defaults.
fn options_or_default<T: serde::de::DeserializeOwned + Default>(opts: wasm_bindgen::JsValue, what: &str) -> Result<T, wasm_bindgen::JsError> {
    if opts.is_undefined() || opts.is_null() {
        return Ok(T::default());
    }
    from_js(opts, what).map_err(|e| wasm_bindgen::JsError::new(&e))
}

/// Results leave as one JSON string: far cheaper than building thousands of JS objects
/// through the boundary, and a string crosses from the content script to the worker as is.
fn to_json<T: serde::Serialize>(value: &T) -> Result<String, wasm_bindgen::JsError> {
    serde_json::to_string(value).map_err(|e| wasm_bindgen::JsError::new(&format!("could not encode the result: {e}")))
}

/// Records (runs, trajectories) cross as JSON parsed on the JS side: the module then holds one
/// serializer for them (serde_json, needed for saved files anyway) instead of two.
#[cfg(not(feature = "reader"))]
fn record_to_js<T: serde::Serialize>(value: &T) -> Result<wasm_bindgen::JsValue, wasm_bindgen::JsError> {
    let text = serde_json::to_string(value).map_err(|e| wasm_bindgen::JsError::new(&format!("could not encode the record: {e}")))?;
    js_sys::JSON::parse(&text).map_err(|_| wasm_bindgen::JsError::new("could not pass the record to JavaScript"))
}

fn from_js<T: serde::de::DeserializeOwned>(value: wasm_bindgen::JsValue, what: &str) -> Result<T, String> {
    serde_wasm_bindgen::from_value(value).map_err(|e| format!("{what} is not in the expected form: {e}"))
}

fn now_ms() -> f64 {
    js_sys::Date::now()
}
