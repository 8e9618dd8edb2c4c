//! The run loop: observe → prompt → model → parse → act → observe again, recording each step.

use super::record::{Run, RunStatus, Step, StepKind, StepStatus, TargetInfo};
use super::replay::cache::{CacheEntry, CachedAction, CachedRound, ElementKey};
use super::replay::trajectory::Album;
use crate::action::{commands_for, find_element, ActionError};
use crate::describe::Extraction;
use crate::model::{ChatReply, ModelClient, ModelConfig, PriceTable};
use crate::parse::parse_reply;
use crate::prompt::{plan_messages, Memory, Outcome, Turn};
use crate::vision::{self, ModelImage};
use crate::vocab::actions::PlannedAction;
use crate::vocab::family::ModelFamily;

use super::browser::ask_person;
use super::browser::{Browser, Observation};
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
    browser.report(&run);
    let outcome = carry_out(&mut run, instruction, options, config, &mut browser, model).await;
    conclude(run, outcome, &mut browser)
}

/// Carries out an instruction on `run`, which may already hold steps (a flow's), and keeps
/// its plan for replay when it is worth keeping.
pub(crate) async fn carry_out<B: Browser, M: ModelClient>(
    run: &mut Run,
    instruction: &str,
    options: &RunOptions,
    config: &ModelConfig,
    browser: &mut B,
    model: &M,
) -> Result<RunStatus, String> {
    let mut rounds = Rounds::default();
    let outcome = drive(run, instruction, options, config, browser, model, &mut rounds).await;
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
pub(crate) fn conclude<B: Browser>(mut run: Run, outcome: Result<RunStatus, String>, browser: &mut B) -> Run {
    run.status = match outcome {
        Ok(status) => status,
        Err(message) => {
            run.error = Some(message);
            RunStatus::Failed
        }
    };
    run.ended_ms = Some(browser.now_ms());
    browser.report(&run);
    run
}

async fn drive<B: Browser, M: ModelClient>(
    run: &mut Run,
    instruction: &str,
    options: &RunOptions,
    config: &ModelConfig,
    browser: &mut B,
    model: &M,
    rounds: &mut Rounds,
) -> Result<RunStatus, String> {
    if instruction.trim().is_empty() {
        return Err("the instruction is empty: say what to do on the page".into());
    }
    let observation = browser.observe().await.map_err(|e| e.to_string())?;
    rounds.page = observation.extraction.url.clone();
    if run.url.is_empty() {
        run.url = rounds.page.clone();
    }
    let cached: Vec<CachedRound> = if options.use_cache {
        options.cache.plan(&rounds.page, instruction).map(<[_]>::to_vec).unwrap_or_default()
    } else {
        Vec::new()
    };
    let mut ctx = RoundContext {
        run,
        instruction,
        options,
        config,
        browser,
        model,
        rounds,
        album: Album::default(),
        memory: Memory { keep_screenshots: options.keep_screenshots.max(1), history_tokens: options.history_tokens },
        observation,
        shown: Shown { image: None, note: None, reference: None },
        history: Vec::new(),
        failures: 0,
        last_round: None,
        repeats: 0,
        replaying: !cached.is_empty(),
        cached,
    };
    ctx.show();
    for round in 0..options.max_rounds {
        if let Some(status) = ctx.round(round).await? {
            return Ok(status);
        }
    }
    Err(format!(
        "the instruction was not finished within {} model calls; try a smaller instruction or raise the step limit",
        options.max_rounds
    ))
}

/// What the rounds of one instruction share: the run and its settings, the page and the model
/// behind them, and what the rounds so far left (the model's history, failures in a row, the
/// cache's record).
struct RoundContext<'a, B, M> {
    run: &'a mut Run,
    instruction: &'a str,
    options: &'a RunOptions,
    config: &'a ModelConfig,
    browser: &'a mut B,
    model: &'a M,
    rounds: &'a mut Rounds,
    album: Album,
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
    failed: Option<(String, Outcome)>,
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
    End(Result<RunStatus, String>),
}

