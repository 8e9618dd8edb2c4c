//! A reading's elements as columns: how they cross from the content script to the worker.
//!
//! A whole-page reading of a 200k-element page held 54 MB of JSON as one object per element,
//! two fifths of it keys written again for every element and XPaths repeating the path of the
//! element before. As columns each key is written once, optional fields only where present,
//! and each XPath as what it shares with the one before plus the rest: about half the text to
//! write, copy into the worker and parse. The worker's JS rebuilds the objects the tooling
//! hands out (`extension/background/page.js`, `withElements`); runs decode them here.

use super::element::{Element, ElementKind};
use crate::vocab::geometry::Rect;
use serde::{Deserialize, Serialize};

/// The elements of a reading, field by field. Dense columns hold one entry per element (the
/// boxes four); sparse ones `(position in the list, value)` where present. What follows from
/// what is next to it is sent as little: the element numbers as runs of consecutive ones, the
/// kinds as one letter each, the snapshot nodes as steps from the one before (api-4900's whole
/// reading: 3.5 MB of these three columns as plain lists, 0.5 MB so).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct ElementColumns {
    /// The element numbers (`Element::index`), as runs `(first, how many)` of consecutive ones:
    /// one run for a whole page, a few for a reading kept to the view and what is listed beyond it.
    pub index_runs: Vec<(u32, u32)>,
    pub id: Vec<String>,
    /// One letter per element (`ElementKind::letter`).
    pub kind: String,
    pub tag: Vec<String>,
    pub attributes: Vec<Vec<(String, String)>>,
    pub content: Vec<String>,
    /// x, y, width, height of each. An element's centre is its box's (`Rect::center`), so it
    /// is not sent: each side works it out from the box (a sixth of a whole reading's text).
    pub rect: Vec<f64>,
    pub in_viewport: Vec<f64>,
    /// How many UTF-16 units of each XPath the one before begins with (JS slices by them).
    pub xpath_shared: Vec<u32>,
    /// The rest of each XPath.
    pub xpath_rest: Vec<String>,
    /// Each element's snapshot node minus the one before's (the first: its node).
    pub node_step: Vec<i64>,
    pub visible_rect: Vec<(u32, Rect)>,
    /// The positions of the occluded ones.
    pub occluded: Vec<u32>,
    pub xpath_text: Vec<(u32, String)>,
    pub frame_origin: Vec<(u32, String)>,
    pub options: Vec<(u32, Vec<String>)>,
}

