//! One escaping routine per position an export writes text into. Every text a run recorded
//! (page text, element names, option labels, XPaths, addresses, typed values, the model's
//! words) reaches an output through exactly one of these, so that it stays data there:
//!
//! | position | routine |
//! | --- | --- |
//! | JavaScript/TypeScript string literal | [`js_string`] (`"…"`), [`js_single`] (`'…'`, as Playwright's codegen quotes) |
//! | JavaScript `//` or `/* */` comment | [`js_comment`] |
//! | YAML double-quoted scalar | [`yaml_string`] |
//! | YAML `#` comment | [`yaml_comment`] |
//! | HTML text or double-quoted attribute value | [`html`] |
//! | CSS string (an attribute selector's value) | [`css_string`] |
//!
//! JSON files are written by serde_json (a JSON string holds any text); JavaScript inside
//! them (the Recorder's `waitForExpression`) is built with [`js_string`] first.
//!
//! Why each escape: JavaScript ends a line — and so a `//` comment — at U+2028 and U+2029 as
//! well as LF and CR (serde_json leaves those two as they are: JSON allows them raw), and an
//! HTML parser ends a script at `</script` and treats `<!--` specially; YAML refuses C1
//! controls, U+FFFE/U+FFFF and a byte-order mark inside a document, and YAML 1.1 readers break
//! lines at U+0085, U+2028 and U+2029; the bidirectional controls can make the text of a file
//! read differently from what it is ("Trojan Source"). Each is written as an escape where the
//! position has escapes, and left out where it has none (comments).

use std::fmt::Write;

/// True for characters written as an escape in every literal, and left out of comments: C0
/// and C1 controls and DEL (tab kept in literals only as `\t`), the line and paragraph
/// separators, the bidirectional controls, the byte-order mark and the two non-characters
/// YAML refuses.
fn is_hidden(c: char) -> bool {
    matches!(c,
        '\u{0}'..='\u{1f}' | '\u{7f}'..='\u{9f}'
        | '\u{2028}' | '\u{2029}'
        | '\u{61c}' | '\u{200e}' | '\u{200f}' | '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}'
        | '\u{feff}' | '\u{fffe}' | '\u{ffff}')
}

/// `\uXXXX`, as JavaScript, JSON and YAML all read it.
fn unicode_escape(out: &mut String, c: char) {
    let _ = write!(out, "\\u{:04x}", c as u32);
}

/// The body of a JavaScript string literal quoted with `quote`, also a JSON string's and a YAML
/// double-quoted scalar's body when `quote` is `"` (only JSON's escapes are used then, and
/// every one is a YAML escape too). `in_script`: `<` before `/` or `!` escaped as well.
fn js_body(s: &str, quote: char, in_script: bool, out: &mut String) {
    let mut chars = s.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '\u{8}' => out.push_str("\\b"),
            '\u{c}' => out.push_str("\\f"),
            c if c == quote => {
                out.push('\\');
                out.push(c);
            }
            // `</script` and `<!--` would end or change a script an HTML page holds this in.
            '<' if in_script && matches!(chars.peek(), Some('/' | '!')) => unicode_escape(out, '<'),
            c if is_hidden(c) => unicode_escape(out, c),
            c => out.push(c),
        }
    }
}

/// `s` as a double-quoted JavaScript/TypeScript string literal. The result is also a JSON
/// string (so `serde_json` reads it back) and a YAML double-quoted scalar.
pub(crate) fn js_string(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    js_body(s, '"', true, &mut out);
    out.push('"');
    out
}

/// `s` as a single-quoted JavaScript string literal, as Playwright's codegen writes locators'
/// arguments (`'` escaped, `"` as it is).
pub(crate) fn js_single(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('\'');
    js_body(s, '\'', true, &mut out);
    out.push('\'');
    out
}

/// `s` on one line with runs of whitespace (every line terminator among them) as one space,
/// hidden characters left out, ends trimmed.
fn single_line(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut space = false;
    for c in s.chars() {
        if c.is_whitespace() {
            // Rust's whitespace holds LF, CR, VT, FF, U+0085, U+2028 and U+2029.
            space = !out.is_empty();
        } else if !is_hidden(c) {
            if space {
                out.push(' ');
                space = false;
            }
            out.push(c);
        }
    }
    out
}

