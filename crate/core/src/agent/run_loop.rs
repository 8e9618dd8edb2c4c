//! The run loop: observe → prompt → model → parse → act → observe again, recording each step.

use super::record::{ModelRole, Run, RunStatus, Step, StepKind, StepStatus, TargetInfo};
use super::replay::cache::{CacheEntry, CachedAction, CachedRound, ElementKey};
use super::steps::{caption, conclude, describe_action, frame_address, join_notes};
use crate::action::{commands_for, find_element, ActionError};
use crate::describe::Extraction;
use crate::model::{ModelClient, ModelConfig};
use crate::parse::{parse_reply, Described};
use crate::prompt::{check_messages, plan_messages, planner_messages, Briefing, Memory, Outcome, Turn};
use crate::vision::ModelImage;
use crate::vocab::actions::{Go, PlannedAction};

use super::browser::ask_person;
use super::browser::{Browser, ClockHost, Observation, Reach, StoreHost};
use super::choice::{listed_option, option_index};
use super::context::Context;
use super::error::RunError;
use super::options::{prompt_page, RunOptions};
use super::replay::cache;
use super::{ask, change, check, dialogs, record};
pub async fn run_instruction<B: Browser, M: ModelClient>(
    id: String,
    instruction: &str,
    options: &RunOptions,
    config: &ModelConfig,
    browser: &mut B,
    model: &M,
) -> Run {
    let mut browser = options.guard(browser);
    let mut run = Run::new(id, instruction, browser.now_ms());
    run.language = options.language;
    browser.report(&run);
    let outcome = carry_out(&mut Context::new(&mut run, options, config, &mut browser, model), instruction).await;
    conclude(run, outcome, &mut browser)
}

/// Carries out an instruction on `run`, which may already hold steps (a flow's), and keeps
/// its plan for replay when it is worth keeping.
pub(crate) async fn carry_out<B: Browser, M: ModelClient>(
    ctx: &mut Context<'_, B, M, ()>,
    instruction: &str,
) -> Result<RunStatus, RunError> {
    let mut rounds = Rounds::default();
    let outcome = drive(ctx, instruction, &mut rounds).await;
    let (options, browser) = (ctx.options, &mut *ctx.browser);
    // A plan worth replaying: it succeeded, and the model (or a healed target) changed it.
    if options.writes_cache()
        && outcome == Ok(RunStatus::Succeeded)
        && rounds.storable
        && rounds.changed
        && !rounds.kept.is_empty()
    {
        browser.remember(&CacheEntry::Plan {
            page: cache::page_key(&rounds.page),
            prompt: cache::prompt_key(instruction),
            rounds: rounds.kept,
            updated_ms: browser.now_ms(),
        });
    }
    outcome
}

#[allow(clippy::large_enum_variant)] // one per round
enum PlanRound {
    Planned {
        plan: crate::parse::Plan,
        /// The elements a planning model described, for the acting model to find.
        described: Vec<Described>,
        content: String,
        seen: Option<String>,
        step: Step,
    },
    /// The reply could not be read; its step is recorded as failed.
    Unreadable {
        error: crate::parse::ParseError,
        content: String,
        seen: Option<String>,
    },
    Stopped,
}

/// The screenshot of one observation as the model gets it, and its reference in the record.
struct Shown {
    image: Option<ModelImage>,
    /// Why there is no image, when one was wanted.
    note: Option<String>,
    reference: Option<String>,
}

/// The rounds of a run as the cache keeps them.
struct Rounds {
    kept: Vec<CachedRound>,
    /// False once a round did something a replay could not repeat faithfully (asked the
    /// person, clicked a point on no element).
    storable: bool,
    /// The model planned at least one round, or a cached target had moved.
    changed: bool,
    /// The page the instruction began on (its cache key).
    page: String,
}

impl Default for Rounds {
    fn default() -> Self {
        Rounds { kept: Vec::new(), storable: true, changed: false, page: String::new() }
    }
}

/// A cached round aimed at the page as it is now, or `None` when any target is gone.
fn replay_round(round: &CachedRound, page: &Extraction) -> Option<(Vec<PlannedAction>, bool)> {
    let mut moved_any = false;
    let actions = round
        .actions
        .iter()
        .map(|c| match &c.target {
            None => Some(c.action.clone()),
            Some(key) => {
                let (e, moved) = key.resolve(page)?;
                moved_any |= moved;
                match &c.action {
                    PlannedAction::TapAt { button, clicks, .. } => {
                        let (x, y) = crate::action::element_point(e, page)?;
                        Some(PlannedAction::TapAt { x, y, button: *button, clicks: *clicks })
                    }
                    PlannedAction::HoverAt { .. } => {
                        crate::action::element_point(e, page).map(|(x, y)| PlannedAction::HoverAt { x, y })
                    }
                    other => Some(retarget(other, e.index)),
                }
            }
        })
        .collect::<Option<Vec<_>>>()?;
    Some((actions, moved_any))
}

async fn drive<B: Browser, M: ModelClient>(
    ctx: &mut Context<'_, B, M, ()>,
    instruction: &str,
    rounds: &mut Rounds,
) -> Result<RunStatus, RunError> {
    if instruction.trim().is_empty() {
        return Err(RunError::EmptyInstruction);
    }
    let observation = ctx.browser.observe(&Reach::InView).await?;
    rounds.page = observation.extraction.url.clone();
    if ctx.run.url.is_empty() {
        ctx.run.url = rounds.page.clone();
    }
    let options = ctx.options;
    let cached: Vec<CachedRound> = if options.reads_cache() {
        options.cache.plan(&rounds.page, instruction).map(<[_]>::to_vec).unwrap_or_default()
    } else {
        Vec::new()
    };
    // A replay repeats every cached round (a person's recording is one round per step, often
    // more than a model's limit), and the model may still add one after them.
    let max_rounds = options.max_rounds.max(cached.len() as u32 + 1);
    let mut ctx = ctx.for_work(Planning {
        instruction,
        rounds,
        memory: Memory { keep_screenshots: options.keep_screenshots.max(1), history_tokens: options.history_tokens },
        observation,
        shown: Shown { image: None, note: None, reference: None },
        history: Vec::new(),
        failures: 0,
        last_round: None,
        repeats: 0,
        replaying: !cached.is_empty(),
        cached,
    });
    ctx.show();
    for round in 0..max_rounds {
        if let Some(status) = ctx.round(round).await? {
            return Ok(status);
        }
    }
    Err(RunError::StepLimit { max_rounds })
}

/// The round context: the run's [`Context`] with what the rounds of one instruction keep.
type RoundContext<'a, 'p, B, M> = Context<'a, B, M, Planning<'p>>;

/// The round context's own part: what the rounds of one instruction share besides the run,
/// its settings, the page and the model ([`Context`]): what the rounds so far left (the
/// model's history, failures in a row, the cache's record).
struct Planning<'a> {
    instruction: &'a str,
    rounds: &'a mut Rounds,
    memory: Memory,
    /// The page as last read, and its screenshot as the model gets it.
    observation: Observation,
    shown: Shown,
    history: Vec<Turn>,
    /// Unreadable replies or failed actions in a row.
    failures: u32,
    /// Loop detection: the same actions again on an unchanged page.
    last_round: Option<String>,
    repeats: u32,
    /// Replaying a cached plan while every target still resolves; the model takes over at the first miss.
    cached: Vec<CachedRound>,
    replaying: bool,
}

