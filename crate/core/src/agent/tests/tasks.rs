use super::*;
use crate::agent::tasks::run_task;
use crate::vocab::tasks::Task;
use serde_json::json;

fn task(v: serde_json::Value) -> Task {
    serde_json::from_value(v).unwrap()
}

fn run(t: Task, browser: &mut TodoBrowser, model: &ScriptedModel, config: &ModelConfig) -> Run {
    block_on(run_task("t".into(), &t, &RunOptions::default(), config, browser, model))
}

/// An agent's choose_option goes the loop's way: the list found, its option chosen by the
/// core's rule (here by a part of its text), recorded as a `Select` an export repeats.
#[test]
fn an_agents_choice_is_made_by_the_core_as_the_loops_is() {
    use crate::agent::remote::{carry_out_call, plan, Call};
    let mut browser = todo_browser();
    browser.page.sizes = Some(0);
    let call = |option: &str| Call {
        tool: "choose_option".into(),
        args: json!({"description": "the size list", "option": option}),
    };
    let model = ScriptedModel::new(vec![Ok(r#"{"thought":"the size list","element":3}"#)]);
    let planned = plan(&call("  large "), crate::i18n::Lang::En).unwrap();
    let mut run = Run::agent_session("s".into(), "agent", None, crate::i18n::Lang::En, 0.0);
    let opts = RunOptions::default();
    let done =
        block_on(carry_out_call(&mut run, &planned.label, &planned.plan, &opts, &config(), &mut browser, &model));
    assert_eq!(done.outcome, Ok(RunStatus::Succeeded), "{:?}", run.steps);
    assert_eq!(browser.page.sizes, Some(2), "Large chosen");
    let step = run.steps.last().unwrap();
    assert_eq!(
        step.planned,
        Some(PlannedAction::Select { target: 3, option: "Large".into(), value: Some("large".into()) })
    );
    // An option the list does not have fails the call, naming those it has; nothing is chosen.
    let planned = plan(&call("XL"), crate::i18n::Lang::En).unwrap();
    let model = ScriptedModel::new(vec![Ok(r#"{"thought":"the size list","element":3}"#)]);
    let done =
        block_on(carry_out_call(&mut run, &planned.label, &planned.plan, &opts, &config(), &mut browser, &model));
    let Err(error) = done.outcome else { panic!("chose XL") };
    assert_eq!(error.code(), "no_such_option");
    assert!(error.message(crate::i18n::Lang::En).contains("Small | Medium | Large"), "{error:?}");
    assert_eq!(browser.page.sizes, Some(2));
}

#[test]
fn ai_input_then_keyboard_press_add_a_todo() {
    let mut browser = todo_browser();
    let model = ScriptedModel::new(vec![Ok(r#"{"thought":"the new-todo box","element":1}"#)]);
    let r = run(
        task(json!({"type":"aiInput","locate":"the new todo box","value":"buy milk"})),
        &mut browser,
        &model,
        &config(),
    );
    assert_eq!(r.status, RunStatus::Succeeded, "{:?}", r.error);
    assert_eq!(r.instruction, "aiInput \u{201c}buy milk\u{201d} into \u{201c}the new todo box\u{201d}");
    assert_eq!(browser.page.typed, "buy milk");
    assert!(model.user_text(0).contains("<element>\nthe new todo box\n</element>"));
    assert_eq!(r.steps[0].target.as_ref().unwrap().summary, "input \"What needs to be done?\"");
    let none = ScriptedModel::new(vec![]);
    let r = run(task(json!({"type":"aiKeyboardPress","key":"Enter"})), &mut browser, &none, &config());
    assert_eq!(r.status, RunStatus::Succeeded, "{:?}", r.error);
    assert_eq!(browser.page.items, ["buy milk"]);
    assert_eq!(r.model_calls, 0, "a key needs no model");
}

#[test]
fn ai_upload_clicks_the_element_and_answers_the_chooser() {
    let mut browser = todo_browser();
    let model = ScriptedModel::new(vec![Ok(r#"{"element":1}"#)]);
    let files = ["/tmp/a.txt", "C:\\Users\\me\\b.pdf"];
    // Paths the caller typed: uploaded without a question.
    let typed = RunOptions { typed_uploads: true, ..RunOptions::default() };
    let r = block_on(run_task(
        "t".into(),
        &task(json!({"type":"aiUpload","locate":"the attach button","files":files})),
        &typed,
        &config(),
        &mut browser,
        &model,
    ));
    assert!(browser.person.asked.is_empty());
    assert_eq!(r.status, RunStatus::Succeeded, "{:?}", r.error);
    assert_eq!(browser.page.uploaded, files);
    assert!(browser.dispatched.iter().any(|c| c.params["type"] == "mousePressed"), "the chooser opens by a click");
    assert_eq!(r.instruction, "aiUpload \u{201c}a.txt, b.pdf\u{201d} to \u{201c}the attach button\u{201d}");
    // Paths the browser could not open fail before any model call.
    for (files, why) in [(json!([]), "no file given"), (json!(["report.pdf"]), "not an absolute path")] {
        let none = ScriptedModel::new(vec![]);
        let r = run(task(json!({"type":"aiUpload","locate":"x","files":files})), &mut browser, &none, &config());
        assert!(r.error.as_ref().map(|e| e.message.as_str()).unwrap().contains(why), "{:?}", r.error);
    }
}

fn upload_from_a_file(browser: &mut TodoBrowser, options: &RunOptions) -> Run {
    let model = ScriptedModel::new(vec![Ok(r#"{"element":1}"#)]);
    block_on(run_task(
        "t".into(),
        &task(json!({"type":"aiUpload","locate":"the attach button","files":["/etc/hostname"]})),
        options,
        &config(),
        browser,
        &model,
    ))
}

#[test]
fn uploads_a_file_names_wait_for_the_persons_allow() {
    let question = ask::Question::Upload { paths: vec!["/etc/hostname".into()] };
    // Allowed: the question listed the path before anything was read or clicked.
    let mut browser = todo_browser();
    browser.person.answers = vec![ask::Answer::Upload { allow: true }];
    let r = upload_from_a_file(&mut browser, &RunOptions::default());
    assert_eq!(r.status, RunStatus::Succeeded, "{:?}", r.error);
    assert_eq!(browser.person.asked, std::slice::from_ref(&question));
    assert_eq!(browser.page.uploaded, ["/etc/hostname"]);
    assert_eq!(r.steps[0].note.as_deref(), Some("you allowed it"));
    assert_eq!(
        r.steps[0].asked,
        [ask::Asked {
            question: question.clone(),
            answer: ask::Answer::Upload { allow: true },
            by: ask::AnsweredBy::Person
        }]
    );
    assert_eq!(r.question, None);

    // Refused: the task ends refused, nothing is clicked or uploaded, no model call.
    let mut browser = todo_browser();
    browser.person.answers = vec![ask::Answer::Upload { allow: false }];
    let r = upload_from_a_file(&mut browser, &RunOptions::default());
    assert_eq!(r.status, RunStatus::Failed);
    assert_eq!(r.error.as_ref().map(|e| e.message.as_str()), Some("you refused the upload of /etc/hostname"));
    assert!(browser.page.uploaded.is_empty() && browser.dispatched.is_empty());
    assert_eq!((r.model_calls, r.steps.len(), r.steps[0].status), (0, 1, StepStatus::Failed));
    assert_eq!(r.steps[0].asked[0].answer, ask::Answer::Upload { allow: false });

    // An answer of another kind (a text) allows nothing.
    let mut browser = todo_browser();
    browser.person.answers = vec![ask::Answer::Text { text: "yes".into() }];
    let r = upload_from_a_file(&mut browser, &RunOptions::default());
    assert_eq!(r.status, RunStatus::Failed);
    assert!(browser.page.uploaded.is_empty());
}

#[test]
fn without_a_person_uploads_from_a_file_need_the_upload_folder() {
    // Nobody to ask, no folder: refused, saying how to allow it.
    let mut browser = todo_browser();
    let r = upload_from_a_file(&mut browser, &RunOptions::default());
    assert_eq!(r.status, RunStatus::Failed);
    let e = r.error.unwrap().message;
    assert!(e.contains("/etc/hostname") && e.contains("--upload-dir"), "{e}");
    assert!(browser.page.uploaded.is_empty());
    assert_eq!(r.steps[0].asked[0].by, ask::AnsweredBy::Nobody);

    // A folder that does not hold the path: refused, naming it.
    let mut browser = todo_browser();
    let folder = RunOptions { upload_dir: Some("/tmp/uploads".into()), ..RunOptions::default() };
    let r = upload_from_a_file(&mut browser, &folder);
    assert!(
        r.error
            .as_ref()
            .map(|e| e.message.as_str())
            .unwrap()
            .contains("/etc/hostname: it lies outside the upload folder /tmp/uploads"),
        "{:?}",
        r.error
    );
    assert!(browser.page.uploaded.is_empty());

    // A folder that does: uploaded without a question, and the record says why.
    let mut browser = todo_browser();
    let folder = RunOptions { upload_dir: Some("/etc".into()), ..RunOptions::default() };
    let r = upload_from_a_file(&mut browser, &folder);
    assert_eq!(r.status, RunStatus::Succeeded, "{:?}", r.error);
    assert!(browser.person.asked.is_empty());
    assert_eq!(browser.page.uploaded, ["/etc/hostname"]);
    assert_eq!(r.steps[0].asked[0].by, ask::AnsweredBy::Setting);
    assert!(r.steps[0].note.as_deref().unwrap().contains("inside the upload folder /etc"));

    // `..` does not climb out of the folder.
    let mut browser = todo_browser();
    let model = ScriptedModel::new(vec![]);
    let sneaky = task(json!({"type":"aiUpload","locate":"x","files":["/etc/../root/.ssh/id_rsa"]}));
    let r = block_on(run_task("t".into(), &sneaky, &folder, &config(), &mut browser, &model));
    assert_eq!(r.status, RunStatus::Failed);
    assert!(browser.page.uploaded.is_empty());
}

#[test]
fn off_screen_elements_are_scrolled_into_view_first() {
    let mut browser = todo_browser();
    let more = |p: &mut TodoBrowser| {
        block_on(p.observe(&Reach::InView))
            .unwrap()
            .extraction
            .elements
            .iter()
            .find(|e| e.content == "Load more")
            .unwrap()
            .index
    };
    let n = more(&mut browser);
    browser.page.reads.clear();
    let reply = format!(r#"{{"element":{n}}}"#);
    let model = ScriptedModel::new(vec![Ok(&reply)]);
    let r = run(task(json!({"type":"aiTap","locate":"Load more"})), &mut browser, &model, &config());
    assert_eq!(r.status, RunStatus::Succeeded, "{:?}", r.error);
    assert_eq!(browser.page.reveals, 1);
    assert_eq!(
        browser.page.reads[..2],
        [Reach::InView, Reach::Locating],
        "the model locating by the list sees beyond the view"
    );
    assert!(r.steps[0].note.as_deref().unwrap().contains("scrolled into view"));
    let press = browser.dispatched.iter().find(|c| c.params["type"] == "mousePressed").unwrap();
    assert_eq!(press.params["y"], 415.0, "clicked where the button is after scrolling");
}

#[test]
fn ai_locate_returns_the_element_and_grounding_points_snap_to_it() {
    let mut browser = todo_browser();
    let model = ScriptedModel::new(vec![Ok("Thought: the input.\nAction: click(start_box='(302,121)')")]);
    let c = ModelConfig { family: crate::vocab::family::ModelFamily::UiTars15, ..config() };
    let r = run(task(json!({"type":"aiLocate","locate":"the todo input"})), &mut browser, &model, &c);
    assert_eq!(r.status, RunStatus::Succeeded, "{:?}", r.error);
    let result = r.result.unwrap();
    assert_eq!(result["element"]["summary"], "input \"What needs to be done?\"");
    assert_eq!(result["rect"], json!({"x":100.0,"y":100.0,"width":400.0,"height":40.0}));
    assert!(model.user_text(0).contains("Click on: the todo input"));
}

#[test]
fn not_found_fails_with_the_models_reason() {
    let mut browser = todo_browser();
    let model = ScriptedModel::new(vec![Ok(r#"{"element":null,"error":"there is no delete button"}"#)]);
    let r = run(task(json!({"type":"aiTap","locate":"the delete button"})), &mut browser, &model, &config());
    assert_eq!(r.status, RunStatus::Failed);
    assert_eq!(r.error.as_ref().map(|e| e.message.as_str()), Some("not found: there is no delete button"));
    assert!(browser.dispatched.is_empty());
}

#[test]
fn queries_return_typed_data() {
    let mut browser = todo_browser();
    browser.page.items = vec!["a".into(), "b".into()];
    let model = ScriptedModel::new(vec![
        Ok(r#"{"thought":"two items","data":{"titles":["a","b"]}}"#),
        Ok(r#"{"data":"2"}"#),
        Ok(r#"{"data":"no"}"#),
    ]);
    let r = run(task(json!({"type":"aiQuery","demand":{"titles":"string[]"}})), &mut browser, &model, &config());
    assert_eq!(r.result, Some(json!({"titles":["a","b"]})));
    assert!(model.user_text(0).contains("\"titles\": \"string[]\""));
    let r = run(task(json!({"type":"aiNumber","question":"how many todos?"})), &mut browser, &model, &config());
    assert_eq!(r.result, Some(json!(2.0)));
    let r = run(task(json!({"type":"aiBoolean","question":"is the list empty?"})), &mut browser, &model, &config());
    assert_eq!(r.result, Some(json!(false)));
}

#[test]
fn assert_fails_the_run_with_the_reason() {
    let mut browser = todo_browser();
    let model = ScriptedModel::new(vec![Ok(r#"{"pass":false,"reason":"the list is empty"}"#)]);
    let r = run(task(json!({"type":"aiAssert","assertion":"there are 3 todos"})), &mut browser, &model, &config());
    assert_eq!(r.status, RunStatus::Failed);
    assert_eq!(r.error.as_ref().map(|e| e.message.as_str()), Some("assertion failed: the list is empty"));
    assert_eq!(r.result, Some(json!({"pass":false,"reason":"the list is empty"})));
    assert_eq!(browser.page.reads, [Reach::InView], "one read, of what is in view");
}

#[test]
fn wait_for_polls_until_it_holds_or_times_out() {
    let mut browser = todo_browser();
    let no = r#"{"pass":false,"reason":"still loading"}"#;
    let model = ScriptedModel::new(vec![Ok(no), Ok(no), Ok(r#"{"pass":true,"reason":"loaded"}"#)]);
    let r = run(
        task(json!({"type":"aiWaitFor","assertion":"the list has loaded","intervalMs":500})),
        &mut browser,
        &model,
        &config(),
    );
    assert_eq!(r.status, RunStatus::Succeeded, "{:?}", r.error);
    assert_eq!(r.model_calls, 3);
    assert!(browser.clock.now_ms >= 1000.0);
    let model = ScriptedModel::new(vec![Ok(no), Ok(no), Ok(no)]);
    let r = run(
        task(json!({"type":"aiWaitFor","assertion":"the list has loaded","timeoutMs":2500})),
        &mut browser,
        &model,
        &config(),
    );
    assert_eq!(r.status, RunStatus::Failed);
    assert!(r.error.unwrap().message.contains("still does not hold: still loading"));
}

#[test]
fn a_task_stopped_during_its_model_call_ends_as_stopped() {
    let mut browser = todo_browser();
    browser.stop_after_dispatches = Some(0);
    let model = ScriptedModel::new(vec![Ok(r#"{"element":1}"#)]);
    let r = run(task(json!({"type":"aiTap","locate":"the todo box"})), &mut browser, &model, &config());
    assert_eq!(r.status, RunStatus::Stopped, "{:?}", r.error);
    assert!(browser.dispatched.is_empty());
}

#[test]
fn empty_tasks_are_refused_before_any_call() {
    let mut browser = todo_browser();
    let model = ScriptedModel::new(vec![]);
    let r = run(task(json!({"type":"aiTap","locate":"  "})), &mut browser, &model, &config());
    assert_eq!(r.status, RunStatus::Failed);
    assert!(r.error.unwrap().message.contains("say which element"));
}
