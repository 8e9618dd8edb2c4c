//! A run as a trajectory: its record plus the screenshots it refers to, saved and loaded as
//! one JSON file, and replayed by turning its steps back into cache entries — the replay then
//! runs like any cached run (targets verified, the model asked only where one has gone).

use super::cache::{page_key, prompt_key, Cache, CacheEntry, CachedAction, CachedRound};
use crate::agent::browser::Browser;
use crate::agent::record::{Exchange, Run, RunStatus, StepKind, StepStatus};
use crate::model::{ChatMessage, ContentPart};
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, HashMap};
use std::hash::{DefaultHasher, Hash, Hasher};

/// What an image reference looks like inside a recorded request.
pub const IMAGE_SCHEME: &str = "sightline-image:";

/// The screenshots of one run, each handed to the host once and then named by its reference.
#[derive(Default)]
pub struct Album {
    refs: HashMap<u64, String>,
}

impl Album {
    /// The reference of this image, handing it to the host the first time it is seen.
    pub fn keep<B: Browser>(&mut self, browser: &mut B, data_url: &str) -> String {
        let mut h = DefaultHasher::new();
        data_url.hash(&mut h);
        self.refs.entry(h.finish()).or_insert_with(|| browser.keep_image(data_url)).clone()
    }

    /// The call as recorded: every inline image replaced by its reference.
    pub fn exchange<B: Browser>(&mut self, browser: &mut B, messages: &[ChatMessage], reply: &str) -> Exchange {
        let request = messages
            .iter()
            .map(|m| {
                m.with_image_urls(|url| {
                    url.starts_with("data:").then(|| format!("{IMAGE_SCHEME}{}", self.keep(browser, url)))
                })
            })
            .collect();
        Exchange { request, reply: reply.to_string() }
    }
}

#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum TrajectoryError {
    #[error("not a Sightline trajectory: {0}")]
    NotATrajectory(String),
    #[error("this trajectory is format {found}; this version of Sightline reads format {FORMAT}")]
    Format { found: u32 },
    #[error("nothing to replay: {0}")]
    NothingToReplay(String),
    /// The run's page is no web address: a replay would open it first.
    #[error("this run's page cannot be opened: {0}")]
    Page(crate::agent::guard::GuardError),
}

impl From<TrajectoryError> for crate::agent::RunError {
    fn from(e: TrajectoryError) -> Self {
        crate::agent::RunError::Trajectory(e.to_string())
    }
}

/// The format of saved trajectories; bumped when a reader of the old one would misread the new.
pub const FORMAT: u32 = 1;

/// A saved run: the record and its screenshots (reference → data URL), self-contained.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Trajectory {
    pub format: u32,
    pub run: Run,
    #[serde(default)]
    pub images: BTreeMap<String, String>,
}

impl Trajectory {
    /// Reads a saved trajectory (JSON text), saying what is wrong with one that cannot be used.
    pub fn from_json(text: &str) -> Result<Self, TrajectoryError> {
        let unreadable = |e: serde_json::Error| TrajectoryError::NotATrajectory(e.to_string());
        // Parsed once, and the run read from the `Value` as every run is (`boundary::run_from_json`).
        let file: serde_json::Value = serde_json::from_str(text).map_err(unreadable)?;
        let format = file
            .get("format")
            .and_then(|f| f.as_u64())
            .ok_or_else(|| TrajectoryError::NotATrajectory("it has no \"format\" number".into()))?;
        if format != FORMAT as u64 {
            return Err(TrajectoryError::Format { found: format.min(u32::MAX as u64) as u32 });
        }
        let t: Trajectory = crate::vocab::objects::from_value(file).map_err(unreadable)?;
        if let Some(bad) = t.images.iter().find(|(_, url)| !url.starts_with("data:image/")) {
            return Err(TrajectoryError::NotATrajectory(format!("image {} is not a data:image URL", bad.0)));
        }
        // A replay goes to the run's page first: a file may not point it at a local file or a script.
        if !t.run.url.is_empty() {
            crate::agent::guard::Limits::default().check_open(&t.run.url).map_err(TrajectoryError::Page)?;
        }
        Ok(t)
    }

    /// Renames every image to `{prefix}{n}`, in the steps and the image table alike, so a
    /// loaded trajectory's images live under its own run (and go when it goes).
    pub fn rekey(&mut self, prefix: &str) {
        let renamed: HashMap<String, String> =
            self.images.keys().enumerate().map(|(n, old)| (old.clone(), format!("{prefix}{n}"))).collect();
        let rename = |r: &str| renamed.get(r).cloned();
        for step in &mut self.run.steps {
            if let Some(shot) = &step.screenshot {
                step.screenshot = rename(shot);
            }
            for m in step.exchange.iter_mut().flat_map(|x| &mut x.request) {
                for part in &mut m.content {
                    if let ContentPart::ImageUrl { image_url } = part {
                        if let Some(new) = image_url.url.strip_prefix(IMAGE_SCHEME).and_then(rename) {
                            image_url.url = format!("{IMAGE_SCHEME}{new}");
                        }
                    }
                }
            }
        }
        // Inserted one by one: collecting sorts the entries first, a sort compiled for them alone.
        for (old, url) in std::mem::take(&mut self.images) {
            if let Some(new) = renamed.get(&old) {
                self.images.insert(new.clone(), url);
            }
        }
    }

