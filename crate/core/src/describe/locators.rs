//! How test tools find an element again by what a person sees of it: its test id, its role
//! and accessible name, its label, its placeholder, its text. Playwright's codegen writes
//! `getByRole('textbox', { name: 'Email' })` and the Chrome Recorder `aria/Email[role="textbox"]`
//! from these, not XPaths; each needs to know whether the words name this element alone.
//!
//! The browser computes the facts once, when the step acts on the element (the role and name
//! as Chrome's accessibility tree has them, the attributes, and the same facts of every other
//! element of its document: [`LocatorData`]); [`Locators::of`] decides here which of them name
//! the element and how (`exact`, `nth`), and the record keeps the answer, so exports stay pure.
//! Uniqueness is judged in the whole document, not only in view (steps read only the view).

use serde::{Deserialize, Serialize};

/// Longest name or text a locator is written with; longer ones are cut at a word boundary
/// (a cut text still matches as a substring, as Playwright's codegen does it).
const MAX_LOCATOR_CHARS: usize = 80;

/// Roles Playwright's `getByRole` and Puppeteer's `aria/…[role=…]` accept, as Chrome's
/// accessibility tree names them (`image` is ARIA's `img`). Chrome's own roles (`generic`,
/// `StaticText`, `LabelText`, …) have no locator.
const ROLES: [(&str, &str); 33] = [
    ("button", "button"),
    ("checkbox", "checkbox"),
    ("combobox", "combobox"),
    ("link", "link"),
    ("textbox", "textbox"),
    ("searchbox", "searchbox"),
    ("spinbutton", "spinbutton"),
    ("radio", "radio"),
    ("switch", "switch"),
    ("slider", "slider"),
    ("listbox", "listbox"),
    ("option", "option"),
    ("menuitem", "menuitem"),
    ("menuitemcheckbox", "menuitemcheckbox"),
    ("menuitemradio", "menuitemradio"),
    ("tab", "tab"),
    ("treeitem", "treeitem"),
    ("heading", "heading"),
    ("listitem", "listitem"),
    ("image", "img"),
    ("img", "img"),
    ("cell", "cell"),
    ("gridcell", "gridcell"),
    ("row", "row"),
    ("columnheader", "columnheader"),
    ("rowheader", "rowheader"),
    ("dialog", "dialog"),
    ("alertdialog", "alertdialog"),
    ("progressbar", "progressbar"),
    ("meter", "meter"),
    ("scrollbar", "scrollbar"),
    ("navigation", "navigation"),
    ("region", "region"),
];

/// Where a text lies in the element holding it, which scripts act on: the centre of its first
/// line from the element's border-box top-left (Puppeteer's offsets count from there), and the
/// element's top and left border widths (Playwright's `position` counts from the padding box).
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct HolderPoint {
    pub x: f64,
    pub y: f64,
    pub border_left: f64,
    pub border_top: f64,
}

impl HolderPoint {
    /// The point from the padding box's top-left.
    pub fn in_padding_box(&self) -> (f64, f64) {
        (self.x - self.border_left, self.y - self.border_top)
    }
}

/// Elements of one tag past which the page is not asked to judge a text path: XPath builds each
/// one's text from its whole subtree, which on nested `div`s costs far more than the 10-30 ms
/// measured for a tag's path on the 70k- and 205k-element bench pages.
const MAX_TAGGED_FOR_TEXT_PATH: u32 = 20_000;

/// What the page is asked about an element's text path as a step acts on it (the worker's
/// `locatorData`): whether `path` finds the element alone and, for a text, `holder` (the path
/// scripts act on, `xpath::element_of`) the element holding it alone. Asked only where the
/// step's reading offered no text path (a partial reading cannot judge one).
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct TextPathCheck {
    pub path: String,
    pub holder: Option<String>,
    pub tag: String,
    pub max_tagged: u32,
}

impl TextPathCheck {
    pub fn of(e: &crate::describe::Element) -> Option<Self> {
        if e.xpath_text.is_some() {
            return None;
        }
        let path = crate::describe::xpath::text_candidate(e)?;
        let holder = Some(crate::describe::xpath::element_of(&path)).filter(|h| *h != path).map(str::to_string);
        Some(TextPathCheck { path, holder, tag: e.tag.clone(), max_tagged: MAX_TAGGED_FOR_TEXT_PATH })
    }
}

