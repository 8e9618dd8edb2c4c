//! Single AI tasks: act on one element found by description (aiTap, aiInput, …), read data
//! off the page (aiQuery, aiBoolean, …), judge it (aiAssert, aiWaitFor). Each is recorded
//! as a run, like an instruction, so the panel, storage and exports treat both alike.

use super::browser::{Browser, ClockHost, Observation, Reach, Settled, StoreHost};
use super::context::Context;
use super::dialogs::{self, Answered, Delivery, Interrupted};
use super::error::RunError;
use super::options::{prompt_page, RunOptions};
use super::record::{FoundBy, Run, RunStatus, Step, StepKind, StepStatus, TargetInfo};
use super::replay::cache::{page_key, prompt_key, CacheEntry, ElementKey};
use super::steps::{caption, conclude, frame_address, join_notes};
use crate::action::{commands_for, element_point, fill_at, key_events, InputCommand};
use crate::describe::xpath::same_xpath;
use crate::describe::{element_at, Aim, Element, Sought};
use crate::model::{ModelClient, ModelConfig};
use crate::parse::answer::{parse_answer, parse_located, parse_verdict, Expect, Located};
use crate::parse::parse_reply;
use crate::prompt::{task_messages, Ask};
use crate::vocab::actions::{InputMode, MouseButton, PlannedAction, ScrollDirection, ScrollType};
use crate::vocab::geometry::Rect;
use crate::vocab::tasks::{demand_text, Task};
use serde_json::json;

/// The locate text naming element `n` as a snapshot numbers it (`[12]`): an agent's or a
/// script's way to name an element it has seen, found without the model.
pub fn element_reference(n: u32) -> String {
    format!("[{n}]")
}

/// Element `n` when `what` is a reference written by [`element_reference`].
pub fn referenced_element(what: &str) -> Option<u32> {
    what.trim().strip_prefix('[')?.strip_suffix(']')?.parse().ok()
}

/// Scrolling to an edge stops after this many steps even on an endless page.
const MAX_EDGE_STEPS: u32 = 25;

pub async fn run_task<B: Browser, M: ModelClient>(
    id: String,
    task: &Task,
    options: &RunOptions,
    config: &ModelConfig,
    browser: &mut B,
    model: &M,
) -> Run {
    let mut browser = options.guard(browser);
    let mut run = Run::new(id, &task.title(), browser.now_ms());
    run.task = Some(task.clone());
    run.language = options.language;
    browser.report(&run);
    let outcome = perform(&mut Context::new(&mut run, options, config, &mut browser, model), task, None).await;
    conclude(run, outcome, &mut browser)
}

/// Carries out a task on the context's run, which may already hold steps (a flow's). `xpath`:
/// where a flow file says the task's element is, tried before the cache and the model.
pub(crate) async fn perform<B: Browser, M: ModelClient>(
    ctx: &mut Context<'_, B, M, ()>,
    task: &Task,
    xpath: Option<&str>,
) -> Result<RunStatus, RunError> {
    let outcome = match task.check() {
        Ok(()) => ctx.for_work(TaskWork { hint: xpath.map(str::to_string) }).perform(task).await,
        Err(e) => Err(e.into()),
    };
    // Whatever a task was doing when the person pressed Stop, it ends as stopped, not failed.
    match outcome {
        Err(_) if ctx.browser.stop_requested() => Ok(RunStatus::Stopped),
        other => other,
    }
}

/// An agent's choice (`choose_option`), or a flow file's: the list `locate` names found as a
/// task finds its element (the `xpath` a flow file gives, the cache, else the model), then
/// `option` chosen in it by the loop's rule (a native `<select>`'s option by its text; a
/// custom list box opened and its option tapped).
pub(crate) async fn choose<B: Browser, M: ModelClient>(
    ctx: &mut Context<'_, B, M, ()>,
    locate: &str,
    option: &str,
    xpath: Option<&str>,
) -> Result<RunStatus, RunError> {
    let check = Task::Locate { locate: locate.to_string() }.check();
    let outcome = match check {
        Ok(()) => ctx.for_work(TaskWork { hint: xpath.map(str::to_string) }).choose(locate, option).await,
        Err(e) => Err(e.into()),
    };
    match outcome {
        Err(_) if ctx.browser.stop_requested() => Ok(RunStatus::Stopped),
        other => other,
    }
}

