//! The run loop: observe → prompt → model → parse → act → observe again, recording each step.

use super::record::{Run, RunStatus, Step, StepKind, StepStatus, TargetInfo};
use super::replay::cache::{CacheEntry, CachedAction, CachedRound, ElementKey};
use crate::action::{commands_for, find_element, ActionError};
use crate::describe::Extraction;
use crate::model::{ModelClient, ModelConfig};
use crate::parse::parse_reply;
use crate::prompt::{plan_messages, Memory, Outcome, Turn};
use crate::vision::ModelImage;
use crate::vocab::actions::PlannedAction;

use super::browser::ask_person;
use super::browser::{Browser, Observation};
use super::context::Context;
use super::error::RunError;
use super::options::{prompt_page, RunOptions};
use super::replay::cache;
use super::{ask, change, dialogs, record};
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
    if options.use_cache
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

/// Ends a run with the outcome of its work and reports it one last time.
pub(crate) fn conclude<B: Browser>(mut run: Run, outcome: Result<RunStatus, RunError>, browser: &mut B) -> Run {
    run.status = match outcome {
        Ok(status) => status,
        Err(error) => {
            run.error = Some(error.record(run.language));
            RunStatus::Failed
        }
    };
    run.ended_ms = Some(browser.now_ms());
    browser.report(&run);
    run
}

async fn drive<B: Browser, M: ModelClient>(
    ctx: &mut Context<'_, B, M, ()>,
    instruction: &str,
    rounds: &mut Rounds,
) -> Result<RunStatus, RunError> {
    if instruction.trim().is_empty() {
        return Err(RunError::EmptyInstruction);
    }
    let observation = ctx.browser.observe().await?;
    rounds.page = observation.extraction.url.clone();
    if ctx.run.url.is_empty() {
        ctx.run.url = rounds.page.clone();
    }
    let options = ctx.options;
    let cached: Vec<CachedRound> = if options.use_cache {
        options.cache.plan(&rounds.page, instruction).map(<[_]>::to_vec).unwrap_or_default()
    } else {
        Vec::new()
    };
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
    for round in 0..options.max_rounds {
        if let Some(status) = ctx.round(round).await? {
            return Ok(status);
        }
    }
    Err(RunError::StepLimit { max_rounds: options.max_rounds })
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
}

