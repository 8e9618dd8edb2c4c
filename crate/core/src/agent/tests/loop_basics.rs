//! The loop itself: plans acted on, replies rejected and recovered, errors, stops, scrolling,
//! questions to the person and grounding points.

use super::*;

#[test]
fn adds_a_todo_in_one_plan() {
    let mut browser = todo_browser();
    let model = ScriptedModel::new(vec![Ok(ADD_MILK)]);
    let run = block_on(run_instruction(
        "r1".into(),
        "add a todo 'buy milk'",
        &RunOptions::default(),
        &config(),
        &mut browser,
        &model,
    ));
    assert_eq!(run.status, RunStatus::Succeeded, "{:?}", run.error);
    assert_eq!(browser.page.items, ["buy milk"]);
    // Planned, acted, then checked on the page read afterwards.
    assert_eq!(run.steps.len(), 4);
    assert_eq!(run.steps[0].thought, "type into the todo input");
    assert_eq!(run.steps[1].action, "Input \"buy milk\" into [1]");
    assert_eq!(run.steps[1].target.as_ref().unwrap().summary, "input \"What needs to be done?\"");
    assert_eq!(run.steps[2].action, "Press Enter");
    assert_eq!(
        (run.steps[3].action.as_str(), run.steps[3].thought.as_str()),
        ("Check: the goal is shown", "the page shows it")
    );
    assert_eq!(
        run.check,
        Some(crate::agent::record::SuccessCheck { confirmed: true, reason: "the page shows it".into() })
    );
    let checked = model.checks.borrow();
    let ContentPart::Text { text } = &checked[0][1].content[0] else { panic!() };
    assert!(
        text.contains("<instruction>\nadd a todo 'buy milk'\n</instruction>") && text.contains("buy milk"),
        "the check reads the page after: {text}"
    );
    drop(checked);
    assert_eq!(run.model_calls, 2);
    assert_eq!(run.usage.prompt_tokens, 200);
    assert_eq!(run.cost, None, "\"mock\" is not in the price table");
    let sent = model.user_text(0);
    assert!(
        sent.contains("add a todo 'buy milk'") && sent.contains("[1] input placeholder=\"What needs to be done?\"")
    );
    assert!(browser.store.reports.len() >= 4, "the panel hears of every step");
    // The model saw the capture, marked: the input's box is drawn in marker 1's colour.
    let url = model.image_url(0).expect("a screenshot was sent");
    let png = vision::base64::decode(url.strip_prefix("data:image/png;base64,").unwrap()).unwrap();
    let img = image::load_from_memory(&png).unwrap().into_rgb8();
    assert_eq!(img.dimensions(), (1280, 800));
    assert_eq!(img.get_pixel(300, 100).0, vision::markers::color_of(1));
}

/// The element's locators are read before the action (through the run's guard, which screens
/// the words as page text) and kept with the step for the exports.
#[test]
fn the_step_keeps_the_locators_read_before_acting() {
    use crate::describe::locators::{LocatorData, Named, RoleName};
    let mut browser = todo_browser();
    browser.page.locator_data = Some(LocatorData {
        role: Some("textbox".into()),
        name: Some("What needs to be done?".into()),
        role_names: vec!["What needs to be done?".into()],
        role_index: Some(0),
        ..Default::default()
    });
    let model = ScriptedModel::new(vec![Ok(ADD_MILK)]);
    let run =
        block_on(run_instruction("r1".into(), "add milk", &RunOptions::default(), &config(), &mut browser, &model));
    assert_eq!(run.status, RunStatus::Succeeded, "{:?}", run.error);
    let locators = run.steps[1].target.as_ref().unwrap().locators.as_ref().expect("locators kept");
    assert_eq!(
        locators.role,
        Some(RoleName {
            role: "textbox".into(),
            name: Named { text: "What needs to be done?".into(), cut: false, exact: false, nth: None }
        })
    );
    let rec = crate::export::recording_of(&run);
    let spec = crate::export::to_playwright(&rec, crate::vocab::geometry::WindowSize::default());
    assert!(
        spec.contains("await page.getByRole('textbox', { name: 'What needs to be done?' }).fill(\"buy milk\");"),
        "{spec}"
    );
}

