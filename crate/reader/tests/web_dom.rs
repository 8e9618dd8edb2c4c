//! The DOM walker in a real browser (wasm-bindgen-test-runner drives headless Chromium):
//! live DOM → PageSnapshot → the same classifier the host tests cover.
#![cfg(target_arch = "wasm32")]

use sightline::describe::{describe, DescribeOptions, ElementKind};
use sightline_reader::dom::snapshot_document;
use wasm_bindgen::JsCast;
use wasm_bindgen_test::*;

wasm_bindgen_test_configure!(run_in_browser);

/// Replaces the test fixture, leaving the rest of the body alone: the test harness reports
/// its results through elements of its own there.
fn mount(html: &str) -> web_sys::Window {
    let window = web_sys::window().unwrap();
    let document = window.document().unwrap();
    let fixture = match document.get_element_by_id("fixture") {
        Some(el) => el,
        None => {
            let el = document.create_element("div").unwrap();
            el.set_id("fixture");
            document.body().unwrap().append_child(&el).unwrap();
            el
        }
    };
    fixture.set_inner_html(html);
    window
}

#[wasm_bindgen_test]
fn walks_live_dom_with_values_and_visibility() {
    let window = mount(
        r#"<div style="padding:20px">
             <h1>todos</h1>
             <input class="new-todo" placeholder="What needs to be done?" style="width:300px;height:30px">
             <button style="visibility:hidden">Hidden</button>
             <div style="display:none"><button>Gone</button></div>
             <div style="opacity:0"><span>Invisible text</span></div>
             <select><option>One</option><option selected>Two</option></select>
             <a href="/x">A <b>link</b></a>
             <div style="width:40px;height:40px;background:rgb(200,0,0)"></div>
           </div>"#,
    );
    let document = window.document().unwrap();
    let input = document.query_selector(".new-todo").unwrap().unwrap();
    input.unchecked_ref::<web_sys::HtmlInputElement>().set_value("typed live");
    // A hostile attribute value must not forge fields in what the reader packs.
    input.set_attribute("title", "a\0id\0forged").unwrap();
    let snap = snapshot_document(&window, false).unwrap().0.snapshot;
    let read = snap.nodes.iter().find(|n| n.attr("class") == Some("new-todo")).unwrap();
    assert_eq!(read.attr("title"), Some("a\u{FFFD}id\u{FFFD}forged"));
    assert_eq!(read.attr("id"), None);
    assert_eq!(read.form.as_ref().and_then(|f| f.checked), Some(false));
    let select = snap.nodes.iter().find(|n| n.tag() == Some("select")).unwrap();
    assert_eq!(select.form.as_ref().and_then(|f| f.selected_text.as_deref()), Some("Two"));
    let page = describe(&snap, &DescribeOptions::default());
    let shape: Vec<_> = page.elements.iter().map(|e| (e.kind, e.tag.as_str(), e.content.as_str())).collect();
    assert!(shape.contains(&(ElementKind::Text, "h1", "todos")), "{shape:?}");
    assert!(shape.contains(&(ElementKind::FormItem, "input", "typed live")), "live value, not the attribute");
    assert!(shape.contains(&(ElementKind::FormItem, "select", "Two")), "{shape:?}");
    assert!(shape.contains(&(ElementKind::Anchor, "a", "A link")), "{shape:?}");
    assert!(shape.contains(&(ElementKind::Container, "div", "")), "{shape:?}");
    for hidden in ["Hidden", "Gone", "Invisible text"] {
        assert!(!shape.iter().any(|(_, _, c)| *c == hidden), "{hidden} must not be listed");
    }
    let input = page.elements.iter().find(|e| e.tag == "input").unwrap();
    assert!(input.rect.width >= 300.0 && input.in_viewport == 1.0);
    assert!(page.description.contains("placeholder=\"What needs to be done?\""));
}

#[wasm_bindgen_test]
fn deep_nesting_does_not_overflow() {
    // Built through the DOM: the HTML parser flattens nesting beyond 512. 2,000 is near what
    // Chromium itself lays out (its renderer crashes at 3,000 nested blocks); host tests cover
    // 10,000-deep snapshots.
    let window = mount("");
    let document = window.document().unwrap();
    let mut parent: web_sys::Element = document.get_element_by_id("fixture").unwrap();
    for _ in 0..2_000 {
        let div = document.create_element("div").unwrap();
        parent.append_child(&div).unwrap();
        parent = div;
    }
    let button = document.create_element("button").unwrap();
    button.set_text_content(Some("deep"));
    parent.append_child(&button).unwrap();
    let snap = snapshot_document(&window, false).unwrap().0.snapshot;
    let page = describe(&snap, &DescribeOptions::default());
    // Leave no deep tree behind for the harness, which reads the page to report.
    mount("");
    assert!(page.elements.iter().any(|e| e.kind == ElementKind::Button && e.content == "deep"));
}

