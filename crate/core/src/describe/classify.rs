//! Turns snapshot nodes into the elements a model may name.

use super::visibility::{is_clip_checked, visible_part};
use super::xpath::XPaths;
use super::{collapse_whitespace, truncate_chars, Element, ElementKind};
use crate::snapshot::{NodeData, PageSnapshot, SnapNode, TreeKind};

/// Below this size (CSS px) in either dimension an element is not something a person can hit.
const MIN_SIZE: f64 = 3.0;
const MAX_CONTENT_CHARS: usize = 300;

/// Whether an element's content is the reader's cut of a longer text (its first
/// `MAX_CONTENT_CHARS` characters and `…`), not a text that ends in `…` itself.
pub fn content_is_cut(content: &str) -> bool {
    content.ends_with('\u{2026}') && content.chars().count() == MAX_CONTENT_CHARS + 1
}
const MAX_ATTR_CHARS: usize = 80;
/// Attributes that help a model tell elements apart, in the order they are shown.
const KEPT_ATTRIBUTES: [&str; 11] =
    ["id", "class", "type", "name", "role", "aria-label", "placeholder", "title", "alt", "href", "src"];
/// ARIA roles that make any element behave as a button for a person.
const BUTTON_ROLES: [&str; 6] = ["button", "link", "checkbox", "tab", "menuitem", "switch"];

/// How a node relates to the elements above it.
#[derive(Clone, Copy, PartialEq)]
enum Scope {
    /// Nothing above claims this node.
    Free,
    /// Inside a button, form control, image or container: already part of that element.
    Absorbed,
    /// Inside a link: text belongs to the link, other elements still count on their own.
    InAnchor,
}

pub fn classify(snapshot: &PageSnapshot) -> Vec<Element> {
    classify_given(snapshot, &snapshot.has_base_content())
}

/// [`classify`] with the snapshot's `has_base_content` as its reader worked it out already
/// (the same snapshot, no visibility changed since): a whole-page pass made once per read.
pub fn classify_given(snapshot: &PageSnapshot, base_content: &[bool]) -> Vec<Element> {
    let nodes = &snapshot.nodes;
    let (kinds, scope) = kinds_and_scopes(snapshot, base_content);
    let last = snapshot.subtree_ends();
    let xpaths = XPaths::new(snapshot, &last);
    let viewport = snapshot.viewport.rect();
    let mut elements: Vec<Element> = Vec::new();
    let mut used_ids = crate::fast_hash::FastSet::default();
    // Per node: the node where its frame's document begins (None: the page's own document).
    let mut frame_of: Vec<Option<usize>> = Vec::with_capacity(nodes.len());

    for (i, node) in nodes.iter().enumerate() {
        let frame =
            if node.enters == Some(TreeKind::Frame) { Some(i) } else { node.parent.and_then(|p| frame_of[p as usize]) };
        frame_of.push(frame);
        let inherited = node.parent.map_or(Scope::Free, |p| scope[p as usize]);
        if inherited == Scope::Absorbed {
            continue;
        }
        let found = match &node.data {
            NodeData::Text { text } => {
                let text = collapse_whitespace(text);
                if inherited == Scope::InAnchor || text.is_empty() {
                    None
                } else {
                    let parent_tag = node.parent.and_then(|p| nodes[p as usize].tag()).unwrap_or("").to_string();
                    Some((ElementKind::Text, parent_tag, text))
                }
            }
            NodeData::Element { tag, .. } => kinds[i].map(|k| (k, tag.clone(), content_of(snapshot, i, last[i], k))),
        };
        let Some((kind, tag, content)) = found else { continue };
        let Some(rect) = node.rect else { continue };
        if !node.visible || rect.width < MIN_SIZE || rect.height < MIN_SIZE {
            continue;
        }
        if kind == ElementKind::Container && rect.width >= viewport.width && rect.height >= viewport.height {
            continue; // a page-sized backdrop names nothing
        }
        // Cut away by an ancestor that hides its overflow: not there for a person.
        let visible_rect = if is_clip_checked(snapshot, &rect) {
            let Some(part) = visible_part(snapshot, i, rect) else { continue };
            part
        } else {
            rect
        };
        let xpath = xpaths.of(i);
        let id = unique_id(&mut used_ids, &xpath, &tag, &content);
        let tag_is_select = tag == "select" && kind == ElementKind::FormItem;
        elements.push(Element {
            index: elements.len() as u32 + 1,
            id,
            kind,
            attributes: kept_attributes(node),
            tag,
            // As many bytes or fewer: as many chars or fewer, kept as it is.
            content: if content.len() <= MAX_CONTENT_CHARS {
                content
            } else {
                truncate_chars(&content, MAX_CONTENT_CHARS)
            },
            rect,
            center: rect.center(),
            in_viewport: visible_rect.intersection_area(&viewport) / (rect.width * rect.height),
            visible_rect: (visible_rect != rect).then_some(visible_rect),
            occluded: false,
            xpath_text: xpaths.by_text(i),
            xpath,
            node: i as u32,
            // A frame whose reader recorded no origin is nobody's: no site check passes it.
            frame_origin: frame.map(|f| nodes[f].origin.clone().unwrap_or_else(|| "null".into())),
            options: match (tag_is_select, &node.form) {
                (true, Some(form)) => form.options.iter().map(|o| collapse_whitespace(o)).collect(),
                _ => Vec::new(),
            },
        });
    }
    elements
}

