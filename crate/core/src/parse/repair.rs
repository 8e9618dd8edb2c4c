//! Repairs the JSON models commonly break: trailing commas, single-quoted or unquoted keys and
//! strings, quotes left unescaped inside strings, comments, Python's True/False/None, missing
//! commas, a bracket closed by the wrong closer, and text cut off before the end.
//!
//! One pass, left to right, with a stack of open containers. It never fails: what it returns
//! is handed to the JSON reader, whose error (if any) still says where the text broke.

#[derive(Clone, Copy, PartialEq)]
enum Frame {
    Object,
    Array,
}

impl Frame {
    fn closer(self) -> char {
        match self {
            Frame::Object => '}',
            Frame::Array => ']',
        }
    }
}

/// What the last significant character written was, to know where commas and quotes belong.
#[derive(Clone, Copy, PartialEq)]
enum Last {
    /// Start of text, `{`, `[` or `,`: a value or key may follow.
    Open,
    /// `:`: a value must follow.
    Colon,
    /// The end of a value or key.
    Value,
}

pub fn repair_json(text: &str) -> String {
    let chars: Vec<char> = text.chars().collect();
    let mut out = String::with_capacity(text.len() + 8);
    let mut stack: Vec<Frame> = Vec::new();
    // Per open object: true when the next string is a key.
    let mut expect_key: Vec<bool> = Vec::new();
    let mut last = Last::Open;
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        match c {
            _ if c.is_whitespace() => {
                out.push(c);
                i += 1;
            }
            '/' if chars.get(i + 1) == Some(&'/') => {
                while i < chars.len() && chars[i] != '\n' {
                    i += 1;
                }
            }
            '/' if chars.get(i + 1) == Some(&'*') => {
                i += 2;
                while i < chars.len() && !(chars[i] == '*' && chars.get(i + 1) == Some(&'/')) {
                    i += 1;
                }
                i += 2;
            }
            '#' if last != Last::Colon => {
                // A `#` comment (YAML/Python habits) outside any value.
                while i < chars.len() && chars[i] != '\n' {
                    i += 1;
                }
            }
            '{' | '[' => {
                separate(&mut out, last);
                out.push(c);
                let frame = if c == '{' { Frame::Object } else { Frame::Array };
                stack.push(frame);
                expect_key.push(frame == Frame::Object);
                last = Last::Open;
                i += 1;
            }
            '}' | ']' => {
                drop_trailing_comma(&mut out);
                if last == Last::Colon {
                    out.push_str("null");
                }
                // Close down to the frame this closer matches; a closer that matches no open
                // frame closes the innermost one (`[1, 2}` → `[1, 2]`).
                let want = if c == '}' { Frame::Object } else { Frame::Array };
                match stack.iter().rposition(|&f| f == want) {
                    Some(depth) => {
                        while stack.len() > depth {
                            close(&mut out, &mut stack, &mut expect_key);
                        }
                    }
                    None if !stack.is_empty() => close(&mut out, &mut stack, &mut expect_key),
                    None => {} // a stray closer at top level
                }
                last = Last::Value;
                mark_value_done(&stack, &mut expect_key);
                i += 1;
            }
            ',' => {
                if last == Last::Colon {
                    out.push_str("null");
                }
                // A comma right after `{`, `[` or another comma holds nothing: dropped.
                if last != Last::Open {
                    out.push(',');
                }
                if stack.last() == Some(&Frame::Object) {
                    if let Some(k) = expect_key.last_mut() {
                        *k = true;
                    }
                }
                last = Last::Open;
                i += 1;
            }
            ':' => {
                out.push(':');
                if let Some(k) = expect_key.last_mut() {
                    *k = false;
                }
                last = Last::Colon;
                i += 1;
            }
            '"' | '\'' | '“' | '”' | '‘' | '’' => {
                separate(&mut out, last);
                let in_array = stack.last() == Some(&Frame::Array);
                i = string(&chars, i, &mut out, key_expected(&stack, &expect_key), in_array);
                last = Last::Value;
                mark_value_done(&stack, &mut expect_key);
            }
            _ if c == '-' || c.is_ascii_digit() => {
                separate(&mut out, last);
                while i < chars.len() && (chars[i].is_ascii_digit() || matches!(chars[i], '-' | '+' | '.' | 'e' | 'E'))
                {
                    out.push(chars[i]);
                    i += 1;
                }
                if out.ends_with('.') {
                    out.push('0'); // `1.` → `1.0`
                }
                last = Last::Value;
                mark_value_done(&stack, &mut expect_key);
            }
            _ if c.is_alphabetic() || c == '_' || c == '$' => {
                separate(&mut out, last);
                let start = i;
                while i < chars.len() && (chars[i].is_alphanumeric() || matches!(chars[i], '_' | '$' | '-')) {
                    i += 1;
                }
                let word: String = chars[start..i].iter().collect();
                if key_expected(&stack, &expect_key) {
                    push_quoted(&mut out, &word);
                } else {
                    match word.as_str() {
                        "true" | "True" => out.push_str("true"),
                        "false" | "False" => out.push_str("false"),
                        "null" | "None" | "undefined" | "nil" => out.push_str("null"),
                        _ => push_quoted(&mut out, &word),
                    }
                }
                last = Last::Value;
                mark_value_done(&stack, &mut expect_key);
            }
            _ => {
                // Anything else between tokens (`;`, a stray `=`) carries no meaning here.
                i += 1;
            }
        }
    }
    // Cut off: close what is open.
    drop_trailing_comma(&mut out);
    if last == Last::Colon {
        out.push_str("null");
    }
    while !stack.is_empty() {
        close(&mut out, &mut stack, &mut expect_key);
    }
    out
}