/// Where an element was found: the point to act at, and the element when the page has one there.
pub(super) struct Found {
    pub point: (f64, f64),
    pub element: Option<Element>,
}

impl Found {
    /// A point with no element: where keys and typing go, or the middle of the page.
    fn nowhere(point: (f64, f64)) -> Found {
        Found { point, element: None }
    }
}

/// A single task's own part of its context (the rest is the loop's: [`Context`]).
struct TaskWork {
    /// The XPath a flow file gives for the task's element; used by the first locate only.
    hint: Option<String>,
}

/// A single task's context: the run's [`Context`] with the task's own part.
type TaskContext<'a, B, M> = Context<'a, B, M, TaskWork>;

/// The click, double-click, right-click or hover a task makes at the point found.
fn point_action(found: &Found, task: &Task) -> PlannedAction {
    let (x, y) = found.point;
    match task {
        Task::DoubleClick { .. } => PlannedAction::TapAt { x, y, button: MouseButton::Left, clicks: 2 },
        Task::RightClick { .. } => PlannedAction::TapAt { x, y, button: MouseButton::Right, clicks: 1 },
        Task::Hover { .. } => PlannedAction::HoverAt { x, y },
        _ => PlannedAction::TapAt { x, y, button: MouseButton::Left, clicks: 1 },
    }
}

impl<B: Browser, M: ModelClient, W> Context<'_, B, M, W> {
    async fn observe(&mut self, reach: &Reach) -> Result<Observation, RunError> {
        let o = self.browser.observe(reach).await?;
        if self.run.url.is_empty() {
            self.run.url = o.extraction.url.clone();
        }
        Ok(o)
    }
}

