//! Capture → model image: decode once, resize to the mapping `fit` chose, pad, draw, encode.
//! A `Frame` keeps the decoded pixels, so markers, highlights and overlays never re-decode.

use super::base64;
use super::capture::Capture;
use super::fit::{fit, ImageFormat, ImageOptions};
use super::mapping::ImageMapping;
use super::markers::{draw_markers, draw_overlay, markers_for, Marker, Overlay, PlacedLabel};
use super::VisionError;
use crate::describe::{Element, Extraction};
use crate::vocab::geometry::Rect;
use image::RgbImage;
use serde::{Deserialize, Serialize};

/// Captures larger than this many device pixels are refused rather than decoded (a full-page
/// capture of an endless page would need gigabytes).
pub const MAX_CAPTURE_PIXELS: u64 = 40_000_000;

fn too_large(width: u32, height: u32) -> bool {
    width as u64 * height as u64 > MAX_CAPTURE_PIXELS
}

/// The image a model receives and how its pixels map back to the page.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ModelImage {
    pub data_url: String,
    pub mapping: ImageMapping,
    /// Encoded size in bytes.
    pub bytes: usize,
}

/// Decoded pixels at the model's size (padding included), with their mapping.
pub struct Frame {
    pub image: RgbImage,
    pub mapping: ImageMapping,
}

impl Frame {
    /// The capture's frame, made from its pixels when they were decoded ahead (taken: the
    /// next frame decodes the bytes).
    pub fn from_capture(capture: &Capture, opts: &ImageOptions) -> Result<Frame, VisionError> {
        let Some(pixels) = capture.pixels.borrow_mut().take() else {
            return Frame::decode(&capture.bytes, capture.device_pixel_ratio, capture.origin, opts);
        };
        let (w, h) = pixels.dimensions();
        let mapping = fit(w, h, capture.device_pixel_ratio, capture.origin, opts)?;
        Ok(Frame::fitted(pixels, mapping))
    }

    pub fn decode(
        bytes: &[u8],
        device_pixel_ratio: f64,
        origin: (f64, f64),
        opts: &ImageOptions,
    ) -> Result<Frame, VisionError> {
        let (w, h) = decodable_size(bytes)?;
        let mapping = fit(w, h, device_pixel_ratio, origin, opts)?;
        Ok(Frame::fitted(decode_png(bytes)?, mapping))
    }

    fn fitted(decoded: RgbImage, mapping: ImageMapping) -> Frame {
        let content = resize(decoded, mapping.content_width, mapping.content_height);
        Frame { image: pad(content, mapping.width, mapping.height), mapping }
    }

    /// A copy with markers drawn; the frame stays clean for the next drawing.
    pub fn with_markers(&self, markers: &[Marker]) -> (RgbImage, Vec<PlacedLabel>) {
        let mut img = self.image.clone();
        let labels = draw_markers(&mut img, markers, &self.mapping);
        (img, labels)
    }

    /// An image drawn from this frame, encoded, with the frame's mapping.
    pub fn finish(&self, img: &RgbImage, format: ImageFormat) -> Result<ModelImage, VisionError> {
        let bytes = encode(img, format)?;
        Ok(ModelImage { data_url: data_url(&bytes, format)?, mapping: self.mapping, bytes: bytes.len() })
    }

    pub fn with_overlays(&self, overlays: &[Overlay]) -> RgbImage {
        let mut img = self.image.clone();
        for o in overlays {
            draw_overlay(&mut img, o, &self.mapping);
        }
        img
    }
}

/// The screenshot for one planning round: the capture fitted to the model and marked with the
/// numbers of every element the description lists.
/// Frames the run may not read (`Extraction::withhold_frames`) are painted over too.
pub fn model_image(capture: &Capture, extraction: &Extraction, opts: &ImageOptions) -> Result<ModelImage, VisionError> {
    let withheld: Vec<Rect> = extraction.frames.iter().filter(|f| f.withheld).map(|f| f.rect).collect();
    mark(capture, &extraction.elements, &withheld, opts).map(|(image, _)| image)
}

/// What a screenshot paints over: every element showing a secret or a password.
fn painted_over(elements: &[Element]) -> Vec<Overlay> {
    elements.iter().filter(|e| e.holds_secret()).map(|e| Overlay::Redact { rect: e.shown_rect() }).collect()
}

/// `model_image` for any elements, with where each label went.
/// Elements showing a secret or a password are painted over first.
pub fn marked_image(
    capture: &Capture,
    elements: &[Element],
    opts: &ImageOptions,
) -> Result<(ModelImage, Vec<PlacedLabel>), VisionError> {
    mark(capture, elements, &[], opts)
}

