use super::*;
use crate::agent::replay::cache::CacheEntry;
use crate::agent::replay::trajectory::{replay_cache, Trajectory, TrajectoryError, FORMAT, IMAGE_SCHEME};
use crate::agent::tasks::run_task;
use crate::vocab::tasks::Task;

const TYPE_THEN_MISS: &str = r#"{"thought":"type, then press a button that is not there","actions":[{"type":"Input","target":1,"value":"buy milk"},{"type":"Tap","target":99}],"done":false}"#;
const ENTER: &str = r#"{"thought":"submit","actions":[{"type":"KeyPress","key":"Enter"}],"done":true}"#;

#[test]
fn screenshots_are_kept_once_and_named_by_reference() {
    let mut browser = todo_browser();
    let model = ScriptedModel::new(vec![Ok(ADD_MILK)]);
    let run = block_on(run_instruction(
        "r".into(),
        "add a todo 'buy milk'",
        &RunOptions::default(),
        &config(),
        &mut browser,
        &model,
    ));
    assert_eq!(run.status, RunStatus::Succeeded);
    // Before (what the model saw) and after the round: two different screens, kept once each.
    assert_eq!(browser.store.images.len(), 2);
    assert_eq!(run.steps[0].screenshot.as_deref(), Some("img-0"));
    assert_eq!(run.steps[2].screenshot.as_deref(), Some("img-1"), "the round's last action shows the page after it");
    let exchange = run.steps[0].exchange.as_ref().expect("the model call is recorded");
    assert_eq!(exchange.reply, ADD_MILK);
    let json = serde_json::to_string(&run).unwrap();
    assert!(!json.contains("data:image"), "no inline image in the record");
    assert!(json.contains(&format!("{IMAGE_SCHEME}img-0")));
    assert_eq!(Trajectory::references(&run), ["img-0", "img-1"]);
    assert_eq!(run.steps[1].planned, Some(PlannedAction::Input { target: 1, value: "buy milk".into() }));
}

#[test]
fn a_saved_run_replays_with_no_model_call() {
    let mut browser = todo_browser();
    let model = ScriptedModel::new(vec![Ok(TYPE_THEN_MISS), Ok(ENTER)]);
    let options = RunOptions { use_cache: false, ..Default::default() };
    let run = block_on(run_instruction("r".into(), "add a todo 'buy milk'", &options, &config(), &mut browser, &model));
    assert_eq!(run.status, RunStatus::Succeeded, "{:?}", run.error);
    assert_eq!(browser.page.items, ["buy milk"]);
    // Saved and loaded as JSON, then replayed on a fresh page by its own entries.
    let saved = serde_json::to_string(&Trajectory { format: FORMAT, run, images: Default::default() }).unwrap();
    let loaded = Trajectory::from_json(&saved).unwrap();
    let cache = replay_cache(&loaded.run, 1.0).unwrap();
    let mut fresh = todo_browser();
    let silent = ScriptedModel::new(vec![]);
    let replay = block_on(run_instruction(
        "r2".into(),
        &loaded.run.instruction,
        &RunOptions { cache, ..Default::default() },
        &config(),
        &mut fresh,
        &silent,
    ));
    assert_eq!(replay.status, RunStatus::Succeeded, "{:?}", replay.error);
    assert_eq!(replay.model_calls, 0);
    assert_eq!(fresh.page.items, ["buy milk"], "the typing before the failed tap was repeated too");
}

#[test]
fn steps_a_person_recorded_replay_one_round_each_with_no_model_call() {
    use crate::agent::recorder::{record_event, ManualEvent, Picked};
    let mut browser = todo_browser();
    let seen = block_on(browser.observe(&Reach::InView)).unwrap().extraction;
    let picked = Some(Picked { info: TargetInfo::of(&seen.elements[0]), sensitive: false, field: String::new() });
    let mut run = Run::new("m".into(), "Recorded steps", 0.0);
    run.url = seen.url.clone();
    run.status = RunStatus::Succeeded;
    record_event(&mut run, ManualEvent::Tap { target: picked.clone(), hovered: None }, 1.0);
    record_event(&mut run, ManualEvent::Input { target: picked, value: "buy milk".into() }, 2.0);
    record_event(&mut run, ManualEvent::Key { key: "Enter".into(), target: None }, 3.0);
    let cache = replay_cache(&run, 1.0).unwrap();
    let silent = ScriptedModel::new(vec![]);
    // No model configured at all: a replay that never needs one runs without it.
    let replay = block_on(run_instruction(
        "r2".into(),
        &run.instruction,
        &RunOptions { cache, ..Default::default() },
        &ModelConfig::default(),
        &mut browser,
        &silent,
    ));
    assert_eq!(replay.status, RunStatus::Succeeded, "{:?}", replay.error);
    assert_eq!(replay.model_calls, 0);
    assert_eq!(browser.page.items, ["buy milk"]);
    assert_eq!(
        replay.steps.iter().filter(|s| s.kind == StepKind::Plan).count(),
        3,
        "the page is looked at before each step"
    );
}