fn key_expected(stack: &[Frame], expect_key: &[bool]) -> bool {
    stack.last() == Some(&Frame::Object) && expect_key.last() == Some(&true)
}

/// After a key, the next thing is its value; after a value, the next string is a key again
/// (once a comma comes, which `separate` supplies when missing).
fn mark_value_done(stack: &[Frame], expect_key: &mut [bool]) {
    if stack.last() == Some(&Frame::Object) {
        if let Some(k) = expect_key.last_mut() {
            *k = !*k;
        }
    }
}

/// Two values side by side lack a comma between them.
fn separate(out: &mut String, last: Last) {
    if last == Last::Value {
        out.push(',');
    }
}

fn close(out: &mut String, stack: &mut Vec<Frame>, expect_key: &mut Vec<bool>) {
    drop_trailing_comma(out);
    if let Some(f) = stack.pop() {
        // An object cut off after a key gets a value for it.
        if f == Frame::Object && expect_key.last() == Some(&false) && ends_with_key(out) {
            out.push_str(":null");
        }
        out.push(f.closer());
    }
    expect_key.pop();
}

fn ends_with_key(out: &str) -> bool {
    let t = out.trim_end();
    t.ends_with('"')
        && !t.ends_with(":\"\"")
        && t[..t.len() - 1].rfind('"').is_some_and(|open| t[..open].trim_end().ends_with(['{', ',']))
}

fn drop_trailing_comma(out: &mut String) {
    let trimmed = out.trim_end().len();
    if out[..trimmed].ends_with(',') {
        out.truncate(trimmed - 1);
    }
}

fn push_quoted(out: &mut String, s: &str) {
    out.push('"');
    for ch in s.chars() {
        push_escaped(out, ch);
    }
    out.push('"');
}

fn push_escaped(out: &mut String, ch: char) {
    match ch {
        '"' => out.push_str("\\\""),
        '\\' => out.push_str("\\\\"),
        '\n' => out.push_str("\\n"),
        '\r' => out.push_str("\\r"),
        '\t' => out.push_str("\\t"),
        c if (c as u32) < 0x20 => out.push_str(&format!("\\u{:04x}", c as u32)),
        c => out.push(c),
    }
}