/// What one round's actions did.
#[derive(Default)]
struct Acts {
    /// What ran, as a replay repeats it.
    kept: Vec<CachedAction>,
    /// What ran, in words, for the model.
    done: Vec<String>,
    /// The action that failed (the rest of the plan did not run), with what the model is told.
    failed: Option<(RunError, Outcome)>,
    /// What the host saw happen (navigations, dialogs), for the model.
    happened: Outcome,
    /// The actions left unrun because the page changed under the plan.
    left_unrun: Vec<String>,
    /// An action of this plan sent the page input: the boxes the plan was aimed at may have moved.
    sent_input: bool,
    /// The page the plan's element numbers name, kept once it was read again in view for a
    /// later action (`reaim`): numbers are not stable across readings.
    planned_on: Option<crate::describe::Extraction>,
    /// That reading has no capture: an action grounded on the screenshot reads it again first.
    unshot: bool,
    /// The action about to run was just found by the acting model on the page as it is now:
    /// its number is the current reading's, not the plan's page's (`reaim` leaves it be).
    grounded_now: bool,
}

/// How an action reaches the page.
enum Way {
    /// Trusted input: clicks, keys, wheel.
    Input(Vec<crate::action::InputCommand>),
    /// A click that opens a file chooser, answered with these paths.
    Files(Vec<crate::action::InputCommand>, Vec<String>),
    /// The browser's own move: an address, the history, a tab.
    Go(Go),
    /// An option of a native select or a custom list box, by its text.
    Choose {
        element: crate::describe::Element,
        option: String,
    },
    /// Wheel steps at a point until nothing moves any more.
    Edge {
        at: (f64, f64),
        direction: crate::vocab::actions::ScrollDirection,
    },
    /// Scroll until the element is in view.
    Reveal(crate::describe::Element),
    Wait(u32),
    WaitFor {
        text: String,
        gone: bool,
        timeout_ms: u32,
    },
    /// Nothing reaches the page: the element (as it was found) is read until the check holds.
    Check {
        element: crate::describe::Element,
        check: crate::vocab::actions::ElementCheck,
        expected: String,
    },
    /// Nothing reaches the page: a note or data the model keeps in the run's memory.
    Remember {
        note: String,
        data: Option<serde_json::Value>,
    },
}

/// Why carrying an action out stopped short.
enum Short {
    /// A dialog nobody answered, a stop, or the page side failing.
    Interrupted(dialogs::Interrupted),
    /// The action could not be done (no such option, a wait that timed out); the model is told.
    Failed(RunError),
}

impl From<dialogs::Interrupted> for Short {
    fn from(e: dialogs::Interrupted) -> Self {
        Short::Interrupted(e)
    }
}

impl From<crate::agent::PageError> for Short {
    fn from(e: crate::agent::PageError) -> Self {
        Short::Interrupted(dialogs::Interrupted::Page(e))
    }
}

/// Scrolling to an edge stops after this many wheel steps even on an endless page.
const MAX_EDGE_STEPS: u32 = 25;
/// How often a `WaitFor` reads the page again.
const WAIT_FOR_POLL_MS: u32 = 500;
/// How long a recorded check waits for its element to read as expected, as Playwright's
/// `expect` does by default: the page may still be updating after the step before.
const CHECK_TIMEOUT_MS: f64 = 5_000.0;

/// How `action` reaches the page as it was read (`page`); errors as `commands_for` gives them.
fn way_for(action: &PlannedAction, page: &Extraction) -> Result<Way, ActionError> {
    let visible = |target: u32| -> Result<crate::describe::Element, ActionError> {
        let e = find_element(target, page)?;
        crate::action::element_point(e, page).ok_or_else(|| ActionError::OutOfView { target, summary: e.summary() })?;
        Ok(e.clone())
    };
    if let Some(to) = action.go() {
        return Ok(Way::Go(to));
    }
    Ok(match action {
        PlannedAction::Select { target, option, .. } => {
            Way::Choose { element: visible(*target)?, option: option.clone() }
        }
        PlannedAction::SelectAt { x, y, option } => {
            let e = crate::describe::element_at(&page.elements, (*x, *y), crate::describe::Aim::Actionable)
                .ok_or(ActionError::NothingAt { x: *x, y: *y })?;
            Way::Choose { element: e.clone(), option: option.clone() }
        }
        PlannedAction::Upload { target, files } => {
            Way::Files(commands_for(&PlannedAction::Tap { target: *target }, page)?, files.clone())
        }
        PlannedAction::ScrollToEdge { target, direction } => {
            let vp = &page.viewport;
            let at = match target {
                Some(t) => crate::action::element_point(&visible(*t)?, page).unwrap_or_default(),
                None => (vp.width / 2.0, vp.height / 2.0),
            };
            Way::Edge { at, direction: *direction }
        }
        PlannedAction::ScrollTo { target } => Way::Reveal(find_element(*target, page)?.clone()),
        PlannedAction::Wait { ms } => Way::Wait(*ms),
        PlannedAction::WaitFor { text, gone, timeout_ms } => {
            Way::WaitFor { text: text.clone(), gone: *gone, timeout_ms: *timeout_ms }
        }
        PlannedAction::Remember { note, data } => Way::Remember { note: note.clone(), data: data.clone() },
        PlannedAction::Expect { target, check, expected } => {
            Way::Check { element: find_element(*target, page)?.clone(), check: *check, expected: expected.clone() }
        }
        other => Way::Input(commands_for(other, page)?),
    })
}

/// The model's "done" for a round: whether it said so, how many actions came with it, and
/// whether the plan was replayed from the cache.
struct Done {
    claimed: bool,
    actions: usize,
    replayed: bool,
    /// What the model answers the person with, if it said.
    answer: Option<String>,
}

/// An action made ready to run.
struct Aimed {
    commands: Result<Way, ActionError>,
    /// The action as it runs: aimed at the element's number as the page was read last.
    executed: PlannedAction,
    note: Option<String>,
}

/// A later action of a plan, aimed again at the page as it is now (`reaim`).
enum Reaim {
    /// As planned: the element kept its number.
    Same,
    /// At the element's number in the page's new reading.
    At(PlannedAction),
    /// Element `.0` of the plan's page is gone, or no longer shown: the plan stops.
    Gone(u32),
}

/// After one action: go on with the plan, stop it, or end the run.
enum Next {
    Go,
    StopPlan,
    End(Result<RunStatus, RunError>),
}

