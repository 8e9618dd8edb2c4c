use super::*;
use crate::agent::tasks::run_task;
use crate::vocab::tasks::Task;
use serde_json::json;

const PASSWORD: &str = "Correct-Horse-41";

fn options(selector: &str) -> RunOptions {
    let secret = guard::Secret {
        name: "pw".into(),
        value: PASSWORD.into(),
        sites: vec!["test.local".into()],
        selector: selector.into(),
    };
    RunOptions { secrets: vec![secret], allowed_sites: vec!["test.local".into()], ..RunOptions::default() }
}

fn typed(browser: &TodoBrowser) -> bool {
    browser.dispatched.iter().any(|c| c.params.to_string().contains(PASSWORD))
}

fn input_into(target: u32) -> String {
    format!(
        r#"{{"thought":"type it","actions":[{{"type":"Input","target":{target},"value":"<secret>pw</secret>"}}],"done":true}}"#
    )
}

#[test]
fn a_secret_goes_into_a_password_field_and_no_other() {
    let mut browser = todo_browser();
    browser.page.password = true;
    let password = block_on(browser.observe(&Reach::InView))
        .unwrap()
        .extraction
        .elements
        .iter()
        .find(|e| e.attr("type") == Some("password"))
        .unwrap()
        .index;
    let model = ScriptedModel::new(vec![Ok(&input_into(password)), Ok(SAID_DONE)]);
    let run = block_on(run_instruction("r".into(), "sign in", &options(""), &config(), &mut browser, &model));
    assert_eq!(run.status, RunStatus::Succeeded, "{:?}", run.error);
    assert!(typed(&browser));

    // The todo box on the same site: a comment box as far as secrets go.
    let mut browser = todo_browser();
    browser.page.password = true;
    let model = ScriptedModel::new(vec![Ok(&input_into(1)), Ok(SAID_DONE)]);
    let run = block_on(run_instruction("r".into(), "sign in", &options(""), &config(), &mut browser, &model));
    assert_eq!(run.status, RunStatus::Failed);
    let error = run.error.unwrap().message;
    assert!(error.contains("the secret \u{201c}pw\u{201d} was not typed: the field that has focus (input placeholder=\"What needs to be done?\") is not a password"), "{error}");
    assert!(error.contains("field selector under Secrets in Settings"), "it says what to change: {error}");
    assert!(!typed(&browser) && browser.page.typed.is_empty());

    // Named by the secret's selector: allowed.
    let mut browser = todo_browser();
    browser.page.todo_selectors = vec!["input[placeholder]".into()];
    let model = ScriptedModel::new(vec![Ok(&input_into(1)), Ok(SAID_DONE)]);
    let run = block_on(run_instruction(
        "r".into(),
        "sign in",
        &options("input[placeholder]"),
        &config(),
        &mut browser,
        &model,
    ));
    assert_eq!(run.status, RunStatus::Succeeded, "{:?}", run.error);
    assert_eq!(browser.page.typed, PASSWORD);
}

fn type_into_focus(browser: &mut TodoBrowser) -> Run {
    let task: Task = serde_json::from_value(
        json!({"type": "aiInput", "locate": "", "value": "<secret>pw</secret>", "mode": "append"}),
    )
    .unwrap();
    block_on(run_task("t".into(), &task, &options(""), &config(), browser, &ScriptedModel::new(vec![])))
}

#[test]
fn typing_into_the_focus_is_judged_by_the_frame_that_has_it() {
    // A password field, but in another site's frame on the allowed page.
    let mut browser = todo_browser();
    browser.page.focus = Focus::Password;
    browser.page.focus_frame = "http://ads.example".into();
    let run = type_into_focus(&mut browser);
    assert_eq!(run.status, RunStatus::Failed);
    let error = run.error.unwrap().message;
    assert!(error.contains("the field that has focus is in a frame of http://ads.example, outside the sites this run may use (test.local)"), "{error}");
    assert!(!typed(&browser));
    // The same field on the page's own frame.
    let mut browser = todo_browser();
    browser.page.focus = Focus::Password;
    assert_eq!(type_into_focus(&mut browser).status, RunStatus::Succeeded);
    assert!(typed(&browser));
    // Nothing focused, or focus where the host cannot look: refused.
    let mut browser = todo_browser();
    assert!(type_into_focus(&mut browser).error.unwrap().message.contains("no field has focus"));
    let mut browser = todo_browser();
    browser.page.focus = Focus::Password;
    browser.page.focus_hidden = true;
    let error = type_into_focus(&mut browser).error.unwrap().message;
    assert!(error.contains("could not see which field has focus (the focus is in a frame nested"), "{error}");
    assert!(!typed(&browser));
}

#[test]
fn frames_of_other_sites_are_not_read_and_their_fields_get_no_secret() {
    let mut browser = todo_browser();
    browser.page.frame = Some("http://pay.example".into());
    // Allowed sites: the frame is left out of what the model reads.
    let model = ScriptedModel::new(vec![Ok(r#"{"thought":"nothing to do","actions":[],"done":true}"#)]);
    let run = block_on(run_instruction("r".into(), "pay", &options(""), &config(), &mut browser, &model));
    assert_eq!(run.status, RunStatus::Succeeded, "{:?}", run.error);
    let unguarded = block_on(browser.observe(&Reach::InView)).unwrap().extraction;
    assert!(unguarded.description.contains("card-pin"), "the frame is on the page: {}", unguarded.description);
    assert!(!model.user_text(0).contains("card-pin"), "but not in what the model read: {}", model.user_text(0));

    // Any site allowed: the frame is read, and a secret aimed into it is refused before any click.
    let frame_field = unguarded.elements.iter().find(|e| e.attr("name") == Some("card-pin")).unwrap();
    assert_eq!(frame_field.frame_origin.as_deref(), Some("http://pay.example"));
    let any_site = RunOptions { allowed_sites: vec![], ..options("") };
    let model = ScriptedModel::new(vec![Ok(&input_into(frame_field.index))]);
    let run = block_on(run_instruction("r".into(), "pay", &any_site, &config(), &mut browser, &model));
    assert_eq!(run.status, RunStatus::Failed);
    assert!(
        run.error
            .as_ref()
            .map(|e| e.message.as_str())
            .unwrap()
            .contains("the secret \u{201c}pw\u{201d} is only typed on test.local, not on http://pay.example"),
        "{:?}",
        run.error
    );
    assert!(browser.dispatched.is_empty(), "not even the click: {:?}", browser.dispatched);
}

#[test]
fn plain_text_is_typed_without_asking_where_focus_is() {
    let mut browser = todo_browser();
    browser.page.focus_hidden = true;
    let model = ScriptedModel::new(vec![Ok(ADD_MILK)]);
    let run =
        block_on(run_instruction("r".into(), "add a todo 'buy milk'", &options(""), &config(), &mut browser, &model));
    assert_eq!(run.status, RunStatus::Succeeded, "{:?}", run.error);
    assert_eq!(browser.page.items, ["buy milk"]);
}