/// What the browser read about an element and its document for [`Locators::of`] (the
/// service worker's `locatorData`, through CDP: DOM attributes, and the accessibility tree's
/// roles and names). Lists are in document order.
#[derive(Clone, Debug, Default, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct LocatorData {
    /// The element's text path (`xpath::text_candidate`) where the page confirmed it finds
    /// this element and no other; absent where the reading judged it already or it did not.
    pub text_path: Option<String>,
    /// For a text node: where it lies in the element holding it.
    pub holder_point: Option<HolderPoint>,
    /// The frames between the top document and the element, outermost first.
    pub frames: Vec<FrameRef>,
    /// The element's accessibility role and name (Chrome's).
    pub role: Option<String>,
    pub name: Option<String>,
    /// The names of the elements with the same role in the element's document (hidden ones
    /// left out, as `getByRole` leaves them out), with the element's own position.
    pub role_names: Vec<String>,
    pub role_index: Option<usize>,
    pub test_id: Option<String>,
    /// Every `data-testid` in the element's document.
    pub test_ids: Vec<String>,
    pub placeholder: Option<String>,
    pub placeholders: Vec<String>,
    /// The texts of the element's `<label>`s (or its `aria-label`).
    pub label: Option<String>,
    /// Every label text and `aria-label` of the document.
    pub labels: Vec<String>,
    /// The element's own visible text.
    pub text: Option<String>,
    /// The document's visible text pieces (its accessibility tree's static texts).
    pub texts: Vec<String>,
    /// The names of the hidden elements with the element's role (a row's delete button shown
    /// only on hover): a name they share with it is a row's, not the element's own.
    pub hidden_role_names: Vec<String>,
    /// The nearest row holding the element (a list item, a table row…), or the element itself
    /// where it is one.
    pub row: Option<RowData>,
    /// A checkbox's or radio's state as the step began.
    pub checked: Option<bool>,
}

/// A row as read around an element: its role, its text as Playwright's `hasText` reads it, the
/// texts of every shown row of that role in the document with this one's position, and the
/// element inside it (absent where the element is the row).
#[derive(Clone, Debug, Default, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct RowData {
    pub role: String,
    pub text: String,
    pub texts: Vec<String>,
    pub index: usize,
    pub inner: Option<InnerData>,
}

/// The element inside its row: its role and name, and the names of the shown elements of that
/// role in the row, with its position.
#[derive(Clone, Debug, Default, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct InnerData {
    pub role: String,
    pub name: String,
    pub names: Vec<String>,
    pub index: Option<usize>,
}

/// The element found by its row: the row by its role and text (`getByRole('listitem')
/// .filter({ hasText: 'buy milk' })`), then, unless it is the row, by its role inside it (with
/// its name where that tells it apart there, else its position).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct InRow {
    pub row_role: String,
    pub row_text: Named,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub role: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<Named>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub nth: Option<u32>,
}

/// A frame on the way to the element: its `name` or `title` (how Playwright's codegen names
/// it) and its position among its parent's frames (the Recorder's `frame` path).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct FrameRef {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    pub index: u32,
}

/// Words that name the element, and how: `exact` when only the whole text (case and all)
/// tells it from another, `nth` (0-based) when not even that does.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Named {
    pub text: String,
    /// `text` is the start of longer words (matched as a substring only).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub cut: bool,
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub exact: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub nth: Option<u32>,
}

impl Named {
    /// Names the element alone (with `exact` if need be), no position needed.
    pub fn is_unique(&self) -> bool {
        self.nth.is_none()
    }
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RoleName {
    /// An ARIA role (`button`, `textbox`, `img`…).
    pub role: String,
    pub name: Named,
}

/// The ways to find the element again that the page allowed when it was recorded; each is
/// absent where the element has no such words.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct Locators {
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub frames: Vec<FrameRef>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub test_id: Option<Named>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub role: Option<RoleName>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub label: Option<Named>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub placeholder: Option<Named>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub text: Option<Named>,
    /// By its row, where the element's own words do not tell it from its like in other rows
    /// (a nameless checkbox, a delete button in every row).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub in_row: Option<InRow>,
    /// A checkbox's or radio's state before the step: a tap on it checks or unchecks.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub checked: Option<bool>,
}

