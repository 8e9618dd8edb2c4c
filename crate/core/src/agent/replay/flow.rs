//! A flow run: a flow file's steps one after another, as one run. Each item runs as it would
//! alone (an instruction through the planning loop, a task through `tasks`) and adds its steps
//! to the run; [`FlowRecord`] says which steps belong to which item and how each ended, so
//! the panel, exports and replays read a flow run item by item.

use crate::agent::browser::{Browser, ClockHost, PageError, Settled, StoreHost};
use crate::agent::context::Context;
use crate::agent::error::RunError;
use crate::agent::options::RunOptions;
use crate::agent::record::{FlowItem, FlowRecord, Run, RunStatus, Step, StepKind, StepStatus};
use crate::agent::run_loop::carry_out;
use crate::agent::steps::{caption, conclude, join_notes};
use crate::agent::{dialogs, tasks};
use crate::flow::{Flow, FlowHistory, FlowStep};
use crate::model::{ModelClient, ModelConfig};
use crate::vocab::actions::PlannedAction;
use serde_json::Value;

/// Runs every item of `flow` in order. A failed item ends the flow, unless its task says
/// `continueOnError` (then its task is left and the next begins, and the flow fails at the end).
/// Answers of items with a `name` are the run's `result`, by name.
pub async fn run_flow<B: Browser, M: ModelClient>(
    id: String,
    flow: &Flow,
    options: &RunOptions,
    config: &ModelConfig,
    browser: &mut B,
    model: &M,
) -> Run {
    // The caller's dialog answer first, else the file's (`web.dialogs`), else ask. Upload
    // paths are the file's, never typed by the person.
    // The file's `agent:` context joins the person's; its round limit is the file's own.
    let context = match (&flow.context, options.context.trim().is_empty()) {
        (Some(file), true) => file.clone(),
        (Some(file), false) => format!("{}\n\n{file}", options.context),
        (None, _) => options.context.clone(),
    };
    // The file's cache strategy (`agent: cache`) narrows the run's: it never turns on a cache
    // the person or the caller turned off.
    let (reads, writes) = flow.cache.as_ref().map_or((true, true), |c| (c.read, c.write));
    let options = &RunOptions {
        dialogs: options.dialogs.or(flow.dialogs),
        typed_uploads: false,
        context,
        max_rounds: flow.max_rounds.unwrap_or(options.max_rounds),
        use_cache: options.use_cache && (reads || writes),
        cache_reads: options.cache_reads && reads,
        cache_writes: options.cache_writes && writes,
        ..options.clone()
    };
    let mut guarded = options.guard(browser);
    let browser = &mut guarded;
    let mut run = Run::new(id, &flow.title(), browser.now_ms());
    run.language = options.language;
    run.flow = Some(FlowRecord { flow: flow.clone(), items: Vec::new() });
    browser.report(&run);
    let mut failures: Vec<RunError> = Vec::new();
    let mut stopped = false;
    // An item the model called done that the page did not confirm: the flow is not confirmed either.
    let mut unconfirmed = false;
    'tasks: for (ti, flow_task) in flow.tasks.iter().enumerate() {
        for (si, step) in flow_task.steps.iter().enumerate() {
            if browser.stop_requested() {
                stopped = true;
                break 'tasks;
            }
            let item = FlowItem {
                task: ti,
                step: si,
                title: step.title(),
                status: RunStatus::Running,
                error: None,
                result: None,
                url: String::new(),
                first_step: run.steps.len(),
                steps: 0,
                started_ms: browser.now_ms(),
                duration_ms: 0.0,
            };
            items(&mut run).push(item);
            browser.report(&run);
            // While an item runs, the run's url and result are its own: the url is filled by
            // its first look at the page, the result by its task. The flow's come back after.
            let start_url = std::mem::take(&mut run.url);
            let answers = run.result.take();
            let outcome = match step {
                FlowStep::Act { instruction } => {
                    carry_out(&mut Context::new(&mut run, options, config, browser, model), instruction).await
                }
                FlowStep::Task { task, xpath, .. } => {
                    let xpath = xpath.as_deref().filter(|_| options.flow_xpaths);
                    tasks::perform(&mut Context::new(&mut run, options, config, browser, model), task, xpath).await
                }
                FlowStep::Sleep { ms } => {
                    let started = browser.now_ms();
                    browser.wait(*ms).await;
                    run.steps.push(Step {
                        action: step.title(),
                        planned: Some(PlannedAction::Wait { ms: *ms }),
                        duration_ms: browser.now_ms() - started,
                        ..Step::new(StepKind::Action, started)
                    });
                    Ok(if browser.stop_requested() { RunStatus::Stopped } else { RunStatus::Succeeded })
                }
                FlowStep::Navigate { url } => {
                    go(&mut run, PlannedAction::Navigate { url: url.clone() }, options, browser).await
                }
                FlowStep::History { go: to } => {
                    let action = match to {
                        FlowHistory::Back => PlannedAction::Back,
                        FlowHistory::Forward => PlannedAction::Forward,
                        FlowHistory::Reload => PlannedAction::Reload,
                    };
                    go(&mut run, action, options, browser).await
                }
                FlowStep::Select { xpath, option, .. } => {
                    let xpath = Some(xpath.as_str()).filter(|_| options.flow_xpaths);
                    let mut ctx = Context::new(&mut run, options, config, browser, model);
                    tasks::choose(&mut ctx, &step.describe(), option, xpath).await
                }
                FlowStep::Script { code, .. } => script(&mut run, flow, step, code, options, browser).await,
            };
            let item_url = std::mem::replace(&mut run.url, start_url);
            if run.url.is_empty() {
                run.url = item_url.clone();
            }
            let result = std::mem::replace(&mut run.result, answers);
            let named = match step {
                FlowStep::Task { name, .. } | FlowStep::Script { name, .. } => name.as_ref(),
                _ => None,
            };
            if let (Ok(RunStatus::Succeeded), Some(name), Some(value)) = (&outcome, named, &result) {
                if let Some(answers) =
                    run.result.get_or_insert_with(|| Value::Object(Default::default())).as_object_mut()
                {
                    answers.insert(name.clone(), value.clone());
                }
            }
            let (steps, now, run_language) = (run.steps.len(), browser.now_ms(), run.language);
            let item = items(&mut run).last_mut().expect("pushed above");
            item.url = item_url;
            item.steps = steps - item.first_step;
            item.duration_ms = now - item.started_ms;
            item.result = result;
            let failed = match outcome {
                Ok(status) => {
                    stopped = status == RunStatus::Stopped;
                    unconfirmed |= status == RunStatus::Unconfirmed;
                    item.status = status;
                    false
                }
                Err(error) => {
                    item.status = RunStatus::Failed;
                    item.error = Some(error.record_for(run_language, crate::agent::advice::Where::FlowFile));
                    failures.push(RunError::FlowItem { title: item.title.clone(), error: Box::new(error) });
                    true
                }
            };
            browser.report(&run);
            match (stopped, failed) {
                (true, _) => break 'tasks,
                (_, true) if flow_task.continue_on_error => continue 'tasks,
                (_, true) => break 'tasks,
                _ => {}
            }
        }
    }
    let outcome = match failures.as_slice() {
        _ if stopped => Ok(RunStatus::Stopped),
        [] if unconfirmed => Ok(RunStatus::Unconfirmed),
        [] => Ok(RunStatus::Succeeded),
        [one] => Err(one.clone()),
        [first, rest @ ..] => Err(RunError::FlowItems { failed: rest.len() + 1, first: Box::new(first.clone()) }),
    };
    conclude(run, outcome, browser)
}

