//! What both browser modules use at the JS boundary (as Ruffle's web/common): crate/web, the
//! service worker's module, and crate/reader, the content script's. Built for wasm32 only.
#![cfg(target_arch = "wasm32")]

mod extract;
pub use extract::{ExtractResult, Timings};

use sightline::agent::RunError;

/// An error on its way to JavaScript, the one way every entry point fails: a JS `Error` with
/// the message and a `code` property holding the stable code (`RunError::code`), so callers
/// key on the code, never on the words.
#[derive(Debug)]
pub struct Fault {
    code: &'static str,
    message: String,
}

impl Fault {
    /// What the caller passed is not in the expected form.
    pub fn bad_input(message: String) -> Self {
        Fault { code: "bad_input", message }
    }

    /// A result that cannot be handed back (a bug, not the caller's doing).
    pub fn internal(message: String) -> Self {
        Fault { code: "internal", message }
    }

    pub fn message(&self) -> &str {
        &self.message
    }
}

impl<E: Into<RunError>> From<E> for Fault {
    fn from(e: E) -> Self {
        let e = e.into();
        Fault { code: e.code(), message: e.message(sightline::i18n::Lang::En) }
    }
}

impl From<Fault> for wasm_bindgen::JsValue {
    fn from(f: Fault) -> Self {
        let error = js_sys::Error::new(&f.message);
        let _ = js_sys::Reflect::set(&error, &"code".into(), &f.code.into());
        error.into()
    }
}

/// Rust values to plain JS objects (maps as objects, tuples as arrays), through their JSON text
/// and `JSON.parse`: serde_json's writer is the one serializer of every value in the module (it
/// writes records and saved files anyway); a second (serde-wasm-bindgen's) compiled another copy
/// of each type's `Serialize`.
pub fn to_js<T: serde::Serialize>(value: &T) -> Result<wasm_bindgen::JsValue, Fault> {
    let text = serde_json::to_string(value)
        .map_err(|e| Fault::internal(format!("could not pass a result to JavaScript: {e}")))?;
    js_sys::JSON::parse(&text).map_err(|_| Fault::internal("could not pass a result to JavaScript".into()))
}

/// Optional options: absent means the defaults.
pub fn options_or_default<T: serde::de::DeserializeOwned + Default>(
    opts: wasm_bindgen::JsValue,
    what: &str,
) -> Result<T, Fault> {
    if opts.is_undefined() || opts.is_null() {
        return Ok(T::default());
    }
    from_js(opts, what)
}

/// Results leave as one JSON string: far cheaper than building thousands of JS objects
/// through the boundary, and a string crosses from the content script to the worker as is.
pub fn to_json<T: serde::Serialize>(value: &T) -> Result<String, Fault> {
    serde_json::to_string(value).map_err(|e| Fault::internal(format!("could not encode the result: {e}")))
}

/// JS values to Rust values, through their JSON text (`JSON.stringify`) read as a `Value` by
/// `vocab::objects`, the readers the run records use: reading JS values directly
/// (serde-wasm-bindgen) compiled another reader per type, and reading these types straight
/// from text compiles larger ones (docs/DECISIONS.md). Only plain data crosses here (no `Map`,
/// typed array or BigInt); `undefined` reads as `null`.
pub fn from_js<T: serde::de::DeserializeOwned>(value: wasm_bindgen::JsValue, what: &str) -> Result<T, Fault> {
    // Only the reading itself is generic: the text and the error are made once, not per type.
    let value = js_json(value, what)?;
    sightline::vocab::objects::from_value(value).map_err(|e| not_in_form(what, e))
}

#[inline(never)]
fn js_json(value: wasm_bindgen::JsValue, what: &str) -> Result<serde_json::Value, Fault> {
    serde_json::from_str(&js_text(value, what)?).map_err(|e| not_in_form(what, e))
}

/// A JS value's JSON text (`undefined`: `null`), for the types the module already reads from
/// text (`sightline::boundary`): read there, they need no reader from a `Value` as well.
#[inline(never)]
pub fn js_text(value: wasm_bindgen::JsValue, what: &str) -> Result<String, Fault> {
    if value.is_undefined() {
        return Ok("null".to_owned());
    }
    // Throws on a BigInt or a cycle; a function or symbol gives undefined.
    match js_sys::JSON::stringify(&value) {
        Ok(text) => {
            let text = wasm_bindgen::JsValue::from(text).as_string().unwrap_or_else(|| "null".to_owned());
            // Half a character (a string cut by UTF-16 units) would refuse the whole value.
            Ok(match sightline::boundary::without_lone_surrogates(&text) {
                std::borrow::Cow::Borrowed(_) => text,
                std::borrow::Cow::Owned(mended) => mended,
            })
        }
        Err(_) => Err(Fault::bad_input(format!("{what} is not in the expected form: it is not JSON data"))),
    }
}

#[inline(never)]
pub fn not_in_form(what: &str, e: serde_json::Error) -> Fault {
    Fault::bad_input(format!("{what} is not in the expected form: {e}"))
}

pub fn now_ms() -> f64 {
    js_sys::Date::now()
}