impl<B: Browser, M: ModelClient> RoundContext<'_, '_, B, M> {
    /// One round: a plan (cached or the model's), its actions, a fresh look at the page.
    /// `Some` ends the run with that status.
    async fn round(&mut self, round: u32) -> Result<Option<RunStatus>, RunError> {
        if self.browser.stop_requested() {
            return Ok(Some(RunStatus::Stopped));
        }
        let (mut plan, described, content, seen, mut plan_step) = match self.next_plan(round).await? {
            PlanRound::Stopped => return Ok(Some(RunStatus::Stopped)),
            PlanRound::Planned { plan, described, content, seen, step } => (plan, described, content, seen, step),
            PlanRound::Unreadable { error, content, seen } => {
                self.work.failures += 1;
                if self.work.failures > self.options.max_failures {
                    return Err(RunError::Replies { times: self.work.failures, last: error });
                }
                self.work.history.push(Turn {
                    actions: vec!["(no action)".into()],
                    outcome: Outcome::ours(format!(
                        "your reply was rejected ({error}); answer in the format described"
                    )),
                    reply: content,
                    screenshot: seen,
                });
                return Ok(None);
            }
        };
        self.one_action_per_turn(&mut plan, &mut plan_step);
        let replayed = plan_step.cached;
        plan_step.thought = plan.thought.clone();
        plan_step.action = self.run.language.say(
            if plan.done { "step.plan_actions_done" } else { "step.plan_actions" },
            &[("count", &plan.actions.len())],
        );
        self.run.steps.push(plan_step);
        self.browser.report(self.run);
        if plan.actions.is_empty() {
            return match plan.error {
                Some(reason) => Err(RunError::ModelCannot { reason }),
                None => {
                    self.work.rounds.kept.push(CachedRound { actions: Vec::new(), done: true });
                    self.keep_answer(plan.answer.take());
                    // The page as it is now, not as the model last saw it: it may still have been loading.
                    if !replayed && self.options.check_success {
                        self.work.observation = self.browser.observe(&Reach::InView).await?;
                        self.show();
                    }
                    self.check_done(replayed).await.map(Some)
                }
            };
        }
        let labels: Vec<String> =
            plan.actions.iter().enumerate().map(|(at, a)| planned_label(at, a, &described)).collect();
        let mut acts = Acts::default();
        for (at, action) in plan.actions.iter().enumerate() {
            // Elements the planning model described: found by the acting model first, on a
            // screenshot of the page as it is now.
            acts.grounded_now = described.iter().any(|d| d.action == at);
            if acts.unshot && acts.grounded_now {
                self.work.observation = self.browser.observe(&Reach::InView).await?;
                acts.unshot = false;
            }
            let grounded;
            let action = match acts.grounded_now {
                false => action,
                true => match self.ground(at, action, &described, &labels[at]).await {
                    Ok(Ok(a)) => {
                        grounded = a;
                        &grounded
                    }
                    Ok(Err(failed)) => {
                        acts.failed = Some(failed);
                        break;
                    }
                    // Stopped while the acting model was locating: the run ends as stopped.
                    Err(_) if self.browser.stop_requested() => return Ok(Some(RunStatus::Stopped)),
                    Err(e) => return Err(e),
                },
            };
            match self.act(at, action, &labels, &mut acts).await? {
                Next::Go => {}
                Next::StopPlan => break,
                Next::End(end) => return end.map(Some),
            }
        }
        // A plan cut short is not done, whatever it said; a cached one hands over to the model.
        let plan_done = plan.done && acts.left_unrun.is_empty();
        if !acts.left_unrun.is_empty() && replayed {
            self.work.replaying = false;
            self.work.rounds.changed = true;
        }
        // Notes kept and checks made are no change the page could show: done with only those
        // is a bare done (the page is judged as it is).
        let on_page = plan
            .actions
            .iter()
            .filter(|a| !matches!(a, PlannedAction::Remember { .. } | PlannedAction::Expect { .. }))
            .count();
        let done = Done { claimed: plan_done, actions: on_page, replayed, answer: plan.answer.take() };
        self.conclude_round(acts, done, content, seen).await
    }

    /// The round's plan: replayed from the cache while every target resolves, else the model's.
    async fn next_plan(&mut self, round: u32) -> Result<PlanRound, RunError> {
        let from_cache = if self.work.replaying { self.replay(round as usize).await? } else { None };
        let missed = self.work.replaying && from_cache.is_none() && self.work.cached.len() > round as usize;
        if missed && self.config.validate().is_err() {
            // No model to take over where the page changed: say which step lost its element,
            // rather than that no model is set up.
            return Err(self.replay_lost(round as usize));
        }
        self.work.replaying = from_cache.is_some();
        match from_cache {
            Some(((actions, moved), done)) => {
                self.work.rounds.changed |= moved;
                let step = Step {
                    note: Some(
                        self.run.language.say(if moved { "note.from_cache_moved" } else { "note.from_cache" }, &[]),
                    ),
                    cached: true,
                    screenshot: self.work.shown.reference.clone(),
                    ..Step::new(StepKind::Plan, self.browser.now_ms())
                };
                Ok(PlanRound::Planned {
                    plan: crate::parse::Plan { thought: String::new(), actions, done, error: None, answer: None },
                    described: Vec::new(),
                    content: String::new(),
                    seen: None,
                    step,
                })
            }
            None => {
                self.work.rounds.changed = true;
                self.plan_round().await
            }
        }
    }

    /// Cached round `round` aimed at the page: `((actions, moved), done)`, or `None` when a
    /// target is gone. In view, only a target found at its own XPath is certain (one unique by
    /// its text in view may have twins off screen): otherwise the page is read again for its
    /// targets wherever they are, and the round aimed at that.
    async fn replay(&mut self, round: usize) -> Result<Option<((Vec<PlannedAction>, bool), bool)>, RunError> {
        let Some(cached) = self.work.cached.get(round) else { return Ok(None) };
        let found = replay_round(cached, &self.work.observation.extraction);
        if self.work.observation.extraction.holds_whole_page() || found.as_ref().is_some_and(|(_, moved)| !moved) {
            return Ok(found.map(|a| (a, cached.done)));
        }
        let sought = cached.actions.iter().filter_map(|a| a.target.as_ref().map(ElementKey::sought)).collect();
        self.work.observation = self.browser.observe(&Reach::Seeking(sought)).await?;
        self.show();
        let cached = &self.work.cached[round];
        Ok(replay_round(cached, &self.work.observation.extraction).map(|a| (a, cached.done)))
    }

    /// Why cached round `round` cannot run: the first of its targets the page no longer has.
    fn replay_lost(&self, round: usize) -> RunError {
        let page = &self.work.observation.extraction;
        let keys =
            self.work.cached.get(round).into_iter().flat_map(|r| r.actions.iter().filter_map(|a| a.target.as_ref()));
        let mut keys = keys.peekable();
        let first = keys.peek().map(|key| key.summary.clone()).unwrap_or_default();
        let lost = keys.find(|key| key.resolve(page).is_none()).map_or(first, |key| key.summary.clone());
        RunError::ReplayLost { step: round + 1, element: lost }
    }

    /// The messages of a planning round under `memory`'s budget, the tabs' note after the page.
    fn round_messages(
        &self,
        instruction: &str,
        page: &Extraction,
        image: Option<&str>,
        memory: &Memory,
        briefing: &Briefing,
        tabs_note: &Option<String>,
    ) -> Vec<crate::model::ChatMessage> {
        let family = self.config.family;
        let history = &self.work.history;
        let mut messages = match self.planner().is_some() {
            // The planner reads the element list whatever the acting model's family; it may
            // name elements by number when the acting model reads numbers too.
            true => planner_messages(!family.grounds_on_image(), instruction, history, page, image, memory, briefing),
            false => plan_messages(family, instruction, history, page, image, memory, briefing),
        };
        if let (Some(note), Some(last)) = (tabs_note, messages.last_mut()) {
            let at = last.content.iter().position(|p| !matches!(p, crate::model::ContentPart::Text { .. }));
            last.content
                .insert(at.unwrap_or(last.content.len()), crate::model::ContentPart::Text { text: note.clone() });
        }
        messages
    }

