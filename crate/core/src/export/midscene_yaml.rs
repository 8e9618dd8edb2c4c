//! Midscene's YAML script (`web:` + `tasks:` of `flow:` items), readable by its own parser
//! (`parseYamlScript` in npm `@midscene/core`) and runnable by its CLI. Each element is named
//! in words for Midscene's model and carries our `xpath`, which Midscene tries first.
//! Scalars are double-quoted YAML strings (`escape::yaml_string`), scripts built from
//! JavaScript literals (`escape::js_string`) first.

use super::recording::{History, Op, RecStep, Recording};
use crate::flow::known::{history_script, navigate_script, select_script};
use crate::flow::FlowHistory;
use crate::vocab::actions::{ElementCheck, ScrollDirection};
use crate::vocab::escape::{yaml_comment, yaml_string as q};
use crate::vocab::geometry::WindowSize;
use std::fmt::Write;

pub fn to_midscene_yaml(rec: &Recording, viewport: WindowSize) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "# {}", yaml_comment(&rec.language.say("export.exported", &[("title", &rec.title)])));
    let _ = writeln!(out, "# {}", yaml_comment(&rec.language.say("export.midscene_format", &[])));
    out.push_str("web:\n");
    let _ = writeln!(out, "  url: {}", q(&rec.url));
    let _ = writeln!(out, "  viewportWidth: {}", viewport.width);
    let _ = writeln!(out, "  viewportHeight: {}", viewport.height);
    out.push_str("tasks:\n");
    let _ = writeln!(out, "  - name: {}", q(&rec.title));
    if rec.steps.is_empty() {
        // Nothing ran that can be repeated: the instruction itself, for Midscene's planner.
        out.push_str("    flow:\n");
        let _ = writeln!(out, "      - aiAct: {}", q(&rec.title));
        return out;
    }
    out.push_str("    flow:\n");
    for step in &rec.steps {
        flow_item(&mut out, step);
    }
    out
}

