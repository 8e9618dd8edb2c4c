//! Chrome DevTools Recorder JSON: a user flow that `@puppeteer/replay` (and the Recorder
//! panel itself) replays with no model. Selectors are our XPaths (`xpath/…`), the recorded
//! one first, the text-based one second. Elements in frames or shadow roots, drags and file
//! uploads have no Recorder step; they are left out and listed in the flow's title note.

use super::recording::{Op, Recording, Target};
use crate::vocab::actions::ScrollDirection;
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
            if let (Some(obj), Value::Object(more)) = (s.as_object_mut(), extra) {
                obj.extend(more);
                // Clicks land in the element's middle, as recorded.
                if obj.contains_key("offsetX") {
                    obj.insert("offsetX".into(), json!((t.size.0 / 2.0).round()));
                    obj.insert("offsetY".into(), json!((t.size.1 / 2.0).round()));
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
                let test =
                    format!("document.body.innerText.includes({})", serde_json::to_string(text).unwrap_or_default());
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

/// Recorder selectors for an element of the top document: `[["xpath/…"], ["xpath/…"]]`.
fn selectors_of(t: &Target) -> Option<Value> {
    if !t.in_top_document() {
        return None;
    }
    let mut list = vec![json!([format!("xpath/{}", t.xpath)])];
    if let Some(text) = t.xpath_text.as_deref().filter(|x| *x != t.xpath) {
        list.push(json!([format!("xpath/{text}")]));
    }
    Some(Value::Array(list))
}
