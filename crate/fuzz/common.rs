//! The first byte of an input picks the screenshot shape and coordinate space, so every
//! mapping a run can use is fuzzed, not only 1280×800 at DPR 1.
use sightline::vocab::family::CoordSpace;
use sightline::vision::ImageMapping;

pub fn split(data: &[u8]) -> Option<(u8, &str)> {
    let (&first, rest) = data.split_first()?;
    Some((first, std::str::from_utf8(rest).ok()?))
}

pub fn mapping(selector: u8) -> ImageMapping {
    let sizes = [(1280, 800, 1.0), (2560, 1600, 2.0), (1288, 812, 1.0), (1, 1, 1.0), (390, 844, 3.0)];
    let (w, h, dpr) = sizes[(selector & 0x0f) as usize % sizes.len()];
    ImageMapping::identity(w, h, dpr)
}

#[allow(dead_code)] // not every target reads a coordinate space
pub fn space(selector: u8) -> CoordSpace {
    match selector >> 6 {
        0 => CoordSpace::ImagePixels,
        1 => CoordSpace::Relative { range: 1000.0 },
        2 => CoordSpace::Relative { range: 999.0 },
        _ => CoordSpace::GeminiYx,
    }
}
