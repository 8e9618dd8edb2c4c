//! The image encoders a step runs, behind plain (non-generic) functions. A generic encoder
//! (`PngEncoder<W>`, `jpeg_encoder::Encoder<W>`) called from the core is compiled in the core at
//! the core's opt-level; called here, it is compiled in this crate, which the worker's size
//! profile keeps at opt-level 3 while the core is built for size (Cargo.toml, `[profile.worker]`).

use image::codecs::png::{CompressionType, FilterType, PngEncoder};
use image::ImageEncoder;

/// RGB8 pixels as a PNG. Fast deflate with the Paeth filter on every row: on a 1280×800
/// screenshot 6% more bytes than choosing each row's filter (Adaptive, which tries all five) in
/// a sixth of the time, and a half or less of the bytes of Sub or Up; zlib's default level costs
/// ten times more.
pub fn png_rgb8(rgb: &[u8], width: u32, height: u32) -> Result<Vec<u8>, String> {
    let mut out = Vec::with_capacity(rgb.len() / 4);
    PngEncoder::new_with_quality(&mut out, CompressionType::Fast, FilterType::Paeth)
        .write_image(rgb, width, height, image::ExtendedColorType::Rgb8)
        .map_err(|e| e.to_string())?;
    Ok(out)
}

/// RGB8 pixels as a baseline JPEG of `quality` (1..=100).
pub fn jpeg_rgb8(rgb: &[u8], width: u16, height: u16, quality: u8) -> Result<Vec<u8>, String> {
    let mut out = Vec::with_capacity(rgb.len() / 8);
    jpeg_encoder::Encoder::new(&mut out, quality)
        .encode(rgb, width, height, jpeg_encoder::ColorType::Rgb)
        .map_err(|e| e.to_string())?;
    Ok(out)
}
