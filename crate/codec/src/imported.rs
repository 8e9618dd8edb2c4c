//! The codecs as the worker's module reaches them: calls into the codec module
//! (`crate/codec/module`), which the worker's JS loads beside this one and names
//! `sightlineCodec` (extension/background/wasm.js). Each call copies its input into that
//! module's memory and its output back (a 1280×800 screenshot's pixels are 3 MB: about a
//! millisecond), which is less than what the codecs lose built for size.

use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

#[wasm_bindgen(js_namespace = sightlineCodec)]
extern "C" {
    #[wasm_bindgen(catch, js_name = pngRgb8)]
    fn png_rgb8_in_module(rgb: &[u8], width: u32, height: u32) -> Result<Vec<u8>, JsValue>;
    #[wasm_bindgen(catch, js_name = pngDimensions)]
    fn png_dimensions_in_module(png: &[u8]) -> Result<Vec<u32>, JsValue>;
    #[wasm_bindgen(catch, js_name = pngToRgb8)]
    fn png_to_rgb8_in_module(png: &[u8]) -> Result<Vec<u8>, JsValue>;
    #[wasm_bindgen(catch, js_name = jpegRgb8)]
    fn jpeg_rgb8_in_module(rgb: &[u8], width: u16, height: u16, quality: u8) -> Result<Vec<u8>, JsValue>;
    #[wasm_bindgen(catch, js_name = base64After)]
    fn base64_after_in_module(prefix: &str, bytes: &[u8]) -> Result<Vec<u8>, JsValue>;
}

/// The codec module throws its error as a string; anything else (a trap, the module missing)
/// is told by the JS error's name and message, without its stack.
fn message(thrown: JsValue) -> String {
    if let Some(text) = thrown.as_string() {
        return text;
    }
    match thrown.dyn_ref::<js_sys::Error>() {
        // as_string, not String::from: that throws (through the core's frames) on a non-string.
        Some(e) => format!(
            "the image codec module failed: {}: {}",
            e.name().as_string().unwrap_or_default(),
            e.message().as_string().unwrap_or_default()
        ),
        None => "the image codec module failed".to_string(),
    }
}

/// A PNG's signature and IHDR chunk: all `png_dimensions` reads, so all that crosses for it.
const PNG_HEADER_BYTES: usize = 33;

pub fn png_rgb8(rgb: &[u8], width: u32, height: u32) -> Result<Vec<u8>, String> {
    png_rgb8_in_module(rgb, width, height).map_err(message)
}

pub fn png_dimensions(png: &[u8]) -> Result<(u32, u32), String> {
    match png_dimensions_in_module(&png[..png.len().min(PNG_HEADER_BYTES)]).map_err(message)?[..] {
        [width, height] => Ok((width, height)),
        _ => Err("the image codec module answered no size".into()),
    }
}

pub fn png_to_rgb8(png: &[u8]) -> Result<(u32, u32, Vec<u8>), String> {
    let (width, height) = png_dimensions(png)?;
    let rgb = png_to_rgb8_in_module(png).map_err(message)?;
    Ok((width, height, rgb))
}

pub fn jpeg_rgb8(rgb: &[u8], width: u16, height: u16, quality: u8) -> Result<Vec<u8>, String> {
    jpeg_rgb8_in_module(rgb, width, height, quality).map_err(message)
}

pub fn base64_after(prefix: &str, bytes: &[u8]) -> Result<String, String> {
    let text = base64_after_in_module(prefix, bytes).map_err(message)?;
    String::from_utf8(text).map_err(|_| "base64 wrote a byte outside ASCII".to_string())
}