impl Locators {
    /// Decides from what the browser read; None when nothing names the element.
    pub fn of(data: &LocatorData) -> Option<Locators> {
        let role = data.role.as_deref().and_then(aria_role);
        let role = match (role, data.name.as_deref().map(normalize).filter(|n| !n.is_empty()), data.role_index) {
            (Some(role), Some(name), Some(me)) => {
                named(&name, &data.role_names, me, Match::Substring).map(|name| RoleName { role: role.into(), name })
            }
            _ => None,
        };
        // Which of equal labels, placeholders or texts is the element's is not read: these
        // serve only where they name it alone.
        let by_text = |own: &Option<String>, all: &[String]| {
            let own = own.as_deref().map(normalize).filter(|t| !t.is_empty())?;
            let me = all.iter().position(|t| normalize(t) == own)?;
            named(&own, all, me, Match::Substring).filter(Named::is_unique)
        };
        let test_id = data.test_id.as_deref().filter(|t| !t.is_empty()).and_then(|own| {
            let me = data.test_ids.iter().position(|t| t == own)?;
            // getByTestId matches the whole attribute, case and all.
            named(own, &data.test_ids, me, Match::Whole)
        });
        // A name hidden elements of the role share (a delete button in every row, shown on
        // hover) is the row's: the role and name alone would find another row's once shown.
        let repeated = role
            .as_ref()
            .is_some_and(|r| data.hidden_role_names.iter().any(|n| normalize(n).eq_ignore_ascii_case(&r.name.text)));
        let in_row = data.row.as_ref().and_then(in_row);
        let found = Locators {
            frames: data.frames.clone(),
            test_id,
            role: role.filter(|_| !repeated || in_row.is_none()),
            label: by_text(&data.label, &data.labels),
            placeholder: by_text(&data.placeholder, &data.placeholders),
            text: by_text(&data.text, &data.texts),
            in_row,
            checked: data.checked,
        };
        let any = found.test_id.is_some()
            || found.role.is_some()
            || found.label.is_some()
            || found.placeholder.is_some()
            || found.text.is_some()
            || found.in_row.is_some();
        any.then_some(found)
    }
}

/// The element by its row, where the row's text tells the row apart and the element's role
/// (with its name, else its position) tells it apart inside the row.
fn in_row(row: &RowData) -> Option<InRow> {
    let row_role = aria_role(&row.role)?;
    let text = normalize(&row.text);
    if text.is_empty() {
        return None;
    }
    // `hasText` is a substring match: the row's text must be in no other row's.
    let row_text = named(&text, &row.texts, row.index, Match::Substring).filter(|n| !n.exact && n.is_unique())?;
    let Some(inner) = &row.inner else {
        return Some(InRow { row_role: row_role.into(), row_text, role: None, name: None, nth: None });
    };
    let role = aria_role(&inner.role)?;
    let me = inner.index?;
    let own = normalize(&inner.name);
    // The only one of its role in the row needs no name (a name from CSS content, say, that
    // another tool may read otherwise).
    let name =
        (!own.is_empty() && inner.names.len() > 1).then(|| named(&own, &inner.names, me, Match::Substring)).flatten();
    let (name, nth) = match name {
        Some(n) if n.is_unique() => (Some(n), None),
        _ => (None, (inner.names.len() > 1).then_some(me as u32)),
    };
    Some(InRow { row_role: row_role.into(), row_text, role: Some(role.into()), name, nth })
}

/// The ARIA role for Chrome's role name, where locators take it.
fn aria_role(chrome: &str) -> Option<&'static str> {
    ROLES.iter().find(|(c, _)| c.eq_ignore_ascii_case(chrome)).map(|(_, aria)| *aria)
}

#[derive(Clone, Copy, PartialEq)]
enum Match {
    /// Playwright's default for names and texts: a case-insensitive substring.
    Substring,
    /// Test ids: the whole value.
    Whole,
}