/// Per node: its element kind (elements only) and the scope it passes to its children.
/// As in Midscene, only links are descended into; every other element is a leaf.
fn kinds_and_scopes(snapshot: &PageSnapshot, base_content: &[bool]) -> (Vec<Option<ElementKind>>, Vec<Scope>) {
    let n = snapshot.nodes.len();
    let mut kinds = vec![None; n];
    let mut scope = vec![Scope::Free; n];
    for (i, node) in snapshot.nodes.iter().enumerate() {
        scope[i] = node.parent.map_or(Scope::Free, |p| scope[p as usize]);
        if scope[i] == Scope::Absorbed {
            continue;
        }
        if let NodeData::Element { tag, .. } = &node.data {
            kinds[i] = element_kind(node, tag, base_content[i]);
            match kinds[i] {
                Some(ElementKind::Anchor) => scope[i] = Scope::InAnchor,
                None => {}
                Some(_) => scope[i] = Scope::Absorbed,
            }
        }
    }
    (kinds, scope)
}

/// The nodes whose boxes classification will read; a walker measures only these.
/// - elements whose tag or role makes them an element (buttons, links, fields, images…);
/// - elements without base content, which may be background containers or images
///   (their size decides whether a style read is worth it);
/// - text that may become a Text element: not inside a button, form control, image,
///   container or link.
///
/// Everything else (the many plain wrappers) is never measured.
/// `base_content`: the snapshot's `has_base_content`, which the walker then hands on to
/// `nodes_needing_style` and classification while no visibility changes.
pub fn nodes_needing_rect(snapshot: &PageSnapshot, base_content: &[bool]) -> Vec<u32> {
    let (kinds, scope) = kinds_and_scopes(snapshot, base_content);
    let mut out = Vec::new();
    for (i, node) in snapshot.nodes.iter().enumerate() {
        if !node.visible || node.parent.is_some_and(|p| scope[p as usize] == Scope::Absorbed) {
            continue;
        }
        let wanted = match &node.data {
            NodeData::Text { text } => {
                !text.trim().is_empty() && node.parent.is_none_or(|p| scope[p as usize] == Scope::Free)
            }
            NodeData::Element { .. } => kinds[i].is_some() || !base_content[i],
        };
        if wanted {
            out.push(i as u32);
        }
    }
    out
}

fn element_kind(node: &SnapNode, tag: &str, has_base_content: bool) -> Option<ElementKind> {
    match tag {
        "input" if node.attr("type").is_some_and(|t| t.eq_ignore_ascii_case("hidden")) => None,
        "input" | "textarea" | "select" => Some(ElementKind::FormItem),
        "option" => Some(ElementKind::FormItem),
        "button" => Some(ElementKind::Button),
        "img" | "svg" => Some(ElementKind::Img),
        "a" => Some(ElementKind::Anchor),
        _ if node.attr("role").is_some_and(|r| BUTTON_ROLES.contains(&r)) => Some(ElementKind::Button),
        _ => {
            let style = node.style.as_ref()?;
            if has_base_content {
                None
            } else if style.has_background_image || style.icon_font {
                Some(ElementKind::Img)
            } else if style.has_background_color {
                Some(ElementKind::Container)
            } else {
                None
            }
        }
    }
}

