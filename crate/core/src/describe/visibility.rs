//! Which part of an element a person can see: what is left after ancestors that hide or scroll
//! their overflow (with `position: absolute` and `fixed` escaping them as CSS says), and the
//! point to hit-test for whether something else covers it.

use crate::snapshot::{Overflow, PageSnapshot, Positioning, TreeKind};
use crate::vocab::geometry::Rect;

/// What an element's positioning lets it escape, walking up from it.
#[derive(Clone, Copy, PartialEq)]
enum Escape {
    /// Every ancestor's clip applies.
    Nothing,
    /// `position: absolute`: clips apply from the nearest positioned ancestor up.
    ToPositioned,
    /// `position: fixed`: only the frame's own viewport clips it.
    ToFrame,
}

impl Escape {
    fn of(p: Positioning) -> Escape {
        match p {
            Positioning::Absolute => Escape::ToPositioned,
            Positioning::Fixed => Escape::ToFrame,
            _ => Escape::Nothing,
        }
    }
}

/// The part of node `i`'s box `rect` its ancestors let show, in viewport CSS pixels.
/// `None` when an ancestor that hides its overflow cuts it away entirely. A box scrolled out
/// of a scrollable ancestor (or frame) keeps existing but shows nothing: a zero-size rect.
pub fn visible_part(snapshot: &PageSnapshot, i: usize, rect: Rect) -> Option<Rect> {
    let nodes = &snapshot.nodes;
    let (mut left, mut top, mut right, mut bottom) = (rect.x, rect.y, rect.right(), rect.bottom());
    let mut scrolled_away = false;
    let mut escape = Escape::of(nodes[i].positioning.unwrap_or_default());
    let mut child = i;
    while let Some(a) = nodes[child].parent.map(|p| p as usize) {
        if nodes[child].enters == Some(TreeKind::Frame) {
            escape = Escape::Nothing; // nothing inside a frame escapes the frame's box
        }
        let ancestor = &nodes[a];
        let positioning = ancestor.positioning.unwrap_or_default();
        let applies = match escape {
            Escape::Nothing => true,
            Escape::ToPositioned => positioning != Positioning::Static,
            Escape::ToFrame => false,
        };
        if let (true, Some(clip), Some(r)) = (applies, ancestor.clip, ancestor.rect) {
            for (overflow, lo, hi, min, max) in
                [(clip.x, &mut left, &mut right, r.x, r.right()), (clip.y, &mut top, &mut bottom, r.y, r.bottom())]
            {
                if overflow == Overflow::Visible {
                    continue;
                }
                let (new_lo, new_hi) = (lo.max(min), hi.min(max));
                if new_lo >= new_hi {
                    if overflow == Overflow::Hidden && !scrolled_away {
                        return None;
                    }
                    scrolled_away = true;
                } else if !scrolled_away {
                    (*lo, *hi) = (new_lo, new_hi);
                }
            }
        }
        escape = match escape {
            Escape::ToFrame => Escape::ToFrame,
            Escape::ToPositioned if positioning == Positioning::Static => Escape::ToPositioned,
            _ => Escape::of(positioning),
        };
        child = a;
    }
    if scrolled_away {
        return Some(Rect::new(left, top, 0.0, 0.0));
    }
    Some(Rect::new(left, top, right - left, bottom - top))
}

/// Whether clipping is worked out for a box: only where it reaches into the viewport. What is
/// out of view is listed as out of view either way, and checking it would mean reading every
/// ancestor of every element on the page.
pub fn is_clip_checked(snapshot: &PageSnapshot, rect: &Rect) -> bool {
    rect.intersection_area(&snapshot.viewport.rect()) > 0.0
}

/// True when an ancestor's box `outer` leaves part of `inner` outside: only then can its
/// overflow setting matter (a walker reads `overflow` for these ancestors only).
pub fn may_clip(outer: &Rect, inner: &Rect) -> bool {
    !contains(outer, inner)
}