/// `run` replayed on `browser` from its own steps, with no model configured at all.
fn replayed_without_model(browser: &mut TodoBrowser, run: &Run) -> Run {
    let options = RunOptions { cache: replay_cache(run, 1.0).unwrap(), ..Default::default() };
    block_on(run_instruction(
        "r".into(),
        &run.instruction,
        &options,
        &ModelConfig::default(),
        browser,
        &ScriptedModel::new(vec![]),
    ))
}

/// The todo page's input recorded by hand (tap, type, Enter), its XPath and fingerprint made
/// stale as a changed page makes them, with `locators` as the step recorded them.
fn recorded_with_stale_paths(locators: Option<crate::describe::locators::Locators>) -> (TodoBrowser, Run) {
    use crate::agent::recorder::{record_event, ManualEvent, Picked};
    let mut browser = todo_browser();
    let seen = block_on(browser.observe(&Reach::InView)).unwrap().extraction;
    let mut info = TargetInfo::of(&seen.elements[0]);
    info.xpath = "/html[1]/body[1]/div[3]/input[1]".into();
    info.summary = "input \"New todo\"".into();
    info.locators = locators;
    let picked = Some(Picked { info, sensitive: false, field: String::new() });
    let mut run = Run::new("m".into(), "Recorded steps", 0.0);
    run.url = seen.url.clone();
    run.status = RunStatus::Succeeded;
    record_event(&mut run, ManualEvent::Tap { target: picked.clone(), hovered: None }, 1.0);
    record_event(&mut run, ManualEvent::Input { target: picked, value: "buy milk".into() }, 2.0);
    record_event(&mut run, ManualEvent::Key { key: "Enter".into(), target: None }, 3.0);
    (browser, run)
}

#[test]
fn with_no_model_a_recorded_element_whose_paths_went_stale_is_found_by_its_locators() {
    use crate::describe::locators::{Locators, Named};
    let placeholder = Named { text: "What needs to be done?".into(), cut: false, exact: false, nth: None };
    let locators = Locators { placeholder: Some(placeholder), ..Default::default() };
    let (mut browser, run) = recorded_with_stale_paths(Some(locators));
    let replay = replayed_without_model(&mut browser, &run);
    assert_eq!(replay.status, RunStatus::Succeeded, "{:?}", replay.error);
    assert_eq!((replay.model_calls, browser.page.items.clone()), (0, vec!["buy milk".to_string()]));
}

#[test]
fn with_no_model_a_replay_whose_element_is_lost_says_which_step() {
    let (mut browser, run) = recorded_with_stale_paths(None);
    let replay = replayed_without_model(&mut browser, &run);
    assert_eq!(replay.status, RunStatus::Failed);
    let error = replay.error.expect("the failure is recorded");
    assert_eq!(error.code, "replay_element_lost", "not model_settings: {error:?}");
    assert!(error.message.starts_with("step 1: input \"New todo\" is not on the page any more"), "{}", error.message);
    assert!(browser.page.items.is_empty(), "nothing typed into a field it could not verify");
}

