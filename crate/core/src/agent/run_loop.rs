//! The run loop: observe → prompt → model → parse → act → observe again, recording each step.

use crate::action::{commands_for, find_element, ActionError};
use crate::describe::Extraction;
use crate::model::{ChatReply, ModelClient, ModelConfig};
use crate::parse::parse_reply;
use crate::vocab::actions::PlannedAction;
use crate::prompt::{plan_messages, Memory, Outcome, Turn};
use super::cache::{CacheEntry, CachedAction, CachedRound, ElementKey};
use super::record::{Run, RunStatus, Step, StepKind, StepStatus, TargetInfo};
use crate::vision::{self, ModelImage};
use super::trajectory::Album;

use super::browser::{Browser, Observation};
use super::options::{prompt_page, RunOptions};
use super::browser::ask_person;
use super::{ask, cache, change, dialogs, record};
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
    if options.use_cache && outcome == Ok(RunStatus::Succeeded) && rounds.storable && rounds.changed && !rounds.kept.is_empty() {
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
    Planned { plan: crate::parse::Plan, content: String, seen: Option<String>, step: Step },
    /// The reply could not be read; its step is recorded as failed.
    Unreadable { error: crate::parse::ParseError, content: String, seen: Option<String> },
    Stopped,
}

/// The screenshot of one observation as the model gets it, and its reference in the record.
struct Shown {
    image: Option<ModelImage>,
    /// Why there is no image, when one was wanted.
    note: Option<String>,
    reference: Option<String>,
}

impl Shown {
    fn of<B: Browser>(observation: &Observation, options: &RunOptions, config: &ModelConfig, browser: &mut B, album: &mut Album) -> Self {
        let (image, note) = model_image(observation, options, config);
        let reference = image.as_ref().map(|i| album.keep(browser, &i.data_url));
        Shown { image, note, reference }
    }
}

