//! Rectangles in CSS pixels, relative to the top-left of the viewport.

use serde::{Deserialize, Serialize};

#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Rect {
    pub x: f64,
    pub y: f64,
    pub width: f64,
    pub height: f64,
}

impl Rect {
    pub fn new(x: f64, y: f64, width: f64, height: f64) -> Self {
        Rect { x, y, width, height }
    }

    pub fn center(&self) -> (f64, f64) {
        (self.x + self.width / 2.0, self.y + self.height / 2.0)
    }

    pub fn right(&self) -> f64 {
        self.x + self.width
    }

    pub fn bottom(&self) -> f64 {
        self.y + self.height
    }

    /// Whether the point lies inside: the left and top edges in, the right and bottom out, as
    /// a browser hit-tests (two boxes that touch never both hold a point).
    pub fn contains(&self, x: f64, y: f64) -> bool {
        x >= self.x && x < self.right() && y >= self.y && y < self.bottom()
    }

    pub fn translate(&self, dx: f64, dy: f64) -> Rect {
        Rect::new(self.x + dx, self.y + dy, self.width, self.height)
    }

    /// Area of the overlap with `other`, zero when they do not meet.
    pub fn intersection_area(&self, other: &Rect) -> f64 {
        let w = self.right().min(other.right()) - self.x.max(other.x);
        let h = self.bottom().min(other.bottom()) - self.y.max(other.y);
        if w > 0.0 && h > 0.0 {
            w * h
        } else {
            0.0
        }
    }

    /// Whether the two meet: some of one lies inside the other, or a zero-size one lies on the other.
    pub fn meets(&self, other: &Rect) -> bool {
        self.x <= other.right() && other.x <= self.right() && self.y <= other.bottom() && other.y <= self.bottom()
    }

    /// Fraction of this rectangle inside `other` (0 for an empty rectangle).
    pub fn fraction_inside(&self, other: &Rect) -> f64 {
        let area = self.width * self.height;
        if area <= 0.0 {
            return 0.0;
        }
        self.intersection_area(other) / area
    }
}

/// A browser window's size in CSS px: what an export or a flow file sets up before its steps.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct WindowSize {
    pub width: u32,
    pub height: u32,
}

impl Default for WindowSize {
    fn default() -> Self {
        WindowSize { width: 1280, height: 800 }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fraction_inside_counts_partial_overlap() {
        let viewport = Rect::new(0.0, 0.0, 100.0, 100.0);
        assert_eq!(Rect::new(50.0, 0.0, 100.0, 10.0).fraction_inside(&viewport), 0.5);
        assert_eq!(Rect::new(200.0, 0.0, 10.0, 10.0).fraction_inside(&viewport), 0.0);
        assert_eq!(Rect::new(0.0, 0.0, 0.0, 10.0).fraction_inside(&viewport), 0.0);
    }

    #[test]
    fn contains_takes_the_top_left_edges_not_the_bottom_right() {
        let r = Rect::new(10.0, 20.0, 30.0, 40.0);
        assert!(r.contains(10.0, 20.0) && r.contains(39.9, 59.9) && r.contains(25.0, 40.0));
        assert!(
            !r.contains(40.0, 30.0) && !r.contains(20.0, 60.0) && !r.contains(9.9, 30.0) && !r.contains(20.0, 19.9)
        );
        let touching = Rect::new(40.0, 20.0, 30.0, 40.0);
        assert!(!(r.contains(40.0, 30.0) && touching.contains(40.0, 30.0)) && touching.contains(40.0, 30.0));
    }

    #[test]
    fn center_is_middle() {
        assert_eq!(Rect::new(10.0, 20.0, 30.0, 40.0).center(), (25.0, 40.0));
    }
}