/// `own` (the element's words, at `me` in `all`) as a locator: unique as a substring, else
/// unique as the exact text, else the element's position among those matching it exactly.
fn named(own: &str, all: &[String], me: usize, how: Match) -> Option<Named> {
    let text = cut(own);
    let was_cut = text.chars().count() < own.chars().count();
    let normalized: Vec<String> = all.iter().map(|t| normalize(t)).collect();
    if how == Match::Whole {
        let same: Vec<usize> = (0..all.len()).filter(|&i| all[i] == own).collect();
        let nth = same.iter().position(|&i| i == me)?;
        return Some(Named { text, cut: false, exact: false, nth: (same.len() > 1).then_some(nth as u32) });
    }
    let lower = text.to_lowercase();
    let containing = normalized.iter().filter(|t| t.to_lowercase().contains(&lower)).count();
    if containing <= 1 {
        return Some(Named { text, cut: was_cut, exact: false, nth: None });
    }
    if was_cut {
        // A cut text cannot be matched exactly: its place among those containing it.
        let nth = (0..me).filter(|&i| normalized[i].to_lowercase().contains(&lower)).count();
        return Some(Named { text, cut: true, exact: false, nth: Some(nth as u32) });
    }
    let same: Vec<usize> = (0..normalized.len()).filter(|&i| normalized[i] == text).collect();
    let nth = same.iter().position(|&i| i == me)?;
    Some(Named { text, cut: false, exact: true, nth: (same.len() > 1).then_some(nth as u32) })
}

