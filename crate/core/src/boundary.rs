//! Records the browser modules read from JSON text, read here. Plain functions, not generic
//! calls from crate/web: a generic `serde_json::from_str::<Run>` made there compiles a second
//! copy of the run's whole deserializer into the worker's module (instantiations are not shared
//! between crates in release builds); made here, it is the copy `Trajectory::from_json` uses.
//! Text is read through `vocab::text`, whose structs are read from objects only.

use crate::agent::record::Run;
use crate::describe::midscene::MsTree;
use crate::describe::{ColumnsError, Element, ElementColumns, Extraction, FrameArea};
use crate::snapshot::cdp::LayoutMetrics;
use crate::snapshot::Viewport;
use crate::vocab::text;
use std::collections::BTreeMap;

/// A run record (as the worker keeps it), read through a `serde_json::Value`: a run's tasks and
/// actions are read from one anyway (`vocab::wire`), and the run's own types read from a `Value`
/// compile smaller than read from text; a saved trajectory's run is read the same way.
pub fn run_from_json(text: &str) -> Result<Run, serde_json::Error> {
    serde_json::from_str::<serde_json::Value>(text).and_then(crate::vocab::objects::from_value)
}

/// A run's images, reference → data URL (a trajectory's `images`).
pub fn images_from_json(text: &str) -> Result<BTreeMap<String, String>, serde_json::Error> {
    text::from_str(text)
}

/// `Page.getLayoutMetrics` (the same instance `snapshot::cdp::decode` uses).
pub fn layout_metrics_from_json(text: &str) -> Result<LayoutMetrics, serde_json::Error> {
    text::from_str(text)
}

/// Elements as an extraction's (`describe::Element`), the copy a reading's `elements` uses.
pub fn elements_from_json(text: &str) -> Result<Vec<Element>, serde_json::Error> {
    text::from_str(text)
}

/// A tree in Midscene's shape, the copy a reading's `tree` uses.
pub fn ms_tree_from_json(text: &str) -> Result<MsTree, serde_json::Error> {
    text::from_str(text)
}

/// The content script's reading of a page (its extraction, as the JSON text it sent): its
/// elements as columns (`describe::ElementColumns`, as the readers send them) or as objects.
pub fn extraction_from_json(text: &str) -> Result<Extraction, ReadingError> {
    let r: Reading = text::from_str(text)?;
    let elements = match r.columns {
        Some(columns) => columns.into_elements()?,
        None => r.elements,
    };
    Ok(Extraction {
        description: r.description,
        elements,
        url: r.url,
        title: r.title,
        viewport: r.viewport,
        tree: r.tree,
        in_view_only: r.in_view_only,
        elsewhere: r.elsewhere,
        frames: r.frames,
    })
}

/// A reading's JSON text with its elements as objects again (the readers send them as
/// columns), everything else it holds (timings, its source) kept: what the tooling's `extract`
/// answers. Each object is written as the core writes an [`Element`].
pub fn reading_with_objects(text: &str) -> Result<String, ReadingError> {
    let mut reading: serde_json::Map<String, serde_json::Value> = text::from_str(text)?;
    let Some(columns) = reading.remove("columns") else { return Ok(text.to_string()) };
    let columns: ElementColumns = serde_json::from_value(columns)?;
    // Written straight from the elements, not through a `Value`, which would sort their fields.
    let elements = serde_json::to_string(&columns.into_elements()?)?;
    reading.remove("elements");
    let mut out = serde_json::to_string(&reading)?;
    out.pop(); // the closing brace
    out.push_str(if reading.is_empty() { "\"elements\":" } else { ",\"elements\":" });
    out.push_str(&elements);
    out.push('}');
    Ok(out)
}

/// A reading as it crosses: an [`Extraction`] whose elements may come as columns. (Not
/// `#[serde(flatten)]`: that would buffer the whole reading before decoding it.)
#[derive(serde::Deserialize)]
#[serde(rename_all = "camelCase")]
struct Reading {
    description: String,
    #[serde(default)]
    elements: Vec<Element>,
    #[serde(default)]
    columns: Option<ElementColumns>,
    url: String,
    title: String,
    viewport: Viewport,
    #[serde(default)]
    tree: Option<MsTree>,
    #[serde(default)]
    in_view_only: bool,
    #[serde(default)]
    elsewhere: bool,
    #[serde(default)]
    frames: Vec<FrameArea>,
}