/// Of `candidates` (nodes with boxes that may become elements), the nodes whose CSS `position`
/// decides a clip: every node from a clip-checked candidate up to each clipping ancestor that
/// does not already contain the candidate's box. A walker reads `position` for these only.
pub fn nodes_needing_positioning(snapshot: &PageSnapshot, candidates: &[u32]) -> Vec<u32> {
    let nodes = &snapshot.nodes;
    let mut needed = vec![false; nodes.len()];
    let mut chain: Vec<usize> = Vec::new();
    for &c in candidates {
        let c = c as usize;
        let Some(rect) = nodes[c].rect.filter(|r| is_clip_checked(snapshot, r)) else { continue };
        chain.clear();
        chain.push(c);
        let mut cur = nodes[c].parent.map(|p| p as usize);
        while let Some(a) = cur {
            chain.push(a);
            let ancestor = &nodes[a];
            if let (Some(_), Some(r)) = (ancestor.clip, ancestor.rect) {
                if may_clip(&r, &rect) {
                    for &n in &chain {
                        needed[n] = true;
                    }
                    chain.clear();
                }
            }
            cur = ancestor.parent.map(|p| p as usize);
        }
    }
    needed.iter().enumerate().filter(|(_, &n)| n).map(|(i, _)| i as u32).collect()
}

fn contains(outer: &Rect, inner: &Rect) -> bool {
    inner.x >= outer.x && inner.y >= outer.y && inner.right() <= outer.right() && inner.bottom() <= outer.bottom()
}