impl<B: Browser, M: ModelClient> TaskContext<'_, B, M> {
    async fn perform(&mut self, task: &Task) -> Result<RunStatus, RunError> {
        if let Task::Upload { files, .. } = task {
            // Before anything is read or clicked: paths from a file need the person's Allow.
            super::uploads::clear(self.run, self.browser, files, self.options).await?;
        }
        let obs = self.observe(&Reach::InView).await?;
        let title = task.title();
        match task {
            Task::Tap { locate }
            | Task::DoubleClick { locate }
            | Task::RightClick { locate }
            | Task::Hover { locate } => self.point_at(task, locate, obs).await,
            Task::Input { locate, value, mode: InputMode::Append } if locate.trim().is_empty() => {
                self.type_into_focus(&title, value, &obs).await
            }
            Task::Input { locate, value, mode } => self.fill(&title, locate, value, *mode, obs).await,
            Task::KeyboardPress { key, locate } => self.press(task, key, locate.as_deref(), obs).await,
            Task::Scroll { locate, direction, scroll_type, distance } => {
                let far = matches!(scroll_type, ScrollType::UntilEdge);
                self.scroll(&title, locate.as_deref(), *direction, far, *distance, obs).await
            }
            Task::Drag { from, to } => self.drag(&title, from, to, obs).await,
            Task::Upload { locate, files } => self.upload(&title, locate, files, obs).await,
            Task::Locate { locate } => self.locate_only(locate, obs).await,
            Task::Query { demand } => self.read(&demand_text(demand), Expect::Any, obs).await,
            Task::Boolean { question } => {
                self.read(&format!("{question}\nANSWER is true or false."), Expect::Boolean, obs).await
            }
            Task::Number { question } => {
                self.read(&format!("{question}\nANSWER is a number."), Expect::Number, obs).await
            }
            Task::Text { question } => self.read(&format!("{question}\nANSWER is a string."), Expect::Text, obs).await,
            Task::Ask { question } => {
                let demand = format!("{question}\nANSWER is your answer as a string, in the language of the question.");
                self.read(&demand, Expect::Text, obs).await
            }
            Task::Assert { assertion } => self.assert(assertion, obs).await,
            Task::WaitFor { assertion, timeout_ms, interval_ms } => {
                self.wait_for(assertion, *timeout_ms, *interval_ms, obs).await
            }
        }?;
        Ok(if self.browser.stop_requested() { RunStatus::Stopped } else { RunStatus::Succeeded })
    }

    /// The list found, and the option chosen in it: one step for a `<select>` (what exports
    /// repeat as a `Select`), two taps for a custom list box.
    async fn choose(&mut self, locate: &str, option: &str) -> Result<RunStatus, RunError> {
        let obs = self.observe(&Reach::InView).await?;
        let (found, obs) = self.locate(locate, obs).await?;
        let Some(list) = found.element.clone() else {
            let (x, y) = found.point;
            return Err(crate::action::ActionError::NothingAt { x, y }.into());
        };
        let mut planned = PlannedAction::Select { target: list.index, option: option.to_string(), value: None };
        if list.tag == "select" {
            let index = super::choice::option_index(&list.options, option).ok_or_else(|| RunError::NoSuchOption {
                element: list.index,
                option: option.to_string(),
                options: crate::describe::options_text(&list.options),
            })?;
            let mut chosen = None;
            let label = caption(&planned, self.run.language);
            let result =
                self.deliver(&label, &found, Some(&planned), Delivery::Choose(&list, index, &mut chosen)).await;
            if let (Some(c), Some(step)) = (chosen, self.run.steps.last_mut()) {
                planned = PlannedAction::Select { target: list.index, option: c.text, value: Some(c.value) };
                step.action = caption(&planned, self.run.language);
                if step.planned.is_some() {
                    step.planned = Some(planned);
                }
            }
            result?;
        } else {
            let open = commands_for(&PlannedAction::Tap { target: list.index }, &obs.extraction)?;
            let label = caption(&PlannedAction::Tap { target: list.index }, self.run.language);
            self.act(&label, &found, None, &open).await?;
            let shown = self.observe(&Reach::InView).await?;
            let item = super::choice::listed_option(&shown.extraction, &list, option)
                .ok_or_else(|| RunError::OptionNotShown { element: list.index, option: option.to_string() })?
                .clone();
            let tap = PlannedAction::Tap { target: item.index };
            let cmds = commands_for(&tap, &shown.extraction)?;
            let at = Found { point: item.rect.center(), element: Some(item) };
            self.act(&caption(&planned, self.run.language), &at, None, &cmds).await?;
        }
        Ok(if self.browser.stop_requested() { RunStatus::Stopped } else { RunStatus::Succeeded })
    }

    /// aiTap, aiDoubleClick, aiRightClick, aiHover: the element found, acted on at its point.
    async fn point_at(&mut self, task: &Task, locate: &str, obs: Observation) -> Result<(), RunError> {
        let (found, obs) = self.locate(locate, obs).await?;
        let action = point_action(&found, task);
        let cmds = commands_for(&action, &obs.extraction)?;
        self.act(&task.title(), &found, Some(&action), &cmds).await
    }

    /// aiInput with no element: typed into what has focus.
    async fn type_into_focus(&mut self, title: &str, value: &str, obs: &Observation) -> Result<(), RunError> {
        let typed = PlannedAction::Type { value: value.to_string(), submit: false };
        let cmds = commands_for(&typed, &obs.extraction)?;
        self.act(title, &Found::nowhere((0.0, 0.0)), Some(&typed), &cmds).await
    }

    /// aiInput: the field found, filled (or appended to, or cleared) where secrets may go.
    async fn fill(
        &mut self,
        title: &str,
        locate: &str,
        value: &str,
        mode: InputMode,
        obs: Observation,
    ) -> Result<(), RunError> {
        let (found, obs) = self.locate(locate, obs).await?;
        let frame = found.element.as_ref().map_or(obs.extraction.url.as_str(), |e| frame_address(e, &obs.extraction));
        self.options.limits().check_target(value, frame)?;
        let cmds = fill_at(found.point.0, found.point.1, value, mode, &obs.extraction)?;
        let typed = match mode {
            InputMode::Replace => {
                found.element.as_ref().map(|e| PlannedAction::Input { target: e.index, value: value.to_string() })
            }
            _ => None, // appending and clearing are not one plan action
        };
        self.act(title, &found, typed.as_ref(), &cmds).await
    }

    /// aiKeyboardPress: a click on the element first when the task names one, then the key.
    async fn press(&mut self, task: &Task, key: &str, locate: Option<&str>, obs: Observation) -> Result<(), RunError> {
        let mut cmds = Vec::new();
        let mut found = Found::nowhere((0.0, 0.0));
        if let Some(l) = locate {
            let (f, obs) = self.locate(l, obs).await?;
            cmds = commands_for(&point_action(&f, task), &obs.extraction)?;
            found = f;
        }
        cmds.extend(key_events(key)?);
        self.act(&task.title(), &found, None, &cmds).await
    }

    /// aiScroll: one wheel step in the element (or the page's middle), or, to an edge (`far`),
    /// long steps until nothing moves any more.
    async fn scroll(
        &mut self,
        title: &str,
        locate: Option<&str>,
        direction: ScrollDirection,
        far: bool,
        distance: Option<f64>,
        obs: Observation,
    ) -> Result<(), RunError> {
        let (found, mut obs) = match locate {
            Some(l) => {
                let (f, o) = self.locate(l, obs).await?;
                (Some(f), o)
            }
            None => (None, obs),
        };
        let vp = obs.extraction.viewport.clone();
        let at = found.as_ref().map(|f| f.point).unwrap_or((vp.width / 2.0, vp.height / 2.0));
        let step = if far { Some(vp.height.max(vp.width) * 4.0) } else { distance };
        let action = PlannedAction::ScrollAt { x: at.0, y: at.1, direction, distance: step };
        let target = found.unwrap_or(Found::nowhere(at));
        for i in 0..(if far { MAX_EDGE_STEPS } else { 1 }) {
            let cmds = commands_for(&action, &obs.extraction)?;
            let before = (
                obs.extraction.viewport.scroll_x,
                obs.extraction.viewport.scroll_y,
                std::mem::take(&mut obs.extraction.description),
            );
            self.act(title, &target, Some(&action), &cmds).await?;
            if !far {
                break;
            }
            obs = self.observe(&Reach::InView).await?;
            let v = &obs.extraction.viewport;
            if (v.scroll_x, v.scroll_y, &obs.extraction.description) == (before.0, before.1, &before.2) {
                self.note_last(self.run.language.say("note.reached_edge", &[("count", &(i + 1))]));
                break;
            }
        }
        Ok(())
    }

    /// aiDrag: from one element found to another.
    async fn drag(&mut self, title: &str, from: &str, to: &str, obs: Observation) -> Result<(), RunError> {
        let (a, obs) = self.locate(from, obs).await?;
        let (b, obs) = self.locate(to, obs).await?;
        let action = PlannedAction::DragAt { from: a.point, to: b.point };
        let cmds = commands_for(&action, &obs.extraction)?;
        self.act(title, &a, Some(&action), &cmds).await
    }

    /// aiUpload: a click on the element found, its file chooser answered with the files.
    async fn upload(&mut self, title: &str, locate: &str, files: &[String], obs: Observation) -> Result<(), RunError> {
        let (found, obs) = self.locate(locate, obs).await?;
        let (x, y) = found.point;
        let click = PlannedAction::TapAt { x, y, button: MouseButton::Left, clicks: 1 };
        let cmds = commands_for(&click, &obs.extraction)?;
        self.deliver(title, &found, None, Delivery::Files(&cmds, files)).await
    }

    /// aiLocate: where the element is, as the task's result.
    async fn locate_only(&mut self, locate: &str, obs: Observation) -> Result<(), RunError> {
        let (found, _) = self.locate(locate, obs).await?;
        let (x, y) = found.point;
        self.run.result = Some(json!({
            "center": [x, y],
            "rect": found.element.as_ref().map(|e| e.rect).unwrap_or(Rect::new(x - 8.0, y - 8.0, 16.0, 16.0)),
            "element": found.element.as_ref().map(TargetInfo::of),
        }));
        Ok(())
    }

    /// aiAssert: the verdict as the result; a statement that does not hold fails the task.
    async fn assert(&mut self, assertion: &str, obs: Observation) -> Result<(), RunError> {
        let (pass, reason) = self.judge(assertion, obs).await?;
        self.run.result = Some(json!({ "pass": pass, "reason": reason }));
        if !pass {
            return Err(RunError::AssertionFailed { reason });
        }
        Ok(())
    }

    /// aiWaitFor: judged again every `interval_ms` until it holds, or fails after `timeout_ms`.
    /// Stopped while waiting: returns, and the task ends as stopped.
    async fn wait_for(
        &mut self,
        assertion: &str,
        timeout_ms: u32,
        interval_ms: u32,
        mut obs: Observation,
    ) -> Result<(), RunError> {
        let started = self.browser.now_ms();
        loop {
            let (pass, reason) = self.judge(assertion, obs).await?;
            self.run.result = Some(json!({ "pass": pass, "reason": reason }));
            if pass {
                return Ok(());
            }
            let waited = self.browser.now_ms() - started;
            if waited + interval_ms as f64 > timeout_ms as f64 {
                return Err(RunError::StillFalse { waited_ms: waited, reason });
            }
            self.browser.wait(interval_ms).await;
            if self.browser.stop_requested() {
                return Ok(());
            }
            obs = self.observe(&Reach::InView).await?;
        }
    }
}

