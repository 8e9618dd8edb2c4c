//! Set-of-mark markers: a coloured box round every element the model may name and its number
//! in a label beside it, drawn on the screenshot (never on the page). Also single highlights,
//! a model's box and a model's point, for the timeline and reports.

use super::draw::{self, PixelRect, Rgb};
use super::labels::place_labels;
use super::mapping::ImageMapping;
use crate::describe::Element;
use crate::vocab::geometry::Rect;
use crate::vocab::wire::internally_tagged;
use image::RgbImage;
use serde::{Deserialize, Serialize};

/// Distinct, saturated colours, cycled by marker number.
pub const PALETTE: [Rgb; 8] = [
    [230, 25, 75],
    [0, 110, 200],
    [20, 150, 60],
    [245, 130, 48],
    [145, 30, 180],
    [0, 128, 128],
    [220, 40, 200],
    [128, 100, 0],
];

/// One element to mark: its number (as in the description) and its box in CSS pixels.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Marker {
    pub number: u32,
    pub rect: Rect,
}

/// Where a label went, in image pixels (for tests and for callers that link labels to rows).
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct PlacedLabel {
    pub number: u32,
    pub x: i64,
    pub y: i64,
    pub width: i64,
    pub height: i64,
}

/// The elements the model may name, with the part of each that shows.
pub fn markers_for(elements: &[Element]) -> Vec<Marker> {
    elements.iter().filter(|e| e.is_listed()).map(|e| Marker { number: e.index, rect: e.shown_rect() }).collect()
}

/// Font scale and line width for an image shown at `mapping`'s scale: digits about 10 CSS px
/// tall, whole image pixels so they stay crisp.
pub fn marker_scale(mapping: &ImageMapping) -> u32 {
    let s = mapping.scale_x.min(mapping.scale_y);
    ((1.5 * s).round() as u32).max(1)
}

pub fn color_of(number: u32) -> Rgb {
    PALETTE[number as usize % PALETTE.len()]
}

/// Draws boxes first, then labels, so no box line crosses a number.
pub fn draw_markers(img: &mut RgbImage, markers: &[Marker], mapping: &ImageMapping) -> Vec<PlacedLabel> {
    let scale = marker_scale(mapping);
    let boxes: Vec<PixelRect> = markers.iter().map(|m| to_pixels(&mapping.rect_to_image(&m.rect))).collect();
    let texts: Vec<String> = markers.iter().map(|m| m.number.to_string()).collect();
    let sizes: Vec<(i64, i64)> = texts.iter().map(|t| draw::label_size(t, scale)).collect();
    let spots = place_labels(&boxes, &sizes, img.width() as i64, img.height() as i64);
    for (m, b) in markers.iter().zip(&boxes) {
        draw::stroke_rect(img, *b, scale as i64, color_of(m.number));
    }
    let mut placed = Vec::with_capacity(markers.len());
    for ((m, spot), text) in markers.iter().zip(&spots).zip(&texts) {
        draw::label(img, *spot, text, scale, color_of(m.number));
        placed.push(PlacedLabel { number: m.number, x: spot.x, y: spot.y, width: spot.w, height: spot.h });
    }
    placed
}

internally_tagged! {
    tag = "kind", rename_all = "camelCase", name = "Overlay";
    /// What an overlay shows: one element, a box a model answered, or a point it answered.
    #[derive(Debug, Clone, Copy, PartialEq, Serialize)]
    pub enum Overlay {
        /// An element, tinted and outlined (CSS pixels).
        Highlight { rect: Rect },
        /// A box from a model, outlined (CSS pixels).
        Bbox { rect: Rect },
        /// A point from a model (CSS pixels).
        Point { x: f64, y: f64 },
        /// Painted over: an element showing a secret or a password (CSS pixels).
        Redact { rect: Rect },
    }
}

const HIGHLIGHT: Rgb = [255, 64, 129];
const MODEL_BOX: Rgb = [0, 160, 255];
const REDACTED: Rgb = [96, 96, 96];

pub fn draw_overlay(img: &mut RgbImage, overlay: &Overlay, mapping: &ImageMapping) {
    let scale = marker_scale(mapping) as i64;
    match overlay {
        Overlay::Highlight { rect } => {
            let r = to_pixels(&mapping.rect_to_image(rect));
            draw::tint_rect(img, r, HIGHLIGHT, 64);
            draw::stroke_rect(img, r, scale + 1, HIGHLIGHT);
        }
        Overlay::Bbox { rect } => draw::stroke_rect(img, to_pixels(&mapping.rect_to_image(rect)), scale + 1, MODEL_BOX),
        Overlay::Redact { rect } => draw::fill_rect(img, to_pixels(&mapping.rect_to_image(rect)), REDACTED),
        Overlay::Point { x, y } => {
            let (px, py) = mapping.css_to_image((*x, *y));
            draw::point(img, (px.round() as i64, py.round() as i64), 8 * scale, MODEL_BOX);
        }
    }
}

/// Image-space rectangle → whole pixels covering it. Non-finite or absurd values (a hostile
/// page's rects) become an empty rectangle far away, which draws nothing.
fn to_pixels(r: &Rect) -> PixelRect {
    const LIMIT: f64 = 1e7;
    let ok = |v: f64| v.is_finite() && v.abs() < LIMIT;
    if !(ok(r.x) && ok(r.y) && ok(r.width) && ok(r.height)) {
        return PixelRect { x: -(LIMIT as i64), y: -(LIMIT as i64), w: 0, h: 0 };
    }
    let x0 = r.x.floor() as i64;
    let y0 = r.y.floor() as i64;
    let x1 = r.right().ceil() as i64;
    let y1 = r.bottom().ceil() as i64;
    PixelRect { x: x0, y: y0, w: (x1 - x0).max(0), h: (y1 - y0).max(0) }
}