#[test]
fn a_recording_longer_than_the_round_limit_replays_to_its_end() {
    use crate::agent::recorder::{record_event, ManualEvent, Picked};
    let mut browser = todo_browser();
    let seen = block_on(browser.observe(&Reach::InView)).unwrap().extraction;
    let picked = Some(Picked { info: TargetInfo::of(&seen.elements[0]), sensitive: false, field: String::new() });
    let mut run = Run::new("m".into(), "Recorded steps", 0.0);
    run.url = seen.url.clone();
    run.status = RunStatus::Succeeded;
    for i in 0..4 {
        record_event(&mut run, ManualEvent::Tap { target: picked.clone(), hovered: None }, 10.0 * i as f64);
        record_event(
            &mut run,
            ManualEvent::Input { target: picked.clone(), value: format!("todo {i}") },
            10.0 * i as f64 + 2.0,
        );
        record_event(&mut run, ManualEvent::Key { key: "Enter".into(), target: None }, 10.0 * i as f64 + 4.0);
    }
    let options = RunOptions { cache: replay_cache(&run, 1.0).unwrap(), max_rounds: 5, ..Default::default() };
    let replay = block_on(run_instruction(
        "r".into(),
        &run.instruction,
        &options,
        &ModelConfig::default(),
        &mut browser,
        &ScriptedModel::new(vec![]),
    ));
    assert_eq!(
        replay.status,
        RunStatus::Succeeded,
        "12 recorded steps against a limit of 5 rounds: {:?}",
        replay.error
    );
    assert_eq!(browser.page.items.len(), 4);
}

#[test]
fn a_run_the_person_answered_replays_up_to_the_question() {
    let mut browser = todo_browser();
    browser.person.answers = vec![ask::Answer::Text { text: "eggs".into() }];
    let ask = r#"{"thought":"which?","actions":[{"type":"Input","target":1,"value":"x"},{"type":"AskUser","question":"which item?"}],"done":false}"#;
    let model = ScriptedModel::new(vec![Ok(ask), Ok(ENTER)]);
    let run =
        block_on(run_instruction("r".into(), "add an item", &RunOptions::default(), &config(), &mut browser, &model));
    assert_eq!(run.status, RunStatus::Succeeded, "{:?}", run.error);
    let Cache(entries) = replay_cache(&run, 1.0).unwrap();
    let [CacheEntry::Plan { rounds, .. }] = entries.as_slice() else { panic!("{entries:?}") };
    assert_eq!(rounds.len(), 1);
    assert_eq!(rounds[0].actions.len(), 1, "the typing before the question");
    assert!(!rounds[0].done, "the model takes over where the person answered");
}