/// Text a person reads on the element: its live value for form controls, its alternative
/// text for images, else the visible text beneath it.
fn content_of(snapshot: &PageSnapshot, i: usize, last: usize, kind: ElementKind) -> String {
    let node = &snapshot.nodes[i];
    match kind {
        ElementKind::FormItem => {
            let form = node.form.as_ref();
            if let Some(text) = form.and_then(|f| f.selected_text.clone()) {
                return collapse_whitespace(&text);
            }
            if node.tag() == Some("option") {
                return subtree_text(snapshot, i, last);
            }
            let value = form
                .and_then(|f| f.value.clone())
                .or_else(|| node.attr("value").map(str::to_string))
                .unwrap_or_default();
            if !value.is_empty() && super::is_sensitive_field(node) {
                return super::SECRET_MASK.to_string();
            }
            value
        }
        ElementKind::Img => ["alt", "aria-label", "title"]
            .iter()
            .find_map(|k| node.attr(k))
            .map(collapse_whitespace)
            .unwrap_or_default(),
        ElementKind::Container => String::new(),
        _ => subtree_text(snapshot, i, last),
    }
}

fn subtree_text(snapshot: &PageSnapshot, i: usize, last: usize) -> String {
    let mut out = String::new();
    for node in &snapshot.nodes[i + 1..=last] {
        if let NodeData::Text { text } = &node.data {
            if node.visible {
                out.push(' ');
                out.push_str(text);
            }
        }
        if out.len() > MAX_CONTENT_CHARS * 4 {
            break; // enough to fill the cut; a 10 MB text node stops here
        }
    }
    collapse_whitespace(&out)
}

fn kept_attributes(node: &SnapNode) -> Vec<(String, String)> {
    let mut out = Vec::new();
    for name in KEPT_ATTRIBUTES {
        let Some(value) = node.attr(name) else { continue };
        let value = match name {
            "class" => {
                let classes: Vec<_> = value.split_whitespace().collect();
                if classes.is_empty() {
                    continue;
                }
                format!(".{}", classes.join("."))
            }
            "src" | "href" if value.starts_with("data:") => {
                let kind = value.split([';', ',']).next().unwrap_or("data:");
                format!("{kind},…")
            }
            _ => value.to_string(),
        };
        out.push((name.to_string(), truncate_chars(&value, MAX_ATTR_CHARS)));
    }
    if let Some(checked) = node.form.as_ref().and_then(|f| f.checked) {
        let kind = node.attr("type").unwrap_or("").to_ascii_lowercase();
        if kind == "checkbox" || kind == "radio" {
            out.push(("checked".into(), checked.to_string()));
        }
    }
    out
}

