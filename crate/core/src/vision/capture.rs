//! What to ask CDP for, and what it hands back: `Page.captureScreenshot` parameters for the
//! viewport or the whole page, and the capture with the facts needed to map its pixels.

use crate::snapshot::cdp::LayoutMetrics;
use serde::{Deserialize, Serialize};
use serde_json::{json, Value};

/// A screenshot as CDP returns it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Capture {
    /// PNG or JPEG bytes, base64.
    pub base64: String,
    /// Device pixels per CSS pixel at capture (from `Page.getLayoutMetrics`).
    pub device_pixel_ratio: f64,
    /// Where the capture's top-left lies in viewport CSS pixels: (0, 0) for the viewport,
    /// minus the scroll offsets for a full-page capture.
    #[serde(default)]
    pub origin: (f64, f64),
}

/// Full-page captures stop at this many CSS pixels down (Chrome's own texture limit is 16384
/// device pixels; past it captures come back blank or fail).
pub const MAX_FULL_PAGE_CSS: f64 = 16_384.0;

/// `Page.captureScreenshot` parameters. The viewport is captured as shown; a full page is
/// captured from the document's top-left with `captureBeyondViewport`.
pub fn capture_params(metrics: &LayoutMetrics, full_page: bool) -> Value {
    if !full_page {
        return json!({ "format": "png" });
    }
    let (width, height) = clip_size(metrics);
    json!({
        "format": "png",
        "captureBeyondViewport": true,
        "clip": { "x": 0, "y": 0, "width": width, "height": height, "scale": 1 },
    })
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
    pub fn from_cdp(base64: String, metrics: &LayoutMetrics, full_page: bool) -> Capture {
        let (sx, sy) = metrics.scroll();
        let css_width = if full_page { clip_size(metrics).0 } else { metrics.viewport_size().0 };
        let measured = png_size(&base64).map(|(w, _)| w as f64 / css_width).filter(|r| r.is_finite() && *r > 0.0);
        Capture {
            device_pixel_ratio: measured.unwrap_or_else(|| metrics.device_pixel_ratio()),
            base64,
            origin: if full_page { (-sx, -sy) } else { (0.0, 0.0) },
        }
    }
}

/// Width and height from a base64 PNG's header, decoding only its first 24 bytes.
pub fn png_size(base64: &str) -> Option<(u32, u32)> {
    let head = super::base64::decode_prefix(base64, 24)?;
    if head.get(..8)? != b"\x89PNG\r\n\x1a\n" || head.get(12..16)? != b"IHDR" {
        return None;
    }
    // Fewer than 24 bytes decode where the text is short, padded or broken by whitespace.
    let size = head.get(16..24)?;
    let be = |s: &[u8]| u32::from_be_bytes([s[0], s[1], s[2], s[3]]);
    Some((be(&size[..4]), be(&size[4..])))
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
        assert_eq!(capture_params(&m, false), json!({ "format": "png" }));
        let p = capture_params(&m, true);
        assert_eq!(p["clip"]["height"], 8192.0, "16384 device px at DPR 2");
        let c = Capture::from_cdp("AA".into(), &m, true);
        assert_eq!(
            (c.device_pixel_ratio, c.origin),
            (2.0, (0.0, -300.0)),
            "from the metrics when the image says nothing"
        );
        assert_eq!(Capture::from_cdp("AA".into(), &m, false).origin, (0.0, 0.0));
    }

    #[test]
    fn the_ratio_is_measured_from_the_image() {
        let img = image::RgbImage::new(3840, 10);
        let b64 = crate::vision::base64::encode(
            &crate::vision::pipeline::encode(&img, crate::vision::ImageFormat::Png).unwrap(),
        );
        assert_eq!(png_size(&b64), Some((3840, 10)));
        // Found by fuzzing (screenshot): a PNG header cut after "IHDR" (here by padding) was
        // read past the end of the bytes it decoded to.
        assert_eq!(png_size("iVBORw0KGgoAAAANSUhEUg=I"), None);
        assert_eq!(png_size(&b64[..22]), None);
        assert_eq!(png_size(&format!("{} {}", &b64[..24], &b64[24..])), None, "whitespace in the header");
        assert_eq!(Capture::from_cdp(b64, &metrics(), false).device_pixel_ratio, 3.0);
        assert_eq!(png_size("/9j/4AAQSkZJRgABAQAAAQABAAD/2wBDAAgGBgcGBQgHBwcJCQgKDBQNDA"), None, "JPEG is not PNG");
    }
}