/// Whitespace collapsed and trimmed, as Playwright compares names and texts.
pub(crate) fn normalize(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// At most [`MAX_LOCATOR_CHARS`], cut at a word boundary.
fn cut(s: &str) -> String {
    if s.chars().count() <= MAX_LOCATOR_CHARS {
        return s.to_string();
    }
    let head: String = s.chars().take(MAX_LOCATOR_CHARS).collect();
    match head.rfind(' ') {
        Some(space) if space > 0 => head[..space].to_string(),
        _ => head,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn strings(v: &[&str]) -> Vec<String> {
        v.iter().map(|s| s.to_string()).collect()
    }

    fn textbox(name: &str, names: &[&str], me: usize) -> LocatorData {
        LocatorData {
            role: Some("textbox".into()),
            name: Some(name.into()),
            role_names: strings(names),
            role_index: Some(me),
            ..Default::default()
        }
    }

    #[test]
    fn a_unique_name_needs_no_exact() {
        let l = Locators::of(&textbox("Email", &["Email", "Name"], 0)).unwrap();
        assert_eq!(
            l.role,
            Some(RoleName {
                role: "textbox".into(),
                name: Named { cut: false, text: "Email".into(), exact: false, nth: None }
            })
        );
    }

    #[test]
    fn a_name_inside_another_is_exact() {
        // "Password" is also part of "Confirm password" (substring, any case).
        let l = Locators::of(&textbox("Password", &["Confirm password", "Password"], 1)).unwrap();
        assert_eq!(l.role.unwrap().name, Named { cut: false, text: "Password".into(), exact: true, nth: None });
    }

    #[test]
    fn duplicates_are_told_apart_by_position() {
        let mut data = textbox("Submit", &["Submit", "Cancel", "Submit"], 2);
        data.role = Some("button".into());
        let role = Locators::of(&data).unwrap().role.unwrap();
        assert_eq!(role.role, "button");
        assert_eq!(role.name, Named { cut: false, text: "Submit".into(), exact: true, nth: Some(1) });
        assert!(!role.name.is_unique());
    }

    #[test]
    fn chrome_only_roles_and_empty_names_have_no_role_locator() {
        assert!(Locators::of(&textbox("", &[""], 0)).is_none());
        let mut generic = textbox("Card", &["Card"], 0);
        generic.role = Some("generic".into());
        assert!(Locators::of(&generic).is_none());
        let mut image = textbox("Logo", &["Logo"], 0);
        image.role = Some("image".into());
        assert_eq!(Locators::of(&image).unwrap().role.unwrap().role, "img");
    }

    #[test]
    fn test_ids_placeholders_labels_and_texts() {
        let data = LocatorData {
            test_id: Some("save".into()),
            test_ids: strings(&["save", "save-all"]),
            placeholder: Some("Search".into()),
            placeholders: strings(&["Search", "search  all"]),
            label: Some("  Email ".into()),
            labels: strings(&["Email", "Name"]),
            text: Some("Walk dog".into()),
            texts: strings(&["Walk dog", "Walk dog"]),
            ..Default::default()
        };
        let l = Locators::of(&data).unwrap();
        assert_eq!(
            l.test_id,
            Some(Named { cut: false, text: "save".into(), exact: false, nth: None }),
            "whole value: unique"
        );
        assert_eq!(l.placeholder, Some(Named { cut: false, text: "Search".into(), exact: true, nth: None }));
        assert_eq!(l.label, Some(Named { cut: false, text: "Email".into(), exact: false, nth: None }));
        assert_eq!(l.text, None, "two equal texts: which is the element's is not known");
        assert!(l.role.is_none());
    }

    #[test]
    fn long_names_are_cut_at_a_word() {
        let long = "word ".repeat(30);
        let l = Locators::of(&textbox(&long, &[&long], 0)).unwrap();
        let name = l.role.unwrap().name;
        assert!(name.text.chars().count() <= MAX_LOCATOR_CHARS && name.text.ends_with("word"), "{}", name.text);
        assert!(name.is_unique() && !name.exact && name.cut);
    }

    fn row(text: &str, texts: &[&str], index: usize, inner: Option<InnerData>) -> Option<RowData> {
        Some(RowData { role: "listitem".into(), text: text.into(), texts: strings(texts), index, inner })
    }

    #[test]
    fn a_nameless_control_is_found_by_its_row_text() {
        let data = LocatorData {
            role: Some("checkbox".into()),
            name: Some(String::new()),
            role_names: strings(&["", "", ""]),
            role_index: Some(0),
            checked: Some(false),
            row: row(
                " buy milk ",
                &["buy milk", "walk dog", "read book"],
                0,
                Some(InnerData { role: "checkbox".into(), name: String::new(), names: strings(&[""]), index: Some(0) }),
            ),
            ..Default::default()
        };
        let l = Locators::of(&data).unwrap();
        assert!(l.role.is_none(), "no name: no role locator of its own");
        assert_eq!(
            l.in_row,
            Some(InRow {
                row_role: "listitem".into(),
                row_text: Named { text: "buy milk".into(), cut: false, exact: false, nth: None },
                role: Some("checkbox".into()),
                name: None,
                nth: None
            })
        );
        assert_eq!(l.checked, Some(false));
    }

    #[test]
    fn a_name_every_row_repeats_is_the_rows_and_a_row_text_inside_another_is_no_scope() {
        // The hovered row's delete button is the only one shown; the others share its name.
        let inner =
            InnerData { role: "button".into(), name: "\u{d7}".into(), names: strings(&["\u{d7}"]), index: Some(0) };
        let mut data = LocatorData {
            role: Some("button".into()),
            name: Some("\u{d7}".into()),
            role_names: strings(&["\u{d7}"]),
            role_index: Some(0),
            hidden_role_names: strings(&["\u{d7}", "\u{d7}"]),
            row: row("read book", &["buy milk", "read book"], 1, Some(inner)),
            ..Default::default()
        };
        let l = Locators::of(&data).unwrap();
        assert!(l.role.is_none(), "getByRole('button', {{ name: '\u{d7}' }}) would find another row's once shown");
        let r = l.in_row.unwrap();
        assert_eq!((r.role.as_deref(), r.name, r.nth), (Some("button"), None, None));
        // "read" is also in "read book again": hasText cannot tell the rows apart.
        data.row = row("read", &["read", "read book again"], 0, None);
        data.hidden_role_names.clear();
        let l = Locators::of(&data).unwrap();
        assert!(l.in_row.is_none() && l.role.is_some());
    }

    #[test]
    fn two_of_a_role_in_a_row_are_told_apart_by_name_else_position() {
        let inner = |name: &str, names: &[&str], me| InnerData {
            role: "button".into(),
            name: name.into(),
            names: strings(names),
            index: Some(me),
        };
        let data = |i| LocatorData { row: row("a", &["a", "b"], 0, Some(i)), ..Default::default() };
        let named_one = Locators::of(&data(inner("Edit", &["Edit", "Delete"], 0))).unwrap().in_row.unwrap();
        assert_eq!(named_one.name.map(|n| n.text), Some("Edit".into()));
        let second = Locators::of(&data(inner("", &["", ""], 1))).unwrap().in_row.unwrap();
        assert_eq!((second.name, second.nth), (None, Some(1)));
    }

    #[test]
    fn frames_are_kept_in_order() {
        let mut data = textbox("Pay now", &["Pay now"], 0);
        data.role = Some("button".into());
        data.frames = vec![FrameRef { name: Some("pay".into()), title: None, index: 1 }];
        assert_eq!(Locators::of(&data).unwrap().frames[0].index, 1);
    }
}