#[test]
fn a_task_run_replays_through_its_located_elements() {
    let mut browser = todo_browser();
    let task = Task::Tap { locate: "the Load more button".into() };
    let model = ScriptedModel::new(vec![Ok(r#"{"thought":"it is the button","element":2}"#)]);
    let run = block_on(run_task(
        "t".into(),
        &task,
        &RunOptions { use_cache: false, ..Default::default() },
        &config(),
        &mut browser,
        &model,
    ));
    assert_eq!(run.status, RunStatus::Succeeded, "{:?}", run.error);
    assert_eq!(run.task, Some(task.clone()));
    let cache = replay_cache(&run, 1.0).unwrap();
    assert_eq!(cache.0.len(), 1);
    let mut fresh = todo_browser();
    let replay = block_on(run_task(
        "t2".into(),
        &task,
        &RunOptions { cache, ..Default::default() },
        &config(),
        &mut fresh,
        &ScriptedModel::new(vec![]),
    ));
    assert_eq!(replay.status, RunStatus::Succeeded, "{:?}", replay.error);
    assert_eq!(replay.model_calls, 0);
}

#[test]
fn a_run_that_did_nothing_has_nothing_to_replay() {
    let mut browser = todo_browser();
    let model = ScriptedModel::new(vec![Err(ModelError::Http { status: 500, message: "down".into() })]);
    let run = block_on(run_instruction("r".into(), "add", &RunOptions::default(), &config(), &mut browser, &model));
    assert!(matches!(replay_cache(&run, 1.0), Err(TrajectoryError::NothingToReplay(_))));
}

#[test]
fn a_loaded_trajectory_keeps_its_images_under_its_own_run() {
    let mut browser = todo_browser();
    let run = block_on(run_instruction(
        "r".into(),
        "add a todo 'buy milk'",
        &RunOptions::default(),
        &config(),
        &mut browser,
        &ScriptedModel::new(vec![Ok(ADD_MILK)]),
    ));
    let images = browser.store.images.iter().enumerate().map(|(n, url)| (format!("img-{n}"), url.clone())).collect();
    let mut t = Trajectory { format: FORMAT, run, images };
    t.rekey("r/");
    assert_eq!(Trajectory::references(&t.run), ["r/0", "r/1"]);
    assert_eq!(t.images.keys().collect::<Vec<_>>(), ["r/0", "r/1"]);
    assert_eq!(t.images["r/0"], browser.store.images[0]);
}

#[test]
fn unusable_files_are_refused_with_a_reason() {
    let err = |v: serde_json::Value| Trajectory::from_json(&v.to_string()).unwrap_err().to_string();
    assert!(Trajectory::from_json("not json").unwrap_err().to_string().starts_with("not a Sightline trajectory"));
    assert!(err(serde_json::json!({"run": {}})).contains("no \"format\""));
    assert!(err(serde_json::json!({"format": 99, "run": {}})).contains("format 99"));
    assert!(err(serde_json::json!({"format": FORMAT, "run": {"id": 1}})).starts_with("not a Sightline trajectory"));
    let run = Run::new("r".into(), "x", 0.0);
    let bad = serde_json::json!({"format": FORMAT, "run": run, "images": {"img-0": "javascript:alert(1)"}});
    assert!(err(bad).contains("img-0"));
    // A replay opens the run's page first: a file may not point it at a local file or a script.
    for url in ["file:///etc/passwd", "javascript:alert(1)", "chrome://settings/", "data:text/html,hi"] {
        let run = Run { url: url.into(), ..Run::new("r".into(), "x", 0.0) };
        let e = err(serde_json::json!({"format": FORMAT, "run": run}));
        assert!(e.contains(url) && e.contains("not a web address"), "{e}");
    }
    let run = Run { url: "https://shop.example/cart".into(), ..Run::new("r".into(), "x", 0.0) };
    assert!(Trajectory::from_json(&serde_json::json!({"format": FORMAT, "run": run}).to_string()).is_ok());
}

/// The todo page's steps recorded by hand (tap, type "buy milk", Enter), then a check on the
/// first row's text reading `expected`, as the person's Check button records it.
fn recorded_with_a_check(expected: &str) -> (TodoBrowser, Run) {
    use crate::agent::recorder::{record_event, ManualEvent, Picked};
    use crate::vocab::actions::ElementCheck;
    let mut browser = todo_browser();
    let seen = block_on(browser.observe(&Reach::InView)).unwrap().extraction;
    let field = Some(Picked { info: TargetInfo::of(&seen.elements[0]), sensitive: false, field: String::new() });
    // The row as the page showed it when the person clicked it to check it.
    browser.page.items = vec!["buy milk".into()];
    let shown = block_on(browser.observe(&Reach::InView)).unwrap().extraction;
    let row = shown.elements.iter().find(|e| e.content == "buy milk").expect("the row");
    let row = Some(Picked { info: TargetInfo::of(row), sensitive: false, field: String::new() });
    browser.page.items.clear();
    let mut run = Run::new("m".into(), "Recorded steps", 0.0);
    run.url = seen.url.clone();
    run.status = RunStatus::Succeeded;
    record_event(&mut run, ManualEvent::Tap { target: field.clone(), hovered: None }, 1.0);
    record_event(&mut run, ManualEvent::Input { target: field, value: "buy milk".into() }, 2.0);
    record_event(&mut run, ManualEvent::Key { key: "Enter".into(), target: None }, 3.0);
    let check = ManualEvent::Check { target: row, check: ElementCheck::Text, expected: expected.into() };
    record_event(&mut run, check, 4.0);
    (browser, run)
}

#[test]
fn a_check_the_person_recorded_replays_with_no_model_and_fails_when_the_page_differs() {
    for (expected, holds) in [("buy milk", true), ("buy eggs", false)] {
        let (mut browser, run) = recorded_with_a_check(expected);
        let replay = replayed_without_model(&mut browser, &run);
        assert_eq!(browser.page.items, ["buy milk"], "the steps before the check ran");
        assert_eq!(replay.model_calls, 0);
        if holds {
            assert_eq!(replay.status, RunStatus::Succeeded, "{:?}", replay.error);
            continue;
        }
        assert_eq!(replay.status, RunStatus::Failed);
        let error = replay.error.expect("the failure is recorded");
        assert_eq!(error.code, "check_failed", "{error:?}");
        assert!(error.message.contains("\u{201c}buy milk\u{201d}, not \u{201c}buy eggs\u{201d}"), "{}", error.message);
    }
}