    /// Asks the model for the next round's plan.
    async fn plan_round(&mut self) -> Result<PlanRound, RunError> {
        let (image, image_note) = (self.work.shown.image.as_ref(), self.work.shown.note.clone());
        let page = prompt_page(&self.work.observation.extraction, self.options, image.is_some());
        let instruction = match self.options.limits().prompt_note(&self.work.observation.extraction.url) {
            Some(note) => format!("{}\n\n{note}", self.work.instruction),
            None => self.work.instruction.to_string(),
        };
        let family = self.config.family;
        let briefing = self.briefing();
        let planner = self.planner().is_some();
        // The tabs (a run may switch between them) and a tab with no page yet, after the page.
        let tabs = self.browser.tabs().await.unwrap_or_default();
        let tabs_note = crate::prompt::browser_note(&tabs, self.work.observation.is_start_page());
        let image_url = image.map(|i| i.data_url.as_str());
        let messages = self.round_messages(&instruction, &page, image_url, &self.work.memory, &briefing, &tabs_note);
        // Grounding models look back at recent screens; the others never need them again.
        let seen = image.filter(|_| family.grounds_on_image() && !planner).map(|i| i.data_url.clone());
        let role = if planner { ModelRole::Planner } else { ModelRole::Actor };
        let asked = match self.ask_model_as(role, &messages, image_note.clone()).await {
            // Too long for the model's context: sent again once, shorter (older rounds and
            // screenshots left out, then half the element list), with a note on the step.
            Err(e) if e.model_error().is_some_and(crate::model::overflow::is_context_overflow) => {
                let memory = self.work.memory.trimmed();
                let history = &self.work.history;
                let rounds = crate::prompt::rounds_left_out(history, &memory)
                    - crate::prompt::rounds_left_out(history, &self.work.memory);
                let image_url = self.work.shown.image.as_ref().map(|i| i.data_url.as_str());
                let page = prompt_page(&self.work.observation.extraction, self.options, image_url.is_some());
                let mut shorter = self.round_messages(&instruction, &page, image_url, &memory, &briefing, &tabs_note);
                let images = |m: &[crate::model::ChatMessage]| {
                    m.iter()
                        .flat_map(|m| &m.content)
                        .filter(|p| !matches!(p, crate::model::ContentPart::Text { .. }))
                        .count()
                };
                let screenshots = images(&messages) - images(&shorter);
                let mut lines = String::new();
                if rounds == 0 && screenshots == 0 {
                    let (cut, kept) = crate::prompt::shortened(&page);
                    shorter = self.round_messages(&instruction, &cut, image_url, &memory, &briefing, &tabs_note);
                    lines = self
                        .run
                        .language
                        .say("note.context_lines", &[("kept", &kept), ("of", &page.description.lines().count())]);
                }
                let note = self.run.language.say(
                    "note.context_trimmed",
                    &[("rounds", &rounds), ("screenshots", &screenshots), ("lines", &lines)],
                );
                self.ask_model_as(role, &shorter, image_note).await?.map(|(content, mut step)| {
                    step.note = join_notes(step.note.take(), Some(note));
                    (content, step)
                })
            }
            other => other?,
        };
        let Some((content, mut step)) = asked else {
            return Ok(PlanRound::Stopped);
        };
        step.screenshot = self.work.shown.reference.clone();
        self.keep_memo(&content, &mut step);
        // A start page has no screenshot: a grounding model's reply still reads (opening an
        // address needs no point; a point on nothing fails as outside the view).
        let nothing_shown = crate::vision::ImageMapping::identity(0, 0, 1.0);
        let start_page = self.work.observation.is_start_page();
        let mapping = self.work.shown.image.as_ref().map(|i| &i.mapping).or(start_page.then_some(&nothing_shown));
        let parsed = match planner {
            true => crate::parse::parse_described_plan(&content).map(|p| (p.plan, p.described)),
            false => parse_reply(family, &content, mapping).map(|plan| (plan, Vec::new())),
        };
        match parsed {
            Ok((mut plan, described)) => {
                plan.thought = crate::parse::memo::without_memo(&plan.thought);
                Ok(PlanRound::Planned { plan, described, content, seen, step })
            }
            Err(error) => {
                step.status = StepStatus::Failed;
                step.error = Some(RunError::Reply(error.clone()).message(self.run.language));
                self.run.steps.push(step);
                self.browser.report(self.run);
                Ok(PlanRound::Unreadable { error, content, seen })
            }
        }
    }

    /// What the model carries beside the rounds: its memo and gathered data, and the person's
    /// knowledge of this site and context for the run.
    fn briefing(&self) -> Briefing {
        let memory = &self.run.memory;
        Briefing {
            notes: memory.notes.clone(),
            next_goal: memory.next_goal.clone(),
            gathered: memory
                .gathered
                .iter()
                .map(|g| {
                    let data = g.data.as_ref().map(|d| d.to_string()).unwrap_or_default();
                    let sep = if g.note.is_empty() || data.is_empty() { "" } else { " " };
                    format!("{}: {}{sep}{data}", g.url, g.note)
                })
                .collect(),
            knowledge: self.options.knowledge_for(&self.work.observation.extraction.url),
            context: self.options.context.clone(),
        }
    }

    /// The model's answer when it is done is the run's result (what the panel shows and the
    /// report carries); a task's own result (a query's data) is not replaced.
    fn keep_answer(&mut self, answer: Option<String>) {
        if let Some(answer) = answer.filter(|_| self.run.task.is_none()) {
            self.run.result = Some(serde_json::Value::String(answer));
        }
    }

    /// The notes and next goal the reply wrote (any family's way): kept on its step, and as
    /// the run's memory that the next round is briefed with. A reply without them keeps the
    /// earlier notes.
    fn keep_memo(&mut self, reply: &str, step: &mut Step) {
        let protocol = match self.planner() {
            Some(_) => crate::vocab::family::Protocol::JsonPlan,
            None => self.config.family.protocol(),
        };
        let memo = crate::parse::memo::read_memo(protocol, reply);
        if let Some(notes) = &memo.notes {
            self.run.memory.notes = notes.clone();
        }
        if let Some(goal) = &memo.next_goal {
            self.run.memory.next_goal = goal.clone();
        }
        step.notes = memo.notes;
        step.next_goal = memo.next_goal;
    }

    /// The model said done: one short call checks the instruction's goal on the page as last
    /// read, and decides succeeded or done but not confirmed. A replayed plan was confirmed
    /// when it was kept (only succeeded runs are), and runs with no model, so it is not asked.
    async fn check_done(&mut self, replayed: bool) -> Result<RunStatus, RunError> {
        if replayed || !self.options.check_success {
            return Ok(RunStatus::Succeeded);
        }
        let answer = match &self.run.result {
            Some(serde_json::Value::String(s)) => Some(s.clone()),
            Some(other) => Some(other.to_string()),
            None => None,
        };
        // Models that only look get the screenshot too; the rest read the element list.
        let family = self.config.family;
        let image =
            self.work.shown.image.as_ref().filter(|_| family.grounds_on_image() || !self.options.include_description);
        let messages = check_messages(
            self.work.instruction,
            answer.as_deref(),
            &self.work.observation.extraction,
            image.map(|i| i.data_url.as_str()),
        );
        let started = self.browser.now_ms();
        let lang = self.run.language;
        let caption =
            |confirmed: bool| lang.say(if confirmed { "step.check_shown" } else { "step.check_unconfirmed" }, &[]);
        // With a planning model, the planner judges: it reads the page, the grounder only points.
        let role = if self.planner().is_some() { ModelRole::Planner } else { ModelRole::Actor };
        let verdict = match self.ask_model_as(role, &messages, None).await {
            Ok(None) => return Ok(RunStatus::Stopped),
            Ok(Some((reply, mut step))) => {
                let verdict = check::read_verdict(&reply);
                step.action = caption(verdict.confirmed);
                step.thought = verdict.reason.clone();
                step.screenshot = self.work.shown.reference.clone();
                self.run.steps.push(step);
                verdict
            }
            Err(error) => {
                let verdict = check::unchecked(&error.message(lang));
                self.run.steps.push(Step {
                    status: StepStatus::Failed,
                    action: caption(false),
                    error: Some(verdict.reason.clone()),
                    duration_ms: self.browser.now_ms() - started,
                    ..Step::new(StepKind::Plan, started)
                });
                verdict
            }
        };
        let status = check::status_of(&verdict);
        self.run.check = Some(verdict);
        self.browser.report(self.run);
        Ok(status)
    }