#[wasm_bindgen_test]
fn open_shadow_roots_are_read() {
    let window = mount(r#"<div id="shadow-host"></div>"#);
    let host = window.document().unwrap().get_element_by_id("shadow-host").unwrap();
    let root = host.attach_shadow(&web_sys::ShadowRootInit::new(web_sys::ShadowRootMode::Open)).unwrap();
    root.set_inner_html("<button>inside shadow</button>");
    let snap = snapshot_document(&window, false).unwrap().0.snapshot;
    let page = describe(&snap, &DescribeOptions::default());
    assert!(page.elements.iter().any(|e| e.content == "inside shadow"));
}

#[wasm_bindgen_test]
fn text_in_display_contents_shows_as_its_parent_does() {
    // display:contents has no box (checkVisibility says false), but its text renders; the CDP
    // reader sees that text, so the live one must too. Hidden visibility still hides it.
    let window = mount(
        r#"<div style="display:contents"><div style="display:contents">shown through contents</div></div>
           <div style="display:contents;visibility:hidden">hidden through contents</div>
           <div style="display:none"><div style="display:contents">under display none</div></div>"#,
    );
    let snap = snapshot_document(&window, false).unwrap().0.snapshot;
    let page = describe(&snap, &DescribeOptions::default());
    let texts: Vec<_> = page.elements.iter().map(|e| e.content.as_str()).collect();
    mount("");
    assert!(texts.contains(&"shown through contents"), "{texts:?}");
    assert!(!texts.contains(&"hidden through contents"), "{texts:?}");
    assert!(!texts.contains(&"under display none"), "{texts:?}");
}

#[wasm_bindgen_test]
fn megabytes_of_text_and_value_are_read_cut() {
    let window = mount(r#"<p id="big"></p><textarea id="field"></textarea>"#);
    let document = window.document().unwrap();
    let big = "word ".repeat(400_000); // 2 MB
    document.get_element_by_id("big").unwrap().set_text_content(Some(&format!("{}{big}", " ".repeat(50_000))));
    let field = document.get_element_by_id("field").unwrap();
    field.unchecked_ref::<web_sys::HtmlTextAreaElement>().set_value(&big);
    field.set_attribute("title", &big).unwrap();
    let snap = snapshot_document(&window, false).unwrap().0.snapshot;
    mount("");
    let text = snap.nodes.iter().find_map(|n| match &n.data {
        sightline::snapshot::NodeData::Text { text } if text.contains("word") => Some(text.clone()),
        _ => None,
    });
    let text = text.expect("the big text is read");
    assert_eq!(text.chars().count(), sightline::snapshot::MAX_READ_CHARS, "cut, from its first word");
    assert!(text.starts_with(" word"), "{:?}", &text[..10]);
    let field = snap.nodes.iter().find(|n| n.tag() == Some("textarea")).unwrap();
    assert_eq!(
        field.form.as_ref().and_then(|f| f.value.as_ref()).map(|v| v.chars().count()),
        Some(sightline::snapshot::MAX_READ_CHARS)
    );
    assert_eq!(field.attr("title").map(|v| v.chars().count()), Some(sightline::snapshot::MAX_READ_CHARS));
}

#[wasm_bindgen_test]
fn boxes_read_in_one_call_are_each_nodes_own() {
    // readBoxes measures every box a walk needs in one call: each must land on its own node,
    // elements by getBoundingClientRect, text by a Range over it.
    let window = mount(
        r#"<div style="position:relative;height:120px">
             <button id="b1" style="position:absolute;left:10px;top:5px;width:70px;height:20px">one</button>
             <span id="t2" style="position:absolute;left:200px;top:40px;font:16px monospace">two words</span>
             <a id="a3" href="/x" style="position:absolute;left:30px;top:80px;width:90px;height:30px;display:block">three</a>
           </div>"#,
    );
    let document = window.document().unwrap();
    let snap = snapshot_document(&window, false).unwrap().0.snapshot;
    let page = describe(&snap, &DescribeOptions::default());
    let expected = |id: &str| {
        let el = document.get_element_by_id(id).unwrap();
        let r = if id == "t2" {
            let range = document.create_range().unwrap();
            range.select_node_contents(&el.first_child().unwrap()).unwrap();
            range.get_bounding_client_rect()
        } else {
            el.get_bounding_client_rect()
        };
        (r.x(), r.y(), r.width(), r.height())
    };
    let measured = |content: &str| {
        let e = page.elements.iter().find(|e| e.content == content).unwrap_or_else(|| panic!("{content} listed"));
        (e.rect.x, e.rect.y, e.rect.width, e.rect.height)
    };
    let pairs = [("b1", "one"), ("t2", "two words"), ("a3", "three")].map(|(id, c)| (expected(id), measured(c)));
    mount("");
    for (want, got) in pairs {
        assert_eq!(got, want);
    }
}

/// What an in-view description lists, and where: kind, content, XPath, box, share in view.
fn in_view_facts(snap: &sightline::snapshot::PageSnapshot) -> Vec<(ElementKind, String, String, [i64; 4], i64)> {
    let page = describe(snap, &DescribeOptions { viewport_only: true, ..Default::default() });
    let r = |v: f64| v.round() as i64;
    page.elements
        .iter()
        .map(|e| {
            let rect = [r(e.rect.x), r(e.rect.y), r(e.rect.width), r(e.rect.height)];
            (e.kind, e.content.clone(), e.xpath.clone(), rect, r(e.in_viewport * 100.0))
        })
        .collect()
}

#[wasm_bindgen_test]
fn in_view_walk_leaves_far_siblings_unread_and_lists_what_the_whole_walk_does() {
    // Long child lists reaching far past the view and its margin (one viewport each way), with
    // what must still be found beside them: a fixed element last among 600 siblings, children of
    // display:contents, a shadow root's own long list, a row running far to the right, and a
    // scroller scrolled to its middle. Tags alternate so XPath positions count left-out siblings.
    let window = mount("");
    let h = window.document().unwrap().document_element().unwrap().client_height();
    let rows: String = (0..600)
        .map(|k| {
            let tag = if k % 3 == 0 { "div" } else { "section" };
            format!(r##"<{tag} style="height:{}px"><p>Row {k} <a href="#r{k}">open {k}</a></p></{tag}>"##, h / 4)
        })
        .collect();
    let cells: String =
        (0..60).map(|k| format!(r##"<div style="flex:none;width:400px"><button>Cell {k}</button></div>"##)).collect();
    let items: String = (0..200).map(|k| format!(r##"<li style="height:40px"><span>Item {k}</span></li>"##)).collect();
    let window = mount(&format!(
        r##"<div style="display:contents"><section><p>Through contents <a href="#c">contents link</a></p></section></div>
           <div id="row" style="display:flex;width:max-content">{cells}</div>
           <ul id="scroller" style="height:200px;overflow:auto;margin:0">{items}</ul>
           <div id="host"></div>
           {rows}<div style="position:fixed;left:10px;bottom:10px"><p>Fixed <button>Accept cookies</button></p></div>"##
    ));
    let document = window.document().unwrap();
    let host = document.get_element_by_id("host").unwrap();
    let root = host.attach_shadow(&web_sys::ShadowRootInit::new(web_sys::ShadowRootMode::Open)).unwrap();
    let shadow_rows: String =
        (0..30).map(|k| format!(r##"<div style="height:{}px"><p>Shadow {k} <b>bold</b></p></div>"##, h / 3)).collect();
    root.set_inner_html(&shadow_rows);
    document.get_element_by_id("scroller").unwrap().set_scroll_top(4000);

    let middle_row = document.query_selector("#fixture > :nth-child(304)").unwrap().unwrap();
    for scroll in [false, true] {
        window.scroll_to_with_x_and_y(0.0, 0.0);
        if scroll {
            middle_row.scroll_into_view();
        }
        let whole = snapshot_document(&window, false).unwrap().0.snapshot;
        let in_view = snapshot_document(&window, true).unwrap().0.snapshot;
        let (whole_facts, view_facts) = (in_view_facts(&whole), in_view_facts(&in_view));
        let found = |text: &str| view_facts.iter().any(|f| f.1 == text);
        assert!(found("Accept cookies"), "the fixed element after 600 siblings (scrolled: {scroll})");
        assert!(
            in_view.nodes.len() * 4 < whole.nodes.len(),
            "far siblings left out: {} of {}",
            in_view.nodes.len(),
            whole.nodes.len()
        );
        if !scroll {
            for text in ["contents link", "Cell 0", "Item 100", "Shadow 0"] {
                assert!(found(text), "{text} at the top: {view_facts:?}");
            }
            assert!(!found("Cell 59") && !found("Item 0") && !found("Shadow 25"), "far ones are not read");
        } else {
            assert!(found("open 299"), "rows in view, scrolled");
            assert!(!found("open 0") && !found("open 599"), "rows far above and below are not read");
        }
        assert_eq!(view_facts, whole_facts, "scrolled: {scroll}");
    }
    window.scroll_to_with_x_and_y(0.0, 0.0);
    mount("");
}