/// A short id from the element's place and content (FNV-1a): unchanged elements keep it
/// across extractions. Collisions within one page get a suffix.
/// `used` holds the ids given so far as (six letters, suffix): an id is its six letters and,
/// past the first, its number, so two are equal exactly when both parts are.
fn unique_id(used: &mut crate::fast_hash::FastSet<([u8; 6], u32)>, xpath: &str, tag: &str, content: &str) -> String {
    let mut h: u64 = 0xcbf29ce484222325;
    for b in xpath.bytes().chain([0]).chain(tag.bytes()).chain([0]).chain(content.bytes().take(64)) {
        h ^= b as u64;
        h = h.wrapping_mul(0x100000001b3);
    }
    let mut letters = [0u8; 6];
    for letter in &mut letters {
        *letter = b'a' + (h % 26) as u8;
        h /= 26;
    }
    let mut k = 1;
    while !used.insert((letters, k)) {
        k += 1;
    }
    let mut id: String = letters.iter().map(|&b| b as char).collect();
    if k > 1 {
        id.push_str(&k.to_string());
    }
    id
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::snapshot::test_support::Builder;
    use crate::snapshot::{FormState, StyleFacts};
    use crate::vocab::geometry::Rect;

    fn r(x: f64, y: f64, w: f64, h: f64) -> Rect {
        Rect::new(x, y, w, h)
    }

    fn todo_page() -> Builder {
        let mut b = Builder::new();
        let html = b.el(None, "html", &[], r(0.0, 0.0, 1280.0, 800.0));
        let body = b.el(Some(html), "body", &[], r(0.0, 0.0, 1280.0, 800.0));
        let h1 = b.el(Some(body), "h1", &[], r(500.0, 20.0, 200.0, 60.0));
        b.text(h1, "todos", r(550.0, 30.0, 100.0, 40.0));
        let input = b.el(
            Some(body),
            "input",
            &[("class", "new-todo  main"), ("placeholder", "What needs to be done?")],
            r(400.0, 100.0, 480.0, 50.0),
        );
        b.node_mut(input).form = Some(FormState { value: Some("milk".into()), ..Default::default() });
        let button = b.el(Some(body), "button", &[("class", "clear")], r(400.0, 200.0, 120.0, 30.0));
        let span = b.el(Some(button), "span", &[], r(400.0, 200.0, 120.0, 30.0));
        b.text(span, " Clear\n completed ", r(400.0, 200.0, 120.0, 30.0));
        let a = b.el(Some(body), "a", &[("href", "#/active")], r(400.0, 260.0, 60.0, 20.0));
        b.text(a, "Active", r(400.0, 260.0, 60.0, 20.0));
        let far = b.el(Some(body), "p", &[], r(0.0, 2000.0, 100.0, 20.0));
        b.text(far, "footer", r(0.0, 2000.0, 100.0, 20.0));
        b
    }

    #[test]
    fn classifies_todo_page() {
        let b = todo_page();
        let els = classify(&b.snap);
        let kinds: Vec<_> = els.iter().map(|e| (e.kind, e.tag.as_str(), e.content.as_str())).collect();
        assert_eq!(
            kinds,
            [
                (ElementKind::Text, "h1", "todos"),
                (ElementKind::FormItem, "input", "milk"),
                (ElementKind::Button, "button", "Clear completed"),
                (ElementKind::Anchor, "a", "Active"),
                (ElementKind::Text, "p", "footer"),
            ]
        );
        let input = &els[1];
        assert_eq!(input.index, 2);
        assert_eq!(input.attr("class"), Some(".new-todo.main"));
        assert_eq!(input.attr("placeholder"), Some("What needs to be done?"));
        assert_eq!(input.center, (640.0, 125.0));
        assert_eq!(input.in_viewport, 1.0);
        assert_eq!(els[4].in_viewport, 0.0, "off-screen kept and marked");
    }

    #[test]
    fn ids_are_stable_and_unique() {
        let a = classify(&todo_page().snap);
        let b = classify(&todo_page().snap);
        let ids: Vec<_> = a.iter().map(|e| e.id.clone()).collect();
        assert_eq!(ids, b.iter().map(|e| e.id.clone()).collect::<Vec<_>>());
        let unique: std::collections::HashSet<_> = ids.iter().collect();
        assert_eq!(unique.len(), ids.len());
        assert!(ids.iter().all(|id| id.len() >= 6 && id.chars().all(|c| c.is_ascii_lowercase() || c.is_ascii_digit())));
    }

    #[test]
    fn hidden_tiny_and_hidden_inputs_are_left_out() {
        let mut b = Builder::new();
        let body = b.el(None, "body", &[], r(0.0, 0.0, 1280.0, 800.0));
        let hidden = b.el(Some(body), "button", &[], r(0.0, 0.0, 50.0, 20.0));
        b.node_mut(hidden).visible = false;
        b.el(Some(body), "button", &[], r(0.0, 0.0, 2.0, 20.0));
        b.el(Some(body), "input", &[("type", "hidden")], r(0.0, 0.0, 50.0, 20.0));
        b.el(Some(body), "input", &[("type", "checkbox")], r(0.0, 50.0, 20.0, 20.0));
        let els = classify(&b.snap);
        assert_eq!(els.len(), 1);
        assert_eq!(els[0].attr("type"), Some("checkbox"));
    }

    #[test]
    fn background_containers_and_images_need_no_base_content() {
        let mut b = Builder::new();
        let body = b.el(None, "body", &[], r(0.0, 0.0, 1280.0, 800.0));
        let bar = b.el(Some(body), "div", &[], r(0.0, 0.0, 100.0, 10.0));
        b.node_mut(bar).style =
            Some(StyleFacts { has_background_color: true, has_background_image: false, icon_font: false });
        let icon = b.el(Some(body), "i", &[("title", "Star")], r(0.0, 20.0, 16.0, 16.0));
        b.node_mut(icon).style =
            Some(StyleFacts { has_background_color: false, has_background_image: true, icon_font: false });
        let labelled = b.el(Some(body), "div", &[], r(0.0, 40.0, 100.0, 10.0));
        b.node_mut(labelled).style =
            Some(StyleFacts { has_background_color: true, has_background_image: false, icon_font: false });
        b.text(labelled, "text", r(0.0, 40.0, 100.0, 10.0));
        let backdrop = b.el(Some(body), "div", &[], r(0.0, 0.0, 1280.0, 800.0));
        b.node_mut(backdrop).style =
            Some(StyleFacts { has_background_color: true, has_background_image: false, icon_font: false });
        let els = classify(&b.snap);
        let kinds: Vec<_> = els.iter().map(|e| e.kind).collect();
        assert_eq!(kinds, [ElementKind::Container, ElementKind::Img, ElementKind::Text]);
        assert_eq!(els[1].content, "Star");
    }

    #[test]
    fn select_shows_selected_option_and_data_urls_are_short() {
        let mut b = Builder::new();
        let body = b.el(None, "body", &[], r(0.0, 0.0, 1280.0, 800.0));
        let select = b.el(Some(body), "select", &[], r(0.0, 0.0, 100.0, 20.0));
        b.node_mut(select).form = Some(FormState {
            selected_text: Some("Two".into()),
            options: vec!["One".into(), " Two\n ".into()],
            ..Default::default()
        });
        let opt = b.el(Some(select), "option", &[], r(0.0, 0.0, 100.0, 20.0));
        b.text(opt, "Two", r(0.0, 0.0, 100.0, 20.0));
        b.el(Some(body), "img", &[("src", "data:image/png;base64,AAAA"), ("alt", "logo")], r(0.0, 30.0, 50.0, 50.0));
        let els = classify(&b.snap);
        assert_eq!(els.len(), 2, "options are absorbed into their select");
        assert_eq!(els[0].content, "Two");
        assert_eq!(els[0].options, ["One", "Two"], "every option, as a person reads it");
        let text = crate::describe::compact::compact_description(&b.snap, &els, false);
        assert!(text.contains(" value=\"Two\" options=\"One | Two\" @"), "{text}");
        let tree = crate::describe::midscene::tree_of(&b.snap, &els);
        let ms = crate::describe::midscene::description_of_tree(&tree, None, false, true);
        assert!(ms.contains(" options=\"One | Two\" "), "{ms}");
        assert_eq!(els[1].attr("src"), Some("data:image/png,…"));
        assert_eq!(els[1].content, "logo");
    }

    #[test]
    fn secret_fields_show_a_mask_never_their_value() {
        let mut b = Builder::new();
        let body = b.el(None, "body", &[], r(0.0, 0.0, 1280.0, 800.0));
        let pass = b.el(Some(body), "input", &[("type", "password"), ("value", "hunter2")], r(0.0, 0.0, 100.0, 20.0));
        b.node_mut(pass).form = Some(FormState { value: Some("hunter2-typed".into()), ..Default::default() });
        let otp = b.el(Some(body), "input", &[("name", "one_time_code")], r(0.0, 30.0, 100.0, 20.0));
        b.node_mut(otp).form = Some(FormState { value: Some("123456".into()), ..Default::default() });
        let user = b.el(Some(body), "input", &[("name", "user")], r(0.0, 60.0, 100.0, 20.0));
        b.node_mut(user).form = Some(FormState { value: Some("ada".into()), ..Default::default() });
        let els = classify(&b.snap);
        assert_eq!(els[0].content, crate::describe::SECRET_MASK);
        assert_eq!(els[1].content, crate::describe::SECRET_MASK);
        assert_eq!(els[2].content, "ada", "ordinary fields keep their value");
        let text = crate::describe::compact::compact_description(&b.snap, &els, false);
        assert!(!text.contains("hunter2") && !text.contains("123456"), "{text}");
    }
}

#[cfg(test)]
mod attribute_contract {
    #[test]
    fn walkers_record_every_attribute_classification_reads() {
        for name in super::KEPT_ATTRIBUTES {
            assert!(crate::snapshot::RECORDED_ATTRIBUTES.contains(&name), "{name} is shown but never recorded");
        }
    }
}
