//! The codecs themselves (on the host, and in the codec module the worker loads beside its own).

use std::io::Cursor;

/// RGB8 pixels as a PNG. Fast deflate with the Paeth filter on every row: on a 1280×800
/// screenshot 6% more bytes than choosing each row's filter (Adaptive, which tries all five) in
/// a sixth of the time, and a half or less of the bytes of Sub or Up; zlib's default level costs
/// ten times more.
/// Written with png directly (the same settings and bytes as image's `PngEncoder` with
/// `CompressionType::Fast` and `FilterType::Paeth`): image's wrapper was most of the codec module's
/// image code, and it panics where png returns an error (pixels that do not fill the size).
pub fn png_rgb8(rgb: &[u8], width: u32, height: u32) -> Result<Vec<u8>, String> {
    let mut out = Vec::with_capacity(rgb.len() / 4);
    let mut encoder = png::Encoder::new(&mut out, width, height);
    encoder.set_color(png::ColorType::Rgb);
    encoder.set_depth(png::BitDepth::Eight);
    encoder.set_compression(png::Compression::Fast);
    encoder.set_filter(png::Filter::Paeth);
    let mut writer = encoder.write_header().map_err(|e| e.to_string())?;
    writer.write_image_data(rgb).map_err(|e| e.to_string())?;
    writer.finish().map_err(|e| e.to_string())?;
    Ok(out)
}

/// The largest decoded image a PNG may declare, in bytes (as image's default limit).
const MAX_DECODED_BYTES: usize = 512 * 1024 * 1024;

/// A PNG's width and height from its header, without decoding it.
pub fn png_dimensions(png: &[u8]) -> Result<(u32, u32), String> {
    let mut decoder = png::Decoder::new_with_limits(Cursor::new(png), png::Limits { bytes: MAX_DECODED_BYTES });
    let info = decoder.read_header_info().map_err(|e| e.to_string())?;
    Ok((info.width, info.height))
}

/// A PNG's pixels as RGB8 (width, height, rows): grey spread to the three channels, alpha
/// dropped, 16-bit samples rounded to 8, as image's `into_rgb8` does. Decoded with the png crate
/// directly: through image's `DynamicImage` every colour layout's conversion was compiled in
/// (a tenth of image's code in the worker) for the one a screenshot has.
pub fn png_to_rgb8(png: &[u8]) -> Result<(u32, u32, Vec<u8>), String> {
    let mut decoder = png::Decoder::new_with_limits(Cursor::new(png), png::Limits { bytes: MAX_DECODED_BYTES });
    decoder.set_transformations(png::Transformations::EXPAND);
    let mut reader = decoder.read_info().map_err(|e| e.to_string())?;
    let size = reader.output_buffer_size().ok_or("the PNG is too large to decode")?;
    let mut buf = vec![0; size];
    let frame = reader.next_frame(&mut buf).map_err(|e| e.to_string())?;
    buf.truncate(frame.buffer_size());
    let (width, height) = (frame.width, frame.height);
    let channels = match frame.color_type {
        png::ColorType::Grayscale => 1,
        png::ColorType::GrayscaleAlpha => 2,
        png::ColorType::Rgb => 3,
        png::ColorType::Rgba => 4,
        png::ColorType::Indexed => return Err("an indexed PNG left unexpanded".into()),
    };
    if frame.bit_depth == png::BitDepth::Sixteen {
        // Big-endian samples, rounded as image rounds them: round(c × 255 / 65535).
        buf = buf.chunks_exact(2).map(|c| ((u16::from_be_bytes([c[0], c[1]]) as u32 + 128) / 257) as u8).collect();
    }
    let rgb = match channels {
        3 => buf,
        4 => {
            // In place: each pixel's three colours moved down over the alpha before it.
            let pixels = buf.len() / 4;
            for i in 0..pixels {
                buf.copy_within(i * 4..i * 4 + 3, i * 3);
            }
            buf.truncate(pixels * 3);
            buf
        }
        n => buf.chunks_exact(n).flat_map(|p| [p[0], p[0], p[0]]).collect(),
    };
    Ok((width, height, rgb))
}

/// RGB8 pixels as a baseline JPEG of `quality` (1..=100).
pub fn jpeg_rgb8(rgb: &[u8], width: u16, height: u16, quality: u8) -> Result<Vec<u8>, String> {
    let mut out = Vec::with_capacity(rgb.len() / 8);
    jpeg_encoder::Encoder::new(&mut out, quality)
        .encode(rgb, width, height, jpeg_encoder::ColorType::Rgb)
        .map_err(|e| e.to_string())?;
    Ok(out)
}

const BASE64: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

