//! What the person can do about a failure, by its stable code: one table for every code the
//! core and its glue give, so a new code is decided here (a test holds every code of
//! `RunError` to it) instead of falling through to a default in the panel. The panel shows the
//! advice after the error's message.

use crate::i18n::Lang;

/// What the failure ended: the run's instruction, a flow file's step, or a saved run file
/// being loaded (which decides the advice for some codes).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum Where {
    #[default]
    Instruction,
    FlowFile,
    SavedRunFile,
}

/// Codes with advice of their own (`advice.<code>`).
pub const ADVISED: &[&str] = &[
    "model_auth",
    "model_http",
    "model_unreachable",
    "model_timeout",
    "step_limit",
    "loop",
    "page_restricted",
    "page_debugger",
    "run_interrupted",
    "module_load",
    "flow_invalid",
    "replay_element_lost",
    "check_failed",
];

/// Codes whose message says what to change already: no advice after it.
pub const SELF_EXPLAINED: &[&str] = &[
    "model_settings",
    "model_key_elsewhere",
    "site_not_allowed",
    "tab_not_allowed",
    "history_not_allowed",
    "only_tab",
    "run_not_agents",
    "secret_unknown",
    "secret_wrong_site",
    "secret_no_sites",
    "secret_frame_outside",
    "secret_no_focus",
    "secret_wrong_field",
    "secret_focus_unknown",
    "not_a_web_address",
    "upload_needs_allow",
    "upload_outside_folder",
    "script_not_allowed",
    "task_invalid",
    "worker_no_answer",
    "session_stopped",
    "call_cancelled",
];

/// Codes advised on through their cause (`planner_model_failed` → the cause's advice, about
/// the planning model's settings where the cause is one of these).
const PLANNER_ADVISED: &[&str] = &["model_auth", "model_http", "model_unreachable"];

/// The advice for a failure of `code` (with `cause`, the code of the failure it wraps), in
/// `lang`; `None` where the message says it all. Every other code: change what was asked (the
/// instruction, or the flow file's step) and run again.
pub fn advice(code: &str, cause: Option<&str>, on: Where, lang: Lang) -> Option<String> {
    if let Some(cause) = cause {
        if code == "planner_model_failed" && PLANNER_ADVISED.contains(&cause) {
            return Some(lang.say(&format!("advice.planner_{cause}"), &[]));
        }
    }
    let what = cause.unwrap_or(code);
    if SELF_EXPLAINED.contains(&what) {
        return None;
    }
    if ADVISED.contains(&what) {
        return Some(lang.say(&format!("advice.{what}"), &[]));
    }
    Some(match (what, on) {
        ("trajectory_invalid", Where::SavedRunFile) => lang.say("advice.trajectory_invalid", &[]),
        (_, Where::FlowFile) => lang.say("advice.edit_flow", &[]),
        _ => lang.say("advice.edit", &[]),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn advice_is_by_code_its_cause_and_what_failed() {
        let en = |code, cause, on| advice(code, cause, on, Lang::En);
        assert_eq!(en("model_auth", None, Where::Instruction).as_deref(), Some("check the API key in Settings."));
        assert_eq!(
            en("planner_model_failed", Some("model_auth"), Where::Instruction).as_deref(),
            Some("check the planning model's API key in Settings (Planning model).")
        );
        assert_eq!(
            en("actor_model_failed", Some("model_timeout"), Where::Instruction),
            en("model_timeout", None, Where::Instruction)
        );
        assert_eq!(en("site_not_allowed", None, Where::Instruction), None);
        assert_eq!(
            en("not_found", None, Where::Instruction).as_deref(),
            Some("you can edit the instruction and run again.")
        );
        assert_eq!(
            en("not_found", None, Where::FlowFile).as_deref(),
            Some("you can edit that step in the flow file and run it again.")
        );
        assert!(en("trajectory_invalid", None, Where::SavedRunFile).unwrap().contains("Save run"));
        assert_eq!(en("trajectory_invalid", None, Where::Instruction), en("bad_input", None, Where::Instruction));
        assert!(advice("loop", None, Where::Instruction, Lang::ZhCn).unwrap().contains("准确"));
    }
}
