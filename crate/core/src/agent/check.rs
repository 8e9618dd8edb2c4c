//! Whether a run that the model called done really succeeded: the rules that decide it, and
//! the reading of the checker's one-line verdict. The call itself is made by the run loop.

use super::record::{RunStatus, SuccessCheck};

/// How the model's "done" stands before any check: what the round's actions did to the page.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DoneClaim {
    /// Done with no actions this round: nothing to compare, the page is checked.
    Bare,
    /// Done together with actions that changed the page: the page is checked.
    Changed,
    /// Done together with actions that changed nothing: not accepted; the model is told.
    Unchanged,
}

impl DoneClaim {
    pub fn of(actions: usize, page_changed: bool) -> Self {
        match (actions, page_changed) {
            (0, _) => DoneClaim::Bare,
            (_, true) => DoneClaim::Changed,
            (_, false) => DoneClaim::Unchanged,
        }
    }
}

/// What the model is told when its "done" came with actions that changed nothing.
pub const DONE_REFUSED: &str = "you said the instruction was done, but your actions changed nothing on the page, so it is not done: look at the page again and act, or say done with no actions if the goal was already reached before";

/// The run's status from the checker's verdict; `None` (no verdict: the call failed, or the
/// reply could not be read) leaves the run done but not confirmed.
pub fn status_of(check: &SuccessCheck) -> RunStatus {
    if check.confirmed {
        RunStatus::Succeeded
    } else {
        RunStatus::Unconfirmed
    }
}

/// Reads the checker's reply: `yes: reason` or `no: reason` on its first line that says
/// either (thinking blocks and fences skipped; `true`/`false` and a JSON verdict accepted).
/// Anything else is no confirmation, with the reply quoted as the reason.
pub fn read_verdict(reply: &str) -> SuccessCheck {
    let text = crate::parse::strip_thinking(reply);
    for line in text.lines() {
        let line = line.trim().trim_matches(|c: char| c == '`' || c == '*' || c == '"' || c == '\'').trim();
        let lower = line.to_ascii_lowercase();
        let word_end = lower.find(|c: char| !c.is_ascii_alphabetic()).unwrap_or(lower.len());
        let confirmed = match &lower[..word_end] {
            "yes" | "true" => true,
            "no" | "false" => false,
            _ => continue,
        };
        let reason = line[word_end..]
            .trim_start_matches(|c: char| c == ':' || c == ',' || c == '.' || c == '-' || c.is_whitespace());
        return SuccessCheck { confirmed, reason: reason.trim().to_string() };
    }
    if let Ok(json) = crate::parse::extract_json_object(&text) {
        if let Ok(v) = serde_json::from_str::<serde_json::Value>(&json) {
            let verdict = ["pass", "done", "confirmed", "yes"].iter().find_map(|k| v.get(*k).and_then(|b| b.as_bool()));
            if let Some(confirmed) = verdict {
                let reason =
                    ["reason", "thought"].iter().find_map(|k| v.get(*k).and_then(|r| r.as_str())).unwrap_or("");
                return SuccessCheck { confirmed, reason: reason.to_string() };
            }
        }
    }
    let quoted: String = text.trim().chars().take(160).collect();
    SuccessCheck { confirmed: false, reason: format!("the check's reply said neither yes nor no: \"{quoted}\"") }
}

/// No verdict could be had: the run is done but not confirmed, and why.
pub fn unchecked(why: &str) -> SuccessCheck {
    SuccessCheck { confirmed: false, reason: format!("the result could not be checked: {why}") }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn yes_and_no_in_the_forms_models_write_them() {
        assert_eq!(
            read_verdict("yes: the cart shows 1 item"),
            SuccessCheck { confirmed: true, reason: "the cart shows 1 item".into() }
        );
        assert_eq!(
            read_verdict("<think>hmm</think>\nNo - the order page is not shown").reason,
            "the order page is not shown"
        );
        assert!(!read_verdict("**No**: empty cart").confirmed);
        assert!(read_verdict("```\nYES. done\n```").confirmed);
        assert!(read_verdict(r#"{"pass": true, "reason": "shown"}"#).confirmed);
        // "Yesterday" is not yes; a reply with no verdict confirms nothing.
        let odd = read_verdict("Yesterday the page said so");
        assert!(!odd.confirmed && odd.reason.contains("neither yes nor no"), "{odd:?}");
        assert!(!read_verdict("").confirmed);
    }

    #[test]
    fn done_with_actions_that_changed_nothing_is_refused() {
        assert_eq!(DoneClaim::of(2, false), DoneClaim::Unchanged);
        assert_eq!(DoneClaim::of(1, true), DoneClaim::Changed);
        assert_eq!(DoneClaim::of(0, false), DoneClaim::Bare);
        assert_eq!(status_of(&unchecked("the model answered 500")), RunStatus::Unconfirmed);
        assert_eq!(status_of(&read_verdict("yes: ok")), RunStatus::Succeeded);
    }
}