/// Asks the model for the next round's plan.
#[allow(clippy::too_many_arguments)]
async fn plan_round<B: Browser, M: ModelClient>(
    run: &mut Run,
    instruction: &str,
    history: &[Turn],
    observation: &Observation,
    shown: &Shown,
    ctx: (&RunOptions, &ModelConfig, &Memory),
    browser: &mut B,
    model: &M,
    album: &mut Album,
) -> Result<PlanRound, String> {
    let (options, config, memory) = ctx;
    let (image, image_note) = (shown.image.as_ref(), shown.note.clone());
    let page = prompt_page(&observation.extraction, options, image.is_some());
    let instruction = match options.limits().prompt_note(&observation.extraction.url) {
        Some(note) => format!("{instruction}\n\n{note}"),
        None => instruction.to_string(),
    };
    let messages = plan_messages(config.family, &instruction, history, &page, image.map(|i| i.data_url.as_str()), memory);
    // Grounding models look back at recent screens; the others never need them again.
    let seen = image.filter(|_| config.family.grounds_on_image()).map(|i| i.data_url.clone());
    let Some((content, mut step)) = ask_model(run, options, config, browser, model, album, &messages, image_note).await? else {
        return Ok(PlanRound::Stopped);
    };
    step.screenshot = shown.reference.clone();
    match parse_reply(config.family, &content, image.map(|i| &i.mapping)) {
        Ok(plan) => Ok(PlanRound::Planned { plan, content, seen, step }),
        Err(error) => {
            step.status = StepStatus::Failed;
            step.error = Some(format!("could not read the model's reply: {error}"));
            run.steps.push(step);
            browser.report(run);
            Ok(PlanRound::Unreadable { error, content, seen })
        }
    }
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
                    PlannedAction::HoverAt { .. } => crate::action::element_point(e, page).map(|(x, y)| PlannedAction::HoverAt { x, y }),
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
    let mut observation = browser.observe().await.map_err(|e| e.to_string())?;
    rounds.page = observation.extraction.url.clone();
    if run.url.is_empty() {
        run.url = rounds.page.clone();
    }
    let mut album = Album::default();
    let mut shown = Shown::of(&observation, options, config, browser, &mut album);
    let mut history: Vec<Turn> = Vec::new();
    let mut failures = 0;
    let memory = Memory { keep_screenshots: options.keep_screenshots.max(1), history_tokens: options.history_tokens };
    // Loop detection: the same actions again on an unchanged page.
    let mut last_round: Option<String> = None;
    let mut repeats = 0;

    // Replaying a cached plan while every target still resolves; the model takes over at the first miss.
    let cached: Vec<CachedRound> = if options.use_cache { options.cache.plan(&rounds.page, instruction).map(<[_]>::to_vec).unwrap_or_default() } else { Vec::new() };
    let mut replaying = !cached.is_empty();

    for round in 0..options.max_rounds {
        if browser.stop_requested() {
            return Ok(RunStatus::Stopped);
        }
        let from_cache = if replaying { cached.get(round as usize).and_then(|r| replay_round(r, &observation.extraction).map(|a| (a, r.done))) } else { None };
        replaying = from_cache.is_some();
        let (mut plan, content, seen, mut plan_step) = match from_cache {
            Some(((actions, moved), done)) => {
                rounds.changed |= moved;
                let step = Step {
                    note: Some(format!("from the cache: no model call{}", if moved { "; a target had moved and was found again" } else { "" })),
                    cached: true,
                    screenshot: shown.reference.clone(),
                    ..Step::new(StepKind::Plan, browser.now_ms())
                };
                (crate::parse::Plan { thought: String::new(), actions, done, error: None }, String::new(), None, step)
            }
            None => {
                rounds.changed = true;
                match plan_round(run, instruction, &history, &observation, &shown, (options, config, &memory), browser, model, &mut album).await? {
                    PlanRound::Stopped => return Ok(RunStatus::Stopped),
                    PlanRound::Planned { plan, content, seen, step } => (plan, content, seen, step),
                    PlanRound::Unreadable { error, content, seen } => {
                        failures += 1;
                        if failures > options.max_failures {
                            return Err(format!("the model's reply could not be read {failures} times in a row; last problem: {error}"));
                        }
                        history.push(Turn {
                            actions: vec!["(no action)".into()],
                            outcome: Outcome::ours(format!("your reply was rejected ({error}); answer in the format described")),
                            reply: content,
                            screenshot: seen,
                        });
                        continue;
                    }
                }
            }
        };
        // Vision agents act one step per turn and look again: a second action in the same
        // reply was aimed at a screen that the first one may change.
        if config.family.grounds_on_image() && !plan_step.cached && plan.actions.len() > 1 {
            let more = plan.actions.len() - 1;
            plan.actions.truncate(1);
            plan.done = false;
            plan_step.note = join_notes(plan_step.note.take(), Some(format!("one action per turn for this model: {more} more left to the next turn, planned on the page as it is then")));
        }
        let replayed = plan_step.cached;
        plan_step.thought = plan.thought.clone();
        plan_step.action = format!("Plan: {} action(s){}", plan.actions.len(), if plan.done { ", then done" } else { "" });
        run.steps.push(plan_step);
        browser.report(run);
        if plan.actions.is_empty() {
            return match plan.error {
                Some(reason) => Err(format!("the model could not carry out the instruction: {reason}")),
                None => {
                    rounds.kept.push(CachedRound { actions: Vec::new(), done: true });
                    Ok(RunStatus::Succeeded)
                }
            };
        }
        let mut kept_actions = Vec::new();

        let mut done_here = Vec::new();
        let mut action_failed: Option<(String, Outcome)> = None;
        // What the host saw happen (navigations, dialogs), for the model; and the actions
        // left unrun because the page changed under the plan.
        let mut happened = Outcome::default();
        let mut left_unrun: Vec<String> = Vec::new();
        for (at, action) in plan.actions.iter().enumerate() {
            if browser.stop_requested() {
                return Ok(RunStatus::Stopped);
            }
            let started = browser.now_ms();
            let label = describe_action(action);
            if let PlannedAction::AskUser { question } = action {
                // Only the person can continue: the panel shows the question and the run
                // waits for their answer, which the model gets in the next round.
                let q = if question.trim().is_empty() { plan_thought_or(&run.steps) } else { question.clone() };
                let started = browser.now_ms();
                rounds.storable = false; // the answer may differ next time
                let asked = ask::Question::Text { text: q.clone() };
                let answer = match ask_person(run, browser, asked.clone()).await.map_err(|e| e.to_string())? {
                    Some(ask::Answer::Text { text }) if !text.trim().is_empty() => text,
                    _ => return if browser.stop_requested() { Ok(RunStatus::Stopped) } else { Err(format!("the model needs your input: {q}")) },
                };
                run.steps.push(Step {
                    action: label.clone(),
                    duration_ms: browser.now_ms() - started,
                    note: Some(format!("you answered: {answer}")),
                    asked: vec![ask::Asked { question: asked, answer: ask::Answer::Text { text: answer.clone() }, by: ask::AnsweredBy::Person }],
                    ..Step::new(StepKind::Action, started)
                });
                browser.report(run);
                done_here.push(format!("asked the person \"{q}\"; they answered \"{answer}\""));
                continue;
            }
            let mut target_element = action_target(action).and_then(|t| find_element(t, &observation.extraction).ok()).cloned();
            let mut note = None;
            // The page's dialogs during this action, and how they were answered.
            let mut answered = dialogs::Answered::default();
            // A grounding model's point snaps to the control under it, when there is one: the
            // click lands on its visible middle and the record names the element (XPath and all).
            let snapped = snap_to_control(action, &observation.extraction);
            if let Some((_, e)) = &snapped {
                target_element = Some(e.clone());
            }
            let target = target_element.as_ref().map(TargetInfo::of);
            let action = snapped.as_ref().map_or(action, |(a, _)| a);
            let mut commands = commands_for(action, &observation.extraction);
            // What runs, aimed at the element's number as the page was read last.
            let mut executed = action.clone();
            // A target out of view (scrolled away, or clipped) is scrolled into view first.
            if let (Err(ActionError::OutOfView { target: number, .. }), Ok(element)) =
                (&commands, action_target(action).map_or(Err(()), |t| find_element(t, &observation.extraction).cloned().map_err(|_| ())))
            {
                let number = *number;
                browser.reveal(&element).await.map_err(|e| e.to_string())?;
                dialogs::settle(run, browser, options.dialog_policy(), &mut answered).await.map_err(|e| e.to_string())?; // read again just below
                observation = browser.observe().await.map_err(|e| e.to_string())?;
                let again = observation.extraction.elements.iter().find(|e| e.id == element.id).map(|e| e.index);
                commands = match again {
                    Some(n) => {
                        executed = retarget(action, n);
                        commands_for(&executed, &observation.extraction)
                    }
                    None => Err(ActionError::UnknownTarget { target: number, count: observation.extraction.elements.len() }),
                };
                note = Some("scrolled into view first".to_string());
            }
            let mut page_changed = false;
            let mut settled_note = None;
            // An unanswered dialog or a stop ends the run once the step is recorded.
            let mut ends = None;
            let result: Result<(), (String, Outcome)> = match commands {
                Ok(cmds) => {
                    if let (PlannedAction::Input { value, .. }, Some(e)) = (&executed, &target_element) {
                        options.limits().check_target(value, frame_address(e, &observation.extraction)).map_err(|e| e.to_string())?;
                    }
                    match dialogs::act(run, browser, dialogs::Delivery::Input(&cmds), options.dialog_policy(), &mut answered).await {
                        Ok(settled) => {
                            settled_note = settled.note();
                            page_changed = settled.page_changed();
                            happened = std::mem::take(&mut happened).and(std::mem::take(&mut answered.told)).and(settled.outcome());
                            Ok(())
                        }
                        Err(dialogs::Interrupted::Page(e)) => return Err(e.to_string()),
                        Err(e) => {
                            ends = Some(if matches!(e, dialogs::Interrupted::Stopped) { Ok(RunStatus::Stopped) } else { Err(e.to_string()) });
                            Err((e.to_string(), Outcome::default()))
                        }
                    }
                }
                Err(e) => {
                    let text = e.to_string();
                    let told = Outcome::quoting(&format!("{label} failed: {text}"), &e.page_text().into_iter().collect::<Vec<_>>());
                    Err((text, told))
                }
            };
            note = join_notes(join_notes(note, answered.note()), settled_note);
            if answered.asked.iter().any(|a| a.by == ask::AnsweredBy::Person) {
                rounds.storable = false; // the person may answer otherwise next time
            }
            // The rest of the plan was aimed at a page that is gone: it is dropped, and the
            // page is read again before anything else runs.
            if page_changed {
                left_unrun = plan.actions[at + 1..].iter().map(describe_action).collect();
                if !left_unrun.is_empty() {
                    note = join_notes(note, Some(format!("the page changed, so the {} action(s) planned after this one did not run", left_unrun.len())));
                }
            }
            run.steps.push(Step {
                status: if result.is_ok() { StepStatus::Ok } else { StepStatus::Failed },
                action: label.clone(),
                target,
                error: result.as_ref().err().map(|(text, _)| text.clone()),
                duration_ms: browser.now_ms() - started,
                note,
                planned: result.is_ok().then(|| executed.clone()),
                asked: std::mem::take(&mut answered.asked),
                ..Step::new(StepKind::Action, started)
            });
            browser.report(run);
            if let Some(end) = ends {
                return end;
            }
            if result.is_ok() {
                if matches!(action, PlannedAction::TapAt { .. } | PlannedAction::HoverAt { .. } | PlannedAction::DragAt { .. } | PlannedAction::ScrollAt { .. }) && target_element.is_none() {
                    rounds.storable = false; // a bare point: nothing to verify on replay
                }
                kept_actions.push(CachedAction { action: executed, target: target_element.as_ref().map(ElementKey::of) });
            }
            match result {
                Ok(()) => done_here.push(label),
                Err((text, told)) => {
                    action_failed = Some((format!("{label} failed: {text}"), told));
                    break; // the rest of the plan assumed this action worked
                }
            }
            if page_changed {
                break;
            }
        }
        // A plan cut short is not done, whatever it said; a cached one hands over to the model.
        let plan_done = plan.done && left_unrun.is_empty();
        if !left_unrun.is_empty() && replayed {
            replaying = false;
            rounds.changed = true;
        }

        // Verify after acting: the next round plans from what the page really shows now.
        let before = std::mem::take(&mut observation.extraction.description);
        observation = browser.observe().await.map_err(|e| e.to_string())?;
        shown = Shown::of(&observation, options, config, browser, &mut album);
        if let Some(last) = run.steps.last_mut().filter(|s| s.kind == StepKind::Action) {
            last.screenshot = shown.reference.clone();
        }
        let change = change::describe_change(&before, &observation.extraction.description);
        let changed = change.is_some();
        let mut outcome = happened;
        if !left_unrun.is_empty() {
            outcome = outcome.and(Outcome::ours(format!(
                "the page changed, so the rest of your plan did not run ({}): plan it again on the page as it is now",
                left_unrun.join("; ")
            )));
        }
        outcome = outcome.and(change.unwrap_or_else(|| Outcome::ours("nothing on the page changed")));
        // The person sees it too: a round that changed nothing is no silent success.
        if !changed && action_failed.is_none() {
            if let Some(last) = run.steps.last_mut().filter(|s| s.kind == StepKind::Action && s.planned.is_some()) {
                last.note = join_notes(last.note.take(), Some("nothing on the page changed".into()));
                browser.report(run);
            }
        }
        if let Some((fail, told)) = &action_failed {
            // What did run before the failure changed the page: a replay repeats it too.
            if !kept_actions.is_empty() {
                rounds.kept.push(CachedRound { actions: std::mem::take(&mut kept_actions), done: false });
            }
            failures += 1;
            if failures > options.max_failures {
                return Err(fail.clone());
            }
            outcome = told.clone().and(outcome);
        } else {
            failures = 0;
            rounds.kept.push(CachedRound { actions: std::mem::take(&mut kept_actions), done: plan_done });
            if plan_done {
                return Ok(RunStatus::Succeeded);
            }
        }
        // The same actions on a page they did not change: say so once, then stop.
        let round = done_here.join("; ");
        if !changed && action_failed.is_none() && !round.is_empty() && last_round.as_deref() == Some(round.as_str()) {
            repeats += 1;
            if repeats >= 2 {
                return Err(format!("stopped a loop: \"{round}\" ran three times in a row without changing the page"));
            }
            outcome.add("; you did exactly this last round too, with no effect: try something different");
        } else {
            repeats = 0;
        }
        last_round = Some(round);
        history.push(Turn { actions: done_here, outcome, reply: content, screenshot: seen });
    }
    Err(format!(
        "the instruction was not finished within {} model calls; try a smaller instruction or raise the step limit",
        options.max_rounds
    ))
}

