//! The run as an animated GIF: each kept screenshot in order, under the instruction and above
//! the step's caption, drawn with an 8×8 bitmap font (ASCII and Latin-1) and 16×16 glyphs for
//! the Chinese the core's own messages use (`cjk_glyphs`); other characters show as `?`.
//! Plays in any browser, chat or slide, with no player.

use super::cjk_glyphs::GLYPHS as CJK;
use crate::agent::record::{Run, StepKind};
use crate::vision::pipeline::{decode_data_url, resize};
use image::{Rgba, RgbaImage};
use std::collections::HashMap;

const WIDTH: u32 = 800;
const MAX_HEIGHT: u32 = 1600;
const SCALE: u32 = 2;
const GLYPH: u32 = 8 * SCALE;
const PAD: u32 = 8;
const FRAME_MS: u32 = 1400;
const LAST_MS: u32 = 3000;
const INK: Rgba<u8> = Rgba([255, 255, 255, 255]);
const BAR: Rgba<u8> = Rgba([29, 33, 39, 255]);
const ACCENT: Rgba<u8> = Rgba([47, 111, 237, 255]);
/// Caption lines under every frame: two for the step, one for the outcome on the last.
const CAPTION_LINES: u32 = 3;

#[derive(Debug, thiserror::Error)]
pub enum GifError {
    #[error("the GIF could not be encoded: {0}")]
    Encode(String),
}

impl From<GifError> for crate::agent::RunError {
    fn from(e: GifError) -> Self {
        crate::agent::RunError::Gif(e.to_string())
    }
}

/// `images`: image reference → data URL, for the references the run's steps use. A run without
/// screenshots gives one card with its instruction and outcome.
pub fn to_gif(run: &Run, images: &HashMap<String, String>) -> Result<Vec<u8>, GifError> {
    let shots: Vec<(usize, &crate::agent::record::Step, image::RgbImage)> = run
        .steps
        .iter()
        .enumerate()
        .filter_map(|(i, s)| {
            let url = images.get(s.screenshot.as_deref()?)?;
            decode_data_url(url).ok().map(|img| (i, s, img))
        })
        .collect();
    let mut frames = Vec::new();
    let lang = run.language;
    let outcome = lang.say(&format!("status.{}", format!("{:?}", run.status).to_lowercase()), &[]);
    if shots.is_empty() {
        let card = RgbaImage::from_pixel(WIDTH, 200, Rgba([246, 247, 249, 255]));
        frames.push((
            compose(card, &run.instruction, &[lang.say("gif.no_screenshots", &[("outcome", &outcome)])]),
            LAST_MS,
        ));
    }
    let total = shots.len();
    // Every frame has the first one's size: a GIF's frames share one screen.
    let mut page_h = None;
    for (k, (_, step, img)) in shots.into_iter().enumerate() {
        let (nw, nh) = fitted(img.dimensions());
        let rgb = resize(img, nw, nh);
        // Opaque, pixel by pixel (image's DynamicImage conversion would compile every layout's).
        let scaled = RgbaImage::from_fn(nw, nh, |x, y| {
            let [r, g, b] = rgb.get_pixel(x, y).0;
            Rgba([r, g, b, 255])
        });
        let height = *page_h.get_or_insert(nh);
        let mut page = RgbaImage::from_pixel(WIDTH, height, Rgba([255, 255, 255, 255]));
        image::imageops::overlay(&mut page, &scaled, 0, 0);
        let what = if step.kind == StepKind::Plan && !step.thought.is_empty() {
            format!("{} - {}", step.action, step.thought)
        } else {
            step.action.clone()
        };
        let mut caption = wrap(&format!("{}/{} {}", k + 1, total, what), 2);
        if k + 1 == total {
            caption.push(lang.say("gif.run_ended", &[("outcome", &outcome)]));
        }
        frames.push((compose(page, &run.instruction, &caption), if k + 1 == total { LAST_MS } else { FRAME_MS }));
    }
    encode(frames)
}

