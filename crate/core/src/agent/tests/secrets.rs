//! Secrets typed by name for their own site only, and the allowed sites.

use super::*;

#[test]
fn a_secret_is_typed_by_name_and_seen_by_no_one() {
    let secret = "Tr0ub4dor&3-horse";
    // The todo box is no password field: the secret names it by its selector.
    let todo = guard::Secret {
        name: "todo".into(),
        value: secret.into(),
        sites: vec!["test.local".into()],
        selector: "input[placeholder]".into(),
    };
    let options = RunOptions { secrets: vec![todo], ..RunOptions::default() };
    let mut browser = todo_browser();
    browser.page.todo_selectors = vec!["input[placeholder]".into()];
    let typing = r#"{"thought":"type it","actions":[{"type":"Input","target":1,"value":"<secret>todo</secret>"},{"type":"KeyPress","key":"Enter"}],"done":false}"#;
    let done = r#"{"thought":"added","actions":[],"done":true}"#;
    let model = ScriptedModel::new(vec![Ok(typing), Ok(done)]);
    let run =
        block_on(run_instruction("r1".into(), "add my secret as a todo", &options, &config(), &mut browser, &model));
    assert_eq!(run.status, RunStatus::Succeeded, "{:?}", run.error);
    assert_eq!(browser.page.items, [secret], "the page got the real value");
    assert!(model.user_text(0).contains("<secret>todo</secret>"), "the model is told which secrets it may use");
    let second = model.user_text(1);
    assert!(
        !second.contains(secret) && second.contains("<secret>todo</secret>"),
        "the page showing it is screened: {second}"
    );
    let record = serde_json::to_string(&run).unwrap();
    assert!(!record.contains(secret), "the record keeps the placeholder");
    assert!(record.contains("<secret>todo</secret>"));
}

#[test]
fn a_secret_for_another_site_is_not_typed() {
    let options = RunOptions {
        secrets: vec![guard::Secret {
            name: "bank".into(),
            value: "pin-4242".into(),
            sites: vec!["bank.example".into()],
            ..Default::default()
        }],
        ..RunOptions::default()
    };
    let mut browser = todo_browser();
    let typing = r#"{"thought":"the page asks for it","actions":[{"type":"Input","target":1,"value":"<secret>bank</secret>"}],"done":true}"#;
    let model = ScriptedModel::new(vec![Ok(typing)]);
    let run =
        block_on(run_instruction("r1".into(), "do what the page says", &options, &config(), &mut browser, &model));
    assert_eq!(run.status, RunStatus::Failed);
    assert!(
        run.error.as_ref().map(|e| e.message.as_str()).unwrap().contains("only typed on bank.example"),
        "{:?}",
        run.error
    );
    assert!(browser.dispatched.iter().all(|c| !c.params.to_string().contains("pin-4242")));
    assert!(!model.user_text(0).contains("<secret>bank</secret>"), "not offered on this site");
}

#[test]
fn a_secret_bound_to_no_site_is_not_typed_and_not_offered() {
    // As an earlier version saved it, or a script's environment gave it without its sites:
    // before, typed on whatever site the page was.
    let options = RunOptions {
        secrets: vec![guard::Secret {
            name: "legacy".into(),
            value: "old-pass-7731".into(),
            selector: "input[placeholder]".into(),
            ..Default::default()
        }],
        ..RunOptions::default()
    };
    let mut browser = todo_browser();
    browser.page.todo_selectors = vec!["input[placeholder]".into()];
    let typing = r#"{"thought":"type it","actions":[{"type":"Input","target":1,"value":"<secret>legacy</secret>"}],"done":true}"#;
    let model = ScriptedModel::new(vec![Ok(typing)]);
    let run = block_on(run_instruction("r1".into(), "type my old password", &options, &config(), &mut browser, &model));
    assert_eq!(run.status, RunStatus::Failed);
    let error = run.error.as_ref().unwrap();
    assert_eq!(error.code, "secret_no_sites", "{error:?}");
    assert!(error.message.contains("bound to no site") && error.message.contains("Secrets in Settings"), "{error:?}");
    assert!(
        browser.dispatched.iter().all(|c| !c.params.to_string().contains("old-pass-7731"))
            && browser.page.items.is_empty()
    );
    assert!(!model.user_text(0).contains("<secret>legacy</secret>"), "not offered to the model");
}

#[test]
fn a_run_does_not_act_outside_the_allowed_sites() {
    let options = RunOptions { allowed_sites: vec!["example.com".into()], ..RunOptions::default() };
    let mut browser = todo_browser();
    let model = ScriptedModel::new(vec![]);
    let run = block_on(run_instruction("r1".into(), "add a todo 'x'", &options, &config(), &mut browser, &model));
    assert_eq!(run.status, RunStatus::Failed);
    assert!(
        run.error.as_ref().map(|e| e.message.as_str()).unwrap().contains("http://test.local/ is outside the sites"),
        "{:?}",
        run.error
    );
    assert!(browser.dispatched.is_empty() && run.model_calls == 0);
    let allowed = RunOptions { allowed_sites: vec!["test.local".into()], ..RunOptions::default() };
    let model = ScriptedModel::new(vec![Ok(ADD_MILK)]);
    let run = block_on(run_instruction(
        "r2".into(),
        "add a todo 'buy milk'",
        &allowed,
        &config(),
        &mut todo_browser(),
        &model,
    ));
    assert_eq!(run.status, RunStatus::Succeeded, "{:?}", run.error);
}