/// `prefix` and then `bytes` in standard base64 (padded), written into one string: a data URL
/// is its prefix and the image's base64 without a second copy. Here rather than in the core,
/// which the worker builds for size: at opt-level "z" a screenshot's 440 KB of base64 took ~3 ms.
pub fn base64_after(prefix: &str, bytes: &[u8]) -> Result<String, String> {
    let mut out = vec![0u8; prefix.len() + bytes.len().div_ceil(3) * 4];
    let (head, body) = out.split_at_mut(prefix.len());
    head.copy_from_slice(prefix.as_bytes());
    let whole = bytes.chunks_exact(3);
    let rest = whole.remainder();
    let mut quads = body.chunks_exact_mut(4);
    for (three, four) in whole.zip(&mut quads) {
        let n = u32::from(three[0]) << 16 | u32::from(three[1]) << 8 | u32::from(three[2]);
        four[0] = BASE64[(n >> 18) as usize & 63];
        four[1] = BASE64[(n >> 12) as usize & 63];
        four[2] = BASE64[(n >> 6) as usize & 63];
        four[3] = BASE64[n as usize & 63];
    }
    if let Some(four) = quads.next() {
        let n = u32::from(rest[0]) << 16 | rest.get(1).map_or(0, |&b| u32::from(b) << 8);
        four[0] = BASE64[(n >> 18) as usize & 63];
        four[1] = BASE64[(n >> 12) as usize & 63];
        four[2] = if rest.len() == 2 { BASE64[(n >> 6) as usize & 63] } else { b'=' };
        four[3] = b'=';
    }
    // The prefix is a string and the rest ASCII from BASE64: this never fails.
    String::from_utf8(out).map_err(|_| "base64 wrote a byte outside ASCII".to_string())
}

#[cfg(test)]
mod tests {
    use super::*;
    use image::codecs::png::{CompressionType, FilterType, PngEncoder};
    use image::ImageEncoder;

    #[test]
    fn png_rgb8_writes_what_images_fast_paeth_encoder_writes() {
        let (w, h) = (37u32, 23u32);
        let rgb: Vec<u8> = (0..w * h * 3).map(|i| (i * 7 % 251) as u8).collect();
        let mut theirs = Vec::new();
        PngEncoder::new_with_quality(&mut theirs, CompressionType::Fast, FilterType::Paeth)
            .write_image(&rgb, w, h, image::ExtendedColorType::Rgb8)
            .unwrap();
        assert_eq!(png_rgb8(&rgb, w, h).unwrap(), theirs);
        assert_eq!(png_to_rgb8(&theirs).unwrap(), (w, h, rgb.clone()));
        assert!(png_rgb8(&rgb[..rgb.len() - 3], w, h).is_err(), "a pixel short is an error, not a panic");
    }

    /// What image's own decoder makes of `png`, as RGB8.
    fn images_rgb8(png: &[u8]) -> (u32, u32, Vec<u8>) {
        let img = image::load_from_memory_with_format(png, image::ImageFormat::Png).unwrap().into_rgb8();
        (img.width(), img.height(), img.into_raw())
    }

    #[test]
    fn pngs_of_every_layout_decode_as_images_own_decoder_decodes_them() {
        use image::ExtendedColorType as C;
        let (w, h) = (19u32, 7u32);
        let bytes = |n: usize| (0..n).map(|i| (i * 37 % 256) as u8).collect::<Vec<u8>>();
        for (color, per_pixel) in
            [(C::Rgb8, 3), (C::Rgba8, 4), (C::L8, 1), (C::La8, 2), (C::Rgb16, 6), (C::Rgba16, 8), (C::L16, 2)]
        {
            let mut png = Vec::new();
            PngEncoder::new(&mut png).write_image(&bytes(w as usize * h as usize * per_pixel), w, h, color).unwrap();
            assert_eq!(png_to_rgb8(&png).unwrap(), images_rgb8(&png), "{color:?}");
            assert_eq!(png_dimensions(&png).unwrap(), (w, h));
            // The signature and IHDR alone, as the worker's module sends them (imported.rs).
            assert_eq!(png_dimensions(&png[..33]).unwrap(), (w, h));
        }
        // A palette PNG with a transparent entry, and a 2-bit grey one: both expanded to 8 bits.
        let mut palette = Vec::new();
        let mut encoder = png::Encoder::new(&mut palette, 3, 2);
        encoder.set_color(png::ColorType::Indexed);
        encoder.set_palette(vec![255, 0, 0, 0, 0, 255, 9, 200, 30]);
        encoder.set_trns(vec![255, 0]);
        encoder.write_header().unwrap().write_image_data(&[0, 1, 2, 2, 1, 0]).unwrap();
        let mut grey = Vec::new();
        let mut encoder = png::Encoder::new(&mut grey, 4, 1);
        encoder.set_depth(png::BitDepth::Two);
        encoder.write_header().unwrap().write_image_data(&[0b00_01_10_11]).unwrap();
        for png in [palette, grey] {
            assert_eq!(png_to_rgb8(&png).unwrap(), images_rgb8(&png));
        }
        assert!(png_to_rgb8(b"not a png").is_err());
        let mut png = Vec::new();
        PngEncoder::new(&mut png).write_image(&bytes(30), 5, 2, C::Rgb8).unwrap();
        assert!(png_to_rgb8(&png[..png.len() - 20]).is_err(), "cut short");
    }
}
