//! What to ask CDP for, and what it hands back: `Page.captureScreenshot` parameters for the
//! viewport or the whole page, and the capture with the facts needed to map its pixels.

use super::fit::ImageOptions;
use crate::snapshot::cdp::LayoutMetrics;
use image::RgbImage;
use serde::{Deserialize, Serialize};
use serde_json::{json, Value};
use std::cell::RefCell;

/// A screenshot as CDP returns it, its base64 decoded (once, by the worker's JS).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Capture {
    /// PNG or JPEG bytes; base64 (`base64`) where a capture is written as JSON (tooling).
    #[serde(rename = "base64", with = "as_base64")]
    pub bytes: Vec<u8>,
    /// Device pixels per CSS pixel at capture (from `Page.getLayoutMetrics`).
    pub device_pixel_ratio: f64,
    /// Where the capture's top-left lies in viewport CSS pixels: (0, 0) for the viewport,
    /// minus the scroll offsets for a full-page capture.
    #[serde(default)]
    pub origin: (f64, f64),
    /// The bytes' pixels, when decoded ahead (`Capture::decode_ahead`, in `pipeline`), for the
    /// first frame made from the capture to take: they are not kept (or copied) beside the bytes
    /// any longer than that, and later frames decode the bytes. Never written out.
    #[serde(skip)]
    pub pixels: RefCell<Option<RgbImage>>,
}

/// Full-page captures stop at this many CSS pixels down (Chrome's own texture limit is 16384
/// device pixels; past it captures come back blank or fail).
pub const MAX_FULL_PAGE_CSS: f64 = 16_384.0;

/// `Page.captureScreenshot` parameters. The viewport is captured as shown and needs no
/// metrics (so they can be asked for at the same time); a full page is captured from the
/// document's top-left with `captureBeyondViewport`, sized by `metrics` (`None`: the viewport)
/// and scaled by [`full_page_scale`] for the image `fitted` will make of it.
///
/// Always Chrome's fastest PNG (`optimizeForSpeed`: zlib's lowest level): a 1280×800 capture
/// comes back in about a third of the time for about a quarter more bytes, which mostly never
/// leave the worker (the model image is encoded again; only a recorder photo with nothing
/// painted over is kept as it came).
pub fn capture_params(metrics: Option<&LayoutMetrics>, full_page: bool, fitted: Option<&ImageOptions>) -> Value {
    let mut params = json!({ "format": "png", "optimizeForSpeed": true });
    if let (true, Some(metrics)) = (full_page, metrics) {
        let (width, height) = clip_size(metrics);
        let scale = full_page_scale(metrics, fitted);
        params["captureBeyondViewport"] = json!(true);
        params["clip"] = json!({ "x": 0, "y": 0, "width": width, "height": height, "scale": scale });
    }
    params
}

/// CDP's `clip.scale` for a full-page capture: the captured pixels per device pixel. An image
/// fitted back to CSS size (`ImageOptions::resize_to_css`, the default) is captured at CSS size
/// on a high-DPR screen: `fit` makes the same image of it (same size, same mapping; the ratio is
/// measured from the capture, `Capture::from_cdp`), and the worker decodes DPR² times fewer
/// pixels into memories that never shrink (1280×7000 at DPR 2: 138 MB + 111 MB of the core's and
/// the codec's, for an image of a quarter of them). No extra shrink is taken at capture: `fit`
/// applies it to the capture. `None` (a capture kept as it came, tooling's): device pixels.
pub fn full_page_scale(metrics: &LayoutMetrics, fitted: Option<&ImageOptions>) -> f64 {
    let dpr = metrics.device_pixel_ratio();
    match fitted {
        Some(opts) if opts.resize_to_css && dpr.is_finite() && dpr > 1.0 => 1.0 / dpr,
        _ => 1.0,
    }
}

/// A full-page capture's CSS size: the document, at least the viewport, at most the limit.
fn clip_size(metrics: &LayoutMetrics) -> (f64, f64) {
    let limit = MAX_FULL_PAGE_CSS / metrics.device_pixel_ratio().max(1.0);
    let (w, h) = metrics.content_size();
    let (vw, vh) = metrics.viewport_size();
    (w.max(vw).min(limit).max(1.0), h.max(vh).min(limit).max(1.0))
}

impl Capture {
    /// The ratio is measured: the image's width over the CSS width captured. (Device-metrics
    /// emulation changes the capture but not every field of the layout metrics.)
    pub fn from_cdp(bytes: Vec<u8>, metrics: &LayoutMetrics, full_page: bool) -> Capture {
        let (sx, sy) = metrics.scroll();
        let css_width = if full_page { clip_size(metrics).0 } else { metrics.viewport_size().0 };
        let measured = png_size(&bytes).map(|(w, _)| w as f64 / css_width).filter(|r| r.is_finite() && *r > 0.0);
        Capture {
            device_pixel_ratio: measured.unwrap_or_else(|| metrics.device_pixel_ratio()),
            bytes,
            origin: if full_page { (-sx, -sy) } else { (0.0, 0.0) },
            pixels: RefCell::default(),
        }
    }
}

