//! Hostile text through every exporter, each export read back by the real parser of its format
//! (`format_checks`): oxc for the Playwright spec and every script, yaml-rust2 for Midscene
//! flows, serde_json for the Recorder, html5ever for the report. A hostile recording's export
//! must parse, use only the exporter's own names, keys and elements, and have exactly the shape
//! of its benign twin's (the same steps, each text a plain word): the text changed strings, and
//! nothing else.

use super::format_checks::{read_midscene, read_recorder, read_report, read_script, read_spec, Code};
use super::report::CSP;
use super::{to_html_report, to_midscene_yaml, to_playwright, to_recorder};
use crate::vocab::geometry::WindowSize;
use std::collections::HashMap;

mod samples {
    use crate as sightline;
    include!("samples.rs");
}
use samples::{benign, Draw, ELEMENTS, OPS};

/// The attack reproduced: an option's text that ends a `//` comment at U+2028 and runs code.
const PAYLOAD: &str = "Standard\u{2028}import('child_process').then(c => c.execSync('id'));//";

/// Texts that end, or escape from, every position an export writes text into.
const HOSTILE: &[&str] = &[
    PAYLOAD,
    "a\u{2029}pwned();//",
    "\"); pwned(); (\"",
    "'); pwned(); ('",
    "\\\"); pwned(); //",
    "\\",
    "*/ pwned(); /*",
    "</script><script>pwned()</script>",
    "<img src=x onerror=pwned()>",
    "<!-- pwned() -->",
    "key: value\nevil: 1",
    "# note\n      - aiTap: pwned",
    "&anchor x",
    "*anchor",
    "!!js/function 'pwned()'",
    "{evil: 1, [a]: b}",
    "- [pwned]",
    "${pwned()}`${pwned()}`",
    "\r\npwned();\n",
    "\u{202e}dlrow\u{2066}pwned()\u{2069}",
    "\u{85}next\u{0}nul\u{7f}\u{9b}\u{feff}\u{ffff}",
    "pin <secret>pw</secret>!",
    "",
    "   ",
    "中文 \u{1f600} 'q' \"qq\"",
];

const VIEWPORT: WindowSize = WindowSize { width: 1280, height: 800 };

/// Draws the texts in turn from `start`; a twin draws `benign` texts and the same raws.
fn drawer(start: usize, twin: bool) -> impl FnMut(Draw) -> String {
    let mut i = start;
    move |d| {
        let s = HOSTILE[i % HOSTILE.len()];
        i += 1;
        if twin && d == Draw::Text {
            benign(s)
        } else {
            s.to_string()
        }
    }
}

/// Every op on every kind of element.
fn every_step() -> Vec<(u8, u8)> {
    (0..OPS).flat_map(|o| (0..ELEMENTS).map(move |e| (o, e))).collect()
}

/// The recording and its benign twin, the texts drawn from `start`.
fn pair(start: usize, chinese: bool) -> (super::Recording, super::Recording) {
    let steps = every_step();
    (
        samples::recording(&steps, chinese, &mut drawer(start, false)),
        samples::recording(&steps, chinese, &mut drawer(start, true)),
    )
}

fn same_code(hostile: &Code, twin: &Code, what: &str) {
    assert_eq!(hostile.kinds, twin.kinds, "{what}: the hostile texts changed the program's shape");
    assert_eq!((hostile.statements, hostile.calls), (twin.statements, twin.calls), "{what}");
    assert_eq!(hostile.comments.len(), twin.comments.len(), "{what}: comments");
    assert_eq!(hostile.strings.len(), twin.strings.len(), "{what}: string literals");
}

