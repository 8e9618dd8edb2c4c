//! Sizing a capture for a model: back to CSS size on high-DPR screens, an optional shrink to
//! save tokens, then the model family's own rule (Qwen2.5-VL's 28-pixel padding, UI-TARS's
//! smart resize). Pure arithmetic: the result is an `ImageMapping`, and the pixels are made
//! to match it elsewhere (`pipeline`).

use super::mapping::ImageMapping;
use super::VisionError;
use crate::vocab::family::ModelFamily;
use crate::vocab::wire::internally_tagged;
use serde::{Deserialize, Serialize};

/// The patch size of Qwen-VL-family vision encoders: image sides must be multiples of it.
pub const PATCH: u32 = 28;

internally_tagged! {
    tag = "kind", rename_all = "camelCase", name = "ImageRule";
    /// How a model family wants its images shaped.
    #[derive(Debug, Clone, Copy, PartialEq, Serialize)]
    pub enum ImageRule {
        /// Sent as sized by the options (the default).
        AsIs,
        /// Qwen2.5-VL: white padding on the right and bottom up to multiples of 28, so the
        /// content is not stretched and coordinates stay in the image's pixels.
        QwenPad28,
        /// Qwen2-VL / UI-TARS `smart_resize`: both sides rounded to multiples of 28, area kept
        /// within [min_pixels, max_pixels]. Sending the image already at that size makes the
        /// model server's own resize a no-op, so coordinates come back in our image's pixels.
        #[serde(rename_all = "camelCase")]
        SmartResize { min_pixels: u64, max_pixels: u64 },
    }
}

// Not `#[default]`: the body of `internally_tagged!` is also its variants' reader, which derives no Default.
#[allow(clippy::derivable_impls)]
impl Default for ImageRule {
    fn default() -> Self {
        ImageRule::AsIs
    }
}

impl ImageRule {
    pub const UI_TARS_1_0: ImageRule = ImageRule::SmartResize { min_pixels: 100 * 784, max_pixels: 2700 * 784 };
    pub const UI_TARS_1_5: ImageRule = ImageRule::SmartResize { min_pixels: 100 * 784, max_pixels: 16384 * 784 };
    pub const DOUBAO_UI_TARS: ImageRule = ImageRule::SmartResize { min_pixels: 100 * 784, max_pixels: 5120 * 784 };