/// The screenshot as the model gets it (fitted to the family, marked), or why it was left out.
pub(crate) fn model_image(observation: &Observation, options: &RunOptions, config: &ModelConfig) -> (Option<vision::ModelImage>, Option<String>) {
    let mut image_options = options.image;
    if image_options.rule == vision::ImageRule::AsIs {
        image_options.rule = vision::ImageRule::for_family(config.family);
    }
    match observation.capture.as_ref().filter(|_| options.include_screenshot) {
        Some(capture) => match vision::model_image(capture, &observation.extraction, &image_options) {
            Ok(image) => (Some(image), None),
            Err(e) => (None, Some(format!("sent without a screenshot: {e}"))),
        },
        None => (None, None),
    }
}

/// One model call, counted and priced on the run. Returns the text to parse and the step
/// that records the call (the caller fills in its thought and action), or `None` when the
/// person stopped the run meanwhile.
#[allow(clippy::too_many_arguments)]
pub(crate) async fn ask_model<B: Browser, M: ModelClient>(
    run: &mut Run,
    options: &RunOptions,
    config: &ModelConfig,
    browser: &mut B,
    model: &M,
    album: &mut Album,
    messages: &[crate::model::ChatMessage],
    image_note: Option<String>,
) -> Result<Option<(String, Step)>, String> {
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
        run.cost = options.prices.cost(&config.model, &run.usage);
    }
    // Retries and a left-out screenshot are worth knowing; neither failed the step.
    let notes: Vec<String> = reply.notes.iter().cloned().chain(image_note).collect();
    let text = reply.parser_text();
    let step = Step {
        action: "Plan".into(),
        duration_ms: browser.now_ms() - started,
        usage: reply.usage.clone(),
        cost: reply.usage.as_ref().and_then(|u| options.prices.cost(&config.model, u)),
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
    let e = crate::describe::element_at(&page.elements, (x, y), crate::describe::Aim::Actionable).filter(|e| matches!(e.kind, ElementKind::Button | ElementKind::FormItem | ElementKind::Anchor | ElementKind::Img))?;
    let (cx, cy) = crate::action::element_point(e, page)?;
    let moved = match action {
        PlannedAction::TapAt { button, clicks, .. } => PlannedAction::TapAt { x: cx, y: cy, button: *button, clicks: *clicks },
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
    steps.iter().rev().find(|s| s.kind == StepKind::Plan).map(|s| s.thought.clone()).filter(|t| !t.is_empty()).unwrap_or_else(|| "(no question given)".into())
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
        PlannedAction::DragAt { from, to } => format!("Drag from ({:.0}, {:.0}) to ({:.0}, {:.0})", from.0, from.1, to.0, to.1),
        PlannedAction::Type { value, submit } => format!("Type \"{value}\"{}", if *submit { " and press Enter" } else { "" }),
        PlannedAction::ScrollAt { x, y, direction, .. } => format!("Scroll {} at ({x:.0}, {y:.0})", direction.as_str()),
        PlannedAction::Wait { ms } => format!("Wait {:.1} s", *ms as f64 / 1000.0),
        PlannedAction::Navigate { url } => format!("Go to {url}"),
        PlannedAction::AskUser { question } => format!("Ask you: {question}"),
        PlannedAction::Tool { name, .. } => format!("Call tool {name}"),
    }
}