/// Frames (all one size: the first sets the GIF's screen) → the animated GIF, looping. Written
/// with the gif crate itself: image's GIF codec around it added a second layer to the module.
fn encode(frames: Vec<(RgbaImage, u32)>) -> Result<Vec<u8>, GifError> {
    let fail = |e: gif::EncodingError| GifError::Encode(e.to_string());
    let side = |v: u32| u16::try_from(v).map_err(|_| GifError::Encode(format!("a frame is {v} pixels across")));
    let (width, height) = frames.first().map_or((1, 1), |(img, _)| img.dimensions());
    let mut out = Vec::new();
    {
        let mut encoder = gif::Encoder::new(&mut out, side(width)?, side(height)?, &[]).map_err(fail)?;
        encoder.set_repeat(gif::Repeat::Infinite).map_err(fail)?;
        for (img, ms) in frames {
            let (w, h) = img.dimensions();
            let mut pixels = img.into_raw();
            // Speed 10 of 1–30: NeuQuant's quality/time balance for screenshots.
            let mut frame = gif::Frame::from_rgba_speed(side(w)?, side(h)?, &mut pixels, 10);
            frame.delay = u16::try_from(ms / 10).unwrap_or(u16::MAX); // hundredths of a second
            encoder.write_frame(&frame).map_err(fail)?;
        }
    }
    Ok(out)
}

/// A screenshot's size in the GIF: WIDTH wide, unless that would make it taller than
/// MAX_HEIGHT (a full-page capture, or a hostile 1×20000 image in a loaded trajectory), then
/// MAX_HEIGHT tall. The aspect ratio is kept.
fn fitted((w, h): (u32, u32)) -> (u32, u32) {
    let (w, h) = (w.max(1) as f64, h.max(1) as f64);
    let scale = (WIDTH as f64 / w).min(MAX_HEIGHT as f64 / h);
    (((w * scale).round() as u32).clamp(1, WIDTH), ((h * scale).round() as u32).clamp(1, MAX_HEIGHT))
}

/// The page between a title bar (the instruction) and a caption bar.
fn compose(page: RgbaImage, title: &str, caption: &[String]) -> RgbaImage {
    let title_h = GLYPH + 2 * PAD;
    let caption_h = CAPTION_LINES * (GLYPH + 4) + 2 * PAD;
    let (w, h) = (page.width(), title_h + page.height() + caption_h);
    let mut out = RgbaImage::from_pixel(w, h, BAR);
    image::imageops::overlay(&mut out, &page, 0, title_h as i64);
    for x in 0..w {
        out.put_pixel(x, title_h - 2, ACCENT);
        out.put_pixel(x, title_h - 1, ACCENT);
    }
    let fits = (w - 2 * PAD) / GLYPH;
    draw_text(&mut out, &ellipsize(title, fits as usize), PAD, PAD);
    for (i, line) in caption.iter().enumerate() {
        draw_text(
            &mut out,
            &ellipsize(line, fits as usize),
            PAD,
            title_h + page.height() + PAD + i as u32 * (GLYPH + 4),
        );
    }
    out
}

fn draw_text(img: &mut RgbaImage, text: &str, x: u32, y: u32) {
    let mut dot = |px: u32, py: u32| {
        if px < img.width() && py < img.height() {
            img.put_pixel(px, py, INK);
        }
    };
    for (i, c) in text.chars().enumerate() {
        let left = x + i as u32 * GLYPH;
        match glyph(c) {
            Glyph::Narrow(rows) => {
                for (row, bits) in rows.iter().enumerate() {
                    for col in (0..8u32).filter(|col| bits >> col & 1 == 1) {
                        for (dx, dy) in (0..SCALE).flat_map(|dx| (0..SCALE).map(move |dy| (dx, dy))) {
                            dot(left + col * SCALE + dx, y + row as u32 * SCALE + dy);
                        }
                    }
                }
            }
            // 16×16 at scale 1: the same cell an 8×8 glyph fills at scale 2.
            Glyph::Wide(rows) => {
                for (row, bits) in rows.iter().enumerate() {
                    for col in (0..16u32).filter(|col| bits >> (15 - col) & 1 == 1) {
                        dot(left + col, y + row as u32);
                    }
                }
            }
        }
    }
}