/// Why a page's reading could not be read.
#[derive(Debug, thiserror::Error)]
pub enum ReadingError {
    #[error("{0}")]
    Json(#[from] serde_json::Error),
    #[error(transparent)]
    Columns(#[from] ColumnsError),
}

/// JSON text from `JSON.stringify` with each lone surrogate escape (`\ud83d` without its other
/// half) written as U+FFFD, as a browser shows one. JS strings are UTF-16 and a string cut by
/// code units can end in half a character (a console line, a dialog's message); `JSON.stringify`
/// escapes it and serde_json refuses the escape, which would refuse the whole value.
pub fn without_lone_surrogates(text: &str) -> std::borrow::Cow<'_, str> {
    if !text.contains("\\ud") && !text.contains("\\uD") {
        return text.into();
    }
    let bytes = text.as_bytes();
    let unit_at = |at: usize| {
        text.get(at..at + 4)
            .filter(|h| h.bytes().all(|b| b.is_ascii_hexdigit()))
            .and_then(|h| u16::from_str_radix(h, 16).ok())
    };
    let (mut out, mut copied, mut i) = (String::new(), 0, 0);
    while i < bytes.len() {
        if bytes[i] != b'\\' {
            i += 1;
            continue;
        }
        let Some(unit) = unit_at(i + 2).filter(|_| bytes.get(i + 1) == Some(&b'u')) else {
            i += 2; // an escape of one character (`\\`, `\"`, …) or not an escape at all
            continue;
        };
        let low = |u: u16| (0xDC00..0xE000).contains(&u);
        if (0xD800..0xDC00).contains(&unit)
            && bytes.get(i + 6..i + 8) == Some(b"\\u")
            && unit_at(i + 8).is_some_and(low)
        {
            i += 12; // a whole pair
        } else if (0xD800..0xE000).contains(&unit) {
            out.push_str(&text[copied..i]);
            out.push_str("\\ufffd");
            i += 6;
            copied = i;
        } else {
            i += 6;
        }
    }
    if copied == 0 {
        return text.into();
    }
    out.push_str(&text[copied..]);
    out.into()
}

/// `value` as serde_json's compact JSON, in ASCII only: each character past ASCII written as
/// its `\uXXXX` escape (a pair for one beyond the BMP). The content script's reading leaves
/// WASM as a JS string: text in ASCII becomes a one-byte string, decoded on the fast path and
/// copied to the worker at half the size; a character past Latin-1 (every reading's description
/// has one, "—") made the whole 19 MB reading of a 205k-element page a two-byte string, and its
/// decoding was ~120 ms of a whole read. Read by `JSON.parse` or serde_json to the same values.
/// Whole numbers are written as serde_json writes them ("12.0"), without its float writer (a
/// reading's boxes are mostly whole CSS pixels). `capacity`: the text's expected length.
pub fn to_ascii_json<T: serde::Serialize + ?Sized>(value: &T, capacity: usize) -> serde_json::Result<String> {
    let mut out = Vec::with_capacity(capacity);
    value.serialize(&mut serde_json::Serializer::with_formatter(&mut out, AsciiFormatter))?;
    // Only ASCII was written; were it not, say so rather than hand on an empty reading.
    String::from_utf8(out).map_err(<serde_json::Error as serde::ser::Error>::custom)
}

struct AsciiFormatter;

impl serde_json::ser::Formatter for AsciiFormatter {
    fn write_string_fragment<W: ?Sized + std::io::Write>(&mut self, w: &mut W, fragment: &str) -> std::io::Result<()> {
        if fragment.is_ascii() {
            return w.write_all(fragment.as_bytes());
        }
        const HEX: &[u8; 16] = b"0123456789abcdef";
        let mut from = 0;
        for (at, c) in fragment.char_indices() {
            if c.is_ascii() {
                continue;
            }
            w.write_all(&fragment.as_bytes()[from..at])?;
            for &u in c.encode_utf16(&mut [0u16; 2]).iter() {
                let hex = |shift: u16| HEX[usize::from((u >> shift) & 15)];
                w.write_all(&[b'\\', b'u', hex(12), hex(8), hex(4), hex(0)])?;
            }
            from = at + c.len_utf8();
        }
        w.write_all(&fragment.as_bytes()[from..])
    }

