//! Where each marker's number goes. A label must stay inside the image, never overlap another
//! label, and overlap no other element's box (boxes that enclose its element, such as the
//! container a button sits in, excepted). Tried in order: left of the box, above, below,
//! right, inside its top-left corner; then positions slid along and away from the box. On a
//! page too dense for any clean spot, the label takes the free spot covering the least box area.

use super::draw::PixelRect;

/// Labels placed for `boxes`, each of the size `sizes[i]`, inside a `width` × `height` image.
pub fn place_labels(boxes: &[PixelRect], sizes: &[(i64, i64)], width: i64, height: i64) -> Vec<PixelRect> {
    let bounds = PixelRect { x: 0, y: 0, w: width, h: height };
    let mut placed: Vec<PixelRect> = Vec::with_capacity(boxes.len());
    for (i, (b, &(lw, lh))) in boxes.iter().zip(sizes).enumerate() {
        let own = clip(b, &bounds);
        let fits = |c: &PixelRect| bounds.contains(c) && !placed.iter().any(|l| l.intersects(c));
        let box_overlap = |c: &PixelRect| -> i64 {
            boxes
                .iter()
                .enumerate()
                .filter(|&(j, o)| j != i && !(o.contains(&own) && o.contains(c)))
                .map(|(_, o)| o.overlap_area(c))
                .sum()
        };
        let mut best: Option<(i64, PixelRect)> = None;
        let mut chosen = None;
        for (k, c) in candidates(&own, lw, lh).enumerate() {
            let c = nudge_inside(c, &bounds);
            // Only the "inside" candidate may sit on its own box.
            if !fits(&c) || (k != INSIDE && c.intersects(&own)) {
                continue;
            }
            let overlap = box_overlap(&c);
            if overlap == 0 {
                chosen = Some(c);
                break;
            }
            if best.is_none_or(|(o, _)| overlap < o) {
                best = Some((overlap, c));
            }
        }
        let label = chosen.or(best.map(|(_, c)| c)).unwrap_or_else(|| last_resort(&own, lw, lh, &bounds, &placed));
        placed.push(label);
    }
    placed
}

fn clip(r: &PixelRect, bounds: &PixelRect) -> PixelRect {
    let x = r.x.clamp(bounds.x, bounds.right());
    let y = r.y.clamp(bounds.y, bounds.bottom());
    PixelRect { x, y, w: r.right().clamp(x, bounds.right()) - x, h: r.bottom().clamp(y, bounds.bottom()) - y }
}

/// Pulls a candidate that pokes out of the image back in along the edge it crosses.
fn nudge_inside(c: PixelRect, bounds: &PixelRect) -> PixelRect {
    let x = c.x.min(bounds.right() - c.w).max(bounds.x);
    let y = c.y.min(bounds.bottom() - c.h).max(bounds.y);
    PixelRect { x, y, ..c }
}

/// The index of "inside the top-left corner" among `candidates`.
const INSIDE: usize = 4;

/// Positions around `b`, nearest first.
fn candidates(b: &PixelRect, lw: i64, lh: i64) -> impl Iterator<Item = PixelRect> {
    let b = *b;
    let at = move |x: i64, y: i64| PixelRect { x, y, w: lw, h: lh };
    let first = [at(b.x - lw, b.y), at(b.x, b.y - lh), at(b.x, b.bottom()), at(b.right(), b.y), at(b.x, b.y)];
    // Then slid along the box's sides and stepped away from it, a label's size at a time.
    let further = (1..=6i64).flat_map(move |step| {
        let (dx, dy) = (step * lw / 2, step * lh);
        [
            at(b.x + dx, b.y - lh),
            at(b.x + dx, b.bottom()),
            at(b.x - dx, b.y - lh),
            at(b.x - dx, b.bottom()),
            at(b.x - lw, b.y + dy),
            at(b.right(), b.y + dy),
            at(b.x - lw, b.y - dy),
            at(b.right(), b.y - dy),
            at(b.x, b.y - lh - dy),
            at(b.x, b.bottom() + dy),
        ]
    });
    first.into_iter().chain(further)
}