/// `s` as the text of a JavaScript comment, `//` or `/* */`: one line (no LF, CR, U+2028 or
/// U+2029 to end a `//` comment early), and no `*/` to end a block comment.
pub(crate) fn js_comment(s: &str) -> String {
    let mut line = single_line(s);
    while line.contains("*/") {
        line = line.replace("*/", "* /");
    }
    line
}

/// `s` as a YAML double-quoted scalar: JSON's escapes, and `\uXXXX` for every character a YAML
/// reader refuses or breaks a line at. Nothing inside can start a key, an anchor, an alias, a
/// tag or a comment: the scalar ends only at its closing quote.
pub(crate) fn yaml_string(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    js_body(s, '"', false, &mut out);
    out.push('"');
    out
}

/// `s` as the text of a YAML `#` comment: one line, nothing a YAML reader refuses.
pub(crate) fn yaml_comment(s: &str) -> String {
    single_line(s)
}

/// `s` as HTML text or a double-quoted attribute value: the five characters that mean markup
/// as entities. NUL and other controls are left out (a parser makes them U+FFFD or errors).
pub(crate) fn html(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            '\n' | '\t' => out.push(c),
            '\r' => out.push('\n'),
            c if c.is_control() => {}
            c => out.push(c),
        }
    }
    out
}

/// `s` as a CSS string in double quotes: `"` and `\` escaped, line breaks and other controls as
/// CSS hex escapes (`\a `; CSS reads `\n` as the letter n).
pub(crate) fn css_string(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        match c {
            '"' | '\\' => {
                out.push('\\');
                out.push(c);
            }
            // NUL is not allowed even escaped: CSS makes it U+FFFD.
            '\u{0}' => out.push('\u{fffd}'),
            c if c.is_control() || is_hidden(c) => {
                let _ = write!(out, "\\{:x} ", c as u32);
            }
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn js_strings_escape_every_line_terminator_and_script_end_and_read_back_as_json() {
        let s = "a\u{2028}b\u{2029}c\nd\re\"f\\g</script><!--h\u{202e}i\u{0}j'k";
        let lit = js_string(s);
        assert_eq!(lit, r#""a\u2028b\u2029c\nd\re\"f\\g\u003c/script>\u003c!--h\u202ei\u0000j'k""#);
        assert_eq!(serde_json::from_str::<String>(&lit).unwrap(), s, "a JSON string of the same text");
        assert_eq!(js_single("it's \"x\""), r#"'it\'s "x"'"#);
        // Benign text is written as serde_json writes it.
        for plain in ["buy \"milk\"", "add a todo \u{2018}buy milk\u{2019}", "中文 \u{1f600} a<b"] {
            assert_eq!(js_string(plain), serde_json::to_string(plain).unwrap());
        }
    }

    #[test]
    fn comments_are_one_line_with_no_terminator_and_no_block_end() {
        let c = js_comment("  Standard\u{2028}import('x');\u{2029}\r\n//y */ z **/ \u{202e}q\u{85}r  ");
        assert_eq!(c, "Standard import('x'); //y * / z ** / q r");
        assert!(!c.contains(['\n', '\r', '\u{2028}', '\u{2029}', '\u{85}', '\u{202e}']));
        assert_eq!(yaml_comment("a\u{7f}b\nc # d"), "ab c # d");
        // YAML has no script to end: `</` stays, every line break and refused character is escaped.
        assert_eq!(
            yaml_string("<secret>pw</secret>\u{2028}\u{85}\u{feff}"),
            r#""<secret>pw</secret>\u2028\u0085\ufeff""#
        );
    }

    #[test]
    fn html_and_css_keep_markup_and_quotes_as_text() {
        assert_eq!(html("<img src=x onerror=\"a\">&'"), "&lt;img src=x onerror=&quot;a&quot;&gt;&amp;&#39;");
        assert_eq!(css_string("a\"b\\c\nd"), r#""a\"b\\c\a d""#);
    }
}