/// Opens an address, goes back or forward, or reloads (`action`), and waits for the page, as
/// one action step (leaving may raise beforeunload).
async fn go<B: Browser>(
    run: &mut Run,
    action: PlannedAction,
    options: &RunOptions,
    browser: &mut B,
) -> Result<RunStatus, RunError> {
    let started = browser.now_ms();
    let mut answered = dialogs::Answered::default();
    let policy = options.dialog_policy();
    // An address as input to the page (as before); back, forward and reload with the browser's
    // own history, as the planning loop does them.
    let history = action.go().filter(|_| !matches!(action, PlannedAction::Navigate { .. }));
    let result = match history {
        Some(to) => {
            dialogs::act(run, browser, dialogs::Delivery::Go(&to), policy, &mut answered).await.map_err(RunError::from)
        }
        None => match crate::action::commands_for(&action, &crate::describe::Extraction::default()) {
            Ok(cmds) => dialogs::act(run, browser, dialogs::Delivery::Input(&cmds), policy, &mut answered)
                .await
                .map_err(RunError::from),
            Err(e) => Err(RunError::from(e)),
        },
    };
    run.steps.push(Step {
        status: if result.is_ok() { StepStatus::Ok } else { StepStatus::Failed },
        action: caption(&action, run.language),
        error: result.as_ref().err().map(|e| e.message(run.language)),
        note: join_notes(answered.note(), result.as_ref().ok().and_then(Settled::note)),
        planned: result.is_ok().then_some(action),
        duration_ms: browser.now_ms() - started,
        asked: answered.asked,
        ..Step::new(StepKind::Action, started)
    });
    result.map(|_| RunStatus::Succeeded)
}