    fn write_f64<W: ?Sized + std::io::Write>(&mut self, w: &mut W, value: f64) -> std::io::Result<()> {
        // serde_json writes only finite numbers here (others as null); -0.0 keeps its sign.
        if value.fract() == 0.0 && value.abs() < 1e15 && !(value == 0.0 && value.is_sign_negative()) {
            w.write_all(itoa::Buffer::new().format(value as i64).as_bytes())?;
            return w.write_all(b".0");
        }
        serde_json::ser::CompactFormatter.write_f64(w, value)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ascii_json_reads_back_the_same_and_writes_numbers_as_serde_json_does() {
        let value = serde_json::json!({
            "text": "Page: a — b ¶ 中文 \u{1f600} \"quoted\"\n\u{7f}\u{80}\u{ffff}",
            "numbers": [0.0, -0.0, 1.0, -1.0, 12.0, 12.5, -7.25, 1e14, 999999999999999.0, 1e15, 1e16, 1e300, 0.1, -3e-7, 1.0e-300],
            "ints": [0, 1, u64::MAX],
        });
        let text = to_ascii_json(&value, 0).unwrap();
        assert!(text.is_ascii(), "{text}");
        assert!(text.contains("\\u2014") && text.contains("\\ud83d\\ude00") && text.contains("\\u00b6"), "{text}");
        assert_eq!(serde_json::from_str::<serde_json::Value>(&text).unwrap(), value);
        // Numbers and everything but the escapes as serde_json writes them.
        let numbers = &value["numbers"];
        assert_eq!(to_ascii_json(numbers, 0).unwrap(), serde_json::to_string(numbers).unwrap());
        for v in [-0.0f64, 3.0, -123456789.0, 0.5, 1e15, 2f64.powi(60)] {
            assert_eq!(to_ascii_json(&v, 0).unwrap(), serde_json::to_string(&v).unwrap(), "{v}");
        }
    }

    #[test]
    fn lone_surrogate_escapes_become_replacement_characters_and_pairs_stay() {
        let read = |text: &str| serde_json::from_str::<String>(&without_lone_surrogates(text)).unwrap();
        assert!(serde_json::from_str::<String>(r#""cut \ud83d""#).is_err(), "serde_json refuses it");
        assert_eq!(read(r#""cut \ud83d""#), "cut \u{fffd}");
        assert_eq!(read(r#""\uDE00 then \ud83d\ude00 and \ud83d\u0041""#), "\u{fffd} then \u{1f600} and \u{fffd}A");
        // An escaped backslash before "ud83d" is text, not an escape.
        assert_eq!(read(r#""a \\ud83d b""#), "a \\ud83d b");
        assert!(matches!(without_lone_surrogates(r#"{"a":"\u00e9\ud83d\ude00"}"#), std::borrow::Cow::Borrowed(_)));
        assert_eq!(without_lone_surrogates(r#"["\ud800"]"#), r#"["\ufffd"]"#);
        assert_eq!(without_lone_surrogates(r#""\ud8"#), r#""\ud8"#, "cut short: left to the parser to refuse");
    }

    #[test]
    fn a_reading_reads_the_same_with_its_elements_as_objects_or_as_columns() {
        let element = |index: u32, xpath: &str| {
            serde_json::json!({
                "index": index, "id": format!("e{index}"), "kind": "TEXT", "tag": "p", "attributes": [["class", "c"]],
                "content": "hello", "rect": {"x": 1.5, "y": 2.0, "width": 3.0, "height": 4.0}, "center": [3.0, 4.0],
                "inViewport": 1.0, "occluded": index == 2, "xpath": xpath, "node": index * 2,
            })
        };
        let objects = serde_json::json!({
            "description": "a page", "url": "https://example.com/", "title": "Example",
            "viewport": {"width": 1280.0, "height": 800.0, "devicePixelRatio": 1.0, "scrollX": 0.0, "scrollY": 0.0,
                "documentWidth": 1280.0, "documentHeight": 2000.0},
            "elements": [element(1, "/html[1]/body[1]/p[1]"), element(2, "/html[1]/body[1]/p[2]")],
            "inViewOnly": true,
            "timings": {"walkMs": 1.0}, "source": "content-script",
        });
        let read = extraction_from_json(&objects.to_string()).unwrap();
        assert_eq!(read.elements.len(), 2);
        assert!(read.elements[1].occluded && read.in_view_only);
        let mut wire = objects.clone();
        wire["columns"] = serde_json::to_value(ElementColumns::of(read.elements.clone())).unwrap();
        wire["elements"] = serde_json::json!([]);
        assert_eq!(extraction_from_json(&wire.to_string()).unwrap(), read);
        // The tooling's objects: the elements back, the rest of the reading as it was.
        let objects_again: serde_json::Value =
            serde_json::from_str(&reading_with_objects(&wire.to_string()).unwrap()).unwrap();
        assert_eq!(objects_again["elements"], serde_json::to_value(&read.elements).unwrap());
        assert_eq!((&objects_again["timings"], &objects_again["source"]), (&objects["timings"], &objects["source"]));
        assert!(objects_again.get("columns").is_none());
        wire["columns"]["nodeStep"] = serde_json::json!([1]);
        let refused = extraction_from_json(&wire.to_string()).unwrap_err();
        assert!(refused.to_string().contains("do not fit together"), "{refused}");
    }
}
