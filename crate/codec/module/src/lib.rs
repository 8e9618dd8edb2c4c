//! The image codec module: sightline-codec's functions exported for the service worker, whose
//! own module (built for size) calls them through `sightlineCodec` (crate/codec/src/imported.rs).
//! Built with profile `release` (opt-level 3): the codecs' loops are what a step's image costs.
#![cfg(target_arch = "wasm32")]

use wasm_bindgen::prelude::*;

// Built with sightline-codec's `imported` (cargo unifies features when this crate is built with
// crate/web), each export would call itself through `sightlineCodec`.
const _: () =
    assert!(!sightline_codec::IMPORTED, "the codec module must be built apart from crate/web (scripts/build)");

/// A panic here is a trap the worker's module reports as the codec module failing; the hook
/// writes the panic's message to the worker's console first.
#[wasm_bindgen(start)]
fn start() {
    console_error_panic_hook::set_once();
}

#[wasm_bindgen(js_name = pngRgb8)]
pub fn png_rgb8(rgb: &[u8], width: u32, height: u32) -> Result<Vec<u8>, String> {
    sightline_codec::png_rgb8(rgb, width, height)
}

#[wasm_bindgen(js_name = pngDimensions)]
pub fn png_dimensions(png: &[u8]) -> Result<Vec<u32>, String> {
    sightline_codec::png_dimensions(png).map(|(width, height)| vec![width, height])
}

#[wasm_bindgen(js_name = pngToRgb8)]
pub fn png_to_rgb8(png: &[u8]) -> Result<Vec<u8>, String> {
    sightline_codec::png_to_rgb8(png).map(|(_, _, rgb)| rgb)
}

#[wasm_bindgen(js_name = jpegRgb8)]
pub fn jpeg_rgb8(rgb: &[u8], width: u16, height: u16, quality: u8) -> Result<Vec<u8>, String> {
    sightline_codec::jpeg_rgb8(rgb, width, height, quality)
}

/// As bytes, not a string: a string crosses twice re-encoded (about 1.5 ms for a screenshot's data URL).
#[wasm_bindgen(js_name = base64After)]
pub fn base64_after(prefix: &str, bytes: &[u8]) -> Result<Vec<u8>, String> {
    sightline_codec::base64_after(prefix, bytes).map(String::into_bytes)
}
