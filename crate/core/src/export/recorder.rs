//! Chrome DevTools Recorder JSON: a user flow that `@puppeteer/replay` (and the Recorder
//! panel itself) replays with no model. Each element's selectors are alternatives tried in
//! order, as the Recorder writes them: `aria/<name>[role="<role>"]` and `text/…` from the
//! step's recorded [`Locators`] (both pierce shadow roots), then a path of CSS parts through
//! the shadow roots on the way, then our XPaths (`xpath/…`, the recorded one first). An element
//! in a frame gets the step's `frame` path (its index at each level). Elements nothing reaches,
//! drags and file uploads have no Recorder step; they are left out and listed in the title.

use super::playwright::is_frame_path;
use super::recording::{Op, Recording, Target};
use crate::describe::locators::Locators;
use crate::vocab::actions::{ElementCheck, ScrollDirection};
use crate::vocab::escape::{css_string, js_string};
use crate::vocab::geometry::WindowSize;
use serde_json::{json, Value};

pub fn to_recorder(rec: &Recording, viewport: WindowSize) -> Value {
    let mut steps = vec![
        json!({ "type": "setViewport", "width": viewport.width, "height": viewport.height, "deviceScaleFactor": 1, "isMobile": false, "hasTouch": false, "isLandscape": false }),
        json!({ "type": "navigate", "url": rec.url, "assertedEvents": [{ "type": "navigation", "url": rec.url, "title": "" }] }),
    ];
    let mut skipped = Vec::new();
    // Recorder scrolls are absolute: keep the page's position as the run moved it.
    let (mut page_x, mut page_y) = (0.0f64, 0.0f64);
    for step in &rec.steps {
        let selectors = step.target.as_ref().and_then(selectors_of);
        let mut with_target = |kind: &str, extra: Value| -> bool {
            let (Some(sel), Some(t)) = (&selectors, &step.target) else { return false };
            let mut s = json!({ "type": kind, "target": "main", "selectors": sel });
            if let Some(frame) = frame_path(t) {
                s["frame"] = json!(frame);
            }
            if let (Some(obj), Value::Object(more)) = (s.as_object_mut(), extra) {
                obj.extend(more);
                // Clicks land in the element's middle, as recorded; a text's where it is in the
                // element holding it (a record from before that was read: half the text's own
                // size from that element's corner, where a first line's text usually starts).
                if obj.contains_key("offsetX") {
                    let (x, y) = t.click_offset().map_or((t.size.0 / 2.0, t.size.1 / 2.0), |p| (p.x, p.y));
                    obj.insert("offsetX".into(), json!(x.round()));
                    obj.insert("offsetY".into(), json!(y.round()));
                }
            }
            steps.push(s);
            true
        };
        let done = match &step.op {
            Op::Tap => with_target("click", json!({ "offsetX": 1, "offsetY": 1 })),
            Op::DoubleClick => with_target("doubleClick", json!({ "offsetX": 1, "offsetY": 1 })),
            Op::RightClick => with_target("click", json!({ "offsetX": 1, "offsetY": 1, "button": "secondary" })),
            Op::Hover => with_target("hover", json!({})),
            Op::Locate => with_target("waitForElement", json!({})),
            Op::Input { value, append: false } => with_target("change", json!({ "value": value })),
            // The Recorder's change step sets a select's value: the option's value, which is
            // its text when the page gives it none.
            Op::Select { option, value } => {
                with_target("change", json!({ "value": value.clone().unwrap_or_else(|| option.clone()) }))
            }
            Op::WaitText { text, gone, .. } => {
                // JavaScript inside JSON: the text as a JavaScript literal first.
                let test = format!("document.body.innerText.includes({})", js_string(text));
                let expression = if *gone { format!("!{test}") } else { test };
                steps.push(json!({ "type": "waitForExpression", "target": "main", "expression": expression }));
                true
            }
            Op::Key { key } => {
                if step.target.is_some() && !with_target("click", json!({ "offsetX": 1, "offsetY": 1 })) {
                    false
                } else {
                    let keys = key.resolved();
                    for k in &keys {
                        steps.push(json!({ "type": "keyDown", "target": "main", "key": k }));
                    }
                    for k in keys.iter().rev() {
                        steps.push(json!({ "type": "keyUp", "target": "main", "key": k }));
                    }
                    true
                }
            }
            Op::Scroll { direction, distance, to_edge } if step.target.is_none() => {
                let d = if *to_edge { 1e6 } else { distance.unwrap_or(viewport.height as f64 * 0.8) };
                match direction {
                    ScrollDirection::Down => page_y += d,
                    ScrollDirection::Up => page_y = (page_y - d).max(0.0),
                    ScrollDirection::Right => page_x += d,
                    ScrollDirection::Left => page_x = (page_x - d).max(0.0),
                }
                steps.push(json!({ "type": "scroll", "target": "main", "x": page_x.round(), "y": page_y.round() }));
                true
            }
            Op::Navigate { url } => {
                steps.push(json!({ "type": "navigate", "url": url, "assertedEvents": [{ "type": "navigation", "url": url, "title": "" }] }));
                true
            }
            Op::Wait { ms } => {
                steps.push(json!({ "type": "waitForExpression", "target": "main", "expression": format!("new Promise((r) => setTimeout(() => r(true), {ms}))") }));
                true
            }
            // A text in an element that may say more around it: the page shows it.
            Op::Check { check: ElementCheck::Text, expected } if step.target.as_ref().is_some_and(Target::is_text) => {
                let test = format!("document.body.innerText.includes({})", js_string(expected));
                steps.push(json!({ "type": "waitForExpression", "target": "main", "expression": test }));
                true
            }
            // The Recorder's assertion: the element there, shown, with the property read.
            Op::Check { check, expected } => with_target(
                "waitForElement",
                match check {
                    ElementCheck::Text => json!({ "visible": true, "properties": { "innerText": expected } }),
                    // A list's value as the page reads it is its chosen option's text, which no
                    // property of the list holds: the Recorder checks that it is there.
                    ElementCheck::Value if step.target.as_ref().is_some_and(|t| t.tag == "select") => {
                        json!({ "visible": true })
                    }
                    ElementCheck::Value => json!({ "properties": { "value": expected } }),
                    ElementCheck::Visible => json!({ "visible": true }),
                },
            ),
            // Answers and checks need a model: nothing to repeat.
            Op::Read { .. } | Op::Assert { .. } | Op::WaitFor { .. } => true,
            _ => false,
        };
        if !done {
            skipped.push(step.caption.clone());
        }
    }
    let mut title = rec.title.clone();
    if !skipped.is_empty() {
        title = format!("{title} (left out, no Recorder step for them: {})", skipped.join("; "));
    }
    json!({ "title": title, "steps": steps })
}

