//! What a step of any run says and keeps, shared by the planning loop, single tasks, the
//! recorder and flows: an action's caption, notes joined, the address an element's frame is
//! judged by, and a run's end.

use super::advice::Where;
use super::browser::Browser;
use super::error::RunError;
use super::record::{Run, RunStatus};
use crate::describe::Extraction;
use crate::vocab::actions::PlannedAction;

/// Ends a run with the outcome of its work and reports it one last time.
pub(crate) fn conclude<B: Browser>(mut run: Run, outcome: Result<RunStatus, RunError>, browser: &mut B) -> Run {
    run.status = match outcome {
        Ok(status) => status,
        Err(error) => {
            let on = if run.flow.is_some() { Where::FlowFile } else { Where::Instruction };
            run.error = Some(error.record_for(run.language, on));
            RunStatus::Failed
        }
    };
    run.ended_ms = Some(browser.now_ms());
    browser.report(&run);
    run
}

/// Two notes as one.
pub(crate) fn join_notes(a: Option<String>, b: Option<String>) -> Option<String> {
    match (a, b) {
        (Some(a), Some(b)) => Some(format!("{a}; {b}")),
        (a, b) => a.or(b),
    }
}

/// The address of the frame an element is in, as the site checks read it: its frame's
/// origin, or the page's address for an element of the page's own document.
pub(crate) fn frame_address<'a>(element: &'a crate::describe::Element, page: &'a Extraction) -> &'a str {
    element.frame_origin.as_deref().unwrap_or(&page.url)
}

/// The action as the model reads it in the run's history (English, as its prompts are).
pub fn describe_action(action: &PlannedAction) -> String {
    caption(action, crate::i18n::Lang::En)
}

/// The action as a person reads it in the timeline, in their language.
pub fn caption(action: &PlannedAction, lang: crate::i18n::Lang) -> String {
    let say = |key: &str, args: &[(&str, &dyn std::fmt::Display)]| lang.say(key, args);
    let at = |x: &f64, y: &f64| (format!("{x:.0}"), format!("{y:.0}"));
    let direction = |d: &crate::vocab::actions::ScrollDirection| lang.say(&format!("direction.{}", d.as_str()), &[]);
    match action {
        PlannedAction::Tap { target } => say("step.tap", &[("target", target)]),
        PlannedAction::Input { target, value } => say("step.input", &[("target", target), ("value", value)]),
        PlannedAction::KeyPress { key } => say("step.press", &[("key", key)]),
        PlannedAction::Scroll { target, direction: d, distance } => say(
            "step.scroll",
            &[
                ("direction", &direction(d)),
                ("within", &target.map(|t| say("step.scroll_within", &[("target", &t)])).unwrap_or_default()),
                ("by", &distance.map(|d| say("step.scroll_by", &[("distance", &d)])).unwrap_or_default()),
            ],
        ),
        PlannedAction::TapAt { x, y, button, clicks } => {
            let key = match (button, clicks) {
                (crate::vocab::actions::MouseButton::Right, _) => "step.right_click_at",
                (_, 2) => "step.double_click_at",
                _ => "step.tap_at",
            };
            let (x, y) = at(x, y);
            say(key, &[("x", &x), ("y", &y)])
        }
        PlannedAction::HoverAt { x, y } => {
            let (x, y) = at(x, y);
            say("step.hover_at", &[("x", &x), ("y", &y)])
        }
        PlannedAction::DragAt { from, to } => {
            let ((x1, y1), (x2, y2)) = (at(&from.0, &from.1), at(&to.0, &to.1));
            say("step.drag_at", &[("x1", &x1), ("y1", &y1), ("x2", &x2), ("y2", &y2)])
        }
        PlannedAction::Type { value, submit } => {
            say(if *submit { "step.type_submit" } else { "step.type" }, &[("value", value)])
        }
        PlannedAction::ScrollAt { x, y, direction: d, .. } => {
            let (x, y) = at(x, y);
            say("step.scroll_at", &[("direction", &direction(d)), ("x", &x), ("y", &y)])
        }
        PlannedAction::Wait { ms } => say("step.wait", &[("seconds", &format!("{:.1}", *ms as f64 / 1000.0))]),
        PlannedAction::Navigate { url } => say("step.navigate", &[("url", url)]),
        PlannedAction::AskUser { question } => say("step.ask", &[("question", question)]),
        PlannedAction::Tool { name, .. } => say("step.tool", &[("name", name)]),
        PlannedAction::DoubleClick { target } => say("step.double_click", &[("target", target)]),
        PlannedAction::RightClick { target } => say("step.right_click", &[("target", target)]),
        PlannedAction::Hover { target } => say("step.hover", &[("target", target)]),
        PlannedAction::Append { target, value } => say("step.append", &[("target", target), ("value", value)]),
        PlannedAction::Clear { target } => say("step.clear", &[("target", target)]),
        PlannedAction::Select { target, option, .. } => say("step.choose", &[("target", target), ("option", option)]),
        PlannedAction::SelectAt { x, y, option } => {
            let (x, y) = at(x, y);
            say("step.choose_at", &[("option", option), ("x", &x), ("y", &y)])
        }
        PlannedAction::ScrollToEdge { target, direction: d } => say(
            "step.scroll_to_edge",
            &[
                ("direction", &direction(d)),
                ("within", &target.map(|t| say("step.scroll_within", &[("target", &t)])).unwrap_or_default()),
            ],
        ),
        PlannedAction::ScrollTo { target } => say("step.scroll_to", &[("target", target)]),
        PlannedAction::Drag { from, to } => say("step.drag", &[("from", from), ("to", to)]),
        PlannedAction::Upload { target, files } => {
            let names: Vec<&str> = files.iter().map(|f| f.rsplit(['/', '\\']).next().unwrap_or(f)).collect();
            say("step.upload", &[("files", &names.join(", ")), ("target", target)])
        }
        PlannedAction::WaitFor { text, gone, timeout_ms } => say(
            if *gone { "step.wait_gone" } else { "step.wait_for" },
            &[("seconds", &format!("{:.0}", *timeout_ms as f64 / 1000.0)), ("text", text)],
        ),
        PlannedAction::Back => say("step.back", &[]),
        PlannedAction::Forward => say("step.forward", &[]),
        PlannedAction::Reload => say("step.reload", &[]),
        PlannedAction::OpenTab { url } => say("step.open_tab", &[("url", url)]),
        PlannedAction::SwitchTab { tab } => say("step.switch_tab", &[("tab", tab)]),
        PlannedAction::CloseTab => say("step.close_tab", &[]),
        PlannedAction::Expect { target, check, expected } => {
            say(&format!("step.expect_{}", check.as_str()), &[("target", target), ("expected", expected)])
        }
        PlannedAction::Remember { note, data } => match data {
            Some(d) if note.is_empty() => say("step.remember_data", &[("data", d)]),
            Some(d) => say("step.remember_note_data", &[("note", note), ("data", d)]),
            None => say("step.remember", &[("note", note)]),
        },
    }
}
