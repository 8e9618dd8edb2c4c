//! The page fence (`prompt::page_fence`, `page_quote`, `inert_tags`): whatever a page writes,
//! the fenced text holds exactly our own `<page>` and `</page>` and no other tag of ours, as a
//! lenient reader (a model) would find tags. The reader here works differently from the fence:
//! it first rewrites the whole text as a model might read it (entities for `<` and `>` decoded,
//! invisible characters dropped, full-width forms as ASCII, lower case), then looks for `<`,
//! optional spaces and slashes, and a name that is not continued by another name character.
#![no_main]
use libfuzzer_sys::fuzz_target;
use sightline::prompt::fence::{folded, is_invisible};
use sightline::prompt::{inert_tags, page_fence, page_quote};

/// The text as a lenient reader sees it.
fn as_read(text: &str) -> String {
    let mut decoded = text.to_string();
    for (entity, bracket) in [("&lt;", "<"), ("&#60;", "<"), ("&#x3c;", "<"), ("&gt;", ">"), ("&#62;", ">"), ("&#x3e;", ">")] {
        decoded = replace_ignoring_ascii_case(&decoded, entity, bracket);
    }
    decoded
        .chars()
        .filter(|c| !is_invisible(*c))
        .map(|c| match c {
            '\u{fe64}' => '<',
            '\u{fe65}' => '>',
            c => folded(c),
        })
        .collect()
}

fn replace_ignoring_ascii_case(text: &str, from: &str, to: &str) -> String {
    let lower = text.to_ascii_lowercase();
    let mut out = String::new();
    let mut last = 0;
    for (at, _) in lower.match_indices(from) {
        if at < last {
            continue;
        }
        out.push_str(&text[last..at]);
        out.push_str(to);
        last = at + from.len();
    }
    out.push_str(&text[last..]);
    out
}

/// How many times `name` is read as a tag (opening or closing) in `text`.
fn tags_read(text: &str, name: &str) -> usize {
    let read: Vec<char> = as_read(text).chars().collect();
    let mut count = 0;
    for (at, c) in read.iter().enumerate() {
        if *c != '<' {
            continue;
        }
        let mut i = at + 1;
        while read.get(i).is_some_and(|c| c.is_whitespace() || *c == '/' || *c == '\\') {
            i += 1;
        }
        let word: String = read[i.min(read.len())..].iter().take_while(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | ':' | '.')).collect();
        if word == name {
            count += 1;
        }
    }
    count
}

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };
    let fenced = page_fence(text);
    assert_eq!(tags_read(&fenced, "page"), 2, "the page closed or opened the fence: {fenced:?}");
    assert!(fenced.starts_with("<page>\n") && fenced.ends_with("</page>\n"), "{fenced:?}");
    assert_eq!(tags_read(&fenced, "instruction"), 0, "{fenced:?}");
    let quoted = page_quote(text);
    assert_eq!(tags_read(&quoted, "page"), 2, "{quoted:?}");
    assert_eq!(tags_read(&quoted, "instruction"), 0, "{quoted:?}");
    let disarmed = inert_tags(text, &["secret"]);
    assert_eq!(tags_read(&disarmed, "secret"), 0, "{disarmed:?}");
});