#[test]
fn a_playwright_spec_keeps_every_hostile_text_inside_its_strings_and_comments() {
    let mut kept = vec![false; HOSTILE.len()];
    for start in 0..HOSTILE.len() {
        for chinese in [false, true] {
            let (hostile, twin) = pair(start, chinese);
            let spec = to_playwright(&hostile, VIEWPORT);
            let read = read_spec(&spec).unwrap_or_else(|e| panic!("{e}\n{spec}"));
            let twin_read = read_spec(&to_playwright(&twin, VIEWPORT)).unwrap();
            same_code(&read, &twin_read, &format!("texts from {start}"));
            for (k, h) in HOSTILE.iter().enumerate() {
                kept[k] |= !h.trim().is_empty() && read.strings.iter().any(|s| s.contains(h));
            }
        }
    }
    // Each text is read back whole, as a string, somewhere (the data is kept, not mangled).
    let lost: Vec<&str> =
        HOSTILE.iter().zip(&kept).filter(|(h, k)| !**k && !h.trim().is_empty()).map(|(h, _)| *h).collect();
    assert!(lost.iter().all(|h| h.contains("<secret>")), "not read back as strings: {lost:?}");
}

/// The review's attack: the option of a select with no name in an open shadow root, chosen by
/// hand; the export's comment for it ended at U+2028 and `npx playwright test` ran the rest.
fn shadow_choice(option: &str) -> super::Recording {
    let mut rec = samples::recording(&[(19, 11)], false, &mut |_| "Pick a plan".to_string());
    let step = &mut rec.steps[0];
    step.op = super::Op::Select { option: option.into(), value: None };
    step.target.as_mut().unwrap().xpath = "/html[1]/body[1]/plan-picker[1] >>> /select[1]".into();
    step.caption = format!("Choose \u{201c}{option}\u{201d} in select");
    rec
}

#[test]
fn the_shadow_root_option_that_ended_a_comment_stays_in_it() {
    let spec = to_playwright(&shadow_choice(PAYLOAD), VIEWPORT);
    assert!(!spec.contains(['\u{2028}', '\u{2029}']), "{spec}");
    let read = read_spec(&spec).unwrap_or_else(|e| panic!("{e}\n{spec}"));
    same_code(&read, &read_spec(&to_playwright(&shadow_choice("Standard"), VIEWPORT)).unwrap(), "the choice");
    assert!(
        read.comments.iter().any(|c| c.contains("choose \u{201c}Standard import('child_process')")),
        "the option is named in a comment, on one line: {:?}",
        read.comments
    );

    // Midscene: no XPath reaches it, so no script (it was `document.evaluate("")`): the step
    // names the option and the element for Midscene's planner.
    let yaml = to_midscene_yaml(&shadow_choice(PAYLOAD), VIEWPORT);
    assert!(!yaml.contains("document.evaluate(\"\""), "{yaml}");
    assert!(!yaml.contains("javascript"), "{yaml}");
    let data = read_midscene(&yaml).unwrap_or_else(|e| panic!("{e}\n{yaml}"));
    assert!(data.shape.iter().any(|k| k.ends_with(".aiAct:string")), "{yaml}");
    assert!(data.strings.contains(&format!("choose the option \u{201c}{PAYLOAD}\u{201d} in Pick a plan")), "{yaml}");
    // Sightline's own flow reader reads it back as that instruction.
    let flow = crate::flow::parse_flow(&yaml).unwrap();
    assert_eq!(
        flow.tasks[0].steps,
        [crate::flow::FlowStep::Act {
            instruction: format!("choose the option \u{201c}{PAYLOAD}\u{201d} in Pick a plan")
        }]
    );
}