    /// Vision agents act one step per turn and look again: a second action in the same reply
    /// was aimed at a screen that the first one may change.
    fn one_action_per_turn(&self, plan: &mut crate::parse::Plan, plan_step: &mut Step) {
        // A planning model's plan is grounded action by action on the page as it is then.
        if self.config.family.grounds_on_image()
            && self.planner().is_none()
            && !plan_step.cached
            && plan.actions.len() > 1
        {
            let more = plan.actions.len() - 1;
            plan.actions.truncate(1);
            plan.done = false;
            plan_step.note = join_notes(
                plan_step.note.take(),
                Some(self.run.language.say("note.one_action_per_turn", &[("more", &more)])),
            );
        }
    }

    /// The screenshot of the page as last read, as the model gets it, kept with the run.
    fn show(&mut self) {
        let (image, note) = self.model_image(&self.work.observation);
        let reference = image.as_ref().map(|i| self.keep_image(i));
        self.work.shown = Shown { image, note, reference };
    }

    /// Runs the plan's action number `at` and records its step.
    /// `labels`: the plan's actions as the model reads them in the history.
    async fn act(
        &mut self,
        at: usize,
        action: &PlannedAction,
        labels: &[String],
        acts: &mut Acts,
    ) -> Result<Next, RunError> {
        if self.browser.stop_requested() {
            return Ok(Next::End(Ok(RunStatus::Stopped)));
        }
        let started = self.browser.now_ms();
        if let PlannedAction::AskUser { question } = action {
            return self.ask_user(action, question, acts).await;
        }
        // The model reads the run's history in English; the person reads the caption.
        let label = labels[at].clone();
        let caption = caption(action, self.run.language);
        // A later action aims at where its element is now: an earlier one may have moved it.
        let reaimed;
        let action = match self.reaim(at, action, acts).await? {
            Reaim::Same => action,
            Reaim::At(a) => {
                reaimed = a;
                &reaimed
            }
            Reaim::Gone(target) => {
                acts.left_unrun = labels[at..].to_vec();
                let count = acts.left_unrun.len();
                let note = self.run.language.say("note.target_gone", &[("target", &target), ("count", &count)]);
                if let Some(last) = self.run.steps.last_mut().filter(|s| s.kind == StepKind::Action) {
                    last.note = join_notes(last.note.take(), Some(note));
                }
                self.browser.report(self.run);
                return Ok(Next::StopPlan);
            }
        };
        let mut target_element =
            action_target(action).and_then(|t| find_element(t, &self.work.observation.extraction).ok()).cloned();
        // The page's dialogs during this action, and how they were answered.
        let mut answered = dialogs::Answered::default();
        // A grounding model's point snaps to the control under it, when there is one: the
        // click lands on its visible middle and the record names the element (XPath and all).
        let snapped = snap_to_control(action, &self.work.observation.extraction);
        if let Some((_, e)) = &snapped {
            target_element = Some(e.clone());
        }
        let mut target = target_element.as_ref().map(TargetInfo::of);
        if let (Some(t), Some(e)) = (target.as_mut(), &target_element) {
            // Read before the action: it may change or remove the element.
            t.read_in_page(self.browser.locator_data(e).await);
        }
        let action = snapped.as_ref().map_or(action, |(a, _)| a);
        let Aimed { commands, mut executed, mut note } = self.aim(action, &mut answered).await?;
        // A drag runs, and is recorded, as the points it goes between.
        if let PlannedAction::Drag { from, to } = &executed {
            let page = &self.work.observation.extraction;
            let point = |n: u32| find_element(n, page).ok().and_then(|e| crate::action::element_point(e, page));
            if let (Some(from), Some(to)) = (point(*from), point(*to)) {
                executed = PlannedAction::DragAt { from, to };
            }
        }
        let mut page_changed = false;
        let mut settled_note = None;
        // An unanswered dialog or a stop ends the run once the step is recorded.
        let mut ends = None;
        let result: Result<(), (RunError, Outcome)> = match commands {
            Ok(way) => {
                let sends =
                    !matches!(way, Way::Wait(_) | Way::WaitFor { .. } | Way::Check { .. } | Way::Remember { .. });
                if let (PlannedAction::Input { value, .. } | PlannedAction::Append { value, .. }, Some(e)) =
                    (&executed, &target_element)
                {
                    self.options.limits().check_target(value, frame_address(e, &self.work.observation.extraction))?;
                }
                match self.carry(way, &mut executed, &mut answered).await {
                    Ok(settled) => {
                        acts.sent_input |= sends;
                        settled_note = settled.note();
                        page_changed = settled.page_changed();
                        acts.happened = std::mem::take(&mut acts.happened)
                            .and(std::mem::take(&mut answered.told))
                            .and(settled.outcome());
                        Ok(())
                    }
                    Err(Short::Interrupted(dialogs::Interrupted::Page(e))) => return Err(e.into()),
                    Err(Short::Failed(error)) => {
                        // A recorded check that fails fails the run, as a script's assertion
                        // does: no model is asked to make the page read otherwise.
                        if matches!(error, RunError::CheckFailed { .. }) {
                            ends = Some(Err(error.clone()));
                        }
                        let told = Outcome::ours(format!("{label} failed: {error}"));
                        Err((error, told))
                    }
                    Err(Short::Interrupted(e)) => {
                        let stopped = matches!(e, dialogs::Interrupted::Stopped);
                        let error = RunError::from(e);
                        ends = Some(if stopped { Ok(RunStatus::Stopped) } else { Err(error.clone()) });
                        Err((error, Outcome::default()))
                    }
                }
            }
            Err(e) => {
                let told =
                    Outcome::quoting(&format!("{label} failed: {e}"), &e.page_text().into_iter().collect::<Vec<_>>());
                Err((e.into(), told))
            }
        };
        note = join_notes(join_notes(note, answered.note()), settled_note);
        if answered.asked.iter().any(|a| a.by == ask::AnsweredBy::Person) {
            self.work.rounds.storable = false; // the person may answer otherwise next time
        }
        // The rest of the plan was aimed at a page that is gone: it is dropped, and the
        // page is read again before anything else runs.
        if page_changed {
            acts.left_unrun = labels[at + 1..].to_vec();
            if !acts.left_unrun.is_empty() {
                note = join_notes(
                    note,
                    Some(self.run.language.say("note.left_unrun", &[("count", &acts.left_unrun.len())])),
                );
            }
        }
        self.run.steps.push(Step {
            status: if result.is_ok() { StepStatus::Ok } else { StepStatus::Failed },
            action: caption.clone(),
            target,
            error: result.as_ref().err().map(|(error, _)| error.message(self.run.language)),
            duration_ms: self.browser.now_ms() - started,
            note,
            planned: result.is_ok().then(|| executed.clone()),
            asked: std::mem::take(&mut answered.asked),
            ..Step::new(StepKind::Action, started)
        });
        self.browser.report(self.run);
        if let Some(end) = ends {
            return Ok(Next::End(end));
        }
        if result.is_ok() {
            if matches!(
                action,
                PlannedAction::TapAt { .. }
                    | PlannedAction::HoverAt { .. }
                    | PlannedAction::DragAt { .. }
                    | PlannedAction::ScrollAt { .. }
            ) && target_element.is_none()
            {
                self.work.rounds.storable = false; // a bare point: nothing to verify on replay
            }
            acts.kept.push(CachedAction { action: executed, target: target_element.as_ref().map(ElementKey::of) });
        }
        match result {
            Ok(()) => acts.done.push(label),
            Err((error, told)) => {
                acts.failed = Some((RunError::ActionFailed { action: caption, error: Box::new(error) }, told));
                return Ok(Next::StopPlan); // the rest of the plan assumed this action worked
            }
        }
        Ok(if page_changed { Next::StopPlan } else { Next::Go })
    }

