//! Screenshots: what an image is and how its pixels relate to the page's CSS pixels.

use crate::agent::Screenshot;

/// Width and height from a base64 PNG's IHDR chunk, decoding only the first 24 bytes.
pub fn png_size_from_base64(b64: &str) -> Option<(u32, u32)> {
    let head = decode_base64_prefix(b64.as_bytes().get(..32)?)?;
    if head.get(..8)? != b"\x89PNG\r\n\x1a\n" || head.get(12..16)? != b"IHDR" {
        return None;
    }
    let be = |s: &[u8]| u32::from_be_bytes([s[0], s[1], s[2], s[3]]);
    Some((be(&head[16..20]), be(&head[20..24])))
}

fn decode_base64_prefix(chars: &[u8]) -> Option<Vec<u8>> {
    let value = |c: u8| -> Option<u32> {
        Some(match c {
            b'A'..=b'Z' => c - b'A',
            b'a'..=b'z' => c - b'a' + 26,
            b'0'..=b'9' => c - b'0' + 52,
            b'+' | b'-' => 62,
            b'/' | b'_' => 63,
            _ => return None,
        } as u32)
    };
    let mut out = Vec::with_capacity(chars.len() / 4 * 3);
    for quad in chars.chunks_exact(4) {
        let n = quad.iter().try_fold(0u32, |acc, &c| Some(acc << 6 | value(c)?))?;
        out.extend_from_slice(&[(n >> 16) as u8, (n >> 8) as u8, n as u8]);
    }
    Some(out)
}

/// A captured PNG as the model will see it. The device-pixel ratio comes from CDP's layout
/// metrics (device-pixel viewport over CSS viewport), which also covers page zoom.
pub fn screenshot_from_capture(png_base64: &str, device_viewport_width: f64, css_viewport_width: f64) -> Option<Screenshot> {
    let (width, height) = png_size_from_base64(png_base64)?;
    let ratio = if device_viewport_width > 0.0 && css_viewport_width > 0.0 {
        device_viewport_width / css_viewport_width
    } else {
        1.0
    };
    Some(Screenshot { data_url: format!("data:image/png;base64,{png_base64}"), width, height, device_pixel_ratio: ratio })
}

#[cfg(test)]
mod tests {
    use super::*;

    // A 3x2 PNG's first 33 bytes, base64.
    const PNG_3X2: &str = "iVBORw0KGgoAAAANSUhEUgAAAAMAAAACCAYAAACddGYaAAAAE0lEQVR4nGNgYGD4z8DAwMDAAAAPAAH/";

    #[test]
    fn reads_png_size() {
        assert_eq!(png_size_from_base64(PNG_3X2), Some((3, 2)));
        assert_eq!(png_size_from_base64("AAAA"), None);
        assert_eq!(png_size_from_base64("/9j/4AAQSkZJRgABAQAAAQABAAD/2wBDAAgGBgcGBQgHBwcJCQgKDBQNDA"), None, "JPEG is not PNG");
    }

    #[test]
    fn ratio_from_metrics() {
        let s = screenshot_from_capture(PNG_3X2, 2560.0, 1280.0).unwrap();
        assert_eq!(s.device_pixel_ratio, 2.0);
        assert!(s.data_url.starts_with("data:image/png;base64,iVBOR"));
    }
}
