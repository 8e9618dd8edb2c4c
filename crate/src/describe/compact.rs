//! The compact description: one line per element, numbered as the screenshot markers are.
//!
//! `[2] input.new-todo placeholder="What needs to be done?" value="milk" @400,100 480x50`
//! Positions are viewport CSS pixels (x,y of the top-left corner, then size).

use super::{Element, ElementKind};
use crate::snapshot::PageSnapshot;
use std::fmt::Write;

pub fn compact_description(snapshot: &PageSnapshot, elements: &[Element]) -> String {
    let vp = &snapshot.viewport;
    let mut out = String::with_capacity(64 + elements.len() * 64);
    let _ = writeln!(out, "Page: {} — {}", one_line(&snapshot.title), snapshot.url);
    let above = vp.scroll_y.max(0.0);
    let below = (vp.document_height - vp.scroll_y - vp.height).max(0.0);
    let _ = writeln!(
        out,
        "Viewport {}x{} CSS px; {}px of page above, {}px below.",
        vp.width.round(),
        vp.height.round(),
        above.round(),
        below.round()
    );
    for e in elements {
        write_element(&mut out, e);
    }
    out
}

fn write_element(out: &mut String, e: &Element) {
    let _ = write!(out, "[{}] {}", e.index, e.tag);
    for (k, v) in &e.attributes {
        match k.as_str() {
            "id" => {
                let _ = write!(out, "#{v}");
            }
            "class" => out.push_str(v),
            _ => {}
        }
    }
    for (k, v) in &e.attributes {
        if k != "id" && k != "class" {
            let _ = write!(out, " {k}=\"{}\"", quote_safe(v));
        }
    }
    if !e.content.is_empty() {
        match e.kind {
            ElementKind::FormItem if e.tag != "option" => {
                let _ = write!(out, " value=\"{}\"", quote_safe(&e.content));
            }
            _ => {
                let _ = write!(out, " \"{}\"", quote_safe(&e.content));
            }
        }
    }
    let r = e.rect;
    let _ = write!(
        out,
        " @{},{} {}x{}",
        r.x.round(),
        r.y.round(),
        r.width.round(),
        r.height.round()
    );
    if e.in_viewport <= 0.0 {
        out.push_str(if r.y < 0.0 { " (above view)" } else { " (out of view)" });
    }
    out.push('\n');
}

fn quote_safe(s: &str) -> String {
    one_line(s).replace('"', "\\\"")
}

fn one_line(s: &str) -> String {
    s.replace(['\n', '\r'], " ")
}

#[cfg(test)]
mod tests {
    use super::super::{describe, DescribeOptions};
    use crate::geometry::Rect;
    use crate::snapshot::test_support::Builder;
    use crate::snapshot::FormState;

    #[test]
    fn lines_name_number_tag_attributes_text_and_place() {
        let mut b = Builder::new();
        b.snap.viewport.document_height = 2000.0;
        b.snap.viewport.scroll_y = 100.0;
        let body = b.el(None, "body", &[], Rect::new(0.0, 0.0, 1280.0, 800.0));
        let input = b.el(
            Some(body),
            "input",
            &[("id", "new"), ("class", "new-todo"), ("placeholder", "What \"needs\"?")],
            Rect::new(400.2, 100.0, 480.0, 50.0),
        );
        b.node_mut(input).form = Some(FormState { value: Some("milk".into()), ..Default::default() });
        let p = b.el(Some(body), "p", &[], Rect::new(0.0, 1500.0, 100.0, 20.0));
        b.text(p, "far\naway", Rect::new(0.0, 1500.0, 100.0, 20.0));
        let ex = describe(&b.snap, &DescribeOptions::default());
        let lines: Vec<_> = ex.description.lines().collect();
        assert_eq!(lines[0], "Page: Test — http://test.local/");
        assert_eq!(lines[1], "Viewport 1280x800 CSS px; 100px of page above, 1100px below.");
        assert_eq!(
            lines[2],
            r#"[1] input#new.new-todo placeholder="What \"needs\"?" value="milk" @400,100 480x50"#
        );
        assert_eq!(lines[3], r#"[2] p "far away" @0,1500 100x20 (out of view)"#);

        let only = describe(&b.snap, &DescribeOptions { viewport_only: true, ..Default::default() });
        assert_eq!(only.elements.len(), 1);
    }
}
