//! The codecs as the worker's module reaches them: calls into the codec module
//! (`crate/codec/module`), which the worker's JS loads beside this one and names
//! `sightlineCodec` (extension/background/wasm.js). Each call copies its input into that
//! module's memory and its output back (a 1280×800 screenshot's pixels are 3 MB: about a
//! millisecond), which is less than what the codecs lose built for size.

use wasm_bindgen::prelude::*;

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
    #[wasm_bindgen(js_name = base64After)]
    fn base64_after_in_module(prefix: &str, bytes: &[u8]) -> Vec<u8>;
}

/// The codec module throws its error as a string; anything else (a trap, the module missing)
/// is told as what it is.
fn message(thrown: JsValue) -> String {
    thrown.as_string().unwrap_or_else(|| format!("the image codec module failed: {thrown:?}"))
}

pub fn png_rgb8(rgb: &[u8], width: u32, height: u32) -> Result<Vec<u8>, String> {
    png_rgb8_in_module(rgb, width, height).map_err(message)
}

pub fn png_dimensions(png: &[u8]) -> Result<(u32, u32), String> {
    match png_dimensions_in_module(png).map_err(message)?[..] {
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

/// The module writes the prefix and ASCII; were it anything else, the empty string, as the
/// codec's own `base64_after` answers.
pub fn base64_after(prefix: &str, bytes: &[u8]) -> String {
    String::from_utf8(base64_after_in_module(prefix, bytes)).unwrap_or_default()
}
