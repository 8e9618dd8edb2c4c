//! The one place that knows how a screenshot's pixels relate to the page.
//!
//! Three spaces: device pixels (what CDP captures, DPR × CSS), CSS pixels (what the DOM and
//! CDP input speak), and image pixels (what the model sees after resizing and padding).
//! `ImageMapping` converts between them; every transform it describes is a scale per axis
//! plus an origin, so each has an exact inverse.

use crate::vocab::geometry::Rect;
use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ImageMapping {
    /// Device pixels per CSS pixel when captured.
    pub device_pixel_ratio: f64,
    /// Image pixels per CSS pixel, per axis (resizing may change the aspect slightly).
    pub scale_x: f64,
    pub scale_y: f64,
    /// Where the image's top-left corner lies, in viewport CSS pixels (negative scroll
    /// offsets for a full-page capture; 0 for the viewport).
    pub origin_x: f64,
    pub origin_y: f64,
    /// The image's size, padding included.
    pub width: u32,
    pub height: u32,
    /// The part of the image that shows the page; the rest (right and bottom) is padding.
    pub content_width: u32,
    pub content_height: u32,
}

impl ImageMapping {
    /// A capture shown as is: image pixels are device pixels.
    pub fn identity(width: u32, height: u32, device_pixel_ratio: f64) -> Self {
        let dpr = if device_pixel_ratio > 0.0 { device_pixel_ratio } else { 1.0 };
        ImageMapping {
            device_pixel_ratio: dpr,
            scale_x: dpr,
            scale_y: dpr,
            origin_x: 0.0,
            origin_y: 0.0,
            width,
            height,
            content_width: width,
            content_height: height,
        }
    }

    /// A viewport CSS point → image pixels.
    pub fn css_to_image(&self, (x, y): (f64, f64)) -> (f64, f64) {
        ((x - self.origin_x) * self.scale_x, (y - self.origin_y) * self.scale_y)
    }

    /// Image pixels → a viewport CSS point (the inverse of `css_to_image`).
    pub fn image_to_css(&self, (x, y): (f64, f64)) -> (f64, f64) {
        (x / self.scale_x + self.origin_x, y / self.scale_y + self.origin_y)
    }

    /// A point given relative to the image on a `0..=range` scale on both axes (UI-TARS 1.0
    /// uses 1000, MAI-UI 999) → a viewport CSS point.
    pub fn relative_to_css(&self, (x, y): (f64, f64), range: f64) -> (f64, f64) {
        self.image_to_css((x / range * self.width as f64, y / range * self.height as f64))
    }

    /// Device pixels (as CDP and a raw capture give them) → a viewport CSS point.
    pub fn device_to_css(&self, (x, y): (f64, f64)) -> (f64, f64) {
        (x / self.device_pixel_ratio + self.origin_x, y / self.device_pixel_ratio + self.origin_y)
    }

    pub fn rect_to_image(&self, r: &Rect) -> Rect {
        let (x0, y0) = self.css_to_image((r.x, r.y));
        let (x1, y1) = self.css_to_image((r.right(), r.bottom()));
        Rect::new(x0, y0, x1 - x0, y1 - y0)
    }

    pub fn rect_to_css(&self, r: &Rect) -> Rect {
        let (x0, y0) = self.image_to_css((r.x, r.y));
        let (x1, y1) = self.image_to_css((r.right(), r.bottom()));
        Rect::new(x0, y0, x1 - x0, y1 - y0)
    }

    /// True when an image point shows the page rather than padding.
    pub fn shows_page(&self, (x, y): (f64, f64)) -> bool {
        x >= 0.0 && y >= 0.0 && x < self.content_width as f64 && y < self.content_height as f64
    }
}