    /// Every image reference the run's steps use.
    pub fn references(run: &Run) -> Vec<String> {
        let mut refs: Vec<String> = Vec::new();
        for step in &run.steps {
            refs.extend(step.screenshot.iter().cloned());
            for m in step.exchange.iter().flat_map(|x| &x.request) {
                for part in &m.content {
                    if let ContentPart::ImageUrl { image_url } = part {
                        if let Some(r) = image_url.url.strip_prefix(IMAGE_SCHEME) {
                            refs.push(r.to_string());
                        }
                    }
                }
            }
        }
        crate::order::sort_by(&mut refs, |a, b| a.cmp(b));
        refs.dedup();
        refs
    }
}

/// The cache entries that replay `run`: its plan rounds for an instruction, its located
/// elements for a task. Rounds whose actions failed are left out, as the run itself dropped
/// them; a run that never got anything done has nothing to replay.
pub fn replay_cache(run: &Run, now_ms: f64) -> Result<Cache, TrajectoryError> {
    if let Some(flow) = &run.flow {
        // A flow run: what each item found; items with nothing to repeat add nothing.
        let entries: Vec<CacheEntry> = flow
            .items
            .iter()
            .filter(|item| {
                !matches!(
                    flow.step_of(item),
                    Some(
                        crate::flow::FlowStep::Sleep { .. }
                            | crate::flow::FlowStep::Navigate { .. }
                            | crate::flow::FlowStep::History { .. }
                    ) | None
                )
            })
            .filter_map(|item| replay_cache(&flow.item_run(run, item), now_ms).ok())
            .flat_map(|c| c.0)
            .collect();
        return Ok(Cache(entries));
    }
    let page = page_key(&run.url);
    if run.task.is_some() {
        let entries: Vec<CacheEntry> = run
            .steps
            .iter()
            .filter(|s| s.kind == StepKind::Plan && s.status == StepStatus::Ok)
            .filter_map(|s| {
                Some(CacheEntry::Locate {
                    page: page.clone(),
                    prompt: prompt_key(s.locate.as_deref()?),
                    element: s.target.as_ref()?.key(),
                    updated_ms: now_ms,
                })
            })
            .collect();
        return Ok(Cache(entries));
    }
    let mut rounds: Vec<CachedRound> = Vec::new();
    let mut complete = run.status == RunStatus::Succeeded;
    // A person's recorded steps have no model rounds: each step is its own round, so the
    // replay looks at the page again before each (a menu opens, a page loads).
    let recorded = !run.steps.iter().any(|s| s.kind == StepKind::Plan);
    for step in &run.steps {
        match (step.kind, step.status, &step.planned) {
            // An unreadable reply planned nothing; the next readable one starts the next round.
            (StepKind::Plan, StepStatus::Ok, _) => rounds.push(CachedRound { actions: Vec::new(), done: false }),
            (StepKind::Plan, StepStatus::Failed, _) => {}
            (StepKind::Action, StepStatus::Ok, Some(action)) => {
                if recorded {
                    rounds.push(CachedRound { actions: Vec::new(), done: false });
                }
                if let Some(round) = rounds.last_mut() {
                    round
                        .actions
                        .push(CachedAction { action: action.clone(), target: step.target.as_ref().map(|t| t.key()) });
                }
            }
            // A failed action changed nothing to repeat; the model's next round recovered from it.
            (StepKind::Action, StepStatus::Failed, _) => {}
            // The person answered a question: only they can again, so the replay hands over
            // to the model (which may ask again) from here.
            (StepKind::Action, StepStatus::Ok, None) => {
                complete = false;
                break;
            }
        }
    }
    // Rounds that did nothing (every action failed) are not worth a replay round.
    rounds.retain(|r| !r.actions.is_empty());
    match rounds.last_mut() {
        Some(last) if complete => last.done = true,
        // The model saw the task already done: one empty round, done.
        None if complete => rounds.push(CachedRound { actions: Vec::new(), done: true }),
        _ => {}
    }
    if rounds.is_empty() {
        return Err(TrajectoryError::NothingToReplay(format!(
            "\u{201c}{}\u{201d} has no completed step to repeat",
            run.instruction
        )));
    }
    Ok(Cache(vec![CacheEntry::Plan { page, prompt: prompt_key(&run.instruction), rounds, updated_ms: now_ms }]))
}