/// Columns that do not describe one list of elements (a column of the wrong length, a
/// position past the end, an XPath sharing more than the one before holds, a kind's letter
/// that names none, a node or number out of range).
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("the reading's element columns do not fit together: {0}")]
pub struct ColumnsError(&'static str);

impl ElementColumns {
    /// The elements as columns (taking them: their strings move, none is copied).
    pub fn of(elements: Vec<Element>) -> Self {
        let n = elements.len();
        let mut c = ElementColumns {
            id: Vec::with_capacity(n),
            kind: String::with_capacity(n),
            tag: Vec::with_capacity(n),
            attributes: Vec::with_capacity(n),
            content: Vec::with_capacity(n),
            rect: Vec::with_capacity(4 * n),
            in_viewport: Vec::with_capacity(n),
            xpath_shared: Vec::with_capacity(n),
            xpath_rest: Vec::with_capacity(n),
            node_step: Vec::with_capacity(n),
            ..Default::default()
        };
        let mut previous = String::new();
        let mut previous_node = 0i64;
        for (at, e) in elements.into_iter().enumerate() {
            let at = at as u32;
            match c.index_runs.last_mut() {
                Some((first, count)) if first.checked_add(*count) == Some(e.index) => *count += 1,
                _ => c.index_runs.push((e.index, 1)),
            }
            c.id.push(e.id);
            c.kind.push(e.kind.letter());
            c.tag.push(e.tag);
            c.attributes.push(e.attributes);
            c.content.push(e.content);
            debug_assert_eq!(e.center, e.rect.center(), "an element's centre is its box's");
            c.rect.extend([e.rect.x, e.rect.y, e.rect.width, e.rect.height]);
            c.in_viewport.push(e.in_viewport);
            let (units, bytes) = shared_prefix(&previous, &e.xpath);
            c.xpath_shared.push(units);
            c.xpath_rest.push(e.xpath[bytes..].to_string());
            previous = e.xpath;
            c.node_step.push(i64::from(e.node) - previous_node);
            previous_node = i64::from(e.node);
            if let Some(r) = e.visible_rect {
                c.visible_rect.push((at, r));
            }
            if e.occluded {
                c.occluded.push(at);
            }
            if let Some(x) = e.xpath_text {
                c.xpath_text.push((at, x));
            }
            if let Some(o) = e.frame_origin {
                c.frame_origin.push((at, o));
            }
            if !e.options.is_empty() {
                c.options.push((at, e.options));
            }
        }
        c
    }

    /// The elements again, as [`ElementColumns::of`] took them.
    pub fn into_elements(self) -> Result<Vec<Element>, ColumnsError> {
        let n = self.id.len();
        let numbered = self.index_runs.iter().try_fold(0u32, |sum, &(_, count)| sum.checked_add(count));
        let dense = [
            numbered.map_or(usize::MAX, |sum| sum as usize),
            self.kind.len(),
            self.tag.len(),
            self.attributes.len(),
            self.content.len(),
            self.in_viewport.len(),
            self.xpath_shared.len(),
            self.xpath_rest.len(),
            self.node_step.len(),
        ];
        if dense.iter().any(|&len| len != n) || self.rect.len() != 4 * n {
            return Err(ColumnsError("a column's length differs from the others"));
        }
        let mut elements = Vec::with_capacity(n);
        let mut xpath = String::new();
        let mut node = 0i64;
        let mut indices =
            self.index_runs.iter().flat_map(|&(first, count)| (0..count).map(move |k| first.checked_add(k)));
        // Bytes, not chars: a letter is one byte, and a column of another character is refused.
        let kinds = self.kind.bytes().map(|b| ElementKind::from_letter(b as char));
        let columns = self.id.into_iter().zip(kinds).zip(self.tag).zip(self.attributes).zip(self.content);
        let rest = self.xpath_shared.into_iter().zip(self.xpath_rest);
        for (i, (((((id, kind), tag), attributes), content), (shared, rest))) in columns.zip(rest).enumerate() {
            let kind = kind.ok_or(ColumnsError("a kind's letter names no kind"))?;
            let index = indices.next().flatten().ok_or(ColumnsError("an element number past the last one"))?;
            node = node.checked_add(self.node_step[i]).ok_or(ColumnsError("a snapshot node out of range"))?;
            let node = u32::try_from(node).map_err(|_| ColumnsError("a snapshot node out of range"))?;
            let keep = byte_offset(&xpath, shared).ok_or(ColumnsError("an XPath shares more than the one before"))?;
            xpath.truncate(keep);
            xpath.push_str(&rest);
            let r = &self.rect[4 * i..4 * i + 4];
            let rect = Rect::new(r[0], r[1], r[2], r[3]);
            elements.push(Element {
                index,
                id,
                kind,
                tag,
                attributes,
                content,
                rect,
                center: rect.center(),
                in_viewport: self.in_viewport[i],
                visible_rect: None,
                occluded: false,
                xpath: xpath.clone(),
                xpath_text: None,
                node,
                frame_origin: None,
                options: Vec::new(),
            });
        }
        for (i, r) in self.visible_rect {
            at(&mut elements, i)?.visible_rect = Some(r);
        }
        for i in self.occluded {
            at(&mut elements, i)?.occluded = true;
        }
        for (i, x) in self.xpath_text {
            at(&mut elements, i)?.xpath_text = Some(x);
        }
        for (i, o) in self.frame_origin {
            at(&mut elements, i)?.frame_origin = Some(o);
        }
        for (i, o) in self.options {
            at(&mut elements, i)?.options = o;
        }
        Ok(elements)
    }
}

/// The element at a sparse column's position.
fn at(elements: &mut [Element], i: u32) -> Result<&mut Element, ColumnsError> {
    elements.get_mut(i as usize).ok_or(ColumnsError("a position past the last element"))
}

/// How much of `next` `previous` begins with, whole characters only: (UTF-16 units, bytes).
fn shared_prefix(previous: &str, next: &str) -> (u32, usize) {
    let (mut units, mut bytes) = (0, 0);
    for (a, b) in previous.chars().zip(next.chars()) {
        if a != b {
            break;
        }
        units += a.len_utf16() as u32;
        bytes += a.len_utf8();
    }
    (units, bytes)
}

/// The byte offset `units` UTF-16 units into `s`, when that falls between characters.
fn byte_offset(s: &str, units: u32) -> Option<usize> {
    let mut counted = 0;
    for (at, ch) in s.char_indices() {
        if counted == units {
            return Some(at);
        }
        counted += ch.len_utf16() as u32;
    }
    (counted == units).then_some(s.len())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn element(index: u32, xpath: &str) -> Element {
        Element {
            index,
            id: format!("id{index}"),
            kind: ElementKind::Text,
            tag: "p".into(),
            attributes: vec![("class".into(), "x".into())],
            content: format!("text {index}"),
            rect: Rect::new(1.5, 2.25, 30.078125, 17.0),
            center: (16.5390625, 10.75),
            in_viewport: 0.5,
            visible_rect: None,
            occluded: false,
            xpath: xpath.into(),
            xpath_text: None,
            node: index * 3,
            frame_origin: None,
            options: Vec::new(),
        }
    }

    #[test]
    fn columns_give_back_every_field_of_every_element() {
        let mut elements = vec![
            element(1, "/html[1]/body[1]/p[1]"),
            element(2, "/html[1]/body[1]/p[1]/text()[1]"),
            element(3, "//*[@id=\"s😀\"]/a[1]"),
            element(4, "//*[@id=\"s😀\"]/a[2]"),
            element(5, "//*[@id=\"s😁\"]/b[1] >>> /div[1]"),
            element(6, ""),
            element(7, "/html[1]"),
        ];
        elements[1].visible_rect = Some(Rect::new(0.0, 0.0, 0.0, 0.0));
        elements[2].occluded = true;
        elements[3].xpath_text = Some("//a[normalize-space()=\"x\"]".into());
        elements[4].frame_origin = Some("https://example.com".into());
        elements[5].options = vec!["one".into(), "two".into()];
        elements[6].kind = ElementKind::FormItem;
        elements[0].kind = ElementKind::Button;
        elements[4].kind = ElementKind::Anchor;
        // Numbers with gaps (a reading kept to the view and what is listed beyond), nodes going back.
        for (e, (index, node)) in
            elements.iter_mut().zip([(3, 40), (4, 41), (5, 45), (9, 2), (10, 3), (12, 0), (13, 7)])
        {
            (e.index, e.node) = (index, node);
        }
        let columns = ElementColumns::of(elements.clone());
        assert_eq!(columns.xpath_shared, [0, 21, 1, 17, 10, 0, 0], "shared prefixes in UTF-16 units (😀 is two)");
        assert_eq!(columns.occluded, [2]);
        assert_eq!(columns.index_runs, [(3, 3), (9, 2), (12, 2)]);
        assert_eq!(columns.kind, "BTTTATF");
        assert_eq!(columns.node_step, [40, 1, 4, -43, 1, -3, 7]);
        let text = serde_json::to_string(&columns).unwrap();
        let back: ElementColumns = serde_json::from_str(&text).unwrap();
        assert_eq!(back.into_elements().unwrap(), elements);
        assert_eq!(ElementColumns::of(Vec::new()).into_elements().unwrap(), Vec::<Element>::new());
    }

    #[test]
    fn columns_that_do_not_fit_are_refused() {
        let good = ElementColumns::of(vec![element(1, "/a[1]"), element(2, "/a[2]")]);
        let mut short = good.clone();
        short.rect.pop();
        assert!(short.into_elements().is_err());
        let mut past = good.clone();
        past.occluded.push(2);
        assert!(past.into_elements().is_err());
        let mut too_much = good.clone();
        too_much.xpath_shared[1] = 9;
        assert!(too_much.into_elements().is_err());
        let mut split = ElementColumns::of(vec![element(1, "/😀"), element(2, "/😀")]);
        split.xpath_shared[1] = 2; // inside the emoji's surrogate pair
        assert!(split.into_elements().is_err());
        let mut unnumbered = good.clone();
        unnumbered.index_runs = vec![(1, 1)];
        assert!(unnumbered.into_elements().is_err());
        let mut overflowing = good.clone();
        overflowing.index_runs = vec![(u32::MAX, 2)];
        assert!(overflowing.into_elements().is_err(), "numbers past u32");
        for kind in ["TX", "T", "TTT", "Té"] {
            let mut odd = good.clone();
            odd.kind = kind.into();
            assert!(odd.into_elements().is_err(), "{kind}");
        }
        let mut below = good.clone();
        below.node_step = vec![1, -2];
        assert!(below.into_elements().is_err(), "a node below 0");
    }

    #[test]
    fn each_kind_has_its_own_letter() {
        for (kind, letter) in ElementKind::LETTERS {
            assert_eq!((kind.letter(), ElementKind::from_letter(letter)), (letter, Some(kind)));
        }
        let letters: std::collections::BTreeSet<char> = ElementKind::LETTERS.iter().map(|(_, c)| *c).collect();
        assert_eq!(letters.len(), ElementKind::LETTERS.len());
    }
}
