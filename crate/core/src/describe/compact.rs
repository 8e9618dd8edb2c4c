//! The compact description: one line per element, numbered as the screenshot markers are.
//!
//! `[2] input.new-todo placeholder="What needs to be done?" value="milk" @640,125`
//! Positions are the element's centre in viewport CSS pixels. Elements out of view are
//! counted, not listed.

use super::{Element, ElementKind};
use crate::snapshot::{PageSnapshot, Viewport};
use std::fmt::Write;

/// `in_view_only`: the elements are an in-view read's, so those out of view are not counted
/// (the margin's few would say nothing of the page); the viewport line still says how much
/// page lies above and below.
pub fn compact_description(snapshot: &PageSnapshot, elements: &[Element], in_view_only: bool) -> String {
    compact_description_of(&snapshot.title, &snapshot.url, &snapshot.viewport, elements, in_view_only)
}

/// The same from the page's title, address and viewport (a read page, some elements left out).
pub fn compact_description_of(
    title: &str,
    url: &str,
    vp: &Viewport,
    elements: &[Element],
    in_view_only: bool,
) -> String {
    let mut out = String::with_capacity(64 + elements.len() * 64);
    let _ = writeln!(out, "Page: {} — {}", one_line(title), url);
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
    // Only what is in view is listed (a long page would not fit a prompt); the rest is
    // counted so the model knows to scroll. Every element stays in `Extraction::elements`.
    let (mut above, mut below, mut covered) = (0, 0, 0);
    for e in elements {
        if e.occluded {
            covered += 1;
        } else if e.in_viewport > 0.0 {
            if e.is_listed() {
                write_element(&mut out, e);
            }
        } else if e.rect.bottom() <= 0.0 || e.rect.right() <= 0.0 {
            above += 1;
        } else {
            below += 1;
        }
    }
    if above + below > 0 && !in_view_only {
        let _ = writeln!(
            out,
            "({above} more elements above or left of the view, {below} below or right; scroll to reach them)"
        );
    }
    if covered > 0 {
        let _ = writeln!(out, "({covered} elements in view are covered by something on top, such as a dialog)");
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
    let toggle = matches!(e.attr("type"), Some("checkbox" | "radio"));
    for (k, v) in &e.attributes {
        match k.as_str() {
            "id" | "class" => {}
            // A button's type rarely tells a model anything; a toggle's state is one word.
            "type" if e.tag == "button" => {}
            "name" if e.attr("id") == Some(v.as_str()) => {}
            "checked" => out.push_str(if v == "true" { " checked" } else { " unchecked" }),
            "href" => {
                let _ = write!(out, " href=\"{}\"", quote_safe(short_href(v)));
            }
            _ => {
                let _ = write!(out, " {k}=\"{}\"", quote_safe(v));
            }
        }
    }
    // A checkbox's value is what the form submits ("on" by default), not what a person sees.
    if !e.content.is_empty() && !toggle {
        match e.kind {
            ElementKind::FormItem if e.tag != "option" => {
                let _ = write!(out, " value=\"{}\"", quote_safe(&e.content));
            }
            _ => {
                let _ = write!(out, " \"{}\"", quote_safe(&e.content));
            }
        }
    }
    if !e.options.is_empty() {
        let _ = write!(out, " options=\"{}\"", quote_safe(&super::options_text(&e.options)));
    }
    // The centre: enough for "left of", "below" and the like. Elements are named by number,
    // the screenshot's markers show each box, and full boxes stay in `Extraction::elements`.
    let _ = write!(out, " @{},{}", e.center.0.round(), e.center.1.round());
    out.push('\n');
}

/// The part of a link target that tells links apart: no scheme, no `../`, no `www.`.
fn short_href(href: &str) -> &str {
    let mut h = href.trim();
    for prefix in ["https://", "http://"] {
        h = h.strip_prefix(prefix).unwrap_or(h);
    }
    h = h.strip_prefix("www.").unwrap_or(h);
    while let Some(rest) = h.strip_prefix("../").or_else(|| h.strip_prefix("./")) {
        h = rest;
    }
    let h = h.strip_suffix('/').unwrap_or(h);
    if h.is_empty() {
        href
    } else {
        h
    }
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
    use crate::snapshot::test_support::Builder;
    use crate::snapshot::FormState;
    use crate::vocab::geometry::Rect;

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
        assert_eq!(lines[2], r#"[1] input#new.new-todo placeholder="What \"needs\"?" value="milk" @640,125"#);
        assert_eq!(lines[3], "(0 more elements above or left of the view, 1 below or right; scroll to reach them)");
        assert_eq!(lines.len(), 4, "off-screen elements are counted, not listed");
        assert_eq!(ex.elements.len(), 2, "but kept");

        let far = b.el(Some(body), "p", &[], Rect::new(0.0, 5000.0, 100.0, 20.0));
        b.text(far, "farther", Rect::new(0.0, 5000.0, 100.0, 20.0));
        let in_view = describe(&b.snap, &DescribeOptions { viewport_only: true, ..Default::default() });
        let kept: Vec<_> = in_view.elements.iter().map(|e| e.content.as_str()).collect();
        assert_eq!(kept, ["milk", "far away"], "the view and the next screenful, not beyond");
        assert!(in_view.in_view_only);
        assert_eq!(in_view.description.lines().count(), 3, "an in-view read counts nothing off screen");

        let far_text = crate::describe::Sought {
            tag: Some("p".into()),
            summary: Some("p \"farther\"".into()),
            ..Default::default()
        };
        let seeking = DescribeOptions { viewport_only: true, sought: vec![far_text], ..Default::default() };
        assert!(!seeking.skips_beyond_view(), "the whole page is walked for what is sought");
        let kept: Vec<_> = describe(&b.snap, &seeking).elements.into_iter().map(|e| e.content).collect();
        assert_eq!(kept, ["milk", "far away", "farther"], "the view, and what is sought wherever it is");
    }

    #[test]
    fn toggles_buttons_links_and_separators_stay_short() {
        let mut b = Builder::new();
        let body = b.el(None, "body", &[], Rect::new(0.0, 0.0, 1280.0, 800.0));
        let cb = b.el(Some(body), "input", &[("type", "checkbox"), ("name", "c")], Rect::new(0.0, 0.0, 13.0, 13.0));
        b.node_mut(cb).form = Some(FormState { value: Some("on".into()), checked: Some(false), ..Default::default() });
        let button = b.el(Some(body), "button", &[("type", "button")], Rect::new(0.0, 20.0, 50.0, 20.0));
        b.text(button, "Save", Rect::new(0.0, 20.0, 50.0, 20.0));
        let a = b.el(Some(body), "a", &[("href", "../library/exceptions.html")], Rect::new(0.0, 50.0, 50.0, 20.0));
        b.text(a, "next", Rect::new(0.0, 50.0, 50.0, 20.0));
        let li = b.el(Some(body), "li", &[], Rect::new(0.0, 80.0, 10.0, 20.0));
        b.text(li, "»", Rect::new(0.0, 80.0, 10.0, 20.0));
        let ex = describe(&b.snap, &DescribeOptions::default());
        let lines: Vec<_> = ex.description.lines().skip(2).collect();
        assert_eq!(
            lines,
            [
                r#"[1] input type="checkbox" name="c" unchecked @7,7"#,
                r#"[2] button "Save" @25,30"#,
                r#"[3] a href="library/exceptions.html" "next" @25,60"#,
            ]
        );
        assert_eq!(ex.elements.len(), 4, "the separator is still an element");
    }

    #[test]
    fn every_visible_interactive_element_is_listed_by_number() {
        let mut b = Builder::new();
        let body = b.el(None, "body", &[], Rect::new(0.0, 0.0, 1280.0, 800.0));
        for (i, tag) in ["button", "input", "a", "select", "textarea", "img"].iter().enumerate() {
            let y = 10.0 + 40.0 * i as f64;
            let el = b.el(Some(body), tag, &[("title", "t")], Rect::new(10.0, y, 100.0, 30.0));
            b.text(el, "»", Rect::new(10.0, y, 100.0, 30.0)); // punctuation inside does not hide them
        }
        b.el(Some(body), "button", &[], Rect::new(10.0, 900.0, 100.0, 30.0)); // out of view: counted
        let ex = describe(&b.snap, &DescribeOptions::default());
        for e in ex.elements.iter().filter(|e| e.in_viewport > 0.0) {
            assert!(ex.description.lines().any(|l| l.starts_with(&format!("[{}] ", e.index))), "{} missing", e.index);
        }
        assert!(ex.description.contains("1 below or right"));
    }
}
