//! Finding a recorded element again by its [`Locators`] (what a person sees of it) among the
//! elements of a reading, for a replay whose XPaths no longer match and which has no model to
//! ask: the page changed around the element (a row inserted above, a label edited), not the
//! element itself.
//!
//! The role and name were Chrome's when the step was recorded; here they are worked out from
//! what a reading keeps of an element (tag, `type`, `role`, `aria-label`, its text), which is
//! Chrome's answer in the common cases `getByRole` is written for. A locator is used only where
//! it picks one element: alone among those it matches, or by its recorded position (`nth`).

use super::locators::{normalize, InRow, Locators, Named};
use super::{Element, ElementKind};

/// The ARIA role of `e` as far as its tag, `type` and `role` attribute tell.
pub fn role_of(e: &Element) -> Option<&str> {
    if let Some(role) = e.attr("role").and_then(|r| r.split_whitespace().next()) {
        return Some(role);
    }
    if e.kind == ElementKind::Text {
        // A text is its holder's words, not a control of its own.
        return None;
    }
    let input_type = e.attr("type").map(str::to_ascii_lowercase);
    Some(match e.tag.as_str() {
        "button" => "button",
        "a" if e.attr("href").is_some() => "link",
        "select" => "combobox",
        "textarea" => "textbox",
        "img" => "img",
        "li" => "listitem",
        "tr" => "row",
        "option" => "option",
        "h1" | "h2" | "h3" | "h4" | "h5" | "h6" => "heading",
        "input" => match input_type.as_deref().unwrap_or("text") {
            "checkbox" => "checkbox",
            "radio" => "radio",
            "button" | "submit" | "reset" | "image" => "button",
            "range" => "slider",
            "number" => "spinbutton",
            "search" => "searchbox",
            "hidden" | "file" | "color" | "date" | "datetime-local" | "month" | "time" | "week" => return None,
            _ => "textbox",
        },
        _ => return None,
    })
}

/// The words that name `e` for a person: its `aria-label`, else its text (an image's
/// alternative text), else the attributes a field is named by.
fn name_of(e: &Element) -> String {
    let attr = |k: &str| e.attr(k).map(str::trim).filter(|v| !v.is_empty()).map(str::to_string);
    let text = (e.kind != ElementKind::FormItem).then(|| e.content.trim().to_string()).filter(|c| !c.is_empty());
    attr("aria-label")
        .or(text)
        .or_else(|| attr("alt"))
        .or_else(|| attr("title"))
        .or_else(|| attr("placeholder"))
        .map(|n| normalize(&n))
        .unwrap_or_default()
}

/// Whether `words` answer to `named` as Playwright matches a name or text: a case-insensitive
/// substring, or the whole text where it was recorded `exact`.
fn answers(words: &str, named: &Named) -> bool {
    let sought = normalize(&named.text);
    if sought.is_empty() {
        return words.is_empty();
    }
    match named.exact {
        true => words == sought,
        false => words.to_lowercase().contains(&sought.to_lowercase()),
    }
}

/// The one element of `candidates` that `named` picks: by its recorded position, else the only one.
fn pick<'a>(named: &Named, mut candidates: Vec<&'a Element>) -> Option<&'a Element> {
    match named.nth {
        Some(n) => candidates.into_iter().nth(n as usize),
        None if candidates.len() == 1 => candidates.pop(),
        None => None,
    }
}

/// The words `locators` name an element by, lower case: what a reading keeps beyond the view
/// while a replay looks for the element (`Sought::words`).
pub fn words(locators: &Locators) -> Vec<String> {
    let role = locators.role.as_ref().map(|r| &r.name);
    let row = locators.in_row.as_ref().map(|r| &r.row_text);
    [role, locators.label.as_ref(), locators.placeholder.as_ref(), locators.text.as_ref(), row]
        .into_iter()
        .flatten()
        .map(|n| normalize(&n.text).to_lowercase())
        .filter(|w| !w.is_empty())
        .collect()
}

/// Whether `e`'s text or naming attributes hold one of `words` (lower case).
pub fn holds_any(e: &Element, words: &[String]) -> bool {
    let naming = ["aria-label", "placeholder", "title", "alt"].iter().filter_map(|k| e.attr(k));
    std::iter::once(e.content.as_str())
        .chain(naming)
        .map(|t| normalize(t).to_lowercase())
        .any(|t| words.iter().any(|w| t.contains(w.as_str())))
}

