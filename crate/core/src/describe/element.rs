//! One element of a page as a run sees it, and the rules about it every describer shares:
//! which fields hold secrets, which element a point lands on, how its text is cut.

use crate::vocab::geometry::Rect;
use serde::{Deserialize, Serialize};

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum ElementKind {
    Button,
    Img,
    Text,
    FormItem,
    Container,
    Anchor,
}

impl ElementKind {
    /// Each kind's letter in a reading's columns (`ElementColumns::kind`): the first of its name.
    pub const LETTERS: [(ElementKind, char); 6] = [
        (ElementKind::Button, 'B'),
        (ElementKind::Img, 'I'),
        (ElementKind::Text, 'T'),
        (ElementKind::FormItem, 'F'),
        (ElementKind::Container, 'C'),
        (ElementKind::Anchor, 'A'),
    ];

    pub fn letter(self) -> char {
        Self::LETTERS.iter().find(|(k, _)| *k == self).map_or('?', |(_, c)| *c)
    }

    pub fn from_letter(letter: char) -> Option<ElementKind> {
        Self::LETTERS.iter().find(|(_, c)| *c == letter).map(|(k, _)| *k)
    }
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Element {
    /// The number the model names and the screenshot marker shows; 1-based, in page order.
    pub index: u32,
    /// Stable across extractions of an unchanged element.
    pub id: String,
    pub kind: ElementKind,
    /// Lower-case tag of the element (for text: of the element holding the text).
    pub tag: String,
    /// Selected attributes, values shortened.
    pub attributes: Vec<(String, String)>,
    /// Visible text, a form control's live value, or an image's alternative text.
    pub content: String,
    /// Viewport CSS pixels.
    pub rect: Rect,
    pub center: (f64, f64),
    /// Fraction of the element a person can see in the viewport, 0..=1: inside the viewport
    /// and not clipped away by an ancestor.
    pub in_viewport: f64,
    /// The part of `rect` its ancestors do not clip (it may reach outside the viewport),
    /// zero-size when scrolled out of a scrollable ancestor; absent when nothing is clipped.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub visible_rect: Option<Rect>,
    /// Something else is on top at the middle of its visible part (a dialog, an overlay).
    /// Covered elements stay here but are left out of the descriptions.
    #[serde(default)]
    pub occluded: bool,
    /// Order-sensitive XPath; ` >>> ` joins the segments of shadow roots and frames.
    pub xpath: String,
    /// Text-based XPath, where the element's text names it alone.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub xpath_text: Option<String>,
    /// Index of the source node in the snapshot.
    pub node: u32,
    /// The origin of the frame it is in, when that is not the page's own document
    /// (`snapshot::frame_origin`); what the run's site checks read for it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub frame_origin: Option<String>,
    /// A native `<select>`'s options, their text in order (`select.options`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub options: Vec<String>,
}

impl Element {
    /// Listed for the model (compact description, screenshot markers): in view, not covered,
    /// and not a bare separator such as `|` or `»` (nothing to act on, and many per page).
    pub fn is_listed(&self) -> bool {
        let separator = self.kind == ElementKind::Text && !self.content.chars().any(char::is_alphanumeric);
        self.in_viewport > 0.0 && !self.occluded && !separator
    }

    /// Listed for a model locating an element, beyond the view (`prompt::tasks`): out of view,
    /// not covered, with an area, and saying something (text, or more than a bare container).
    pub fn listed_elsewhere(&self) -> bool {
        self.in_viewport <= 0.0
            && !self.occluded
            && self.rect.width > 0.0
            && self.rect.height > 0.0
            && (!self.content.trim().is_empty() || self.kind != ElementKind::Container)
    }

    /// It shows a sensitive field's masked value or a secret's placeholder: screenshots
    /// paint it over.
    pub fn holds_secret(&self) -> bool {
        self.content == SECRET_MASK || self.content.contains("<secret>")
    }

    /// The part of the element its ancestors let show.
    pub fn shown_rect(&self) -> Rect {
        self.visible_rect.unwrap_or(self.rect)
    }

    pub fn attr(&self, name: &str) -> Option<&str> {
        self.attributes.iter().find(|(k, _)| k == name).map(|(_, v)| v.as_str())
    }

