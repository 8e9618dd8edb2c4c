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
/// boxes four, the centres two); sparse ones `(position in the list, value)` where present.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct ElementColumns {
    pub index: Vec<u32>,
    pub id: Vec<String>,
    pub kind: Vec<ElementKind>,
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
    pub node: Vec<u32>,
    pub visible_rect: Vec<(u32, Rect)>,
    /// The positions of the occluded ones.
    pub occluded: Vec<u32>,
    pub xpath_text: Vec<(u32, String)>,
    pub frame_origin: Vec<(u32, String)>,
    pub options: Vec<(u32, Vec<String>)>,
}

/// Columns that do not describe one list of elements (a column of the wrong length, a
/// position past the end, an XPath sharing more than the one before holds).
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("the reading's element columns do not fit together: {0}")]
pub struct ColumnsError(&'static str);

impl ElementColumns {
    /// The elements as columns (taking them: their strings move, none is copied).
    pub fn of(elements: Vec<Element>) -> Self {
        let n = elements.len();
        let mut c = ElementColumns {
            index: Vec::with_capacity(n),
            id: Vec::with_capacity(n),
            kind: Vec::with_capacity(n),
            tag: Vec::with_capacity(n),
            attributes: Vec::with_capacity(n),
            content: Vec::with_capacity(n),
            rect: Vec::with_capacity(4 * n),
            in_viewport: Vec::with_capacity(n),
            xpath_shared: Vec::with_capacity(n),
            xpath_rest: Vec::with_capacity(n),
            node: Vec::with_capacity(n),
            ..Default::default()
        };
        let mut previous = String::new();
        for (at, e) in elements.into_iter().enumerate() {
            let at = at as u32;
            c.index.push(e.index);
            c.id.push(e.id);
            c.kind.push(e.kind);
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
            c.node.push(e.node);
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
        let n = self.index.len();
        let dense = [
            self.id.len(),
            self.kind.len(),
            self.tag.len(),
            self.attributes.len(),
            self.content.len(),
            self.in_viewport.len(),
            self.xpath_shared.len(),
            self.xpath_rest.len(),
            self.node.len(),
        ];
        if dense.iter().any(|&len| len != n) || self.rect.len() != 4 * n {
            return Err(ColumnsError("a column's length differs from the others"));
        }
        let mut elements = Vec::with_capacity(n);
        let mut xpath = String::new();
        let columns = self.id.into_iter().zip(self.kind).zip(self.tag).zip(self.attributes).zip(self.content);
        let rest = self.xpath_shared.into_iter().zip(self.xpath_rest);
        for (i, ((((((id, kind), tag), attributes), content), (shared, rest)), index)) in
            columns.zip(rest).zip(self.index).enumerate()
        {
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
                node: self.node[i],
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
        let columns = ElementColumns::of(elements.clone());
        assert_eq!(columns.xpath_shared, [0, 21, 1, 17, 10, 0, 0], "shared prefixes in UTF-16 units (😀 is two)");
        assert_eq!(columns.occluded, [2]);
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
    }
}
