//! Drawing on an RGB image: rectangles, labels, points. Everything is clipped to the image, so
//! a box that runs off the edge (or a hostile rect far outside it) draws only what shows.

use super::font;
use image::RgbImage;

pub type Rgb = [u8; 3];

/// A rectangle in whole image pixels.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PixelRect {
    pub x: i64,
    pub y: i64,
    pub w: i64,
    pub h: i64,
}

impl PixelRect {
    pub fn right(&self) -> i64 {
        self.x + self.w
    }
    pub fn bottom(&self) -> i64 {
        self.y + self.h
    }
    pub fn intersects(&self, o: &PixelRect) -> bool {
        self.x < o.right() && o.x < self.right() && self.y < o.bottom() && o.y < self.bottom()
    }
    pub fn contains(&self, o: &PixelRect) -> bool {
        self.x <= o.x && self.y <= o.y && self.right() >= o.right() && self.bottom() >= o.bottom()
    }
    pub fn overlap_area(&self, o: &PixelRect) -> i64 {
        let w = self.right().min(o.right()) - self.x.max(o.x);
        let h = self.bottom().min(o.bottom()) - self.y.max(o.y);
        if w > 0 && h > 0 {
            w * h
        } else {
            0
        }
    }
}

pub fn fill_rect(img: &mut RgbImage, r: PixelRect, color: Rgb) {
    let (iw, ih) = (img.width() as i64, img.height() as i64);
    let (x0, x1) = (r.x.clamp(0, iw), r.right().clamp(0, iw));
    let (y0, y1) = (r.y.clamp(0, ih), r.bottom().clamp(0, ih));
    if x0 >= x1 || y0 >= y1 {
        return;
    }
    let stride = iw as usize * 3;
    let buf: &mut [u8] = img.as_mut();
    for y in y0..y1 {
        let row = &mut buf[y as usize * stride + x0 as usize * 3..y as usize * stride + x1 as usize * 3];
        for px in row.chunks_exact_mut(3) {
            px.copy_from_slice(&color);
        }
    }
}

/// An outline `thickness` pixels wide, drawn inside `r`.
pub fn stroke_rect(img: &mut RgbImage, r: PixelRect, thickness: i64, color: Rgb) {
    let t = thickness.max(1).min(r.w.max(1)).min(r.h.max(1));
    fill_rect(img, PixelRect { x: r.x, y: r.y, w: r.w, h: t }, color);
    fill_rect(img, PixelRect { x: r.x, y: r.bottom() - t, w: r.w, h: t }, color);
    fill_rect(img, PixelRect { x: r.x, y: r.y, w: t, h: r.h }, color);
    fill_rect(img, PixelRect { x: r.right() - t, y: r.y, w: t, h: r.h }, color);
}

/// Blends `color` over the rectangle at `alpha` (0..=255): a tint that keeps the page readable.
pub fn tint_rect(img: &mut RgbImage, r: PixelRect, color: Rgb, alpha: u8) {
    let (iw, ih) = (img.width() as i64, img.height() as i64);
    let (x0, x1) = (r.x.clamp(0, iw), r.right().clamp(0, iw));
    let (y0, y1) = (r.y.clamp(0, ih), r.bottom().clamp(0, ih));
    let a = alpha as u32;
    for y in y0..y1 {
        for x in x0..x1 {
            let p = img.get_pixel_mut(x as u32, y as u32);
            for (channel, &paint) in p.0.iter_mut().zip(color.iter()) {
                *channel = ((*channel as u32 * (255 - a) + paint as u32 * a) / 255) as u8;
            }
        }
    }
}

/// The size of a label showing `text` at font `scale`: the digits plus a `scale`-wide margin.
pub fn label_size(text: &str, scale: u32) -> (i64, i64) {
    let (w, h) = font::text_size(text, scale);
    ((w + 2 * scale) as i64, (h + 2 * scale) as i64)
}

/// A filled label with the digits of `text` in the readable ink for its background.
pub fn label(img: &mut RgbImage, at: PixelRect, text: &str, scale: u32, background: Rgb) {
    fill_rect(img, at, background);
    let ink = ink_for(background);
    let m = scale as i64;
    font::for_each_dot(text, at.x + m, at.y + m, scale, |x, y, s| {
        fill_rect(img, PixelRect { x, y, w: s as i64, h: s as i64 }, ink);
    });
}

/// Black on light backgrounds, white on dark ones (relative luminance).
pub fn ink_for(bg: Rgb) -> Rgb {
    let l = 0.2126 * bg[0] as f64 + 0.7152 * bg[1] as f64 + 0.0722 * bg[2] as f64;
    if l > 150.0 {
        [0, 0, 0]
    } else {
        [255, 255, 255]
    }
}

/// A crosshair in a square: where a model pointed.
pub fn point(img: &mut RgbImage, (x, y): (i64, i64), radius: i64, color: Rgb) {
    let r = radius.max(3);
    let t = (r / 4).max(1);
    fill_rect(img, PixelRect { x: x - r, y: y - t / 2, w: 2 * r + 1, h: t }, color);
    fill_rect(img, PixelRect { x: x - t / 2, y: y - r, w: t, h: 2 * r + 1 }, color);
    stroke_rect(img, PixelRect { x: x - r, y: y - r, w: 2 * r + 1, h: 2 * r + 1 }, t, color);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn drawing_is_clipped_to_the_image() {
        let mut img = RgbImage::from_pixel(10, 10, image::Rgb([255, 255, 255]));
        fill_rect(&mut img, PixelRect { x: -5, y: 8, w: 100, h: 100 }, [1, 2, 3]);
        assert_eq!(img.get_pixel(0, 9).0, [1, 2, 3]);
        assert_eq!(img.get_pixel(0, 7).0, [255, 255, 255]);
        fill_rect(&mut img, PixelRect { x: i64::MAX / 4, y: -i64::MAX / 4, w: 3, h: 3 }, [9, 9, 9]);
        stroke_rect(&mut img, PixelRect { x: 2, y: 2, w: 4, h: 4 }, 1, [0, 0, 0]);
        assert_eq!(img.get_pixel(2, 2).0, [0, 0, 0]);
        assert_eq!(img.get_pixel(3, 3).0, [255, 255, 255]);
        point(&mut img, (5, 5), 3, [7, 7, 7]);
        assert_eq!(img.get_pixel(5, 5).0, [7, 7, 7]);
    }

    #[test]
    fn ink_contrasts_with_the_label() {
        assert_eq!(ink_for([255, 225, 25]), [0, 0, 0]);
        assert_eq!(ink_for([0, 90, 200]), [255, 255, 255]);
    }
}