enum Glyph {
    /// 8×8, bit 0 the leftmost pixel (font8x8).
    Narrow([u8; 8]),
    /// 16×16, bit 15 the leftmost pixel (Unifont).
    Wide([u16; 16]),
}

/// How `c` is drawn: the Chinese of the core's messages from `cjk_glyphs`, the rest by the
/// 8×8 font.
fn glyph(c: char) -> Glyph {
    match CJK.binary_search_by_key(&c, |(k, _)| *k) {
        Ok(i) => Glyph::Wide(CJK[i].1),
        Err(_) => Glyph::Narrow(narrow_glyph(c)),
    }
}

/// Rows of `c` in the 8×8 font (bit 0 is the leftmost pixel); typographic quotes and dashes as
/// their ASCII kin, anything else it lacks as `?`.
fn narrow_glyph(c: char) -> [u8; 8] {
    let c = match c {
        '\u{2018}' | '\u{2019}' => '\'',
        '\u{201c}' | '\u{201d}' => '"',
        '\u{2013}' | '\u{2014}' | '\u{2192}' => '-',
        '\u{2026}' => '.',
        c => c,
    };
    let n = c as u32;
    match n {
        0x20..=0x7e => font8x8::legacy::BASIC_LEGACY[n as usize],
        0xa0..=0xff => font8x8::legacy::LATIN_LEGACY[(n - 0xa0) as usize],
        _ => font8x8::legacy::BASIC_LEGACY['?' as usize],
    }
}

/// Splits into at most `lines` lines of about 48 characters, at spaces where it can.
fn wrap(text: &str, lines: usize) -> Vec<String> {
    const LINE: usize = 48;
    let mut out: Vec<String> = Vec::new();
    let mut current = String::new();
    // Words longer than a line (Chinese has no spaces between words) break anywhere.
    let chunks = text.split_whitespace().flat_map(|word| {
        let chars: Vec<char> = word.chars().collect();
        chars.chunks(LINE).map(|c| c.iter().collect::<String>()).collect::<Vec<_>>()
    });
    for word in chunks {
        if !current.is_empty() && current.chars().count() + 1 + word.chars().count() > LINE {
            out.push(std::mem::take(&mut current));
        }
        if !current.is_empty() {
            current.push(' ');
        }
        current.push_str(&word);
    }
    if !current.is_empty() {
        out.push(current);
    }
    if out.len() > lines {
        let rest = out.split_off(lines - 1).join(" ");
        out.push(rest);
    }
    out
}

fn ellipsize(s: &str, max: usize) -> String {
    if s.chars().count() <= max {
        return s.to_string();
    }
    let mut t: String = s.chars().take(max.saturating_sub(3)).collect();
    t.push_str("...");
    t
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::i18n::ZH_CN;

    #[test]
    fn every_chinese_character_of_the_messages_has_a_glyph() {
        // Regenerate with scripts/gen-cjk-glyphs.mjs when a message gains a character.
        let missing: String = ZH_CN
            .iter()
            .flat_map(|(_, text)| text.chars())
            .filter(|&c| c as u32 >= 0x2e80 && matches!(glyph(c), Glyph::Narrow(_)))
            .collect();
        assert_eq!(missing, "", "characters GIF captions would draw as ?");
        assert!(CJK.windows(2).all(|w| w[0].0 < w[1].0), "sorted, for the binary search");
    }

    #[test]
    fn a_chinese_caption_draws_its_glyphs_not_question_marks() {
        let drawn = |text: &str| {
            let mut img = RgbaImage::from_pixel(GLYPH * 8, GLYPH, BAR);
            draw_text(&mut img, text, 0, 0);
            img
        };
        let caption = crate::i18n::Lang::ZhCn.say("status.succeeded", &[]) + "运行";
        assert_eq!(caption.chars().count(), 4);
        assert_ne!(drawn(&caption), drawn("????"), "drawn with its own glyphs");
        assert_ne!(drawn("成功"), drawn("失败"), "different characters, different glyphs");
        assert!(drawn("成").pixels().any(|p| *p == INK));
    }
}