    /// Before action `at` of a plan, once an earlier one sent the page input: the page read
    /// again in view, without a screenshot (an unchanged page is answered from the reader's
    /// kept reading), and the action's element found there by its id, else its XPath. The
    /// first action, and one after no input, aim at the page as the plan saw it.
    async fn reaim(&mut self, at: usize, action: &PlannedAction, acts: &mut Acts) -> Result<Reaim, RunError> {
        let Some(n) = action_target(action) else { return Ok(Reaim::Same) };
        // Just found on the page as it is now (`ground`): its number is that reading's already.
        if at == 0 || !acts.sent_input || acts.grounded_now {
            return Ok(Reaim::Same);
        }
        // A drag is aimed where it runs (`act`) from both its elements' numbers, the plan's:
        // once the view was read again they would be looked up in another numbering, so the
        // plan stops there and the model plans again.
        if matches!(action, PlannedAction::Drag { .. }) {
            return Ok(if acts.planned_on.is_some() { Reaim::Gone(n) } else { Reaim::Same });
        }
        let planned = acts.planned_on.as_ref().unwrap_or(&self.work.observation.extraction);
        // A number the plan's page does not hold fails as before, when it is aimed; once the view
        // was read again, that number may name another element there, so the plan stops.
        let Ok(element) = find_element(n, planned).cloned() else {
            return Ok(if acts.planned_on.is_some() { Reaim::Gone(n) } else { Reaim::Same });
        };
        let was_shown = crate::action::element_point(&element, planned).is_some();
        let fresh = self.browser.observe(&Reach::Aiming).await?;
        let before = std::mem::replace(&mut self.work.observation, fresh);
        acts.planned_on.get_or_insert(before.extraction);
        acts.unshot = self.work.observation.capture.is_none();
        let page = &self.work.observation.extraction;
        let again = page
            .elements
            .iter()
            .find(|e| e.id == element.id)
            .or_else(|| page.elements.iter().find(|e| !element.xpath.is_empty() && e.xpath == element.xpath));
        // Shown then, it must still be (out of view then, it is scrolled to as before); covered
        // now, it is left out of what the model reads.
        let usable = |e: &&crate::describe::Element| {
            (!was_shown || crate::action::element_point(e, page).is_some()) && (element.occluded || !e.occluded)
        };
        Ok(match again.filter(usable) {
            Some(e) if e.index == n => Reaim::Same,
            Some(e) => Reaim::At(retarget(action, e.index)),
            None => Reaim::Gone(n),
        })
    }

    /// Carries out one action the way it reaches the page, answering the page's dialogs
    /// meanwhile; returns what the page did. `executed` learns what a choice chose.
    async fn carry(
        &mut self,
        way: Way,
        executed: &mut PlannedAction,
        answered: &mut dialogs::Answered,
    ) -> Result<crate::agent::Settled, Short> {
        use dialogs::Delivery;
        let policy = self.options.dialog_policy();
        match way {
            Way::Input(cmds) => {
                Ok(dialogs::act(self.run, self.browser, Delivery::Input(&cmds), policy, answered).await?)
            }
            Way::Files(click, files) => {
                self.clear_upload(&files).await.map_err(Short::Failed)?;
                Ok(dialogs::act(self.run, self.browser, Delivery::Files(&click, &files), policy, answered).await?)
            }
            // A move the browser refuses (an address off the allowed sites, a tab that is gone)
            // fails the step, and the model hears why.
            Way::Go(to) => match dialogs::act(self.run, self.browser, Delivery::Go(&to), policy, answered).await {
                Err(dialogs::Interrupted::Page(e)) => Err(Short::Failed(e.into())),
                other => Ok(other?),
            },
            Way::Choose { element, option } if element.tag == "select" => {
                let index = option_index(&element.options, &option).ok_or_else(|| {
                    Short::Failed(RunError::NoSuchOption {
                        element: element.index,
                        option: option.clone(),
                        options: crate::describe::options_text(&element.options),
                    })
                })?;
                let mut chosen = None;
                let settled = dialogs::act(
                    self.run,
                    self.browser,
                    Delivery::Choose(&element, index, &mut chosen),
                    policy,
                    answered,
                )
                .await?;
                if let (Some(c), PlannedAction::Select { option: o, value, .. }) = (chosen, executed) {
                    *o = c.text;
                    *value = Some(c.value);
                }
                Ok(settled)
            }
            Way::Choose { element, option } => {
                // A custom list box: opened with a tap, then its option tapped on the page it shows.
                let page = &self.work.observation.extraction;
                let open = commands_for(&PlannedAction::Tap { target: element.index }, page)
                    .map_err(|e| Short::Failed(e.into()))?;
                let first = dialogs::act(self.run, self.browser, Delivery::Input(&open), policy, answered).await?;
                self.work.observation = self.browser.observe(&Reach::InView).await?;
                let page = &self.work.observation.extraction;
                let Some(item) = listed_option(page, &element, &option) else {
                    return Err(Short::Failed(RunError::OptionNotShown { element: element.index, option }));
                };
                let tap = commands_for(&PlannedAction::Tap { target: item.index }, page)
                    .map_err(|e| Short::Failed(e.into()))?;
                let then = dialogs::act(self.run, self.browser, Delivery::Input(&tap), policy, answered).await?;
                Ok(dialogs::then(first, then))
            }
            Way::Edge { at, direction } => {
                let mut settled = crate::agent::Settled::default();
                let vp = self.work.observation.extraction.viewport.clone();
                let step = PlannedAction::ScrollAt {
                    x: at.0,
                    y: at.1,
                    direction,
                    distance: Some(vp.height.max(vp.width) * 4.0),
                };
                for _ in 0..MAX_EDGE_STEPS {
                    let cmds =
                        commands_for(&step, &self.work.observation.extraction).map_err(|e| Short::Failed(e.into()))?;
                    let now = dialogs::act(self.run, self.browser, Delivery::Input(&cmds), policy, answered).await?;
                    settled = dialogs::then(settled, now);
                    let before = &self.work.observation.extraction;
                    let before = (before.viewport.scroll_x, before.viewport.scroll_y, before.description.clone());
                    self.work.observation = self.browser.observe(&Reach::InView).await?;
                    let after = &self.work.observation.extraction;
                    if (after.viewport.scroll_x, after.viewport.scroll_y, &after.description)
                        == (before.0, before.1, &before.2)
                        || settled.page_changed()
                    {
                        break;
                    }
                }
                Ok(settled)
            }
            Way::Reveal(element) => {
                self.browser.reveal(&element).await?;
                Ok(dialogs::settle(self.run, self.browser, policy, answered).await?)
            }
            Way::Wait(ms) => {
                self.browser.wait(ms).await;
                Ok(dialogs::settle(self.run, self.browser, policy, answered).await?)
            }
            Way::WaitFor { text, gone, timeout_ms } => {
                let started = self.browser.now_ms();
                let wanted = text.trim().to_lowercase();
                loop {
                    let page = &self.work.observation.extraction;
                    let shows = page.title.to_lowercase().contains(&wanted)
                        || page.elements.iter().any(|e| e.content.to_lowercase().contains(&wanted));
                    if shows != gone {
                        return Ok(crate::agent::Settled::default());
                    }
                    let waited = self.browser.now_ms() - started;
                    if waited >= timeout_ms as f64 || self.browser.stop_requested() {
                        let (waited_ms, text) = (waited, text.clone());
                        return Err(Short::Failed(if gone {
                            RunError::TextStillShown { waited_ms, text }
                        } else {
                            RunError::TextNotShown { waited_ms, text }
                        }));
                    }
                    self.browser.wait(WAIT_FOR_POLL_MS).await;
                    self.work.observation = self.browser.observe(&Reach::InView).await?;
                }
            }
            Way::Check { element, check, expected } => {
                let started = self.browser.now_ms();
                loop {
                    // The element again as the page reads now, by its path.
                    let page = &self.work.observation.extraction;
                    let now = page.elements.iter().find(|e| e.xpath == element.xpath);
                    let seen = now.map_or(String::new(), |e| e.content.clone());
                    if now.is_some() && check.holds(&seen, &expected, crate::describe::content_is_cut(&seen)) {
                        return Ok(crate::agent::Settled::default());
                    }
                    // Stopped while waiting: the run is stopped, not failed.
                    if self.browser.stop_requested() {
                        return Err(Short::Interrupted(dialogs::Interrupted::Stopped));
                    }
                    let waited_ms = self.browser.now_ms() - started;
                    if waited_ms >= CHECK_TIMEOUT_MS {
                        let seen = crate::vocab::actions::normalized(&seen);
                        return Err(Short::Failed(RunError::CheckFailed { check, expected, seen, waited_ms }));
                    }
                    self.browser.wait(WAIT_FOR_POLL_MS).await;
                    self.work.observation = self.browser.observe(&Reach::InView).await?;
                }
            }
            Way::Remember { note, data } => {
                // Gathered across steps and pages: every later round is briefed with it.
                let url = self.work.observation.extraction.url.clone();
                self.run.memory.gathered.push(record::Gathered { url, note, data });
                Ok(crate::agent::Settled::default())
            }
        }
    }