impl<B: Browser, M: ModelClient, W> Context<'_, B, M, W> {
    /// One model call; `Err` carries the failure, and a stop ends the task as stopped.
    async fn ask(
        &mut self,
        ask: &Ask<'_>,
        obs: &Observation,
        label: &str,
    ) -> Result<(String, Step, Option<crate::vision::ImageMapping>), RunError> {
        let (image, note) = self.model_image(obs);
        // Kept before the call: the host then sends the copy it holds for the record.
        let screenshot = image.as_ref().map(|i| self.keep_image(i));
        let page = prompt_page(&obs.extraction, self.options, image.is_some());
        let messages = task_messages(self.config.family, ask, &page, image.as_ref().map(|i| i.data_url.as_str()));
        match self.ask_model(&messages, note).await? {
            Some((text, mut step)) => {
                step.action = label.to_string();
                step.screenshot = screenshot;
                Ok((text, step, image.map(|i| i.mapping)))
            }
            None => Err(RunError::Model(crate::model::ModelError::Aborted)),
        }
    }

    /// The reference of the screenshot of `obs` as a model would get it (for the record).
    fn screenshot(&mut self, obs: &Observation) -> Option<String> {
        let (image, _) = self.model_image(obs);
        image.map(|i| self.keep_image(&i))
    }

    fn push(&mut self, step: Step) {
        self.run.steps.push(step);
        self.browser.report(self.run);
    }

    fn note_last(&mut self, note: String) {
        if let Some(s) = self.run.steps.last_mut() {
            s.note = Some(match s.note.take() {
                Some(n) => format!("{n}; {note}"),
                None => note,
            });
        }
        self.browser.report(self.run);
    }

    fn fail(&mut self, mut step: Step, error: RunError) -> RunError {
        step.status = StepStatus::Failed;
        step.error = Some(error.message(self.run.language));
        self.push(step);
        error
    }
}