#[test]
fn a_midscene_flow_holds_hostile_texts_as_plain_strings_and_no_key_anchor_tag_or_code() {
    for start in 0..HOSTILE.len() {
        let (hostile, twin) = pair(start, start % 2 == 1);
        let yaml = to_midscene_yaml(&hostile, VIEWPORT);
        let read = read_midscene(&yaml).unwrap_or_else(|e| panic!("{e}\n{yaml}"));
        let twin_read = read_midscene(&to_midscene_yaml(&twin, VIEWPORT)).unwrap();
        assert_eq!(read.shape, twin_read.shape, "texts from {start}: keys and types");
        assert_eq!(read.scripts, twin_read.scripts, "texts from {start}: the scripts' shapes");
        assert_eq!(read.strings.len(), twin_read.strings.len());
        // Sightline's reader reads the file (the select scripts as scripts, which run only where
        // the person allows them), or refuses it for what it refuses in any flow: an element
        // described by nothing (an empty text).
        let read_back = crate::flow::parse_flow(&yaml);
        let twin_yaml = to_midscene_yaml(&twin, VIEWPORT);
        assert_eq!(read_back.is_ok(), crate::flow::parse_flow(&twin_yaml).is_ok(), "{read_back:?}");
        if let Err(e) = read_back {
            let e = e.to_string();
            assert!(e.contains(" needs "), "{e}");
        }
    }
    // Every text comes back exactly, as the value of its own key.
    for h in HOSTILE {
        let rec = samples::recording(&[(0, 3)], false, &mut |_| h.to_string());
        let read = read_midscene(&to_midscene_yaml(&rec, VIEWPORT)).unwrap();
        assert_eq!(
            read.strings,
            [*h, *h, *h, "/html[1]/body[1]/form[1]/select[1]"],
            "the address, the task, the element"
        );
    }
}

#[test]
fn a_recorder_flow_keeps_hostile_texts_as_json_strings_and_its_expressions_as_ours() {
    for start in 0..HOSTILE.len() {
        let (hostile, twin) = pair(start, false);
        let json = serde_json::to_string_pretty(&to_recorder(&hostile, VIEWPORT)).unwrap();
        let read = read_recorder(&json).unwrap_or_else(|e| panic!("{e}\n{json}"));
        let twin_read = read_recorder(&serde_json::to_string(&to_recorder(&twin, VIEWPORT)).unwrap()).unwrap();
        assert_eq!(read.shape, twin_read.shape, "texts from {start}");
        assert_eq!(read.scripts, twin_read.scripts, "texts from {start}: the expressions' shapes");
    }
    for h in HOSTILE {
        let rec = samples::recording(&[(21, 0)], false, &mut |_| h.to_string());
        let flow = to_recorder(&rec, VIEWPORT);
        let expression = flow["steps"][2]["expression"].as_str().unwrap();
        let code = read_script(expression).unwrap_or_else(|e| panic!("{e}\n{expression}"));
        assert_eq!(code.strings, [*h], "{expression}");
        assert_eq!(code.calls, 1, "{expression}");
    }
}

/// A 1×1 PNG.
const PIXEL: &str = "data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==";

#[test]
fn the_html_report_has_its_policy_and_keeps_hostile_texts_as_text() {
    let images = HashMap::from([("shot".to_string(), PIXEL.to_string())]);
    for start in 0..HOSTILE.len() {
        let hostile = samples::run(3, start % 2 == 0, "shot", &mut drawer(start, false));
        let twin = samples::run(3, start % 2 == 0, "shot", &mut drawer(start, true));
        let html = to_html_report(&hostile, &images);
        let read = read_report(&html, CSP).unwrap_or_else(|e| panic!("{e}\n{html}"));
        let twin_read = read_report(&to_html_report(&twin, &images), CSP).unwrap();
        assert_eq!(read.shape, twin_read.shape, "texts from {start}: the elements");
        assert!(read.shape.iter().any(|e| e == "img."), "the screenshot is shown");
    }
    // A caption that is markup stays the caption's text.
    let caption = "<script>alert(1)</script><img src=x onerror=alert(2)>";
    let run = samples::run(1, false, "shot", &mut |_| caption.to_string());
    let html = to_html_report(&run, &images);
    assert!(html.contains(&format!("<meta http-equiv=\"Content-Security-Policy\" content=\"{CSP}\">")));
    let doc = scraper::Html::parse_document(&html);
    let what = scraper::Selector::parse(".step .what").unwrap();
    assert_eq!(doc.select(&what).map(|e| e.text().collect::<String>()).collect::<Vec<_>>(), [caption]);
    let h1 = scraper::Selector::parse("h1").unwrap();
    assert_eq!(doc.select(&h1).next().unwrap().text().collect::<String>(), caption);
    let active = scraper::Selector::parse("script, [onerror], [onload], img:not([src^='data:image/'])").unwrap();
    assert_eq!(doc.select(&active).count(), 0);
}