/// Runs a flow's script in the page, as one action step, where the person allowed this very
/// flow (`RunOptions::scripts_allowed` is its `flow_hash`): its value is the item's result.
async fn script<B: Browser>(
    run: &mut Run,
    flow: &Flow,
    step: &FlowStep,
    code: &str,
    options: &RunOptions,
    browser: &mut B,
) -> Result<RunStatus, RunError> {
    let started = browser.now_ms();
    // Judged by what the flow runs, not by the hash it carries (a saved run's may be edited).
    let allowed = options.scripts_allowed.as_deref() == Some(crate::flow::flow_hash(flow).as_str());
    let mut answered = dialogs::Answered::default();
    let result = if allowed {
        match browser.evaluate(code).await {
            // The script may have navigated or changed the page: wait for it as after input.
            Ok(value) => dialogs::settle(run, browser, options.dialog_policy(), &mut answered)
                .await
                .map(|settled| (value, settled))
                .map_err(RunError::from),
            Err(PageError::Failed(detail)) => Err(RunError::ScriptFailed { detail }),
            Err(other) => Err(RunError::Page(other)),
        }
    } else {
        Err(RunError::ScriptNotAllowed)
    };
    let title = step.title();
    let head = title.strip_prefix("javascript ").unwrap_or(&title);
    run.steps.push(Step {
        status: if result.is_ok() { StepStatus::Ok } else { StepStatus::Failed },
        action: run.language.say("step.script", &[("title", &head)]),
        error: result.as_ref().err().map(|e| e.message(run.language)),
        note: join_notes(answered.note(), result.as_ref().ok().and_then(|(_, settled)| settled.note())),
        duration_ms: browser.now_ms() - started,
        asked: answered.asked,
        ..Step::new(StepKind::Action, started)
    });
    let (value, _) = result?;
    run.result = Some(value);
    Ok(RunStatus::Succeeded)
}

/// How a batch summary names a flow run's end, as Midscene's does: `success`; `partialFailed`
/// when every item that failed belongs to a task with `continueOnError` (the flow went on to its
/// end); else `failed`.
pub fn batch_result_type(run: &Run) -> &'static str {
    if run.status == RunStatus::Succeeded {
        return "success";
    }
    let Some(record) = &run.flow else { return "failed" };
    let failed: Vec<&FlowItem> = record.items.iter().filter(|i| i.status == RunStatus::Failed).collect();
    let went_on = |i: &&FlowItem| record.flow.tasks.get(i.task).is_some_and(|t| t.continue_on_error);
    if run.status == RunStatus::Failed && !failed.is_empty() && failed.iter().all(went_on) {
        "partialFailed"
    } else {
        "failed"
    }
}

fn items(run: &mut Run) -> &mut Vec<FlowItem> {
    &mut run.flow.as_mut().expect("a flow run").items
}