impl<B: Browser, M: ModelClient> TaskContext<'_, B, M> {
    /// Finds the element a description names: by number for element-reading families, by a
    /// point for grounding families (snapped to the element under it). Off-screen elements
    /// are scrolled into view first.
    async fn locate(&mut self, what: &str, obs: Observation) -> Result<(Found, Observation), RunError> {
        let label = self.run.language.say("step.locate", &[("what", &what.trim())]);
        if let Some(number) = referenced_element(what) {
            // An agent's element number from its snapshot of this page: no model call.
            let Some(element) = obs.extraction.elements.iter().find(|e| e.index == number).cloned() else {
                let count = obs.extraction.elements.len();
                let step = Step { action: label, ..Step::new(StepKind::Plan, self.browser.now_ms()) };
                return Err(self.fail(step, RunError::UnknownElementNumber { number, count }));
            };
            // Recorded by what it is, not its number: exports and replays find it by these words.
            let words = element.summary();
            let note = self.run.language.say("note.by_number", &[]);
            let found = self.found_without_model(element, &words, &obs, &label, (FoundBy::Number, note)).await;
            return self.in_view(found, obs).await;
        }
        let hint = self.work.hint.take();
        let obs = self.seek_if_named_off_view(what, hint.as_deref(), obs).await?;
        if let Some(xpath) = hint.as_deref() {
            if let Some(found) = self.locate_by_xpath(xpath, what, &obs, &label).await {
                return self.in_view(found, obs).await;
            }
        }
        let located = self.find(what, obs, &label).await;
        if hint.is_some() && located.is_ok() {
            self.note_last(self.run.language.say("note.flow_xpath_missed", &[]));
        }
        located
    }

    /// The page read again for the element a flow's XPath (`hint`) or a cache entry names, when
    /// the in-view read does not hold it at that XPath: it may lie further off screen, and an
    /// element unique by its text in view may have twins beyond. Otherwise `obs` as it is.
    async fn seek_if_named_off_view(
        &mut self,
        what: &str,
        hint: Option<&str>,
        obs: Observation,
    ) -> Result<Observation, RunError> {
        if obs.extraction.holds_whole_page() {
            return Ok(obs);
        }
        let page = &obs.extraction;
        let mut sought = Vec::new();
        if let Some(xpath) = hint {
            let at = Sought { xpaths: vec![xpath.to_string()], ..Default::default() };
            if !page.elements.iter().any(|e| at.matches(e)) {
                sought.push(at);
            }
        }
        if let Some(key) = self.options.cache.locate(&page.url, what).filter(|_| self.options.reads_cache()) {
            if !matches!(key.resolve(page), Some((_, false))) {
                sought.push(key.sought());
            }
        }
        if sought.is_empty() {
            return Ok(obs);
        }
        self.observe(&Reach::Seeking(sought)).await
    }

    /// The element at the XPath a flow file gives, taken as it is (as Midscene does): no model call.
    async fn locate_by_xpath(&mut self, xpath: &str, what: &str, obs: &Observation, label: &str) -> Option<Found> {
        let element = obs
            .extraction
            .elements
            .iter()
            .find(|e| same_xpath(&e.xpath, xpath) || e.xpath_text.as_deref() == Some(xpath))?
            .clone();
        let note = self.run.language.say("note.flow_xpath", &[]);
        Some(self.found_without_model(element, what, obs, label, (FoundBy::Xpath, note)).await)
    }
}