/// Reads a string starting at `chars[start]` (any quote style) and writes it double-quoted.
/// A quote of the opening kind ends the string only where what follows could follow a
/// string (`,` `}` `]`, a key's `:`, the start of a next value lacking its comma, or the end);
/// elsewhere it was meant literally and is escaped. Returns the index after the string.
fn string(chars: &[char], start: usize, out: &mut String, is_key: bool, in_array: bool) -> usize {
    let open = chars[start];
    let closes = |c: char| match open {
        '"' => c == '"',
        '\'' => c == '\'',
        '“' | '”' => c == '”' || c == '“',
        _ => c == '’' || c == '‘',
    };
    out.push('"');
    let mut i = start + 1;
    while i < chars.len() {
        let c = chars[i];
        if c == '\\' {
            match chars.get(i + 1) {
                Some(&n) if "\"\\/bfnrtu".contains(n) => {
                    out.push('\\');
                    out.push(n);
                }
                Some(&'\'') => out.push('\''),
                Some(&n) => {
                    out.push_str("\\\\");
                    push_escaped(out, n);
                }
                None => out.push_str("\\\\"),
            }
            i += 2;
            continue;
        }
        if closes(c) {
            let next = chars[i + 1..].iter().find(|c| !c.is_whitespace());
            let ends = match next {
                None => true,
                Some(&n) => matches!(n, ',' | '}' | ']' | '{' | '[') || (n == ':' && is_key) || (n == '"' && in_array),
            };
            if ends {
                out.push('"');
                return i + 1;
            }
        }
        push_escaped(out, c);
        i += 1;
    }
    out.push('"'); // cut off inside the string
    i
}

#[cfg(test)]
mod tests {
    use super::repair_json;
    use serde_json::{json, Value};

    fn fixed(text: &str) -> Value {
        let repaired = repair_json(text);
        serde_json::from_str(&repaired).unwrap_or_else(|e| panic!("{text:?} → {repaired:?}: {e}"))
    }

    #[test]
    fn valid_json_is_unchanged() {
        let text = r#"{"a": [1, 2.5, -3e2, "x\"y\\n", true, false, null], "b": {"c": "é 中"}}"#;
        assert_eq!(fixed(text), serde_json::from_str::<Value>(text).unwrap());
    }

    #[test]
    fn common_breakage() {
        assert_eq!(fixed(r#"{"a": 1, "b": [1, 2,],}"#), json!({"a": 1, "b": [1, 2]}));
        assert_eq!(fixed(r#"{'a': 'it\'s', 'b': "x"}"#), json!({"a": "it's", "b": "x"}));
        assert_eq!(fixed(r#"{a: 1, b_c: "d"}"#), json!({"a": 1, "b_c": "d"}));
        assert_eq!(fixed(r#"{"say": "he said "hi" to me", "n": 1}"#), json!({"say": "he said \"hi\" to me", "n": 1}));
        assert_eq!(fixed("{\"a\": 1, // one\n \"b\": /* two */ 2}"), json!({"a": 1, "b": 2}));
        assert_eq!(fixed(r#"{"ok": True, "no": False, "x": None}"#), json!({"ok": true, "no": false, "x": null}));
        assert_eq!(fixed(r#"{"a": 1 "b": 2}"#), json!({"a": 1, "b": 2}));
        assert_eq!(fixed(r#"[1 2 "x" {"a":1}]"#), json!([1, 2, "x", {"a": 1}]));
        assert_eq!(fixed(r#"{"a": [1, 2}"#), json!({"a": [1, 2]}));
        assert_eq!(fixed(r#"[1, 2}"#), json!([1, 2]));
        assert_eq!(fixed("{“a”: “b”}"), json!({"a": "b"}));
        assert_eq!(fixed("{\"a\": \"line\nbreak\"}"), json!({"a": "line\nbreak"}));
        assert_eq!(fixed(r#"{"a": "x",, "b": "y"}"#), json!({"a": "x", "b": "y"}));
        assert_eq!(fixed(r#"[,1]"#), json!([1]));
    }

    #[test]
    fn cut_off_text_is_closed() {
        assert_eq!(
            fixed(r#"{"actions": [{"type": "Tap", "target": 3"#),
            json!({"actions": [{"type": "Tap", "target": 3}]})
        );
        assert_eq!(fixed(r#"{"thought": "half a sent"#), json!({"thought": "half a sent"}));
        assert_eq!(fixed(r#"{"a": 1, "b":"#), json!({"a": 1, "b": null}));
        assert_eq!(fixed(r#"{"a": 1, "b""#), json!({"a": 1, "b": null}));
        assert_eq!(fixed(r#"{"a": [1, 2,"#), json!({"a": [1, 2]}));
    }

    #[test]
    fn never_panics_on_odd_input() {
        for text in [
            "",
            "}",
            "]]]",
            "\"",
            "'",
            "{:",
            ":",
            ",,,",
            "{\"a\":}",
            "\\",
            "{\"\\",
            "[-]",
            "{'a",
            "/*",
            "//",
            "#",
            "{\"a\" 1}",
        ] {
            let _ = repair_json(text);
        }
    }
}