    /// The image shape a model family was trained on.
    pub fn for_family(family: ModelFamily) -> ImageRule {
        match family {
            ModelFamily::UiTars10 => ImageRule::UI_TARS_1_0,
            ModelFamily::UiTars15 => ImageRule::UI_TARS_1_5,
            ModelFamily::DoubaoUiTars => ImageRule::DOUBAO_UI_TARS,
            ModelFamily::Qwen25Vl => ImageRule::QwenPad28,
            _ => ImageRule::AsIs,
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct ImageOptions {
    /// On screens with DPR > 1, scale the capture down to CSS pixels (fewer tokens, and
    /// model coordinates land in the page's own units).
    pub resize_to_css: bool,
    /// Extra shrink, 0.25..=1: fewer image tokens at some cost in legibility.
    pub shrink: f64,
    pub rule: ImageRule,
    pub format: ImageFormat,
    /// At most this many pixels a side (padding included), the whole image scaled down to it,
    /// aspect kept: for a model API that refuses larger images ([`API_MAX_SIDE`]). Set by the
    /// core where an image leaves for such an API (an agent's screenshot), never read from the
    /// settings. `None`: no bound.
    #[serde(skip)]
    pub max_side: Option<u32>,
}

impl Default for ImageOptions {
    fn default() -> Self {
        ImageOptions {
            resize_to_css: true,
            shrink: 1.0,
            rule: ImageRule::AsIs,
            format: ImageFormat::Png,
            max_side: None,
        }
    }
}

/// The longest side, in pixels, that the model APIs an agent may pass our image to all take.
/// The strictest found (2026-11): Anthropic's Messages API refuses an image over 8000 px a side,
/// and over 2000 px a side once a request holds more than 20 images
/// (https://platform.claude.com/docs/en/build-with-claude/vision, "General limits") — as an
/// agent's conversation does after its twentieth screenshot, and every later request then fails
/// (anthropics/claude-code#34120). OpenAI's high-detail input scales an image to fit 2048×2048
/// and Anthropic scales a long edge past 1568 px down itself, so a bound of 2000 costs a model
/// nothing it would have seen.
pub const API_MAX_SIDE: u32 = 2000;

internally_tagged! {
    tag = "type", rename_all = "camelCase", name = "ImageFormat";
    #[derive(Debug, Clone, Copy, PartialEq, Serialize)]
    pub enum ImageFormat {
        /// Lossless: small digits on markers stay crisp (the default).
        Png,
        /// Smaller uploads; quality 1..=100.
        Jpeg { quality: u8 },
    }
}

// Not `#[default]`: the body of `internally_tagged!` is also its variants' reader, which derives no Default.
#[allow(clippy::derivable_impls)]
impl Default for ImageFormat {
    fn default() -> Self {
        ImageFormat::Png
    }
}

pub const MIN_SHRINK: f64 = 0.25;
/// UI-TARS and Qwen refuse images more elongated than this.
const MAX_ASPECT: f64 = 200.0;

/// The mapping for a capture of `width` × `height` device pixels at `device_pixel_ratio`,
/// whose top-left corner lies at `origin` (viewport CSS pixels).
pub fn fit(
    width: u32,
    height: u32,
    device_pixel_ratio: f64,
    origin: (f64, f64),
    opts: &ImageOptions,
) -> Result<ImageMapping, VisionError> {
    if width == 0 || height == 0 {
        return Err(VisionError::Empty);
    }
    let dpr = if device_pixel_ratio.is_finite() && device_pixel_ratio > 0.0 { device_pixel_ratio } else { 1.0 };
    let shrink = if opts.shrink.is_finite() { opts.shrink.clamp(MIN_SHRINK, 1.0) } else { 1.0 };
    let to_css = if opts.resize_to_css && dpr > 1.0 { 1.0 / dpr } else { 1.0 };
    let mut factor = to_css * shrink;
    if let Some(room) = opts.max_side.filter(|&m| m > 0).map(|m| content_room(m, opts.rule)) {
        let longest = width.max(height) as f64 * factor;
        if longest > room {
            factor *= room / longest;
        }
    }
    let sized = |side: u32| ((side as f64 * factor).round() as u32).max(1);
    let (mut content_w, mut content_h) = (sized(width), sized(height));
    let (mut image_w, mut image_h) = (content_w, content_h);
    match opts.rule {
        ImageRule::AsIs => {}
        ImageRule::QwenPad28 => {
            image_w = content_w.div_ceil(PATCH) * PATCH;
            image_h = content_h.div_ceil(PATCH) * PATCH;
        }
        ImageRule::SmartResize { min_pixels, max_pixels } => {
            let (h, w) = smart_resize(content_h, content_w, min_pixels, max_pixels)?;
            (content_w, content_h, image_w, image_h) = (w, h, w, h);
        }
    }
    let css_w = width as f64 / dpr;
    let css_h = height as f64 / dpr;
    Ok(ImageMapping {
        device_pixel_ratio: dpr,
        scale_x: content_w as f64 / css_w,
        scale_y: content_h as f64 / css_h,
        origin_x: origin.0,
        origin_y: origin.1,
        width: image_w,
        height: image_h,
        content_width: content_w,
        content_height: content_h,
    })
}

/// The longest content side whose image, once the rule has shaped it, stays within `max_side`:
/// padding rounds up to a multiple of 28, `smart_resize` to the nearest one (its area bounds
/// only shrink it, but for a sliver under `min_pixels`, which it grows as the model needs).
fn content_room(max_side: u32, rule: ImageRule) -> f64 {
    let max = max_side.max(PATCH);
    match rule {
        ImageRule::AsIs => max as f64,
        ImageRule::QwenPad28 => (max / PATCH * PATCH) as f64,
        ImageRule::SmartResize { .. } => (max - PATCH / 2) as f64,
    }
}

/// Qwen2-VL's `smart_resize`: (height, width) as multiples of 28 closest to the input, with
/// the area brought within the bounds while keeping the aspect ratio.
pub fn smart_resize(height: u32, width: u32, min_pixels: u64, max_pixels: u64) -> Result<(u32, u32), VisionError> {
    let (h, w) = (height as f64, width as f64);
    if h.max(w) / h.min(w) > MAX_ASPECT {
        return Err(VisionError::TooElongated { width, height });
    }
    let f = PATCH as f64;
    // Python's round() rounds halves to even; screenshots rarely land on a half, but match it.
    let round_by = |x: f64| (round_half_even(x / f) * f).max(f);
    let floor_by = |x: f64| ((x / f).floor() * f).max(f);
    let ceil_by = |x: f64| (x / f).ceil() * f;
    let (mut h_bar, mut w_bar) = (round_by(h), round_by(w));
    if h_bar * w_bar > max_pixels as f64 {
        let beta = (h * w / max_pixels as f64).sqrt();
        h_bar = floor_by(h / beta);
        w_bar = floor_by(w / beta);
    } else if h_bar * w_bar < min_pixels as f64 {
        let beta = (min_pixels as f64 / (h * w)).sqrt();
        h_bar = ceil_by(h * beta);
        w_bar = ceil_by(w * beta);
    }
    Ok((h_bar as u32, w_bar as u32))
}

fn round_half_even(x: f64) -> f64 {
    let r = x.round();
    if (x - x.trunc()).abs() == 0.5 && r % 2.0 != 0.0 {
        r - x.signum()
    } else {
        r
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const ALL_RULES: [ImageRule; 5] = [
        ImageRule::AsIs,
        ImageRule::QwenPad28,
        ImageRule::UI_TARS_1_0,
        ImageRule::UI_TARS_1_5,
        ImageRule::DOUBAO_UI_TARS,
    ];

    fn opts(rule: ImageRule, resize_to_css: bool, shrink: f64) -> ImageOptions {
        ImageOptions { resize_to_css, shrink, rule, format: ImageFormat::Png, max_side: None }
    }

    #[test]
    fn smart_resize_matches_the_reference_arithmetic() {
        // Expected values computed with the published Python reference.
        assert_eq!(smart_resize(800, 1280, 100 * 784, 16384 * 784).unwrap(), (812, 1288));
        assert_eq!(smart_resize(1600, 2560, 100 * 784, 2700 * 784).unwrap(), (1148, 1820));
        assert_eq!(smart_resize(20, 30, 100 * 784, 16384 * 784).unwrap(), (252, 364));
        assert!(matches!(smart_resize(10, 2100, 0, u64::MAX), Err(VisionError::TooElongated { .. })));
        assert_eq!(round_half_even(2.5), 2.0);
        assert_eq!(round_half_even(3.5), 4.0);
    }

    #[test]
    fn high_dpr_captures_come_back_to_css_size() {
        let m = fit(2560, 1600, 2.0, (0.0, 0.0), &ImageOptions::default()).unwrap();
        assert_eq!((m.width, m.height), (1280, 800));
        assert_eq!((m.scale_x, m.scale_y), (1.0, 1.0));
        let kept = fit(2560, 1600, 2.0, (0.0, 0.0), &opts(ImageRule::AsIs, false, 1.0)).unwrap();
        assert_eq!((kept.width, kept.scale_x), (2560, 2.0));
    }

    #[test]
    fn qwen_padding_keeps_the_content_unscaled() {
        let m = fit(1280, 800, 1.0, (0.0, 0.0), &opts(ImageRule::QwenPad28, true, 1.0)).unwrap();
        assert_eq!((m.width, m.height, m.content_width, m.content_height), (1288, 812, 1280, 800));
        assert_eq!(m.scale_x, 1.0);
        assert!(m.shows_page((1279.0, 799.0)) && !m.shows_page((1280.0, 10.0)));
    }

    /// Every transform, every DPR: a CSS point → the image → back is exact; rounded to a whole
    /// image pixel on the way (as a model answers) it lands within 1 CSS px wherever an image
    /// pixel spans at most 2 CSS px, and within half an image pixel where a shrink makes it larger.
    #[test]
    fn every_transform_round_trips_within_one_css_pixel() {
        let rules = ALL_RULES;
        let mut seed = 0x2545_f491_4f6c_dd1du64;
        let mut next = move || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            (seed >> 11) as f64 / (1u64 << 53) as f64
        };
        for dpr in [1.0, 1.25, 2.0, 3.0] {
            for (css_w, css_h) in [(1280.0, 800.0), (390.0, 844.0), (1920.0, 1080.0), (800.0, 7000.0)] {
                let (w, h) = ((css_w * dpr) as u32, (css_h * dpr) as u32);
                for rule in rules {
                    for resize_to_css in [true, false] {
                        for shrink in [1.0, 0.75, 0.5] {
                            let m = fit(w, h, dpr, (0.0, -120.0), &opts(rule, resize_to_css, shrink)).unwrap();
                            let bound = (0.5 / m.scale_x.min(m.scale_y)).max(1.0) + 1e-9;
                            if shrink >= 0.75 {
                                assert!(bound <= 1.0 + 1e-9, "{rule:?} dpr {dpr} shrink {shrink}: bound {bound}");
                            }
                            for _ in 0..200 {
                                let p = (next() * css_w, next() * css_h - 120.0);
                                let (ix, iy) = m.css_to_image(p);
                                let back = m.image_to_css((ix.round(), iy.round()));
                                let err = (back.0 - p.0).abs().max((back.1 - p.1).abs());
                                assert!(err <= bound, "{rule:?} dpr {dpr} shrink {shrink} {p:?} → {back:?}");
                                let exact = m.image_to_css((ix, iy));
                                assert!((exact.0 - p.0).abs() < 1e-6 && (exact.1 - p.1).abs() < 1e-6);
                            }
                        }
                    }
                }
            }
        }
    }

    /// A long full page, bounded: every rule's image within the bound on both sides, the whole
    /// scaled (aspect kept, one scale both ways), and round trips still exact. Within the bound,
    /// as a viewport is, the image is the one made without it.
    #[test]
    fn a_bound_scales_the_whole_image_within_it_for_every_rule() {
        let rules = ALL_RULES;
        for rule in rules {
            for (w, h, dpr) in
                [(1280, 15000, 1.0), (2560, 16384, 2.0), (390, 16384, 1.0), (16384, 900, 1.0), (1280, 2001, 1.0)]
            {
                for resize_to_css in [true, false] {
                    let free = opts(rule, resize_to_css, 1.0);
                    let bounded = ImageOptions { max_side: Some(API_MAX_SIDE), ..free };
                    let m = fit(w, h, dpr, (0.0, -300.0), &bounded).unwrap();
                    let unbounded = fit(w, h, dpr, (0.0, -300.0), &free).unwrap();
                    assert!(
                        m.width <= API_MAX_SIDE && m.height <= API_MAX_SIDE,
                        "{rule:?} {w}x{h}@{dpr}: {}x{}",
                        m.width,
                        m.height
                    );
                    if unbounded.width.max(unbounded.height) > API_MAX_SIDE {
                        assert!(
                            m.scale_x < unbounded.scale_x && m.scale_y < unbounded.scale_y,
                            "{rule:?} {w}x{h}: scaled down"
                        );
                        // One scale both ways (within the rounding of a side to whole pixels or 28s).
                        let aspect = |a: f64, b: f64| a / b;
                        let kept = aspect(m.content_width as f64, m.content_height as f64) / aspect(w as f64, h as f64);
                        let slack = if rule == ImageRule::AsIs { 1.0 } else { 2.0 * PATCH as f64 };
                        let short = m.content_width.min(m.content_height) as f64;
                        assert!((kept - 1.0).abs() <= slack / short + 1e-9, "{rule:?} {w}x{h}: aspect off by {kept}");
                    }
                    let p = (123.0, 4567.0 - 300.0);
                    let back = m.image_to_css(m.css_to_image(p));
                    assert!((back.0 - p.0).abs() < 1e-6 && (back.1 - p.1).abs() < 1e-6);
                }
            }
            // A viewport within the bound: the same image as without it.
            for (w, h, dpr) in [(1280, 800, 1.0), (2560, 1600, 2.0), (1920, 1080, 1.0)] {
                let free = opts(rule, true, 1.0);
                let bounded = ImageOptions { max_side: Some(API_MAX_SIDE), ..free };
                assert_eq!(
                    fit(w, h, dpr, (0.0, 0.0), &bounded).unwrap(),
                    fit(w, h, dpr, (0.0, 0.0), &free).unwrap(),
                    "{rule:?} {w}x{h}"
                );
            }
        }
        let m = fit(1280, 15000, 1.0, (0.0, 0.0), &ImageOptions { max_side: Some(API_MAX_SIDE), ..Default::default() })
            .unwrap();
        assert_eq!((m.width, m.height), (171, 2000));
    }

    #[test]
    fn bad_settings_fall_back_to_safe_values() {
        let m = fit(1280, 800, f64::NAN, (0.0, 0.0), &opts(ImageRule::AsIs, true, 7.0)).unwrap();
        assert_eq!((m.width, m.device_pixel_ratio), (1280, 1.0));
        let m = fit(1280, 800, 1.0, (0.0, 0.0), &opts(ImageRule::AsIs, true, 0.01)).unwrap();
        assert_eq!(m.width, 320);
        assert!(matches!(fit(0, 800, 1.0, (0.0, 0.0), &ImageOptions::default()), Err(VisionError::Empty)));
    }
}