impl<B: Browser, M: ModelClient, W> Context<'_, B, M, W> {
    /// Records a locate step answered without the model (a file's XPath, the cache), with the
    /// element's locators read in the page as a model's find records them: exports of a
    /// replayed flow write `getBy…` locators, and a later replay can find it by them.
    async fn found_without_model(
        &mut self,
        mut element: Element,
        what: &str,
        obs: &Observation,
        label: &str,
        (by, note): (FoundBy, String),
    ) -> Found {
        let point = element_point(&element, &obs.extraction).unwrap_or_default();
        let now = self.browser.now_ms();
        let screenshot = self.screenshot(obs);
        let target = self.read_target(&mut element).await;
        self.push(Step {
            action: label.to_string(),
            target: Some(target),
            note: Some(note),
            cached: by == FoundBy::Cache,
            found_by: Some(by),
            locate: Some(what.to_string()),
            screenshot,
            ..Step::new(StepKind::Plan, now)
        });
        Found { point, element: Some(element) }
    }

    /// A found element, scrolled into view first when it is off-screen.
    async fn in_view(&mut self, found: Found, obs: Observation) -> Result<(Found, Observation), RunError> {
        match found {
            Found { element: Some(e), .. } if element_point(&e, &obs.extraction).is_none() => self.reveal(e).await,
            found => Ok((found, obs)),
        }
    }

    /// Finds the element `what` describes with the run's model: its number for element-reading
    /// families, a point for grounding families (the element under it, when there is one).
    pub(super) async fn find(
        &mut self,
        what: &str,
        obs: Observation,
        label: &str,
    ) -> Result<(Found, Observation), RunError> {
        let label = label.to_string();
        if let Some(found) = self.locate_from_cache(what, &obs, &label).await {
            return self.in_view(found, obs).await;
        }
        // A model reading the element list is shown elements out of view too (a locate's reading).
        let obs = match obs.extraction.in_view_only && !self.config.family.grounds_on_image() {
            true => self.observe(&Reach::Locating).await?,
            false => obs,
        };
        let (text, mut step, mapping) = self.ask(&Ask::Locate(what), &obs, &label).await?;
        step.locate = Some(what.to_string());
        if self.config.family.grounds_on_image() {
            let plan = match parse_reply(self.config.family, &text, mapping.as_ref()) {
                Ok(p) => p,
                Err(e) => return Err(self.fail(step, RunError::Reply(e))),
            };
            step.thought = plan.thought.clone();
            let Some(point) = plan.actions.iter().find_map(pointed_at) else {
                let why = match plan.error.clone() {
                    Some(reason) => RunError::ModelCannot { reason },
                    None => RunError::PointedAtNothing { what: what.trim().to_string() },
                };
                return Err(self.fail(step, why));
            };
            let mut element = element_at(&obs.extraction.elements, point, Aim::Actionable).cloned();
            if let Some(e) = element.as_mut() {
                step.target = Some(self.read_target(e).await);
                self.keep(what, e, &obs);
            }
            step.note = Some(
                self.run
                    .language
                    .say("note.pointed_at", &[("x", &format!("{:.0}", point.0)), ("y", &format!("{:.0}", point.1))]),
            );
            self.push(step);
            // A point is on screen by construction: it came from the screenshot.
            return Ok((Found { point, element }, obs));
        }
        let number = match parse_located(&text) {
            Ok(Located::Element { thought, number }) => {
                step.thought = thought;
                number
            }
            Ok(Located::NotFound { thought, reason }) => {
                step.thought = thought;
                return Err(self.fail(step, RunError::NotFound { reason }));
            }
            Err(e) => return Err(self.fail(step, RunError::Reply(e))),
        };
        let Some(mut element) = obs.extraction.elements.iter().find(|e| e.index == number).cloned() else {
            let count = obs.extraction.elements.len();
            return Err(self.fail(step, RunError::NoSuchElement { number, count }));
        };
        step.target = Some(self.read_target(&mut element).await);
        self.push(step);
        self.keep(what, &element, &obs);
        if let Some(point) = element_point(&element, &obs.extraction) {
            return Ok((Found { point, element: Some(element) }, obs));
        }
        self.reveal(element).await
    }

    /// The element an earlier run located for this description, if it still matches.
    async fn locate_from_cache(&mut self, what: &str, obs: &Observation, label: &str) -> Option<Found> {
        if !self.options.reads_cache() {
            return None;
        }
        let key = self.options.cache.locate(&obs.extraction.url, what)?;
        let (element, moved) = key.resolve(&obs.extraction)?;
        let element = element.clone();
        if moved {
            self.keep(what, &element, obs); // heal: it is found where it is now
        }
        let note = self.run.language.say(if moved { "note.from_cache_element_moved" } else { "note.from_cache" }, &[]);
        Some(self.found_without_model(element, what, obs, label, (FoundBy::Cache, note)).await)
    }

    /// The located element as its step records it, read in the page (its locators, and the
    /// text path the page confirmed); the element keeps that path too, for the cache: it
    /// survives inserted siblings.
    async fn read_target(&mut self, element: &mut Element) -> TargetInfo {
        let mut target = TargetInfo::of(element);
        target.read_in_page(self.browser.locator_data(element).await);
        element.xpath_text.clone_from(&target.xpath_text);
        target
    }

    fn keep(&mut self, what: &str, element: &Element, obs: &Observation) {
        if self.options.writes_cache() {
            self.browser.remember(&CacheEntry::Locate {
                page: page_key(&obs.extraction.url),
                prompt: prompt_key(what),
                element: ElementKey::of(element),
                updated_ms: self.browser.now_ms(),
            });
        }
    }

    /// Scrolls an element into view and finds it again (by its stable id, else its XPath).
    async fn reveal(&mut self, element: Element) -> Result<(Found, Observation), RunError> {
        self.browser.reveal(&element).await?;
        dialogs::settle(self.run, self.browser, self.options.dialog_policy(), &mut Answered::default()).await?;
        let obs = self.observe(&Reach::InView).await?;
        let again = obs
            .extraction
            .elements
            .iter()
            .find(|e| e.id == element.id)
            .or_else(|| obs.extraction.elements.iter().find(|e| e.xpath == element.xpath))
            .cloned();
        let Some(again) = again else {
            return Err(RunError::ElementVanished { element: element.summary() });
        };
        let Some(point) = element_point(&again, &obs.extraction) else {
            return Err(RunError::ElementUnreachable { element: again.summary() });
        };
        self.note_last(self.run.language.say("note.scrolled_into_view", &[]));
        Ok((Found { point, element: Some(again) }, obs))
    }
}

