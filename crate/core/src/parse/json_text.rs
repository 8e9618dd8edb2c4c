//! Finding the JSON object inside a model's free text.

use super::ParseError;

/// Drops `<think>`/`<thinking>` blocks, prefers a fenced block, then returns the first
/// balanced `{…}` (string-aware, so braces inside strings do not count).
pub fn extract_json_object(reply: &str) -> Result<String, ParseError> {
    let text = strip_thinking(reply);
    let text = fenced_block(&text).unwrap_or(text.as_str()).to_string();
    let start = text.find('{').ok_or(ParseError::NoJson)?;
    let bytes = text.as_bytes();
    let (mut depth, mut in_string, mut escaped) = (0usize, false, false);
    for (i, &b) in bytes.iter().enumerate().skip(start) {
        if in_string {
            match b {
                _ if escaped => escaped = false,
                b'\\' => escaped = true,
                b'"' => in_string = false,
                _ => {}
            }
            continue;
        }
        match b {
            b'"' => in_string = true,
            b'{' => depth += 1,
            b'}' => {
                depth -= 1;
                if depth == 0 {
                    return Ok(text[start..=i].to_string());
                }
            }
            _ => {}
        }
    }
    // Unbalanced: hand the rest to the JSON reader, whose error says where it broke.
    Ok(text[start..].to_string())
}

/// The reply without its `<think>` / `<thinking>` blocks (an unclosed one runs to the end).
pub fn strip_thinking(reply: &str) -> String {
    let mut out = reply.to_string();
    for (open, close) in [("<think>", "</think>"), ("<thinking>", "</thinking>")] {
        while let Some(s) = out.find(open) {
            match out[s..].find(close) {
                Some(e) => out.replace_range(s..s + e + close.len(), ""),
                None => {
                    out.truncate(s); // an unclosed thinking block runs to the end
                    break;
                }
            }
        }
    }
    out
}

/// The body of the first ``` fence holding a `{`, if any.
fn fenced_block(text: &str) -> Option<&str> {
    let mut rest = text;
    while let Some(open) = rest.find("```") {
        let after = &rest[open + 3..];
        let body_start = after.find('\n').map_or(0, |n| n + 1);
        let body = &after[body_start..];
        let end = body.find("```").unwrap_or(body.len());
        if body[..end].contains('{') {
            return Some(&body[..end]);
        }
        rest = &body[end.min(body.len())..];
        if end == body.len() {
            break;
        }
        rest = &rest[3..];
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_object_with_braces_in_strings() {
        assert_eq!(extract_json_object(r#"ok {"a":"}{","b":{"c":1}} tail"#).unwrap(), r#"{"a":"}{","b":{"c":1}}"#);
    }

    #[test]
    fn skips_thinking_and_prefers_fences() {
        let t = "<thinking>{not this}</thinking>```\n{\"x\":1}\n```";
        assert_eq!(extract_json_object(t).unwrap(), "{\"x\":1}");
        assert_eq!(extract_json_object("<think>{\"no\":1}").unwrap_err(), ParseError::NoJson);
        assert_eq!(extract_json_object("```text\nhi\n```\n{\"y\":2}").unwrap(), "{\"y\":2}");
    }
}
