//! A flow's `javascript` steps and the person's consent to them. The code is the file's: in the
//! panel it runs only after the person has seen it and allowed this file, remembered by the
//! flow's hash (SHA-256 of what it runs, the code as filled in), so a changed file asks
//! again. The headless runner and the Playwright fixture run the person's own files on their
//! own machine and allow them; an agent's call never does.

use super::{Flow, FlowStep};
use serde::Serialize;
use sha2::{Digest, Sha256};

/// The hash a flow is known by: SHA-256 (hex) of everything of it that decides how it runs
/// (its address, settings and every step, each script's code as filled in), not of where its
/// file had comments or blank lines. Worked out again from the flow wherever an allowance is
/// judged, so a flow handed over with another's hash (a saved run's, edited) is judged by what
/// it would run.
pub fn flow_hash(flow: &Flow) -> String {
    let content = Flow { hash: String::new(), warnings: Vec::new(), ..flow.clone() };
    let json = serde_json::to_vec(&content).unwrap_or_default();
    Sha256::digest(&json).iter().map(|b| format!("{b:02x}")).collect()
}

/// What the panel shows before a flow with scripts runs, and whether it may run.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ScriptConsent {
    /// The flow's hash: what an allowance is kept under.
    pub hash: String,
    /// Every script of the flow, as it would run.
    pub scripts: Vec<ShownScript>,
    /// Nothing to ask: the flow has no scripts, or the person allowed this very file.
    pub allowed: bool,
}

/// One script as the person is shown it (as text, never as markup).
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ShownScript {
    /// The task's name and the step's place in it (1-based).
    pub task: String,
    pub step: usize,
    pub code: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
}

/// Whether `flow` may run its scripts, given the hashes the person allowed.
pub fn script_consent(flow: &Flow, allowed: &[String]) -> ScriptConsent {
    let scripts: Vec<ShownScript> = flow
        .scripts()
        .filter_map(|(t, n, step)| match step {
            FlowStep::Script { code, name } => Some(ShownScript {
                task: flow.tasks[t].name.clone(),
                step: n + 1,
                code: code.clone(),
                name: name.clone(),
            }),
            _ => None,
        })
        .collect();
    let hash = flow_hash(flow);
    let allowed = scripts.is_empty() || allowed.contains(&hash);
    ScriptConsent { hash, scripts, allowed }
}