    /// Files the model planned to upload: those the person named in their own instruction go
    /// at once; any other path needs their Allow (or the upload folder), as a file's do.
    async fn clear_upload(&mut self, files: &[String]) -> Result<(), RunError> {
        let named = |f: &String| self.options.typed_uploads && self.work.instruction.contains(f.as_str());
        if files.iter().all(named) {
            return Ok(());
        }
        let options = RunOptions { typed_uploads: false, ..self.options.clone() };
        super::uploads::clear(self.run, self.browser, files, &options).await
    }

    /// The input commands for `action`, and the action as it runs. A target out of view
    /// (scrolled away, or clipped) is scrolled into view first, and the page read again.
    async fn aim(&mut self, action: &PlannedAction, answered: &mut dialogs::Answered) -> Result<Aimed, RunError> {
        let mut commands = way_for(action, &self.work.observation.extraction);
        let mut executed = action.clone();
        let mut note = None;
        if let (Err(ActionError::OutOfView { target: number, .. }), Ok(element)) = (
            &commands,
            action_target(action)
                .map_or(Err(()), |t| find_element(t, &self.work.observation.extraction).cloned().map_err(|_| ())),
        ) {
            let number = *number;
            self.browser.reveal(&element).await?;
            dialogs::settle(self.run, self.browser, self.options.dialog_policy(), answered).await?; // read again just below
            self.work.observation = self.browser.observe(&Reach::InView).await?;
            let again = self.work.observation.extraction.elements.iter().find(|e| e.id == element.id).map(|e| e.index);
            commands = match again {
                Some(n) => {
                    executed = retarget(action, n);
                    way_for(&executed, &self.work.observation.extraction)
                }
                None => Err(ActionError::UnknownTarget {
                    target: number,
                    count: self.work.observation.extraction.elements.len(),
                }),
            };
            note = Some(self.run.language.say("note.scrolled_into_view", &[]));
        }
        Ok(Aimed { commands, executed, note })
    }

    /// A planned action whose elements the planning model described, aimed at where the run's
    /// own model finds them (the locate of a single task: `tasks.rs`, `find`), in CSS pixels.
    /// `Ok(Err(..))`: an element could not be found; the action failed and the planner is told.
    async fn ground(
        &mut self,
        at: usize,
        action: &PlannedAction,
        described: &[Described],
        label: &str,
    ) -> Result<Result<PlannedAction, (RunError, Outcome)>, RunError> {
        let mut found = Vec::new();
        for d in described.iter().filter(|d| d.action == at) {
            let locate = self.run.language.say("step.locate", &[("what", &d.what)]);
            match self.find(&d.what, self.work.observation.clone(), &locate).await {
                Ok((spot, obs)) => {
                    // A reading in view (a target scrolled to) is the page now; a whole-page
                    // reading (what an element-reading model is shown) only served the search.
                    if obs.extraction.in_view_only {
                        self.work.observation = obs;
                    }
                    let page = &self.work.observation.extraction;
                    let number =
                        spot.element.and_then(|e| page.elements.iter().find(|x| x.id == e.id)).map(|e| e.index);
                    found.push(Aim { placeholder: d.placeholder, point: spot.point, element: number });
                }
                Err(e @ (RunError::ActorModel { .. } | RunError::Model(_) | RunError::Page(_))) => return Err(e),
                Err(e) => {
                    let told = Outcome::ours(format!("{label} failed: \"{}\" was not found: {e}", d.what));
                    return Ok(Err((RunError::ActionFailed { action: label.to_string(), error: Box::new(e) }, told)));
                }
            }
        }
        Ok(aim_described(action, &found, &self.work.observation.extraction).ok_or_else(|| {
            let what = described.iter().filter(|d| d.action == at).map(|d| d.what.as_str()).collect::<Vec<_>>();
            let error = RunError::PointedAtNothing { what: what.join(", ") };
            let told = Outcome::ours(format!("{label} failed: {error}"));
            (RunError::ActionFailed { action: label.to_string(), error: Box::new(error) }, told)
        }))
    }

    /// Only the person can continue: the panel shows the question and the run waits for
    /// their answer, which the model gets in the next round.
    async fn ask_user(&mut self, action: &PlannedAction, question: &str, acts: &mut Acts) -> Result<Next, RunError> {
        let caption = caption(action, self.run.language);
        let q = if question.trim().is_empty() { plan_thought_or(&self.run.steps) } else { question.to_string() };
        let started = self.browser.now_ms();
        self.work.rounds.storable = false; // the answer may differ next time
        let asked = ask::Question::Text { text: q.clone() };
        let answer = match ask_person(self.run, self.browser, asked.clone()).await? {
            Some(ask::Answer::Text { text }) if !text.trim().is_empty() => text,
            _ => {
                return Ok(Next::End(if self.browser.stop_requested() {
                    Ok(RunStatus::Stopped)
                } else {
                    Err(RunError::NeedsInput { question: q })
                }))
            }
        };
        self.run.steps.push(Step {
            action: caption,
            duration_ms: self.browser.now_ms() - started,
            note: Some(self.run.language.say("note.you_answered", &[("answer", &answer)])),
            asked: vec![ask::Asked {
                question: asked,
                answer: ask::Answer::Text { text: answer.clone() },
                by: ask::AnsweredBy::Person,
            }],
            ..Step::new(StepKind::Action, started)
        });
        self.browser.report(self.run);
        acts.done.push(format!("asked the person \"{q}\"; they answered \"{answer}\""));
        Ok(Next::Go)
    }