/// The element `locators` name among `elements` (document order), trying them as exports
/// write them: role and name, label, placeholder, text.
pub fn find<'a>(locators: &Locators, elements: &'a [Element]) -> Option<&'a Element> {
    let all = || elements.iter();
    let by_role = locators.role.as_ref().and_then(|r| {
        pick(&r.name, all().filter(|e| role_of(e) == Some(r.role.as_str()) && answers(&name_of(e), &r.name)).collect())
    });
    let by_label = || {
        let n = locators.label.as_ref()?;
        // A label names a field: only fields answer to it.
        pick(n, all().filter(|e| e.kind == ElementKind::FormItem && answers(&name_of(e), n)).collect())
    };
    let by_placeholder = || {
        let n = locators.placeholder.as_ref()?;
        pick(n, all().filter(|e| e.attr("placeholder").is_some_and(|p| answers(&normalize(p), n))).collect())
    };
    let by_text = || {
        let n = locators.text.as_ref()?;
        // A text locator finds the innermost element holding the words: a reading's text elements.
        let texts: Vec<&Element> =
            all().filter(|e| e.kind != ElementKind::Container && answers(&normalize(&e.content), n)).collect();
        pick(n, texts)
    };
    let by_row = || in_row(locators.in_row.as_ref()?, elements);
    by_role.or_else(by_label).or_else(by_placeholder).or_else(by_text).or_else(by_row)
}

/// The tag a row of `role` has in a page's markup (what a reading's XPaths show of ancestors).
fn row_tag(role: &str) -> Option<&'static str> {
    match role {
        "listitem" => Some("li"),
        "row" => Some("tr"),
        "option" => Some("option"),
        _ => None,
    }
}

/// The XPath of the nearest ancestor of `xpath` (or itself) with tag `tag`.
fn row_path<'a>(xpath: &'a str, tag: &str) -> Option<&'a str> {
    let mut end = None;
    let mut at = 0;
    for segment in xpath.split('/') {
        let next = at + segment.len();
        let name = segment.split('[').next().unwrap_or_default().trim();
        if name == tag {
            end = Some(next);
        }
        at = next + 1;
    }
    end.map(|e| &xpath[..e])
}

/// The words a row shows: every element's inside it, a field's value too (Playwright's
/// `hasText` reads the row's whole text, hidden parts included; a reading has what shows).
fn row_words(row: &str, elements: &[Element]) -> String {
    let inside = elements.iter().filter(|e| e.xpath == row || e.xpath.starts_with(&format!("{row}/")));
    normalize(&inside.map(|e| e.content.as_str()).collect::<Vec<_>>().join(" "))
}