fn mark(
    capture: &Capture,
    elements: &[Element],
    withheld: &[Rect],
    opts: &ImageOptions,
) -> Result<(ModelImage, Vec<PlacedLabel>), VisionError> {
    // Drawn on the frame itself, which serves this one image: no copy of its pixels.
    let mut frame = Frame::from_capture(capture, opts)?;
    let redactions = withheld.iter().map(|&rect| Overlay::Redact { rect }).chain(painted_over(elements));
    for overlay in redactions {
        draw_overlay(&mut frame.image, &overlay, &frame.mapping);
    }
    let labels = draw_markers(&mut frame.image, &markers_for(elements), &frame.mapping);
    Ok((frame.finish(&frame.image, opts.format)?, labels))
}

/// The capture at its own size as a PNG data URL, with what [`marked_image`] paints over
/// painted over; as it came when nothing needs to be.
pub fn redacted_capture(capture: &Capture, elements: &[Element]) -> Result<String, VisionError> {
    let redactions = painted_over(elements);
    if redactions.is_empty() {
        return data_url(&capture.bytes, ImageFormat::Png);
    }
    let frame = Frame::from_capture(capture, &ImageOptions { resize_to_css: false, ..Default::default() })?;
    Ok(frame.finish(&frame.with_overlays(&redactions), ImageFormat::Png)?.data_url)
}

pub fn encode(img: &RgbImage, format: ImageFormat) -> Result<Vec<u8>, VisionError> {
    let (w, h) = img.dimensions();
    // The encoders live in sightline-codec: in the worker, its module built for speed.
    match format {
        ImageFormat::Png => sightline_codec::png_rgb8(img.as_raw(), w, h).map_err(VisionError::Encode),
        ImageFormat::Jpeg { quality } => {
            let (Ok(w16), Ok(h16)) = (u16::try_from(w), u16::try_from(h)) else {
                return Err(VisionError::Encode(format!("{w}×{h} is larger than JPEG allows (65535 pixels a side)")));
            };
            sightline_codec::jpeg_rgb8(img.as_raw(), w16, h16, quality.clamp(1, 100)).map_err(VisionError::Encode)
        }
    }
}

pub fn data_url(bytes: &[u8], format: ImageFormat) -> Result<String, VisionError> {
    let mime = match format {
        ImageFormat::Png => "image/png",
        ImageFormat::Jpeg { .. } => "image/jpeg",
    };
    sightline_codec::base64_after(&format!("data:{mime};base64,"), bytes).map_err(VisionError::Encode)
}

/// Resamples to `w` × `h`. Whole-number reductions (DPR 2 or 3 back to CSS size, the common
/// case) average each k×k block directly; anything else uses a triangle filter.
pub(crate) fn resize(img: RgbImage, w: u32, h: u32) -> RgbImage {
    if img.dimensions() == (w, h) {
        return img;
    }
    let (iw, ih) = img.dimensions();
    if iw % w == 0 && ih % h == 0 && iw / w == ih / h {
        return box_reduce(&img, iw / w);
    }
    image::imageops::resize(&img, w, h, image::imageops::FilterType::Triangle)
}

fn box_reduce(img: &RgbImage, k: u32) -> RgbImage {
    let (iw, ih) = img.dimensions();
    let (w, h) = (iw / k, ih / k);
    let src = img.as_raw();
    let stride = iw as usize * 3;
    let area = k * k;
    let mut out = vec![0u8; w as usize * h as usize * 3];
    let mut sums = vec![0u32; w as usize * 3];
    for y in 0..h as usize {
        sums.iter_mut().for_each(|s| *s = 0);
        for row in 0..k as usize {
            let line = &src[(y * k as usize + row) * stride..][..stride];
            for (x, px) in line.chunks_exact(3 * k as usize).enumerate() {
                for dx in 0..k as usize {
                    sums[x * 3] += px[dx * 3] as u32;
                    sums[x * 3 + 1] += px[dx * 3 + 1] as u32;
                    sums[x * 3 + 2] += px[dx * 3 + 2] as u32;
                }
            }
        }
        let dst = &mut out[y * w as usize * 3..][..w as usize * 3];
        for (d, s) in dst.iter_mut().zip(&sums) {
            *d = ((s + area / 2) / area) as u8;
        }
    }
    RgbImage::from_raw(w, h, out).unwrap_or_else(|| RgbImage::new(w, h))
}