    /// After acting, the page is read again (the next round plans from what it really shows
    /// now) and the round is told to the model, kept for the cache, or ends the run.
    async fn conclude_round(
        &mut self,
        mut acts: Acts,
        done: Done,
        content: String,
        seen: Option<String>,
    ) -> Result<Option<RunStatus>, RunError> {
        // Against the page the plan saw, also when a later action read it again to aim.
        let before = match acts.planned_on.take() {
            Some(planned) => planned.description,
            None => std::mem::take(&mut self.work.observation.extraction.description),
        };
        self.work.observation = self.browser.observe(&Reach::InView).await?;
        self.show();
        if let Some(last) = self.run.steps.last_mut().filter(|s| s.kind == StepKind::Action) {
            last.screenshot = self.work.shown.reference.clone();
        }
        let change = change::describe_change(&before, &self.work.observation.extraction.description);
        let changed = change.is_some();
        let mut outcome = std::mem::take(&mut acts.happened);
        if !acts.left_unrun.is_empty() {
            outcome = outcome.and(Outcome::ours(format!(
                "the page changed, so the rest of your plan did not run ({}): plan it again on the page as it is now",
                acts.left_unrun.join("; ")
            )));
        }
        outcome = outcome.and(change.unwrap_or_else(|| Outcome::ours("nothing on the page changed")));
        // The person sees it too: a round that changed nothing is no silent success.
        if !changed && acts.failed.is_none() {
            // A check changes nothing by design: no note on it.
            let acted = |s: &&mut Step| {
                s.kind == StepKind::Action
                    && s.planned.as_ref().is_some_and(|p| !matches!(p, PlannedAction::Expect { .. }))
            };
            if let Some(last) = self.run.steps.last_mut().filter(acted) {
                last.note = join_notes(last.note.take(), Some(self.run.language.say("note.nothing_changed", &[])));
                self.browser.report(self.run);
            }
        }
        if let Some((fail, told)) = &acts.failed {
            // What did run before the failure changed the page: a replay repeats it too.
            if !acts.kept.is_empty() {
                self.work.rounds.kept.push(CachedRound { actions: std::mem::take(&mut acts.kept), done: false });
            }
            self.work.failures += 1;
            if self.work.failures > self.options.max_failures {
                return Err(fail.clone());
            }
            outcome = told.clone().and(outcome);
        } else {
            self.work.failures = 0;
            // "Done" with actions that changed nothing is no success: the model is told and plans again.
            let refused = done.claimed && check::DoneClaim::of(done.actions, changed) == check::DoneClaim::Unchanged;
            self.work
                .rounds
                .kept
                .push(CachedRound { actions: std::mem::take(&mut acts.kept), done: done.claimed && !refused });
            if refused {
                outcome = outcome.and(Outcome::ours(check::DONE_REFUSED));
                if let Some(last) = self.run.steps.last_mut().filter(|s| s.kind == StepKind::Action) {
                    last.note = join_notes(last.note.take(), Some(self.run.language.say("note.done_refused", &[])));
                }
                self.browser.report(self.run);
            } else if done.claimed {
                self.keep_answer(done.answer);
                return self.check_done(done.replayed).await.map(Some);
            }
        }
        // The same actions on a page they did not change: say so once, then stop.
        let round = acts.done.join("; ");
        if !changed
            && acts.failed.is_none()
            && !round.is_empty()
            && self.work.last_round.as_deref() == Some(round.as_str())
        {
            self.work.repeats += 1;
            if self.work.repeats >= 2 {
                return Err(RunError::Loop { round });
            }
            outcome.add("; you did exactly this last round too, with no effect: try something different");
        } else {
            self.work.repeats = 0;
        }
        self.work.last_round = Some(round);
        self.work.history.push(Turn { actions: acts.done, outcome, reply: content, screenshot: seen });
        Ok(None)
    }
}

/// Where the acting model found an element the planner described.
struct Aim {
    placeholder: u32,
    point: (f64, f64),
    /// Its number on the page as last read, when the point is on an element there.
    element: Option<u32>,
}

/// A planned action with its described elements (placeholders) replaced by what was found:
/// clicks, hovers, choices, scrolls and drags at the points found; typing, uploads and the
/// other element actions on the element found there. `None`: an element action whose point
/// is on no element.
fn aim_described(action: &PlannedAction, found: &[Aim], page: &Extraction) -> Option<PlannedAction> {
    use crate::vocab::actions::MouseButton;
    use PlannedAction as P;
    let aim = |n: u32| found.iter().find(|a| a.placeholder == n);
    // A number the planner gave stays: the point is that element's.
    let point = |n: u32| match aim(n) {
        Some(a) => Some(a.point),
        None => find_element(n, page).ok().and_then(|e| crate::action::element_point(e, page)),
    };
    let element = |n: u32| match aim(n) {
        Some(a) => a.element,
        None => Some(n),
    };
    let tap = |n: u32, button, clicks| point(n).map(|(x, y)| P::TapAt { x, y, button, clicks });
    match action {
        P::Tap { target } => tap(*target, MouseButton::Left, 1),
        P::DoubleClick { target } => tap(*target, MouseButton::Left, 2),
        P::RightClick { target } => tap(*target, MouseButton::Right, 1),
        P::Hover { target } => point(*target).map(|(x, y)| P::HoverAt { x, y }),
        P::Select { target, option, .. } => point(*target).map(|(x, y)| P::SelectAt { x, y, option: option.clone() }),
        P::Scroll { target: Some(t), direction, distance } => {
            point(*t).map(|(x, y)| P::ScrollAt { x, y, direction: *direction, distance: *distance })
        }
        P::Drag { from, to } => Some(P::DragAt { from: point(*from)?, to: point(*to)? }),
        P::ScrollToEdge { target: Some(t), direction } => {
            Some(P::ScrollToEdge { target: Some(element(*t)?), direction: *direction })
        }
        other => other.target().and_then(element).map(|n| other.retargeted(n)),
    }
}

/// A planned action as the model reads it in the history: an element the planner described
/// is named by its description.
fn planned_label(at: usize, action: &PlannedAction, described: &[Described]) -> String {
    described.iter().filter(|d| d.action == at).fold(describe_action(action), |label, d| {
        label.replace(&format!("[{}]", d.placeholder), &format!("\u{201c}{}\u{201d}", d.what))
    })
}

/// A point action moved to the middle of the control (button, field, link, image) under it.
fn snap_to_control(action: &PlannedAction, page: &Extraction) -> Option<(PlannedAction, crate::describe::Element)> {
    use crate::describe::ElementKind;
    let (x, y) = match action {
        PlannedAction::TapAt { x, y, .. } | PlannedAction::HoverAt { x, y } => (*x, *y),
        _ => return None,
    };
    let e = crate::describe::element_at(&page.elements, (x, y), crate::describe::Aim::Actionable).filter(|e| {
        matches!(e.kind, ElementKind::Button | ElementKind::FormItem | ElementKind::Anchor | ElementKind::Img)
    })?;
    let (cx, cy) = crate::action::element_point(e, page)?;
    let moved = match action {
        PlannedAction::TapAt { button, clicks, .. } => {
            PlannedAction::TapAt { x: cx, y: cy, button: *button, clicks: *clicks }
        }
        _ => PlannedAction::HoverAt { x: cx, y: cy },
    };
    Some((moved, e.clone()))
}

/// The same action aimed at element `n` (its number after the page was read again).
fn retarget(action: &PlannedAction, n: u32) -> PlannedAction {
    action.retargeted(n)
}

fn action_target(action: &PlannedAction) -> Option<u32> {
    action.target()
}

/// The latest plan step's thought, for a question the model left empty.
fn plan_thought_or(steps: &[record::Step]) -> String {
    steps
        .iter()
        .rev()
        .find(|s| s.kind == StepKind::Plan)
        .map(|s| s.thought.clone())
        .filter(|t| !t.is_empty())
        .unwrap_or_else(|| "(no question given)".into())
}