/// Width and height from a PNG's header (its first 24 bytes).
pub fn png_size(bytes: &[u8]) -> Option<(u32, u32)> {
    if bytes.get(..8)? != b"\x89PNG\r\n\x1a\n" || bytes.get(12..16)? != b"IHDR" {
        return None;
    }
    let size = bytes.get(16..24)?;
    let be = |s: &[u8]| u32::from_be_bytes([s[0], s[1], s[2], s[3]]);
    Some((be(&size[..4]), be(&size[4..])))
}

/// Width and height from a baseline or progressive JPEG's header: the first frame marker (SOFn)
/// after the segments before it. The core decodes no JPEG (the worker's JS does, see
/// `pipeline::browser_decodes`); its size is all it reads of one.
pub fn jpeg_size(bytes: &[u8]) -> Option<(u32, u32)> {
    if bytes.get(..2)? != [0xFF, 0xD8] {
        return None;
    }
    let mut at = 2;
    loop {
        // Markers may be preceded by any number of 0xFF fill bytes.
        while *bytes.get(at)? == 0xFF && *bytes.get(at + 1)? == 0xFF {
            at += 1;
        }
        if *bytes.get(at)? != 0xFF {
            return None;
        }
        let marker = *bytes.get(at + 1)?;
        // Markers with no length: TEM and the restarts.
        if marker == 0x01 || (0xD0..=0xD7).contains(&marker) {
            at += 2;
            continue;
        }
        let length = u16::from_be_bytes([*bytes.get(at + 2)?, *bytes.get(at + 3)?]) as usize;
        // SOF0–SOF15, but not DHT (C4), JPG (C8) or DAC (CC).
        if (0xC0..=0xCF).contains(&marker) && ![0xC4, 0xC8, 0xCC].contains(&marker) {
            let frame = bytes.get(at + 4..at + 9)?; // precision, height, width
            let (height, width) = (u16::from_be_bytes([frame[1], frame[2]]), u16::from_be_bytes([frame[3], frame[4]]));
            return Some((width as u32, height as u32));
        }
        if marker == 0xD9 || marker == 0xDA || length < 2 {
            return None; // the image ended or its data began before any frame
        }
        at += 2 + length;
    }
}

/// Width and height of a PNG or a JPEG, from its header.
pub fn image_size(bytes: &[u8]) -> Option<(u32, u32)> {
    png_size(bytes).or_else(|| jpeg_size(bytes))
}

/// Bytes written as base64 text in JSON: how tooling hands a capture back and forth.
mod as_base64 {
    use serde::{de::Error, ser::Error as _, Deserialize, Deserializer, Serializer};