/// White padding on the right and bottom (Qwen2.5-VL's 28-pixel blocks).
fn pad(img: RgbImage, w: u32, h: u32) -> RgbImage {
    if img.dimensions() == (w, h) {
        return img;
    }
    let mut out = RgbImage::from_pixel(w, h, image::Rgb([255, 255, 255]));
    image::imageops::replace(&mut out, &img, 0, 0);
    out
}

/// The encoded bytes of a `data:image/png|jpeg;base64,…` URL (a kept screenshot).
pub fn data_url_bytes(url: &str) -> Result<Vec<u8>, VisionError> {
    let payload = url
        .strip_prefix("data:image/png;base64,")
        .or_else(|| url.strip_prefix("data:image/jpeg;base64,"))
        .ok_or_else(|| VisionError::Decode("not a PNG or JPEG data URL".into()))?;
    base64::decode(payload).ok_or(VisionError::Base64)
}

/// The size of a PNG the core will decode, from its header: an image over
/// [`MAX_CAPTURE_PIXELS`] is refused by its size before any decoding (a few hundred bytes of a
/// loaded trajectory can declare one of hundreds of megapixels), and a JPEG as one the browser
/// decodes first. The core decodes PNG only: captures are PNG (`capture_params`), and a kept JPEG
/// reaches it decoded by the browser (see [`browser_decodes`]) — a JPEG decoder was a tenth of
/// the worker's module (issue 23's size budget).
fn decodable_size(bytes: &[u8]) -> Result<(u32, u32), VisionError> {
    let jpeg = super::capture::jpeg_size(bytes);
    let (width, height) = match jpeg {
        Some(size) => size,
        None => sightline_codec::png_dimensions(bytes).map_err(VisionError::Decode)?,
    };
    if too_large(width, height) {
        return Err(VisionError::TooLarge { width, height });
    }
    if jpeg.is_some() {
        return Err(VisionError::Decode("a JPEG, which the browser decodes before the core reads it".into()));
    }
    Ok((width, height))
}

impl Capture {
    /// Decodes the bytes now, so the model image made from this capture later starts from its
    /// pixels: for a worker that would otherwise sit waiting on the page's reading (a step's
    /// capture usually arrives before its read). Bytes that do not decode are left as they
    /// are, for the model image to say why. (Here, not in `capture`: decoding is this room's.)
    pub fn decode_ahead(&mut self) {
        let pixels = self.pixels.get_mut();
        if pixels.is_none() {
            *pixels = decodable_size(&self.bytes).and_then(|_| decode_png(&self.bytes)).ok();
        }
    }
}

/// A PNG's pixels (in sightline-codec: in the worker, its module built for speed; see [`decodable_size`]).
fn decode_png(bytes: &[u8]) -> Result<RgbImage, VisionError> {
    let (w, h, rgb) = sightline_codec::png_to_rgb8(bytes).map_err(VisionError::Decode)?;
    RgbImage::from_raw(w, h, rgb).ok_or_else(|| VisionError::Decode("fewer pixels than its size".into()))
}

/// Whether the worker's JS hands `url` over as the browser's PNG of it before the core decodes
/// it (exports): a JPEG data URL within [`MAX_CAPTURE_PIXELS`]. Larger ones stay as they are, and
/// are refused here as PNGs that large are.
pub fn browser_decodes(url: &str) -> bool {
    let Some(b64) = url.strip_prefix("data:image/jpeg;base64,") else { return false };
    let size = base64::decode_prefix(b64, 64 * 1024).and_then(|head| super::capture::jpeg_size(&head));
    size.is_some_and(|(w, h)| !too_large(w, h))
}

/// The pixels of a `data:image/png;base64,…` URL (a kept screenshot; a JPEG is decoded by the
/// browser first, [`browser_decodes`]), refused as captures are ([`decodable_size`]).
pub fn decode_data_url(url: &str) -> Result<RgbImage, VisionError> {
    let bytes = data_url_bytes(url)?;
    decodable_size(&bytes)?;
    decode_png(&bytes)
}

/// `img` at most `max_width` wide (aspect kept), as a JPEG data URL.
pub fn shrink_to_jpeg(img: &RgbImage, max_width: u32, quality: u8) -> Result<String, VisionError> {
    let (w, h) = img.dimensions();
    let small = if w > max_width && max_width > 0 {
        let nh = ((h as f64 * max_width as f64 / w as f64).round() as u32).max(1);
        resize(img.clone(), max_width, nh)
    } else {
        img.clone()
    };
    data_url(&encode(&small, ImageFormat::Jpeg { quality })?, ImageFormat::Jpeg { quality })
}