#[test]
fn without_the_description_the_model_reads_numbers_off_the_markers() {
    let options = RunOptions { include_description: false, ..RunOptions::default() };
    let mut browser = todo_browser();
    let model = ScriptedModel::new(vec![Ok(ADD_MILK)]);
    let run =
        block_on(run_instruction("r1".into(), "add a todo 'buy milk'", &options, &config(), &mut browser, &model));
    assert_eq!(run.status, RunStatus::Succeeded, "{:?}", run.error);
    assert_eq!(browser.page.items, ["buy milk"], "marker numbers still name the elements");
    let sent = model.user_text(0);
    assert!(sent.contains(MARKERS_ONLY) && !sent.contains("[1] input"), "{sent}");
    assert!(model.image_url(0).is_some());

    // With no screenshot to read markers from, the list is sent after all.
    let options = RunOptions { include_description: false, include_screenshot: false, ..RunOptions::default() };
    let mut browser = todo_browser();
    let model = ScriptedModel::new(vec![Ok(ADD_MILK)]);
    block_on(run_instruction("r2".into(), "add a todo 'buy milk'", &options, &config(), &mut browser, &model));
    assert!(model.user_text(0).contains("[1] input placeholder=\"What needs to be done?\""));
}

#[test]
fn an_unusable_capture_is_left_out_and_noted() {
    let mut browser = todo_browser();
    browser.page.capture = b"not an image".to_vec();
    let model = ScriptedModel::new(vec![Ok(ADD_MILK)]);
    let run = block_on(run_instruction(
        "r1".into(),
        "add a todo 'buy milk'",
        &RunOptions::default(),
        &config(),
        &mut browser,
        &model,
    ));
    assert_eq!(run.status, RunStatus::Succeeded, "{:?}", run.error);
    assert_eq!(model.image_url(0), None);
    assert_eq!(
        run.steps[0].note.as_deref(),
        Some("sent without a screenshot: the screenshot could not be decoded: Invalid PNG signature.")
    );
}

#[test]
fn unreadable_reply_is_sent_back_and_recovered() {
    let mut browser = todo_browser();
    let model = ScriptedModel::new(vec![Ok("Sure! I will add it."), Ok(ADD_MILK)]);
    let run = block_on(run_instruction(
        "r".into(),
        "add a todo 'buy milk'",
        &RunOptions::default(),
        &config(),
        &mut browser,
        &model,
    ));
    assert_eq!(run.status, RunStatus::Succeeded);
    assert_eq!(run.steps[0].status, StepStatus::Failed);
    assert!(model.user_text(1).contains("your reply was rejected (the reply holds no JSON object)"));
    assert_eq!(browser.page.items, ["buy milk"]);
}

#[test]
fn repeated_garbage_ends_the_run_with_a_reason() {
    let mut browser = todo_browser();
    let model = ScriptedModel::new(vec![Ok("no"), Ok("no"), Ok("no")]);
    let run = block_on(run_instruction("r".into(), "add", &RunOptions::default(), &config(), &mut browser, &model));
    assert_eq!(run.status, RunStatus::Failed);
    assert!(run.error.unwrap().message.contains("could not be read 3 times"));
    assert_eq!(run.steps.len(), 3, "every attempt stays in the record");
}

