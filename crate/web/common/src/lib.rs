//! What both browser modules use at the JS boundary (as Ruffle's web/common): crate/web, the
//! service worker's module, and crate/reader, the content script's. Built for wasm32 only.
#![cfg(target_arch = "wasm32")]

mod extract;
pub use extract::{describe_options, ExtractResult, Timings};

/// Rust values to plain JS objects (maps as objects, tuples as arrays).
pub fn to_js<T: serde::Serialize>(value: &T) -> Result<wasm_bindgen::JsValue, wasm_bindgen::JsError> {
    value
        .serialize(&serde_wasm_bindgen::Serializer::json_compatible())
        .map_err(|e| wasm_bindgen::JsError::new(&format!("could not pass a result to JavaScript: {e}")))
}

/// Optional options: absent means the defaults.
pub fn options_or_default<T: serde::de::DeserializeOwned + Default>(
    opts: wasm_bindgen::JsValue,
    what: &str,
) -> Result<T, wasm_bindgen::JsError> {
    if opts.is_undefined() || opts.is_null() {
        return Ok(T::default());
    }
    from_js(opts, what).map_err(|e| wasm_bindgen::JsError::new(&e))
}

/// Results leave as one JSON string: far cheaper than building thousands of JS objects
/// through the boundary, and a string crosses from the content script to the worker as is.
pub fn to_json<T: serde::Serialize>(value: &T) -> Result<String, wasm_bindgen::JsError> {
    serde_json::to_string(value).map_err(|e| wasm_bindgen::JsError::new(&format!("could not encode the result: {e}")))
}

/// Records (runs, trajectories) cross as JSON parsed on the JS side: the module then holds one
/// serializer for them (serde_json, needed for saved files anyway) instead of two.
pub fn record_to_js<T: serde::Serialize>(value: &T) -> Result<wasm_bindgen::JsValue, wasm_bindgen::JsError> {
    let text = serde_json::to_string(value)
        .map_err(|e| wasm_bindgen::JsError::new(&format!("could not encode the record: {e}")))?;
    js_sys::JSON::parse(&text).map_err(|_| wasm_bindgen::JsError::new("could not pass the record to JavaScript"))
}

pub fn from_js<T: serde::de::DeserializeOwned>(value: wasm_bindgen::JsValue, what: &str) -> Result<T, String> {
    serde_wasm_bindgen::from_value(value).map_err(|e| format!("{what} is not in the expected form: {e}"))
}

pub fn now_ms() -> f64 {
    js_sys::Date::now()
}