/// Where to ask "what is on top here?" for an element: the middle of its visible part inside
/// the viewport, or `None` when none of it is in view.
pub fn hit_point(visible: &Rect, viewport: &Rect) -> Option<(f64, f64)> {
    let l = visible.x.max(viewport.x);
    let t = visible.y.max(viewport.y);
    let r = visible.right().min(viewport.right());
    let b = visible.bottom().min(viewport.bottom());
    (r > l && b > t).then(|| ((l + r) / 2.0, (t + b) / 2.0))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::snapshot::test_support::Builder;
    use crate::snapshot::Clip;

    fn r(x: f64, y: f64, w: f64, h: f64) -> Rect {
        Rect::new(x, y, w, h)
    }

    const HIDDEN: Clip = Clip { x: Overflow::Hidden, y: Overflow::Hidden };

    #[test]
    fn hidden_overflow_cuts_and_removes() {
        let mut b = Builder::new();
        let html = b.el(None, "html", &[], r(0.0, 0.0, 1280.0, 800.0));
        let strip = b.el(Some(html), "div", &[], r(0.0, 0.0, 300.0, 100.0));
        b.node_mut(strip).clip = Some(HIDDEN);
        let half = b.el(Some(strip), "button", &[], r(250.0, 10.0, 100.0, 30.0));
        let gone = b.el(Some(strip), "button", &[], r(600.0, 10.0, 100.0, 30.0));
        let s = &b.snap;
        assert_eq!(
            visible_part(s, half as usize, s.nodes[half as usize].rect.unwrap()),
            Some(r(250.0, 10.0, 50.0, 30.0))
        );
        assert_eq!(visible_part(s, gone as usize, s.nodes[gone as usize].rect.unwrap()), None);
    }

    #[test]
    fn scrolled_out_of_a_scroll_box_is_kept_with_nothing_showing() {
        let mut b = Builder::new();
        let html = b.el(None, "html", &[], r(0.0, 0.0, 1280.0, 800.0));
        let list = b.el(Some(html), "div", &[], r(0.0, 0.0, 300.0, 100.0));
        b.node_mut(list).clip = Some(Clip { x: Overflow::Visible, y: Overflow::Scroll });
        let below = b.el(Some(list), "button", &[], r(0.0, 400.0, 100.0, 30.0));
        let part = visible_part(&b.snap, below as usize, r(0.0, 400.0, 100.0, 30.0)).unwrap();
        assert_eq!((part.width, part.height), (0.0, 0.0));
    }

    #[test]
    fn absolute_escapes_static_clippers_but_not_positioned_ones() {
        let mut b = Builder::new();
        let html = b.el(None, "html", &[], r(0.0, 0.0, 1280.0, 800.0));
        let positioned = b.el(Some(html), "div", &[], r(0.0, 0.0, 1000.0, 500.0));
        b.node_mut(positioned).positioning = Some(Positioning::Relative);
        b.node_mut(positioned).clip = Some(HIDDEN);
        let clipper = b.el(Some(positioned), "div", &[], r(0.0, 0.0, 100.0, 100.0));
        b.node_mut(clipper).clip = Some(HIDDEN);
        let menu = b.el(Some(clipper), "ul", &[], r(0.0, 90.0, 200.0, 300.0));
        b.node_mut(menu).positioning = Some(Positioning::Absolute);
        let item = b.el(Some(menu), "button", &[], r(0.0, 200.0, 150.0, 30.0));
        // The static clipper would cut the item away; the menu escapes it.
        assert_eq!(visible_part(&b.snap, item as usize, r(0.0, 200.0, 150.0, 30.0)), Some(r(0.0, 200.0, 150.0, 30.0)));
        let beyond = b.el(Some(menu), "button", &[], r(0.0, 480.0, 150.0, 30.0));
        assert_eq!(
            visible_part(&b.snap, beyond as usize, r(0.0, 480.0, 150.0, 30.0)),
            Some(r(0.0, 480.0, 150.0, 20.0))
        );
    }

    #[test]
    fn fixed_escapes_everything_but_its_frame() {
        let mut b = Builder::new();
        let html = b.el(None, "html", &[], r(0.0, 0.0, 1280.0, 800.0));
        let clipper = b.el(Some(html), "div", &[], r(0.0, 0.0, 100.0, 100.0));
        b.node_mut(clipper).clip = Some(HIDDEN);
        let bar = b.el(Some(clipper), "button", &[], r(0.0, 700.0, 300.0, 50.0));
        b.node_mut(bar).positioning = Some(Positioning::Fixed);
        assert_eq!(visible_part(&b.snap, bar as usize, r(0.0, 700.0, 300.0, 50.0)), Some(r(0.0, 700.0, 300.0, 50.0)));

        let frame = b.el(Some(html), "iframe", &[], r(0.0, 0.0, 200.0, 200.0));
        b.node_mut(frame).clip = Some(Clip::FRAME);
        let inner = b.el(Some(frame), "html", &[], r(0.0, 0.0, 200.0, 200.0));
        b.node_mut(inner).enters = Some(TreeKind::Frame);
        let fixed_in_frame = b.el(Some(inner), "button", &[], r(150.0, 150.0, 100.0, 100.0));
        b.node_mut(fixed_in_frame).positioning = Some(Positioning::Fixed);
        assert_eq!(
            visible_part(&b.snap, fixed_in_frame as usize, r(150.0, 150.0, 100.0, 100.0)),
            Some(r(150.0, 150.0, 50.0, 50.0))
        );
    }

    #[test]
    fn positioning_is_needed_only_where_a_clip_could_cut() {
        let mut b = Builder::new();
        let html = b.el(None, "html", &[], r(0.0, 0.0, 1280.0, 800.0));
        let roomy = b.el(Some(html), "div", &[], r(0.0, 0.0, 1000.0, 800.0));
        b.node_mut(roomy).clip = Some(HIDDEN);
        let inside = b.el(Some(roomy), "button", &[], r(0.0, 0.0, 100.0, 30.0));
        let tight = b.el(Some(roomy), "div", &[], r(0.0, 100.0, 50.0, 50.0));
        b.node_mut(tight).clip = Some(HIDDEN);
        let wrapper = b.el(Some(tight), "span", &[], r(0.0, 100.0, 50.0, 50.0));
        let sticking_out = b.el(Some(wrapper), "button", &[], r(0.0, 100.0, 200.0, 30.0));
        assert_eq!(nodes_needing_positioning(&b.snap, &[inside, sticking_out]), vec![tight, wrapper, sticking_out]);
    }

    #[test]
    fn hit_point_is_inside_the_viewport() {
        let vp = r(0.0, 0.0, 100.0, 100.0);
        assert_eq!(hit_point(&r(50.0, 50.0, 100.0, 100.0), &vp), Some((75.0, 75.0)));
        assert_eq!(hit_point(&r(0.0, 200.0, 10.0, 10.0), &vp), None);
    }
}