    /// A short phrase naming the element for logs and the panel: `input "What needs…"`.
    /// A form field is named by its label attributes before its value: the value changes as
    /// it is filled (and a password's is masked), the name does not.
    pub fn summary(&self) -> String {
        const NAMING: [&str; 5] = ["aria-label", "placeholder", "title", "name", "alt"];
        let named = || NAMING.iter().find_map(|k| self.attr(k).filter(|v| !v.trim().is_empty()));
        let label = if self.kind == ElementKind::FormItem {
            named()
                .or_else(|| self.attr("id"))
                .or_else(|| Some(self.content.as_str()).filter(|c| !c.is_empty()))
                .unwrap_or("")
        } else if !self.content.is_empty() {
            self.content.as_str()
        } else {
            named().unwrap_or("")
        };
        let label = crate::describe::truncate_chars(label, 40);
        let tag = match self.attr("type").map(str::to_ascii_lowercase).as_deref() {
            Some(kind @ ("checkbox" | "radio")) if self.tag == "input" => kind.to_string(),
            _ => self.tag.clone(),
        };
        if label.is_empty() {
            format!("{tag} #{}", self.index)
        } else {
            format!("{tag} \"{label}\"")
        }
    }
}

/// Shown instead of the value of a sensitive field: the model, records and exports never see it.
pub const SECRET_MASK: &str = "\u{2022}\u{2022}\u{2022}\u{2022}\u{2022}\u{2022}";

/// Fields whose value must not leave the page: passwords, one-time codes, card security codes
/// and numbers, named so by their type, their `autocomplete` token, or their name, id, label or
/// placeholder. The same test masks what is read and recorded, and decides which fields a
/// secret may be typed into (`agent::guard`), so a recorded secret replays where it came from.
pub fn is_sensitive_field(node: &crate::snapshot::SnapNode) -> bool {
    is_sensitive(|k| node.attr(k))
}

/// `autocomplete` tokens (HTML autofill) of the fields [`is_sensitive`] means.
const SENSITIVE_AUTOFILL: [&str; 5] = ["current-password", "new-password", "one-time-code", "cc-csc", "cc-number"];

/// `is_sensitive_field` over any attribute lookup (a snapshot node, a described element, the
/// field that has focus).
pub fn is_sensitive<'a>(attr: impl Fn(&str) -> Option<&'a str>) -> bool {
    if attr("type").is_some_and(|t| t.trim().eq_ignore_ascii_case("password")) {
        return true;
    }
    if attr("autocomplete").is_some_and(|a| {
        a.split_ascii_whitespace().any(|t| SENSITIVE_AUTOFILL.iter().any(|w| t.eq_ignore_ascii_case(w)))
    }) {
        return true;
    }
    // Long words are found anywhere in a name ("user_password2"); short ones only as a word of
    // it ("otp", "otp-code", "otpCode", "cvv2"), so "footprint" or "laptop" is no one-time code.
    const WORDS: [&str; 9] = [
        "password",
        "passwd",
        "passcode",
        "one-time",
        "onetime",
        "card-number",
        "cardnumber",
        "\u{5bc6}\u{7801}",
        "\u{9a8c}\u{8bc1}\u{7801}",
    ];
    const SHORT: [&str; 5] = ["pwd", "otp", "cvv", "cvc", "csc"];
    ["name", "id", "aria-label", "placeholder"].iter().filter_map(|k| attr(k)).any(|v| {
        let words = split_words(v);
        let joined = words.join("-");
        WORDS.iter().any(|w| joined.contains(w))
            || words.iter().any(|word| {
                SHORT.iter().any(|w| word.strip_prefix(w).is_some_and(|rest| rest.bytes().all(|b| b.is_ascii_digit())))
            })
    })
}

/// The words of a name, lower-cased: split at anything not a letter or digit and where a
/// lower-case letter meets an upper-case one (`otpCode` → `otp`, `code`).
fn split_words(name: &str) -> Vec<String> {
    let mut words = vec![String::new()];
    let mut prev_lower = false;
    for c in name.chars() {
        if !c.is_alphanumeric() {
            words.push(String::new());
            prev_lower = false;
            continue;
        }
        if c.is_uppercase() && prev_lower {
            words.push(String::new());
        }
        prev_lower = c.is_lowercase();
        words.last_mut().expect("one word at least").extend(c.to_lowercase());
    }
    words.retain(|w| !w.is_empty());
    words
}

/// What a point is taken to name where elements nest.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Aim {
    /// The innermost element: where a person's own click landed (the recorder, like the
    /// content script's `describeTarget`, takes the element the event hit).
    Innermost,
    /// What a person acts on (controls, links, images) before the text and containers around
    /// it, then the innermost: a grounding model's point lands near what it means, often on
    /// the label inside a button.
    Actionable,
}

/// The element at a point (viewport CSS px): among the listed elements whose visible box holds
/// it, the one `aim` prefers.
pub fn element_at(elements: &[Element], (x, y): (f64, f64), aim: Aim) -> Option<&Element> {
    let rank = |e: &Element| match (aim, e.kind) {
        (Aim::Innermost, _) => 0,
        (Aim::Actionable, ElementKind::FormItem | ElementKind::Button | ElementKind::Anchor | ElementKind::Img) => 0,
        (Aim::Actionable, ElementKind::Text) => 1,
        (Aim::Actionable, ElementKind::Container) => 2,
    };
    let area = |e: &Element| e.rect.width * e.rect.height;
    elements
        .iter()
        .filter(|e| e.is_listed() && e.shown_rect().contains(x, y))
        .min_by(|a, b| rank(a).cmp(&rank(b)).then(area(a).total_cmp(&area(b))))
}

/// Cut to at most `max` chars on a char boundary (CJK-safe), marking the cut with `…`.
pub fn truncate_chars(s: &str, max: usize) -> String {
    match s.char_indices().nth(max) {
        None => s.to_string(),
        Some((i, _)) => format!("{}…", &s[..i]),
    }
}

/// Collapse runs of whitespace to single spaces and trim. One pass into one string: a page's
/// every text goes through here.
pub fn collapse_whitespace(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for word in s.split_whitespace() {
        if !out.is_empty() {
            out.push(' ');
        }
        out.push_str(word);
    }
    out
}

/// Options a description lists for one select.
const MAX_LISTED_OPTIONS: usize = 30;
/// Characters of one option's text a description keeps.
const MAX_OPTION_CHARS: usize = 60;

/// A select's options as both descriptions list them: `S | M | L`, the first
/// [`MAX_LISTED_OPTIONS`] and how many more there are.
pub fn options_text(options: &[String]) -> String {
    let mut listed: Vec<String> =
        options.iter().take(MAX_LISTED_OPTIONS).map(|o| truncate_chars(o, MAX_OPTION_CHARS)).collect();
    if options.len() > MAX_LISTED_OPTIONS {
        listed.push(format!("\u{2026} {} more", options.len() - MAX_LISTED_OPTIONS));
    }
    listed.join(" | ")
}