impl<B: Browser, M: ModelClient> RoundContext<'_, B, M> {
    /// One round: a plan (cached or the model's), its actions, a fresh look at the page.
    /// `Some` ends the run with that status.
    async fn round(&mut self, round: u32) -> Result<Option<RunStatus>, String> {
        if self.browser.stop_requested() {
            return Ok(Some(RunStatus::Stopped));
        }
        let (mut plan, content, seen, mut plan_step) = match self.next_plan(round).await? {
            PlanRound::Stopped => return Ok(Some(RunStatus::Stopped)),
            PlanRound::Planned { plan, content, seen, step } => (plan, content, seen, step),
            PlanRound::Unreadable { error, content, seen } => {
                self.failures += 1;
                if self.failures > self.options.max_failures {
                    return Err(format!(
                        "the model's reply could not be read {} times in a row; last problem: {error}",
                        self.failures
                    ));
                }
                self.history.push(Turn {
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
        plan_step.action =
            format!("Plan: {} action(s){}", plan.actions.len(), if plan.done { ", then done" } else { "" });
        self.run.steps.push(plan_step);
        self.browser.report(self.run);
        if plan.actions.is_empty() {
            return match plan.error {
                Some(reason) => Err(format!("the model could not carry out the instruction: {reason}")),
                None => {
                    self.rounds.kept.push(CachedRound { actions: Vec::new(), done: true });
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
            self.replaying = false;
            self.rounds.changed = true;
        }
        self.conclude_round(acts, plan_done, content, seen).await
    }

    /// The round's plan: replayed from the cache while every target resolves, else the model's.
    async fn next_plan(&mut self, round: u32) -> Result<PlanRound, String> {
        let from_cache = if self.replaying {
            self.cached
                .get(round as usize)
                .and_then(|r| replay_round(r, &self.observation.extraction).map(|a| (a, r.done)))
        } else {
            None
        };
        self.replaying = from_cache.is_some();
        match from_cache {
            Some(((actions, moved), done)) => {
                self.rounds.changed |= moved;
                let step = Step {
                    note: Some(format!(
                        "from the cache: no model call{}",
                        if moved { "; a target had moved and was found again" } else { "" }
                    )),
                    cached: true,
                    screenshot: self.shown.reference.clone(),
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
                self.rounds.changed = true;
                self.plan_round().await
            }
        }
    }

    /// Asks the model for the next round's plan.
    async fn plan_round(&mut self) -> Result<PlanRound, String> {
        let (image, image_note) = (self.shown.image.as_ref(), self.shown.note.clone());
        let page = prompt_page(&self.observation.extraction, self.options, image.is_some());
        let instruction = match self.options.limits().prompt_note(&self.observation.extraction.url) {
            Some(note) => format!("{}\n\n{note}", self.instruction),
            None => self.instruction.to_string(),
        };
        let family = self.config.family;
        let messages =
            plan_messages(family, &instruction, &self.history, &page, image.map(|i| i.data_url.as_str()), &self.memory);
        // Grounding models look back at recent screens; the others never need them again.
        let seen = image.filter(|_| family.grounds_on_image()).map(|i| i.data_url.clone());
        let call = ModelCall { model: self.model, config: self.config, prices: &self.options.prices };
        let Some((content, mut step)) =
            ask_model(self.run, self.browser, &mut self.album, call, &messages, image_note).await?
        else {
            return Ok(PlanRound::Stopped);
        };
        step.screenshot = self.shown.reference.clone();
        match parse_reply(family, &content, self.shown.image.as_ref().map(|i| &i.mapping)) {
            Ok(plan) => Ok(PlanRound::Planned { plan, content, seen, step }),
            Err(error) => {
                step.status = StepStatus::Failed;
                step.error = Some(format!("could not read the model's reply: {error}"));
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
            plan_step.note = join_notes(plan_step.note.take(), Some(format!("one action per turn for this model: {more} more left to the next turn, planned on the page as it is then")));
        }
    }

    /// The screenshot of the page as last read, as the model gets it, kept with the run.
    fn show(&mut self) {
        let (image, note) = model_image(&self.observation, self.options, self.config.family);
        let reference = image.as_ref().map(|i| self.album.keep(self.browser, &i.data_url));
        self.shown = Shown { image, note, reference };
    }

    /// Runs the plan's action number `at` and records its step.
    async fn act(
        &mut self,
        at: usize,
        action: &PlannedAction,
        planned: &[PlannedAction],
        acts: &mut Acts,
    ) -> Result<Next, String> {
        if self.browser.stop_requested() {
            return Ok(Next::End(Ok(RunStatus::Stopped)));
        }
        let started = self.browser.now_ms();
        if let PlannedAction::AskUser { question } = action {
            return self.ask_user(action, question, acts).await;
        }
        let label = describe_action(action);
        let mut target_element =
            action_target(action).and_then(|t| find_element(t, &self.observation.extraction).ok()).cloned();
        // The page's dialogs during this action, and how they were answered.
        let mut answered = dialogs::Answered::default();
        // A grounding model's point snaps to the control under it, when there is one: the
        // click lands on its visible middle and the record names the element (XPath and all).
        let snapped = snap_to_control(action, &self.observation.extraction);
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
        let result: Result<(), (String, Outcome)> = match commands {
            Ok(cmds) => {
                if let (PlannedAction::Input { value, .. }, Some(e)) = (&executed, &target_element) {
                    self.options
                        .limits()
                        .check_target(value, frame_address(e, &self.observation.extraction))
                        .map_err(|e| e.to_string())?;
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
                    Err(dialogs::Interrupted::Page(e)) => return Err(e.to_string()),
                    Err(e) => {
                        ends = Some(if matches!(e, dialogs::Interrupted::Stopped) {
                            Ok(RunStatus::Stopped)
                        } else {
                            Err(e.to_string())
                        });
                        Err((e.to_string(), Outcome::default()))
                    }
                }
            }
            Err(e) => {
                let text = e.to_string();
                let told = Outcome::quoting(
                    &format!("{label} failed: {text}"),
                    &e.page_text().into_iter().collect::<Vec<_>>(),
                );
                Err((text, told))
            }
        };
        note = join_notes(join_notes(note, answered.note()), settled_note);
        if answered.asked.iter().any(|a| a.by == ask::AnsweredBy::Person) {
            self.rounds.storable = false; // the person may answer otherwise next time
        }
        // The rest of the plan was aimed at a page that is gone: it is dropped, and the
        // page is read again before anything else runs.
        if page_changed {
            acts.left_unrun = planned[at + 1..].iter().map(describe_action).collect();
            if !acts.left_unrun.is_empty() {
                note = join_notes(
                    note,
                    Some(format!(
                        "the page changed, so the {} action(s) planned after this one did not run",
                        acts.left_unrun.len()
                    )),
                );
            }
        }
        self.run.steps.push(Step {
            status: if result.is_ok() { StepStatus::Ok } else { StepStatus::Failed },
            action: label.clone(),
            target,
            error: result.as_ref().err().map(|(text, _)| text.clone()),
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
                self.rounds.storable = false; // a bare point: nothing to verify on replay
            }
            acts.kept.push(CachedAction { action: executed, target: target_element.as_ref().map(ElementKey::of) });
        }
        match result {
            Ok(()) => acts.done.push(label),
            Err((text, told)) => {
                acts.failed = Some((format!("{label} failed: {text}"), told));
                return Ok(Next::StopPlan); // the rest of the plan assumed this action worked
            }
        }
        Ok(if page_changed { Next::StopPlan } else { Next::Go })
    }

    /// The input commands for `action`, and the action as it runs. A target out of view
    /// (scrolled away, or clipped) is scrolled into view first, and the page read again.
    async fn aim(&mut self, action: &PlannedAction, answered: &mut dialogs::Answered) -> Result<Aimed, String> {
        let mut commands = commands_for(action, &self.observation.extraction);
        let mut executed = action.clone();
        let mut note = None;
        if let (Err(ActionError::OutOfView { target: number, .. }), Ok(element)) = (
            &commands,
            action_target(action)
                .map_or(Err(()), |t| find_element(t, &self.observation.extraction).cloned().map_err(|_| ())),
        ) {
            let number = *number;
            self.browser.reveal(&element).await.map_err(|e| e.to_string())?;
            dialogs::settle(self.run, self.browser, self.options.dialog_policy(), answered)
                .await
                .map_err(|e| e.to_string())?; // read again just below
            self.observation = self.browser.observe().await.map_err(|e| e.to_string())?;
            let again = self.observation.extraction.elements.iter().find(|e| e.id == element.id).map(|e| e.index);
            commands = match again {
                Some(n) => {
                    executed = retarget(action, n);
                    commands_for(&executed, &self.observation.extraction)
                }
                None => Err(ActionError::UnknownTarget {
                    target: number,
                    count: self.observation.extraction.elements.len(),
                }),
            };
            note = Some("scrolled into view first".to_string());
        }
        Ok(Aimed { commands, executed, note })
    }

    /// Only the person can continue: the panel shows the question and the run waits for
    /// their answer, which the model gets in the next round.
    async fn ask_user(&mut self, action: &PlannedAction, question: &str, acts: &mut Acts) -> Result<Next, String> {
        let label = describe_action(action);
        let q = if question.trim().is_empty() { plan_thought_or(&self.run.steps) } else { question.to_string() };
        let started = self.browser.now_ms();
        self.rounds.storable = false; // the answer may differ next time
        let asked = ask::Question::Text { text: q.clone() };
        let answer = match ask_person(self.run, self.browser, asked.clone()).await.map_err(|e| e.to_string())? {
            Some(ask::Answer::Text { text }) if !text.trim().is_empty() => text,
            _ => {
                return Ok(Next::End(if self.browser.stop_requested() {
                    Ok(RunStatus::Stopped)
                } else {
                    Err(format!("the model needs your input: {q}"))
                }))
            }
        };
        self.run.steps.push(Step {
            action: label,
            duration_ms: self.browser.now_ms() - started,
            note: Some(format!("you answered: {answer}")),
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
    ) -> Result<Option<RunStatus>, String> {
        let before = std::mem::take(&mut self.observation.extraction.description);
        self.observation = self.browser.observe().await.map_err(|e| e.to_string())?;
        self.show();
        if let Some(last) = self.run.steps.last_mut().filter(|s| s.kind == StepKind::Action) {
            last.screenshot = self.shown.reference.clone();
        }
        let change = change::describe_change(&before, &self.observation.extraction.description);
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
                last.note = join_notes(last.note.take(), Some("nothing on the page changed".into()));
                self.browser.report(self.run);
            }
        }
        if let Some((fail, told)) = &acts.failed {
            // What did run before the failure changed the page: a replay repeats it too.
            if !acts.kept.is_empty() {
                self.rounds.kept.push(CachedRound { actions: std::mem::take(&mut acts.kept), done: false });
            }
            self.failures += 1;
            if self.failures > self.options.max_failures {
                return Err(fail.clone());
            }
            outcome = told.clone().and(outcome);
        } else {
            self.failures = 0;
            self.rounds.kept.push(CachedRound { actions: std::mem::take(&mut acts.kept), done: plan_done });
            if plan_done {
                return Ok(Some(RunStatus::Succeeded));
            }
        }
        // The same actions on a page they did not change: say so once, then stop.
        let round = acts.done.join("; ");
        if !changed && acts.failed.is_none() && !round.is_empty() && self.last_round.as_deref() == Some(round.as_str())
        {
            self.repeats += 1;
            if self.repeats >= 2 {
                return Err(format!("stopped a loop: \"{round}\" ran three times in a row without changing the page"));
            }
            outcome.add("; you did exactly this last round too, with no effect: try something different");
        } else {
            self.repeats = 0;
        }
        self.last_round = Some(round);
        self.history.push(Turn { actions: acts.done, outcome, reply: content, screenshot: seen });
        Ok(None)
    }
}

/// The screenshot as the model gets it (fitted to the family, marked), or why it was left out.
pub(crate) fn model_image(
    observation: &Observation,
    options: &RunOptions,
    family: ModelFamily,
) -> (Option<vision::ModelImage>, Option<String>) {
    let mut image_options = options.image;
    if image_options.rule == vision::ImageRule::AsIs {
        image_options.rule = vision::ImageRule::for_family(family);
    }
    match observation.capture.as_ref().filter(|_| options.include_screenshot) {
        Some(capture) => match vision::model_image(capture, &observation.extraction, &image_options) {
            Ok(image) => (Some(image), None),
            Err(e) => (None, Some(format!("sent without a screenshot: {e}"))),
        },
        None => (None, None),
    }
}

/// Who answers a model call and how: the client, its configuration, and the prices the run
/// counts its cost in.
pub(crate) struct ModelCall<'a, M> {
    pub model: &'a M,
    pub config: &'a ModelConfig,
    pub prices: &'a PriceTable,
}

/// One model call, counted and priced on the run. Returns the text to parse and the step
/// that records the call (the caller fills in its thought and action), or `None` when the
/// person stopped the run meanwhile.
pub(crate) async fn ask_model<B: Browser, M: ModelClient>(
    run: &mut Run,
    browser: &mut B,
    album: &mut Album,
    call: ModelCall<'_, M>,
    messages: &[crate::model::ChatMessage],
    image_note: Option<String>,
) -> Result<Option<(String, Step)>, String> {
    let ModelCall { model, config, prices } = call;
    // Checked at the first call, not the start: a replay that never needs the model runs
    // without one configured.
    config.validate().map_err(|e| e.to_string())?;
    let started = browser.now_ms();
    let reply = model.complete(config, messages).await;
    run.model_calls += 1;
    if browser.stop_requested() {
        return Ok(None);
    }
    let reply: ChatReply = reply.map_err(|e| e.to_string())?;
    if let Some(u) = &reply.usage {
        run.usage.add(u);
        run.cost = prices.cost(&config.model, &run.usage);
    }
    // Retries and a left-out screenshot are worth knowing; neither failed the step.
    let notes: Vec<String> = reply.notes.iter().cloned().chain(image_note).collect();
    let text = reply.parser_text();
    let step = Step {
        action: "Plan".into(),
        duration_ms: browser.now_ms() - started,
        usage: reply.usage.clone(),
        cost: reply.usage.as_ref().and_then(|u| prices.cost(&config.model, u)),
        note: (!notes.is_empty()).then(|| notes.join("; ")),
        exchange: Some(album.exchange(browser, messages, &text)),
        ..Step::new(StepKind::Plan, started)
    };
    Ok(Some((text, step)))
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

/// The action as a person reads it in the timeline.
pub fn describe_action(action: &PlannedAction) -> String {
    match action {
        PlannedAction::Tap { target } => format!("Tap [{target}]"),
        PlannedAction::Input { target, value } => format!("Input \"{value}\" into [{target}]"),
        PlannedAction::KeyPress { key } => format!("Press {key}"),
        PlannedAction::Scroll { target, direction, distance } => format!(
            "Scroll {}{}{}",
            direction.as_str(),
            target.map(|t| format!(" in [{t}]")).unwrap_or_default(),
            distance.map(|d| format!(" by {d}px")).unwrap_or_default()
        ),
        PlannedAction::TapAt { x, y, button, clicks } => {
            let what = match (button, clicks) {
                (crate::vocab::actions::MouseButton::Right, _) => "Right-click",
                (_, 2) => "Double-click",
                _ => "Tap",
            };
            format!("{what} at ({x:.0}, {y:.0})")
        }
        PlannedAction::HoverAt { x, y } => format!("Hover at ({x:.0}, {y:.0})"),
        PlannedAction::DragAt { from, to } => {
            format!("Drag from ({:.0}, {:.0}) to ({:.0}, {:.0})", from.0, from.1, to.0, to.1)
        }
        PlannedAction::Type { value, submit } => {
            format!("Type \"{value}\"{}", if *submit { " and press Enter" } else { "" })
        }
        PlannedAction::ScrollAt { x, y, direction, .. } => format!("Scroll {} at ({x:.0}, {y:.0})", direction.as_str()),
        PlannedAction::Wait { ms } => format!("Wait {:.1} s", *ms as f64 / 1000.0),
        PlannedAction::Navigate { url } => format!("Go to {url}"),
        PlannedAction::AskUser { question } => format!("Ask you: {question}"),
        PlannedAction::Tool { name, .. } => format!("Call tool {name}"),
    }
}
