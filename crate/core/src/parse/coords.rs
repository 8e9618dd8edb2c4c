//! Coordinates as grounding models write them, mapped to viewport CSS pixels through the
//! image mapping of the screenshot they saw (`vision::ImageMapping`).
//!
//! Spellings read: `(x,y)`, `[x1,y1,x2,y2]`, `x y`, `"x y x y"`, `<point>x y</point>`,
//! `<bbox>x1 y1 x2 y2</bbox>`, `<|box_start|>(x,y)<|box_end|>`, nested arrays `[[x,y]]`.
//! Two numbers are a point; four are a box, acted on at its centre.

use super::ParseError;
use crate::vision::ImageMapping;
use crate::vocab::family::CoordSpace;
use crate::vocab::geometry::Rect;

/// What a model pointed at, in viewport CSS pixels.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Spot {
    Point(f64, f64),
    Box(Rect),
}

impl Spot {
    pub fn center(&self) -> (f64, f64) {
        match self {
            Spot::Point(x, y) => (*x, *y),
            Spot::Box(r) => r.center(),
        }
    }
}

/// Every number in `text`, in order, after dropping the box/point markup around them.
pub fn numbers_in(text: &str) -> Vec<f64> {
    let cleaned = text.replace("<|box_start|>", " ").replace("<|box_end|>", " ");
    let mut out = Vec::new();
    let mut current = String::new();
    let flush = |current: &mut String, out: &mut Vec<f64>| {
        if let Ok(n) = current.parse::<f64>() {
            out.push(n);
        }
        current.clear();
    };
    for c in cleaned.chars() {
        let continues = c.is_ascii_digit() || c == '.' || (c == '-' && current.is_empty());
        if continues {
            current.push(c);
        } else {
            flush(&mut current, &mut out);
        }
    }
    flush(&mut current, &mut out);
    out
}

/// The spot written in `text`, mapped to CSS pixels.
pub fn spot(text: &str, space: CoordSpace, mapping: &ImageMapping) -> Result<Spot, ParseError> {
    spot_from(&numbers_in(text), space, mapping)
        .map_err(|problem| ParseError::Coordinates { text: text.trim().to_string(), problem })
}

pub fn spot_from(nums: &[f64], space: CoordSpace, mapping: &ImageMapping) -> Result<Spot, String> {
    let nums: Vec<f64> = match (space, nums.len()) {
        (_, 2) | (_, 4) => nums.to_vec(),
        (_, n) => return Err(format!("expected 2 numbers (a point) or 4 (a box), found {n}")),
    };
    if let Some(bad) = nums.iter().find(|n| !n.is_finite()) {
        return Err(format!("{bad} is not a coordinate"));
    }
    // To image pixels, per axis.
    let (w, h) = (mapping.width as f64, mapping.height as f64);
    let image: Vec<(f64, f64)> = match space {
        CoordSpace::ImagePixels => {
            check_range(&nums, |i| if i % 2 == 0 { w } else { h }, "the image")?;
            nums.chunks(2).map(|p| (p[0], p[1])).collect()
        }
        CoordSpace::Relative { range } => {
            check_range(&nums, |_| range, &format!("0–{range}"))?;
            nums.chunks(2).map(|p| (p[0] / range * w, p[1] / range * h)).collect()
        }
        CoordSpace::GeminiYx => {
            check_range(&nums, |_| 1000.0, "0–1000")?;
            nums.chunks(2).map(|p| (p[1] / 1000.0 * w, p[0] / 1000.0 * h)).collect()
        }
    };
    for &(x, y) in &image {
        if !mapping.shows_page((x.min(w - 0.5).max(0.0), y.min(h - 0.5).max(0.0))) {
            return Err(format!("({x:.0}, {y:.0}) lies in the image's padding, not on the page"));
        }
    }
    let css: Vec<(f64, f64)> = image.iter().map(|&p| mapping.image_to_css(p)).collect();
    Ok(match css.as_slice() {
        [(x, y)] => Spot::Point(*x, *y),
        [(x0, y0), (x1, y1)] => {
            let (left, right) = (x0.min(*x1), x0.max(*x1));
            let (top, bottom) = (y0.min(*y1), y0.max(*y1));
            Spot::Box(Rect::new(left, top, right - left, bottom - top))
        }
        _ => unreachable!("2 or 4 numbers"),
    })
}

fn check_range(nums: &[f64], limit: impl Fn(usize) -> f64, what: &str) -> Result<(), String> {
    for (i, &n) in nums.iter().enumerate() {
        // Half a unit of slack: models round the far edge up.
        if n < -0.5 || n > limit(i) + 0.5 {
            return Err(format!("{n} lies outside {what} ({})", if i % 2 == 0 { "x" } else { "y" }));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn mapping(w: u32, h: u32) -> ImageMapping {
        ImageMapping::identity(w, h, 1.0)
    }

    #[test]
    fn every_spelling_reads() {
        for text in [
            "(100,200)",
            "[100, 200]",
            "100 200",
            "<point>100 200</point>",
            "<|box_start|>(100,200)<|box_end|>",
            "[[100,200]]",
            "'(100, 200)'",
        ] {
            assert_eq!(numbers_in(text), vec![100.0, 200.0], "{text}");
        }
        assert_eq!(numbers_in("<bbox>10 20 30 40</bbox>"), vec![10.0, 20.0, 30.0, 40.0]);
        assert_eq!(numbers_in("x1=-5.5,y=3"), vec![1.0, -5.5, 3.0]);
    }

    #[test]
    fn spaces_map_to_css() {
        let m = mapping(1280, 800);
        assert_eq!(spot("(640,400)", CoordSpace::ImagePixels, &m).unwrap(), Spot::Point(640.0, 400.0));
        assert_eq!(spot("(500,500)", CoordSpace::Relative { range: 1000.0 }, &m).unwrap(), Spot::Point(640.0, 400.0));
        assert_eq!(spot("[999,999]", CoordSpace::Relative { range: 999.0 }, &m).unwrap(), Spot::Point(1280.0, 800.0));
        // Gemini: y first.
        assert_eq!(spot("[250, 500, 750, 1000]", CoordSpace::GeminiYx, &m).unwrap().center(), (960.0, 400.0));
        let b = spot("<bbox>100 100 300 200</bbox>", CoordSpace::ImagePixels, &m).unwrap();
        assert_eq!(b, Spot::Box(Rect::new(100.0, 100.0, 200.0, 100.0)));
        // A 2× image: image pixels are halved.
        let hi = ImageMapping::identity(2560, 1600, 2.0);
        assert_eq!(spot("(1280, 800)", CoordSpace::ImagePixels, &hi).unwrap(), Spot::Point(640.0, 400.0));
    }

    #[test]
    fn out_of_range_is_a_clear_error() {
        let m = mapping(1280, 800);
        let e = spot("(1500, 10)", CoordSpace::ImagePixels, &m).unwrap_err();
        assert!(e.to_string().contains("1500 lies outside the image (x)"), "{e}");
        let e = spot("(10, 1200)", CoordSpace::Relative { range: 1000.0 }, &m).unwrap_err();
        assert!(e.to_string().contains("outside 0–1000 (y)"), "{e}");
        assert!(spot("(1, 2, 3)", CoordSpace::ImagePixels, &m).is_err());
        assert!(spot("", CoordSpace::ImagePixels, &m).is_err());
        let mut padded = m;
        padded.width = 1288;
        let e = spot("(1285, 10)", CoordSpace::ImagePixels, &padded).unwrap_err();
        assert!(e.to_string().contains("padding"), "{e}");
    }
}