#[test]
fn bad_target_is_reported_and_replanned_with_what_changed() {
    let mut browser = todo_browser();
    let model = ScriptedModel::new(vec![Ok(r#"{"actions":[{"type":"Tap","target":42}],"done":true}"#), Ok(ADD_MILK)]);
    let run = block_on(run_instruction(
        "r".into(),
        "add a todo 'buy milk'",
        &RunOptions::default(),
        &config(),
        &mut browser,
        &model,
    ));
    assert_eq!(run.status, RunStatus::Succeeded);
    assert!(run.steps[1].error.as_ref().unwrap().contains("[42] does not exist"));
    assert!(
        model.user_text(1).contains("Tap [42] failed") && model.user_text(1).contains("nothing on the page changed")
    );
}

#[test]
fn model_errors_end_the_run_readably() {
    let mut browser = todo_browser();
    let model = ScriptedModel::new(vec![Err(ModelError::Http { status: 401, message: "bad key".into() })]);
    let run = block_on(run_instruction("r".into(), "add", &RunOptions::default(), &config(), &mut browser, &model));
    assert_eq!(run.status, RunStatus::Failed);
    assert_eq!(run.error.as_ref().map(|e| e.message.as_str()), Some("the model endpoint answered HTTP 401: bad key"));
    assert!(run.ended_ms.is_some());
}

#[test]
fn missing_settings_fail_before_any_call() {
    let mut browser = todo_browser();
    let model = ScriptedModel::new(vec![]);
    let run = block_on(run_instruction(
        "r".into(),
        "add",
        &RunOptions::default(),
        &ModelConfig::default(),
        &mut browser,
        &model,
    ));
    assert_eq!(run.status, RunStatus::Failed);
    assert!(run.error.unwrap().message.contains("Settings"));
    assert_eq!(run.model_calls, 0);
}

#[test]
fn stop_is_honoured_between_actions() {
    let mut browser = todo_browser();
    browser.stop_after_dispatches = Some(1);
    let model = ScriptedModel::new(vec![Ok(ADD_MILK)]);
    let run = block_on(run_instruction(
        "r".into(),
        "add a todo 'buy milk'",
        &RunOptions::default(),
        &config(),
        &mut browser,
        &model,
    ));
    assert_eq!(run.status, RunStatus::Stopped);
    assert!(browser.page.items.is_empty(), "Enter was never pressed");
}

#[test]
fn model_error_reason_surfaces() {
    let mut browser = todo_browser();
    let model = ScriptedModel::new(vec![Ok(r#"{"thought":"","actions":[],"error":"there is no cart on this page"}"#)]);
    let run =
        block_on(run_instruction("r".into(), "open the cart", &RunOptions::default(), &config(), &mut browser, &model));
    assert_eq!(run.status, RunStatus::Failed);
    assert!(run.error.unwrap().message.contains("there is no cart on this page"));
}

#[test]
fn ui_tars_replies_drive_the_page_through_the_fitted_image() {
    let mut browser = todo_browser();
    // UI-TARS 1.5 sees the 1280×800 capture smart-resized to 1288×812 and answers in its pixels.
    let reply = "Thought: Type into the box.\nAction: click(start_box='(302,122)')\n\ntype(content='buy milk\\n')";
    // One action per turn: the typing planned with the click waits for the next look.
    let type_it = "Thought: Now type.\nAction: type(content='buy milk\\n')";
    let model =
        ScriptedModel::new(vec![Ok(reply), Ok(type_it), Ok("Thought: done\nAction: finished(content='added')")]);
    let config = ModelConfig { family: crate::vocab::family::ModelFamily::UiTars15, ..config() };
    let run = block_on(run_instruction(
        "r1".into(),
        "add a todo 'buy milk'",
        &RunOptions::default(),
        &config,
        &mut browser,
        &model,
    ));
    assert_eq!(run.status, RunStatus::Succeeded, "{:?}", run.error);
    assert_eq!(browser.page.items, ["buy milk"]);
    assert_eq!(run.model_calls, 4, "three turns and the check");
    assert!(run.steps[0].note.as_deref().unwrap().contains("one action per turn"), "{:?}", run.steps[0].note);
    let click = browser.dispatched.iter().find(|c| c.params["type"] == "mousePressed").unwrap();
    let (x, y) = (click.params["x"].as_f64().unwrap(), click.params["y"].as_f64().unwrap());
    assert!((x - 300.0).abs() < 1.0 && (y - 120.0).abs() < 1.0, "clicked at ({x}, {y})");
    assert_eq!(run.steps[1].action, "Tap at (300, 120)");
    // The model saw the smart-resized image and no element list.
    let url = model.image_url(0).unwrap();
    let png = vision::base64::decode(url.strip_prefix("data:image/png;base64,").unwrap()).unwrap();
    let seen = image::load_from_memory(&png).unwrap();
    assert_eq!((seen.width(), seen.height()), (1288, 812));
    assert!(!model.user_text(0).contains("[1] input"));
}

#[test]
fn priced_models_get_a_cost() {
    let mut browser = todo_browser();
    let model = ScriptedModel::new(vec![Ok(ADD_MILK)]);
    let options = RunOptions { prices: crate::model::PriceTable::parse("mock 10 100").unwrap(), ..Default::default() };
    let run = block_on(run_instruction("r".into(), "add a todo 'buy milk'", &options, &config(), &mut browser, &model));
    // Per call 100 prompt tokens at 10 per million + 10 completion tokens at 100 per million: the plan and the check.
    assert_eq!(run.cost, Some(0.004));
    assert_eq!(run.steps[0].cost, Some(0.002), "the plan step carries its own call's cost");
    assert_eq!(run.steps[1].cost, None, "actions call no model");
}

#[test]
fn the_loop_scrolls_an_out_of_view_target_into_view() {
    let mut browser = todo_browser();
    let n = block_on(browser.observe(&Reach::InView))
        .unwrap()
        .extraction
        .elements
        .iter()
        .find(|e| e.content == "Load more")
        .unwrap()
        .index;
    let plan = format!(r#"{{"thought":"load more","actions":[{{"type":"Tap","target":{n}}}],"done":true}}"#);
    let model = ScriptedModel::new(vec![Ok(&plan), Ok(SAID_DONE)]).checking(vec![Ok("no: no more items are shown")]);
    let run =
        block_on(run_instruction("r".into(), "load more", &RunOptions::default(), &config(), &mut browser, &model));
    assert_eq!(browser.page.reveals, 1);
    // The fake button does nothing when tapped: the step says so, and the model's "done" with
    // it is refused and told; its bare "done" next is checked, and the page does not confirm it.
    assert_eq!(
        run.steps[1].note.as_deref(),
        Some("scrolled into view first; nothing on the page changed; the model said done, but nothing changed: not accepted")
    );
    assert!(
        model.user_text(1).contains("your actions changed nothing on the page, so it is not done"),
        "{}",
        model.user_text(1)
    );
    assert_eq!(run.status, RunStatus::Unconfirmed, "{:?}", run.error);
    assert_eq!(run.check.as_ref().map(|c| c.reason.as_str()), Some("no more items are shown"));
    assert_eq!(run.error, None);
    let press = browser.dispatched.iter().find(|c| c.params["type"] == "mousePressed").unwrap();
    assert_eq!(press.params["y"], 415.0);
}

#[test]
fn ask_user_waits_for_the_answer_and_the_model_gets_it() {
    let mut browser = todo_browser();
    browser.person.answers = vec![ask::Answer::Text { text: "buy oat milk".into() }];
    let ask = "[{\"name\":\"ask_user\",\"arguments\":{\"question\":\"Which milk?\"}}]";
    let add = r#"[{"name":"input","arguments":{"target":1,"value":"buy oat milk"}},{"name":"key","arguments":{"key":"Enter"}},{"name":"finished","arguments":{"text":"added"}}]"#;
    let model = ScriptedModel::new(vec![Ok(ask), Ok(add)]);
    let c = ModelConfig { family: crate::vocab::family::ModelFamily::FunctionCalling, ..config() };
    let run =
        block_on(run_instruction("r".into(), "add the milk todo", &RunOptions::default(), &c, &mut browser, &model));
    assert_eq!(run.status, RunStatus::Succeeded, "{:?}", run.error);
    assert_eq!(browser.person.asked, [ask::Question::Text { text: "Which milk?".into() }]);
    assert_eq!(browser.page.items, ["buy oat milk"]);
    assert!(model.user_text(1).contains("they answered \"buy oat milk\""), "{}", model.user_text(1));
    assert_eq!(run.steps[1].note.as_deref(), Some("you answered: buy oat milk"));
    assert_eq!(run.question, None);
    // Nobody to ask: the run ends saying what the model wanted.
    let mut browser = todo_browser();
    let model = ScriptedModel::new(vec![Ok(ask)]);
    let run =
        block_on(run_instruction("r".into(), "add the milk todo", &RunOptions::default(), &c, &mut browser, &model));
    assert_eq!(run.error.as_ref().map(|e| e.message.as_str()), Some("the model needs your input: Which milk?"));
}

#[test]
fn a_loop_is_nudged_once_then_stopped() {
    let mut browser = todo_browser();
    let tap = r#"{"thought":"tap the box","actions":[{"type":"Tap","target":1}],"done":false}"#;
    let model = ScriptedModel::new(vec![Ok(tap), Ok(tap), Ok(tap), Ok(tap)]);
    let run =
        block_on(run_instruction("r".into(), "do something", &RunOptions::default(), &config(), &mut browser, &model));
    assert_eq!(run.status, RunStatus::Failed);
    assert_eq!(
        run.error.as_ref().map(|e| e.message.as_str()),
        Some("stopped a loop: \"Tap [1]\" ran three times in a row without changing the page")
    );
    assert_eq!(run.model_calls, 3);
    assert!(model.user_text(2).contains("you did exactly this last round too"));
}

#[test]
fn a_grounding_point_snaps_to_the_control_under_it() {
    let mut browser = todo_browser();
    // 1280×800 → UI-TARS 1.5's smart resize is 1288×812; (131, 107) there is near the input's corner.
    let model = ScriptedModel::new(vec![
        Ok("Thought: the box.\nAction: click(start_box='(131,107)')"),
        Ok("Thought: done.\nAction: finished(content='ok')"),
    ]);
    let c = ModelConfig { family: crate::vocab::family::ModelFamily::UiTars15, ..config() };
    let run = block_on(run_instruction("r".into(), "click the box", &RunOptions::default(), &c, &mut browser, &model));
    assert_eq!(run.status, RunStatus::Succeeded, "{:?}", run.error);
    assert_eq!(run.steps[1].target.as_ref().unwrap().summary, "input \"What needs to be done?\"");
    let press = browser.dispatched.iter().find(|c| c.params["type"] == "mousePressed").unwrap();
    assert_eq!(
        (press.params["x"].as_f64(), press.params["y"].as_f64()),
        (Some(300.0), Some(120.0)),
        "the input's middle"
    );
}