/// An action made ready to run.
struct Aimed {
    commands: Result<Vec<crate::action::InputCommand>, ActionError>,
    /// The action as it runs: aimed at the element's number as the page was read last.
    executed: PlannedAction,
    note: Option<String>,
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
        let (mut plan, content, seen, mut plan_step) = match self.next_plan(round).await? {
            PlanRound::Stopped => return Ok(Some(RunStatus::Stopped)),
            PlanRound::Planned { plan, content, seen, step } => (plan, content, seen, step),
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
                    Ok(Some(RunStatus::Succeeded))
                }
            };
        }
        let mut acts = Acts::default();
        for (at, action) in plan.actions.iter().enumerate() {
            match self.act(at, action, &plan.actions, &mut acts).await? {
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
        self.conclude_round(acts, plan_done, content, seen).await
    }

    /// The round's plan: replayed from the cache while every target resolves, else the model's.
    async fn next_plan(&mut self, round: u32) -> Result<PlanRound, RunError> {
        let from_cache = if self.work.replaying {
            self.work
                .cached
                .get(round as usize)
                .and_then(|r| replay_round(r, &self.work.observation.extraction).map(|a| (a, r.done)))
        } else {
            None
        };
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
                    plan: crate::parse::Plan { thought: String::new(), actions, done, error: None },
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

    /// Asks the model for the next round's plan.
    async fn plan_round(&mut self) -> Result<PlanRound, RunError> {
        let (image, image_note) = (self.work.shown.image.as_ref(), self.work.shown.note.clone());
        let page = prompt_page(&self.work.observation.extraction, self.options, image.is_some());
        let instruction = match self.options.limits().prompt_note(&self.work.observation.extraction.url) {
            Some(note) => format!("{}\n\n{note}", self.work.instruction),
            None => self.work.instruction.to_string(),
        };
        let family = self.config.family;
        let messages = plan_messages(
            family,
            &instruction,
            &self.work.history,
            &page,
            image.map(|i| i.data_url.as_str()),
            &self.work.memory,
        );
        // Grounding models look back at recent screens; the others never need them again.
        let seen = image.filter(|_| family.grounds_on_image()).map(|i| i.data_url.clone());
        let Some((content, mut step)) = self.ask_model(&messages, image_note).await? else {
            return Ok(PlanRound::Stopped);
        };
        step.screenshot = self.work.shown.reference.clone();
        match parse_reply(family, &content, self.work.shown.image.as_ref().map(|i| &i.mapping)) {
            Ok(plan) => Ok(PlanRound::Planned { plan, content, seen, step }),
            Err(error) => {
                step.status = StepStatus::Failed;
                step.error = Some(RunError::Reply(error.clone()).message(self.run.language));
                self.run.steps.push(step);
                self.browser.report(self.run);
                Ok(PlanRound::Unreadable { error, content, seen })
            }
        }
    }

    /// Vision agents act one step per turn and look again: a second action in the same reply
    /// was aimed at a screen that the first one may change.
    fn one_action_per_turn(&self, plan: &mut crate::parse::Plan, plan_step: &mut Step) {
        if self.config.family.grounds_on_image() && !plan_step.cached && plan.actions.len() > 1 {
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
    async fn act(
        &mut self,
        at: usize,
        action: &PlannedAction,
        planned: &[PlannedAction],
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
        let label = describe_action(action);
        let caption = caption(action, self.run.language);
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
        let target = target_element.as_ref().map(TargetInfo::of);
        let action = snapped.as_ref().map_or(action, |(a, _)| a);
        let Aimed { commands, executed, mut note } = self.aim(action, &mut answered).await?;
        let mut page_changed = false;
        let mut settled_note = None;
        // An unanswered dialog or a stop ends the run once the step is recorded.
        let mut ends = None;
        let result: Result<(), (RunError, Outcome)> = match commands {
            Ok(cmds) => {
                if let (PlannedAction::Input { value, .. }, Some(e)) = (&executed, &target_element) {
                    self.options.limits().check_target(value, frame_address(e, &self.work.observation.extraction))?;
                }
                match dialogs::act(
                    self.run,
                    self.browser,
                    dialogs::Delivery::Input(&cmds),
                    self.options.dialog_policy(),
                    &mut answered,
                )
                .await
                {
                    Ok(settled) => {
                        settled_note = settled.note();
                        page_changed = settled.page_changed();
                        acts.happened = std::mem::take(&mut acts.happened)
                            .and(std::mem::take(&mut answered.told))
                            .and(settled.outcome());
                        Ok(())
                    }
                    Err(dialogs::Interrupted::Page(e)) => return Err(e.into()),
                    Err(e) => {
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
            acts.left_unrun = planned[at + 1..].iter().map(describe_action).collect();
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

    /// The input commands for `action`, and the action as it runs. A target out of view
    /// (scrolled away, or clipped) is scrolled into view first, and the page read again.
    async fn aim(&mut self, action: &PlannedAction, answered: &mut dialogs::Answered) -> Result<Aimed, RunError> {
        let mut commands = commands_for(action, &self.work.observation.extraction);
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
            self.work.observation = self.browser.observe().await?;
            let again = self.work.observation.extraction.elements.iter().find(|e| e.id == element.id).map(|e| e.index);
            commands = match again {
                Some(n) => {
                    executed = retarget(action, n);
                    commands_for(&executed, &self.work.observation.extraction)
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
        plan_done: bool,
        content: String,
        seen: Option<String>,
    ) -> Result<Option<RunStatus>, RunError> {
        let before = std::mem::take(&mut self.work.observation.extraction.description);
        self.work.observation = self.browser.observe().await?;
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
            if let Some(last) = self.run.steps.last_mut().filter(|s| s.kind == StepKind::Action && s.planned.is_some())
            {
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
            self.work.rounds.kept.push(CachedRound { actions: std::mem::take(&mut acts.kept), done: plan_done });
            if plan_done {
                return Ok(Some(RunStatus::Succeeded));
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

pub(crate) fn join_notes(a: Option<String>, b: Option<String>) -> Option<String> {
    match (a, b) {
        (Some(a), Some(b)) => Some(format!("{a}; {b}")),
        (a, b) => a.or(b),
    }
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

/// The address of the frame an element is in, as the site checks read it: its frame's
/// origin, or the page's address for an element of the page's own document.
pub(crate) fn frame_address<'a>(element: &'a crate::describe::Element, page: &'a Extraction) -> &'a str {
    element.frame_origin.as_deref().unwrap_or(&page.url)
}

/// The same action aimed at element `n` (its number after the page was read again).
fn retarget(action: &PlannedAction, n: u32) -> PlannedAction {
    let mut a = action.clone();
    match &mut a {
        PlannedAction::Tap { target } | PlannedAction::Input { target, .. } => *target = n,
        PlannedAction::Scroll { target, .. } => *target = Some(n),
        _ => {}
    }
    a
}

fn action_target(action: &PlannedAction) -> Option<u32> {
    match action {
        PlannedAction::Tap { target } | PlannedAction::Input { target, .. } => Some(*target),
        PlannedAction::Scroll { target, .. } => *target,
        _ => None,
    }
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
    }
}