/// An element found by its row's text and, inside it, its role (and name or position).
fn in_row<'a>(scope: &InRow, elements: &'a [Element]) -> Option<&'a Element> {
    let tag = row_tag(&scope.row_role)?;
    let matches_row = |row: &str| answers(&row_words(row, elements), &scope.row_text);
    let Some(role) = scope.role.as_deref() else {
        // The row itself (hovered, say): it, else the first thing in it (a pointer on it is on the row).
        let mut rows: Vec<&str> =
            elements.iter().filter_map(|e| row_path(&e.xpath, tag)).filter(|r| matches_row(r)).collect();
        rows.dedup();
        let first_in = |r: &str| elements.iter().find(|e| e.xpath == r || e.xpath.starts_with(&format!("{r}/")));
        return pick(&scope.row_text, rows.into_iter().filter_map(first_in).collect());
    };
    let in_matching_row: Vec<&Element> = elements
        .iter()
        .filter(|e| role_of(e) == Some(role))
        .filter(|e| row_path(&e.xpath, tag).is_some_and(matches_row))
        .filter(|e| scope.name.as_ref().is_none_or(|n| answers(&name_of(e), n)))
        .collect();
    match scope.nth {
        Some(n) => in_matching_row.into_iter().nth(n as usize),
        None if in_matching_row.len() == 1 => in_matching_row.into_iter().next(),
        None => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::describe::locators::RoleName;
    use crate::vocab::geometry::Rect;

    fn element(index: u32, kind: ElementKind, tag: &str, attrs: &[(&str, &str)], content: &str) -> Element {
        Element {
            index,
            id: format!("id{index}"),
            kind,
            tag: tag.into(),
            attributes: attrs.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect(),
            content: content.into(),
            rect: Rect::new(0.0, 20.0 * index as f64, 100.0, 18.0),
            center: (50.0, 20.0 * index as f64 + 9.0),
            in_viewport: 1.0,
            visible_rect: None,
            occluded: false,
            xpath: format!("/html[1]/body[1]/*[{index}]"),
            xpath_text: None,
            node: index,
            frame_origin: None,
            options: Vec::new(),
        }
    }

    fn named(text: &str) -> Named {
        Named { text: text.into(), cut: false, exact: false, nth: None }
    }

    fn role(role: &str, name: Named) -> Locators {
        Locators { role: Some(RoleName { role: role.into(), name }), ..Default::default() }
    }

    #[test]
    fn a_button_is_found_by_role_and_name_wherever_it_moved() {
        let page = [
            element(1, ElementKind::Button, "button", &[], "Cancel"),
            element(2, ElementKind::Text, "p", &[], "Save your work"),
            element(3, ElementKind::Button, "button", &[], "Save"),
        ];
        let found = find(&role("button", named("save")), &page).unwrap();
        assert_eq!(found.index, 3, "the text holding the word is no button");
    }

    #[test]
    fn an_ambiguous_name_finds_nothing_unless_its_position_was_recorded() {
        let page = [
            element(1, ElementKind::Button, "button", &[], "Delete"),
            element(2, ElementKind::Button, "button", &[], "Delete"),
        ];
        assert!(find(&role("button", named("Delete")), &page).is_none(), "two answer: no guess");
        let second = Named { nth: Some(1), ..named("Delete") };
        assert_eq!(find(&role("button", second), &page).unwrap().index, 2);
    }

    #[test]
    fn exact_names_match_the_whole_words_only() {
        let page = [
            element(1, ElementKind::FormItem, "input", &[("aria-label", "Confirm password")], ""),
            element(2, ElementKind::FormItem, "input", &[("type", "password"), ("aria-label", "Password")], ""),
        ];
        let exact = Named { exact: true, ..named("Password") };
        assert_eq!(find(&role("textbox", exact), &page).unwrap().index, 2);
    }

    #[test]
    fn a_field_is_found_by_placeholder_and_a_text_by_its_words() {
        let page = [
            element(1, ElementKind::FormItem, "input", &[("placeholder", "What needs to be done?")], "buy milk"),
            element(2, ElementKind::Text, "label", &[], "walk the dog"),
        ];
        let by_placeholder = Locators { placeholder: Some(named("What needs to be done?")), ..Default::default() };
        assert_eq!(find(&by_placeholder, &page).unwrap().index, 1);
        let by_text = Locators { text: Some(named("walk the dog")), ..Default::default() };
        assert_eq!(find(&by_text, &page).unwrap().index, 2);
        let sought = words(&by_text);
        assert!(holds_any(&page[1], &sought) && !holds_any(&page[0], &sought));
        assert!(holds_any(&page[0], &words(&by_placeholder)), "a placeholder is a naming attribute");
    }

    #[test]
    fn a_nameless_control_is_found_in_the_row_that_shows_its_words() {
        let at = |e: &mut Element, xpath: &str| e.xpath = xpath.into();
        let mut page = vec![
            element(1, ElementKind::FormItem, "input", &[("type", "checkbox")], ""),
            element(2, ElementKind::Text, "label", &[], "buy milk"),
            element(3, ElementKind::FormItem, "input", &[("type", "checkbox")], ""),
            element(4, ElementKind::FormItem, "input", &[("class", "edit")], "walk dog"),
        ];
        at(&mut page[0], "/html[1]/body[1]/ul[1]/li[1]/div[1]/input[1]");
        at(&mut page[1], "/html[1]/body[1]/ul[1]/li[1]/div[1]/label[1]");
        at(&mut page[2], "/html[1]/body[1]/ul[1]/li[2]/div[1]/input[1]");
        at(&mut page[3], "/html[1]/body[1]/ul[1]/li[2]/input[1]");
        let row = |text: &str, role: Option<&str>| Locators {
            in_row: Some(InRow {
                row_role: "listitem".into(),
                row_text: named(text),
                role: role.map(str::to_string),
                name: None,
                nth: None,
            }),
            ..Default::default()
        };
        assert_eq!(find(&row("buy milk", Some("checkbox")), &page).unwrap().index, 1);
        // The row being edited shows its words only in its field (the label is hidden).
        assert_eq!(find(&row("walk dog", Some("textbox")), &page).unwrap().index, 4);
        assert_eq!(find(&row("walk dog", None), &page).unwrap().index, 3, "the row itself: the first thing in it");
        assert!(find(&row("read book", Some("checkbox")), &page).is_none());
        assert!(words(&row("Buy Milk", None)).contains(&"buy milk".to_string()));
    }

    #[test]
    fn roles_come_from_tag_type_and_role_attribute() {
        let e = |tag: &str, attrs: &[(&str, &str)]| element(1, ElementKind::Button, tag, attrs, "");
        assert_eq!(role_of(&e("input", &[("type", "checkbox")])), Some("checkbox"));
        assert_eq!(role_of(&e("input", &[])), Some("textbox"));
        assert_eq!(role_of(&e("input", &[("type", "submit")])), Some("button"));
        assert_eq!(role_of(&e("div", &[("role", "tab")])), Some("tab"));
        assert_eq!(role_of(&e("a", &[("href", "#/active")])), Some("link"));
        assert_eq!(role_of(&e("a", &[])), None, "an anchor with no address is no link");
        assert_eq!(role_of(&e("div", &[])), None);
    }
}