/// Every spot touching nothing nearby is taken: scan outward on a label-sized grid for a
/// place no label holds; failing that, sit on the box.
fn last_resort(b: &PixelRect, lw: i64, lh: i64, bounds: &PixelRect, placed: &[PixelRect]) -> PixelRect {
    for ring in 1..=24i64 {
        for gy in -ring..=ring {
            for gx in -ring..=ring {
                if gx.abs() != ring && gy.abs() != ring {
                    continue;
                }
                let c = nudge_inside(PixelRect { x: b.x + gx * lw, y: b.y + gy * lh, w: lw, h: lh }, bounds);
                if bounds.contains(&c) && !placed.iter().any(|l| l.intersects(&c)) {
                    return c;
                }
            }
        }
    }
    nudge_inside(PixelRect { x: b.x, y: b.y, w: lw, h: lh }, bounds)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn r(x: i64, y: i64, w: i64, h: i64) -> PixelRect {
        PixelRect { x, y, w, h }
    }

    #[test]
    fn a_lone_box_gets_its_label_on_the_left() {
        let labels = place_labels(&[r(100, 100, 50, 20)], &[(20, 12)], 400, 300);
        assert_eq!(labels, vec![r(80, 100, 20, 12)]);
    }

    #[test]
    fn labels_move_off_the_edge_and_off_neighbours() {
        // At the left edge: no room on the left, so above.
        let labels = place_labels(&[r(0, 50, 40, 20)], &[(20, 12)], 400, 300);
        assert_eq!(labels, vec![r(0, 38, 20, 12)]);
        // A neighbour directly left and a box above: below is the first clean spot.
        let boxes = [r(100, 100, 40, 20), r(70, 100, 28, 20), r(100, 80, 40, 18)];
        let labels = place_labels(&boxes, &[(20, 12); 3], 400, 300);
        assert_eq!(labels[0], r(100, 120, 20, 12));
        for (i, l) in labels.iter().enumerate() {
            for (j, b) in boxes.iter().enumerate() {
                assert!(i == j || !l.intersects(b), "label {i} on box {j}");
            }
        }
    }

    #[test]
    fn an_enclosing_container_does_not_push_labels_away() {
        let boxes = [r(0, 0, 400, 300), r(150, 100, 60, 20)];
        let labels = place_labels(&boxes, &[(20, 12); 2], 400, 300);
        assert_eq!(labels[1], r(130, 100, 20, 12));
    }

    /// A dense grid: 15 × 10 buttons 40 × 18 px, 4 px apart, labels up to three digits.
    #[test]
    fn dense_grids_never_overlap_labels() {
        let mut boxes = Vec::new();
        for row in 0..10 {
            for col in 0..15 {
                boxes.push(r(8 + col * 44, 8 + row * 22, 40, 18));
            }
        }
        let sizes: Vec<_> = (1..=boxes.len()).map(|n| (n.to_string().len() as i64 * 12 + 2, 18)).collect();
        let labels = place_labels(&boxes, &sizes, 1280, 800);
        for (i, a) in labels.iter().enumerate() {
            assert!(r(0, 0, 1280, 800).contains(a), "label {i} leaves the image");
            for b in &labels[i + 1..] {
                assert!(!a.intersects(b), "labels overlap: {a:?} {b:?}");
            }
        }
    }

    #[test]
    fn hostile_boxes_still_get_labels_inside_the_image() {
        let boxes = [r(-1_000_000, -50, 10, 10), r(5_000_000, 5_000_000, 3, 3), r(0, 0, 0, 0)];
        let labels = place_labels(&boxes, &[(20, 12); 3], 200, 100);
        for l in &labels {
            assert!(r(0, 0, 200, 100).contains(l), "{l:?}");
        }
    }
}