    pub fn serialize<S: Serializer>(bytes: &[u8], s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&crate::vision::base64::encode(bytes).map_err(S::Error::custom)?)
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<u8>, D::Error> {
        let text = String::deserialize(d)?;
        crate::vision::base64::decode(&text).ok_or_else(|| D::Error::custom(crate::vision::VisionError::Base64))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn metrics() -> LayoutMetrics {
        serde_json::from_value(json!({
            "cssVisualViewport": { "pageX": 0, "pageY": 300, "clientWidth": 1280, "clientHeight": 800 },
            "visualViewport": { "pageX": 0, "pageY": 300, "clientWidth": 2560, "clientHeight": 1600 },
            "cssContentSize": { "width": 1280, "height": 40000 },
        }))
        .unwrap()
    }

    #[test]
    fn full_page_captures_start_at_the_document_origin_and_are_capped() {
        let m = metrics();
        let viewport = json!({ "format": "png", "optimizeForSpeed": true });
        assert_eq!(capture_params(Some(&m), false, None), viewport);
        assert_eq!(
            capture_params(None, false, Some(&ImageOptions::default())),
            viewport,
            "the viewport needs no metrics"
        );
        let p = capture_params(Some(&m), true, None);
        assert_eq!(p["optimizeForSpeed"], true);
        assert_eq!(p["captureBeyondViewport"], true);
        assert_eq!(p["clip"]["height"], 8192.0, "16384 device px at DPR 2");
        assert_eq!(p["clip"]["scale"], 1.0, "kept as it came: device pixels");
        let c = Capture::from_cdp(vec![0], &m, true);
        assert_eq!(
            (c.device_pixel_ratio, c.origin),
            (2.0, (0.0, -300.0)),
            "from the metrics when the image says nothing"
        );
        assert_eq!(Capture::from_cdp(vec![0], &m, false).origin, (0.0, 0.0));
    }

    #[test]
    fn a_full_page_fitted_to_css_size_is_captured_at_css_size_and_fits_the_same() {
        use crate::vision::fit::{fit, ImageRule};
        let m = metrics(); // DPR 2, 1280 CSS pixels wide
        let css = ImageOptions::default();
        let p = capture_params(Some(&m), true, Some(&css));
        assert_eq!(p["clip"]["scale"], 0.5);
        assert_eq!(capture_params(Some(&m), false, Some(&css))["clip"], Value::Null, "the viewport is as shown");
        let raw = ImageOptions { resize_to_css: false, ..css };
        assert_eq!(full_page_scale(&m, Some(&raw)), 1.0, "an image at device size needs device pixels");
        assert_eq!(full_page_scale(&m, None), 1.0);
        let one: LayoutMetrics = serde_json::from_value(json!({
            "cssVisualViewport": { "pageX": 0, "pageY": 0, "clientWidth": 1280, "clientHeight": 800 },
            "visualViewport": { "pageX": 0, "pageY": 0, "clientWidth": 1280, "clientHeight": 800 },
            "cssContentSize": { "width": 1280, "height": 15000 },
        }))
        .unwrap();
        assert_eq!(full_page_scale(&one, Some(&css)), 1.0, "never above device pixels");

        // What CDP returns at each scale (the clip × scale × DPR), fitted by every option: the
        // same image, the same mapping back to the page.
        let w = clip_size(&m).0;
        let at = |scale: f64| {
            let png = crate::vision::pipeline::encode(
                &image::RgbImage::new((w * 2.0 * scale) as u32, (40.0 * 2.0 * scale) as u32),
                crate::vision::ImageFormat::Png,
            )
            .unwrap();
            Capture::from_cdp(png, &m, true)
        };
        let (device, css_sized) = (at(1.0), at(0.5));
        assert_eq!((device.device_pixel_ratio, css_sized.device_pixel_ratio), (2.0, 1.0));
        for opts in [
            css,
            ImageOptions { shrink: 0.5, ..css },
            ImageOptions { rule: ImageRule::QwenPad28, ..css },
            ImageOptions { rule: ImageRule::UI_TARS_1_0, ..css },
        ] {
            let fitted = |c: &Capture| {
                let (w, h) = png_size(&c.bytes).unwrap();
                fit(w, h, c.device_pixel_ratio, c.origin, &opts)
            };
            let (a, b) = (fitted(&device).unwrap(), fitted(&css_sized).unwrap());
            assert_eq!((a.width, a.height, a.content_width), (b.width, b.height, b.content_width), "{opts:?}");
            assert_eq!((a.scale_x, a.origin_y), (b.scale_x, b.origin_y), "{opts:?}");
            assert_eq!(a.css_to_image((100.0, -200.0)), b.css_to_image((100.0, -200.0)), "{opts:?}");
        }
    }

    #[test]
    fn the_ratio_is_measured_from_the_image() {
        let img = image::RgbImage::new(3840, 10);
        let png = crate::vision::pipeline::encode(&img, crate::vision::ImageFormat::Png).unwrap();
        assert_eq!(png_size(&png), Some((3840, 10)));
        // Found by fuzzing (screenshot): a PNG header cut after "IHDR" was read past its end.
        assert_eq!(png_size(&png[..16]), None);
        assert_eq!(png_size(&png[..23]), None);
        assert_eq!(Capture::from_cdp(png, &metrics(), false).device_pixel_ratio, 3.0);
        let jpeg = crate::vision::base64::decode("/9j/4AAQSkZJRgABAQAAAQABAAD/2wBDAAgGBgcGBQgHBwcJCQgKDBQNDA").unwrap();
        assert_eq!(png_size(&jpeg), None, "JPEG is not PNG");
    }

    #[test]
    fn a_jpeg_size_is_read_from_its_frame_header() {
        let jpeg = sightline_codec::jpeg_rgb8(&[90; 37 * 23 * 3], 37, 23, 80).unwrap();
        assert_eq!(jpeg_size(&jpeg), Some((37, 23)));
        assert_eq!(image_size(&jpeg), Some((37, 23)));
        // Cut anywhere before the frame's size: no size, and nothing read past the end.
        let sof = jpeg.windows(2).position(|w| w == [0xFF, 0xC0]).unwrap();
        for cut in 0..sof + 9 {
            assert_eq!(jpeg_size(&jpeg[..cut]), None, "cut at {cut}");
        }
        // Fill bytes before a marker, a restart marker, a progressive frame (SOF2).
        let mut odd = vec![0xFF, 0xD8, 0xFF, 0xFF, 0xD0, 0xFF, 0xC2, 0, 11, 8, 0x01, 0x00, 0x02, 0x00, 3];
        assert_eq!(jpeg_size(&odd), Some((512, 256)));
        odd[6] = 0xDA; // scan data before any frame
        assert_eq!(jpeg_size(&odd), None);
        let png =
            crate::vision::pipeline::encode(&image::RgbImage::new(5, 4), crate::vision::ImageFormat::Png).unwrap();
        assert_eq!((jpeg_size(&png), image_size(&png)), (None, Some((5, 4))));
    }
}