/// Recorder selectors for the element, best first; None when none reaches it (a frame whose
/// place is not recorded, a closed shadow root).
fn selectors_of(t: &Target) -> Option<Value> {
    let segments = t.segments();
    let frames = segments.iter().filter(|s| is_frame_path(s)).count();
    let known_frames = t.locators.as_ref().map_or(0, |l| l.frames.len());
    if frames != known_frames {
        return None;
    }
    let mut list: Vec<Value> = Vec::new();
    if let Some(l) = &t.locators {
        list.extend(aria_and_text(l).into_iter().map(|s| json!([s])));
    }
    // The trees inside the element's frame: its document, then each shadow root on the way.
    let last_frame = segments.iter().rposition(|s| is_frame_path(s)).map_or(0, |i| i + 1);
    let trees = &segments[last_frame..];
    if trees.len() > 1 {
        let parts: Option<Vec<String>> = trees.iter().map(|s| css_of_xpath(s)).collect();
        if let Some(parts) = parts {
            list.push(json!(parts));
        }
    } else if let Some(last) = trees.first() {
        list.push(json!([format!("xpath/{last}")]));
        if frames == 0 {
            if let Some(text) = t.element_xpath_text().filter(|x| x != last) {
                list.push(json!([format!("xpath/{text}")]));
            }
        }
    }
    (!list.is_empty()).then_some(Value::Array(list))
}

/// `aria/<name>[role="<role>"]` where the name is the element's alone (Puppeteer matches the
/// whole name), and `text/…` where its text is.
fn aria_and_text(l: &Locators) -> Vec<String> {
    // Brackets, parentheses and quotes would end Puppeteer's selector early.
    let plain = |s: &str| !s.contains(['[', ']', '(', ')', '"']);
    let mut out = Vec::new();
    if let Some(r) = l.role.as_ref().filter(|r| r.name.is_unique() && !r.name.cut && plain(&r.name.text)) {
        out.push(format!("aria/{}[role=\"{}\"]", r.name.text, r.role));
    }
    if let Some(t) = l.text.as_ref().filter(|t| t.is_unique() && !t.cut && plain(&t.text)) {
        out.push(format!("text/{}", t.text));
    }
    out
}

/// The Recorder's `frame`: the element's frame as indexes among each parent's frames; None in
/// the top document.
fn frame_path(t: &Target) -> Option<Vec<u32>> {
    let frames = &t.locators.as_ref()?.frames;
    (!frames.is_empty()).then(|| frames.iter().map(|f| f.index).collect())
}

/// One tree's XPath as CSS (Puppeteer evaluates no XPath inside a shadow root):
/// `//*[@id="main"]/div[2]/button[1]` → `[id="main"] > div:nth-of-type(2) > button:nth-of-type(1)`.
/// None for a step CSS cannot say.
fn css_of_xpath(path: &str) -> Option<String> {
    let mut parts = Vec::new();
    let rest = if let Some(anchored) = path.strip_prefix("//*[@id=") {
        let end = anchored.find("]")?;
        let id: String = serde_json::from_str(&anchored[..end]).ok()?;
        parts.push(format!("[id={}]", css_string(&id)));
        &anchored[end + 1..]
    } else {
        path
    };
    for step in rest.split('/').filter(|s| !s.is_empty()) {
        let (tag, position) = match step.split_once('[') {
            Some((tag, n)) => (tag, n.strip_suffix(']')?.parse::<u32>().ok()?),
            None => (step, 1),
        };
        if tag.is_empty() || !tag.chars().all(|c| c.is_ascii_alphanumeric() || c == '-') {
            return None;
        }
        parts.push(format!("{tag}:nth-of-type({position})"));
    }
    (!parts.is_empty()).then(|| parts.join(" > "))
}
