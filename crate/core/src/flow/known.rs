//! The scripts a Midscene YAML export writes for steps Midscene has no key for (opening an
//! address, back, forward, reload, a choice in a `<select>`), and the reader that takes exactly
//! those back as the steps they stand for: one owner for both sides, so what the export writes
//! and what a flow file reads cannot drift apart. Any other script is code
//! (`FlowStep::Script`), run only where the person allowed the file.

use super::{FlowHistory, FlowStep};
use crate::vocab::escape::js_string as js;

/// The script a navigation is exported as: `location.href = "<url>"`.
pub fn navigate_script(url: &str) -> String {
    format!("location.href = {}", js(url))
}

/// The script a choice in a `<select>` of the top document is exported as: the element by its
/// XPath, the option by its value when known, else by its text.
pub fn select_script(xpath: &str, option: &str, value: Option<&str>) -> String {
    let by = match value {
        Some(v) => format!("o.value === {}", js(v)),
        None => format!("o.text.trim() === {}", js(option.trim())),
    };
    format!(
        "(() => {{ const s = document.evaluate({}, document, null, 9, null).singleNodeValue; \
         const o = [...s.options].find((o) => {by}); if (!o) throw new Error('no option ' + {}); \
         s.value = o.value; s.dispatchEvent(new Event('input', {{ bubbles: true }})); \
         s.dispatchEvent(new Event('change', {{ bubbles: true }})); }})()",
        js(xpath),
        js(option)
    )
}

/// The script back, forward and reload are exported as.
pub fn history_script(go: FlowHistory) -> &'static str {
    match go {
        FlowHistory::Back => "history.back()",
        FlowHistory::Forward => "history.forward()",
        FlowHistory::Reload => "location.reload()",
    }
}

/// The step a script our export writes stands for, exactly as it writes it, and nothing else:
/// a navigation ([`navigate_target`]), back, forward or reload ([`history_target`]), a choice
/// in a `<select>` ([`select_target`]).
pub fn step_of(script: &str) -> Option<FlowStep> {
    navigate_target(script)
        .map(|url| FlowStep::Navigate { url })
        .or_else(|| history_target(script).map(|go| FlowStep::History { go }))
        .or_else(|| select_target(script))
}

/// `history.back()`, `history.forward()`, `location.reload()` (what the export writes for them).
fn history_target(script: &str) -> Option<FlowHistory> {
    let script = script.trim().trim_end_matches(';').trim_end();
    [FlowHistory::Back, FlowHistory::Forward, FlowHistory::Reload].into_iter().find(|go| history_script(*go) == script)
}

/// A choice written by [`select_script`]: its string literals (the
/// XPath, the option's value or text, the option's text) read as JSON, and the script written
/// again from them must be the very text: any other script is not this one.
fn select_target(script: &str) -> Option<FlowStep> {
    let script = script.trim();
    if !script.starts_with("(() => { const s = document.evaluate(\"") {
        return None;
    }
    let mut literals = Vec::new();
    let mut rest = script;
    while let Some(at) = rest.find('"') {
        let mut read = serde_json::Deserializer::from_str(&rest[at..]).into_iter::<String>();
        literals.push(read.next()?.ok()?);
        rest = &rest[at + read.byte_offset()..];
        if literals.len() > 3 {
            return None;
        }
    }
    let [xpath, by, option] = <[String; 3]>::try_from(literals).ok()?;
    let write = select_script;
    let value = if write(&xpath, &option, Some(&by)) == script {
        Some(by)
    } else if by == option.trim() && write(&xpath, &option, None) == script {
        None
    } else {
        return None;
    };
    Some(FlowStep::Select { xpath, option, value })
}

/// The address of a script written by [`navigate_script`] (a recorded navigation), and nothing else.
fn navigate_target(script: &str) -> Option<String> {
    let literal = script
        .trim()
        .strip_prefix("location.href")?
        .trim_start()
        .strip_prefix('=')?
        .trim()
        .trim_end_matches(';')
        .trim_end();
    let url: String = serde_json::from_str(literal).ok()?;
    crate::action::is_web_address(&url).then_some(url)
}