fn flow_item(out: &mut String, step: &RecStep) {
    let locate = step.target.as_ref().map(|t| t.describe.as_str()).unwrap_or_default();
    let mut item: Vec<(&str, String)> = Vec::new();
    match &step.op {
        Op::Tap => item.push(("aiTap", q(locate))),
        Op::DoubleClick => item.push(("aiDoubleClick", q(locate))),
        Op::RightClick => item.push(("aiRightClick", q(locate))),
        Op::Hover => item.push(("aiHover", q(locate))),
        Op::Locate => item.push(("aiLocate", q(locate))),
        Op::Input { value, append } => {
            item.push(("aiInput", q(locate)));
            item.push(("value", q(value)));
            if *append {
                item.push(("mode", q("typeOnly")));
            } else if value.is_empty() {
                item.push(("mode", q("clear")));
            }
        }
        Op::Type { value } => {
            // No element known: type into the focus.
            item.push(("aiInput", "null".into()));
            item.push(("value", q(value)));
            item.push(("mode", q("typeOnly")));
        }
        Op::Key { key } => {
            item.push(("aiKeyboardPress", q(&key.resolved_spec())));
            if step.target.is_some() {
                item.push(("locate", q(locate)));
            }
        }
        Op::Scroll { direction, distance, to_edge } => {
            item.push(("aiScroll", if step.target.is_some() { q(locate) } else { "null".into() }));
            let edge = match direction {
                ScrollDirection::Down => "scrollToBottom",
                ScrollDirection::Up => "scrollToTop",
                ScrollDirection::Right => "scrollToRight",
                ScrollDirection::Left => "scrollToLeft",
            };
            if *to_edge {
                item.push(("scrollType", q(edge)));
            } else {
                item.push(("scrollType", q("singleAction")));
                item.push(("direction", q(direction.as_str())));
                if let Some(d) = distance.filter(|d| *d > 0.0) {
                    item.push(("distance", format!("{}", d.round())));
                }
            }
        }
        Op::Drag { to_describe, .. } => {
            let (from, to) = (q(locate), q(to_describe));
            item.push(("aiDragAndDrop", format!("{{\"from\":{{\"prompt\":{from}}},\"to\":{{\"prompt\":{to}}}}}")));
        }
        Op::Upload { files } => {
            item.push(("aiTap", q(locate)));
            let files: Vec<String> = files.iter().map(|f| q(f)).collect();
            item.push(("fileChooserAccept", format!("[{}]", files.join(","))));
        }
        // Midscene has no step that chooses an option: a script does, in its runner with no
        // model, as a person's choice does (the option selected, input and change fired).
        Op::Select { option, value } => match step.target.as_ref().filter(|t| t.in_top_document()) {
            Some(t) => item.push(("javascript", q(&select_script(&t.xpath, option, value.as_deref())))),
            // Inside a frame or a shadow root no XPath reaches it: Midscene's planner chooses
            // it by the element's description (Sightline's flows read `aiAct` as well).
            None => {
                let choose = match &step.target {
                    Some(t) => format!("choose the option \u{201c}{option}\u{201d} in {}", t.describe),
                    None => format!("choose the option \u{201c}{option}\u{201d}"),
                };
                item.push(("aiAct", q(&choose)));
            }
        },
        Op::History { go } => item.push((
            "javascript",
            q(history_script(match go {
                History::Back => FlowHistory::Back,
                History::Forward => FlowHistory::Forward,
                History::Reload => FlowHistory::Reload,
            })),
        )),
        Op::WaitText { text, gone, timeout_ms } => {
            let shows = if *gone { "no longer shows" } else { "shows" };
            item.push(("aiWaitFor", q(&format!("the page {shows} the text \u{201c}{text}\u{201d}"))));
            item.push(("timeout", timeout_ms.to_string()));
        }
        Op::Wait { ms } => item.push(("sleep", ms.max(&1).to_string())),
        // Midscene has no step that opens an address; this one line runs in its runner with no
        // model, and Sightline reads exactly this form back as a navigation (and no other script).
        Op::Navigate { url } => item.push(("javascript", q(&navigate_script(url)))),
        Op::Read { kind, prompt, .. } => {
            // aiQuery's demand may be a shape (`{titles: "the titles, as strings"}`): written
            // as a YAML flow mapping, so that it reads back as the same shape.
            let prompt = yaml_flow(prompt);
            item.push((kind, prompt));
            item.push(("name", q("result")));
        }
        Op::Assert { assertion } => item.push(("aiAssert", q(assertion))),
        // Midscene checks in words: its model judges the statement on the screenshot.
        Op::Check { check, expected } => item.push((
            "aiAssert",
            q(&match check {
                ElementCheck::Text => format!("{locate} shows the text \u{201c}{expected}\u{201d}"),
                ElementCheck::Value => format!("{locate} holds the value \u{201c}{expected}\u{201d}"),
                ElementCheck::Visible => format!("{locate} is visible"),
            }),
        )),
        Op::WaitFor { assertion, timeout_ms } => {
            item.push(("aiWaitFor", q(assertion)));
            item.push(("timeout", timeout_ms.to_string()));
        }
    }
    if let Some(t) = &step.target {
        // Midscene locates by XPath first when one is given (top document only: it cannot
        // follow our frame and shadow-root segments).
        if t.in_top_document() && !matches!(step.op, Op::Drag { .. } | Op::Check { .. }) {
            item.push(("xpath", q(&t.xpath)));
        }
    }
    for (i, (key, value)) in item.iter().enumerate() {
        let lead = if i == 0 { "      - " } else { "        " };
        let _ = writeln!(out, "{lead}{key}: {value}");
    }
}

/// A JSON value as a YAML flow value, every string through `yaml_string`.
fn yaml_flow(v: &serde_json::Value) -> String {
    use serde_json::Value;
    match v {
        Value::String(s) => q(s),
        Value::Array(items) => format!("[{}]", items.iter().map(yaml_flow).collect::<Vec<_>>().join(", ")),
        Value::Object(map) => {
            format!(
                "{{{}}}",
                map.iter().map(|(k, v)| format!("{}: {}", q(k), yaml_flow(v))).collect::<Vec<_>>().join(", ")
            )
        }
        other => other.to_string(),
    }
}