/// The checks fail on what the exporters wrote before (and on the other ways out): each
/// passing test above could fail.
#[test]
fn the_checks_refuse_code_keys_and_markup_the_exporter_did_not_write() {
    let old_spec = format!(
        "import {{ test, expect }} from '@playwright/test';\ntest(\"t\", async ({{ page }}) => {{\n  // choose {}\n}});\n",
        serde_json::to_string(PAYLOAD).unwrap()
    );
    assert!(read_spec(&old_spec).is_err(), "the raw U+2028 the old comment held");
    let ended = old_spec.replace('\u{2028}', "\n");
    let e = read_spec(&ended).unwrap_err();
    assert!(e.contains("dynamic import") || e.contains("execSync"), "{e}");
    assert!(read_spec("import { test } from '@playwright/test';\nfetch('x');\n").is_err(), "a name we never write");
    assert!(read_spec("import { test } from 'node:child_process';\n").is_err());
    assert!(read_spec("import { test } from '@playwright/test';\n/* a */\n").is_err(), "a block comment");
    assert!(read_spec("import { test } from '@playwright/test';\ntest(\"a\u{202e}\");\n").is_err());
    assert!(read_script("location.href = \"x\"; fetch(\"y\")").is_err());
    assert!(read_script("location.href = \"x\"").is_ok());

    let yaml = |item: &str| format!("web:\n  url: \"u\"\ntasks:\n  - name: \"n\"\n    flow:\n      - {item}\n");
    assert!(read_midscene(&yaml("aiTap: \"x\"")).is_ok());
    for bad in [
        "aiTap: &a \"x\"",
        "aiTap: !!str x",
        "aiTap: \"x\"\n        evil: \"y\"",
        "aiTap: x: y",
        "evil: \"x\"",
        "aiTap: [\"x\"]",
        "javascript: \"fetch('x')\"",
        "sleep: 1\n      - aiTap: *a",
    ] {
        assert!(read_midscene(&yaml(bad)).is_err(), "{bad}");
    }
    assert!(read_midscene("web:\n  url: \"u\"\ntasks: []\nevil: 1\n").is_err());
    assert!(read_midscene(&yaml("aiTap: \"a\u{85}b\u{2028}\"")).is_err(), "raw line breaks of YAML 1.1");
    assert!(read_midscene(&yaml("aiTap: \"a\u{9b}\u{ffff}\"")).is_err(), "raw characters YAML refuses");

    let report = |body: &str| {
        format!("<!doctype html><html><head><meta charset=\"utf-8\"><meta http-equiv=\"Content-Security-Policy\" content=\"{CSP}\"><title>t</title></head><body>{body}</body></html>")
    };
    assert!(read_report(&report("<p class=\"x\">a &lt;b&gt;</p>"), CSP).is_ok());
    for bad in
        ["<script>x</script>", "<img src=x onerror=y>", "<img src=\"https://evil.example/p.png\">", "<a href=x>a</a>"]
    {
        assert!(read_report(&report(bad), CSP).is_err(), "{bad}");
    }
    assert!(
        read_report("<!doctype html><html><head><meta charset=\"utf-8\"><title>t</title></head></html>", CSP).is_err()
    );

    assert!(read_recorder(
        "{\"title\":\"t\",\"steps\":[{\"type\":\"waitForExpression\",\"expression\":\"fetch('x')\"}]}"
    )
    .is_err());
    assert!(read_recorder("{\"title\":\"t\",\"steps\":[{\"type\":\"click\",\"evil\":1}]}").is_err());
}