impl<B: Browser, M: ModelClient> TaskContext<'_, B, M> {
    /// Sends the commands, waits for the page, and records the step.
    /// `planned`: the action as one plan action, where it is one (what an export repeats).
    async fn act(
        &mut self,
        label: &str,
        found: &Found,
        planned: Option<&PlannedAction>,
        cmds: &[InputCommand],
    ) -> Result<(), RunError> {
        self.deliver(label, found, planned, Delivery::Input(cmds)).await
    }

    async fn deliver(
        &mut self,
        label: &str,
        found: &Found,
        planned: Option<&PlannedAction>,
        delivery: Delivery<'_>,
    ) -> Result<(), RunError> {
        let started = self.browser.now_ms();
        let mut answered = Answered::default();
        let result = dialogs::act(self.run, self.browser, delivery, self.options.dialog_policy(), &mut answered)
            .await
            .map_err(|e: Interrupted| RunError::from(e));
        let note = join_notes(answered.note(), result.as_ref().ok().and_then(Settled::note));
        let result = result.map(|_| ());
        self.push(Step {
            status: if result.is_ok() { StepStatus::Ok } else { StepStatus::Failed },
            action: label.to_string(),
            target: found.element.as_ref().map(TargetInfo::of),
            error: result.as_ref().err().map(|e| e.message(self.run.language)),
            duration_ms: self.browser.now_ms() - started,
            note,
            planned: result.is_ok().then(|| planned.cloned()).flatten(),
            asked: answered.asked,
            ..Step::new(StepKind::Action, started)
        });
        result
    }

    async fn read(&mut self, demand: &str, expect: Expect, obs: Observation) -> Result<(), RunError> {
        let label = self.run.language.say("step.read", &[]);
        let (text, mut step, _) = self.ask(&Ask::Query(demand), &obs, &label).await?;
        match parse_answer(&text, expect) {
            Ok(answer) => {
                step.thought = answer.thought;
                self.push(step);
                self.run.result = Some(answer.data);
                Ok(())
            }
            Err(e) => Err(self.fail(step, RunError::Answer(e))),
        }
    }

    async fn judge(&mut self, statement: &str, obs: Observation) -> Result<(bool, String), RunError> {
        let label = self.run.language.say("step.check", &[]);
        let (text, mut step, _) = self.ask(&Ask::Assert(statement), &obs, &label).await?;
        match parse_verdict(&text) {
            Ok(v) => {
                step.thought = v.thought;
                step.status = if v.pass { StepStatus::Ok } else { StepStatus::Failed };
                let reason = if v.reason.is_empty() {
                    (if v.pass { "holds" } else { "does not hold" }).to_string()
                } else {
                    v.reason
                };
                step.note = Some(
                    self.run.language.say(if v.pass { "note.passes" } else { "note.fails" }, &[("reason", &reason)]),
                );
                self.push(step);
                Ok((v.pass, reason))
            }
            Err(e) => Err(self.fail(step, RunError::Verdict(e))),
        }
    }
}

/// The point a grounding model's action names.
fn pointed_at(a: &PlannedAction) -> Option<(f64, f64)> {
    match a {
        PlannedAction::TapAt { x, y, .. } | PlannedAction::HoverAt { x, y } | PlannedAction::ScrollAt { x, y, .. } => {
            Some((*x, *y))
        }
        PlannedAction::DragAt { from, .. } => Some(*from),
        _ => None,
    }
}
