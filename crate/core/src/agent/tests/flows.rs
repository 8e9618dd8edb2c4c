use super::*;
use crate::agent::replay::flow::run_flow;
use crate::agent::replay::trajectory::replay_cache;
use crate::export::{recording_of, Op};
use crate::flow::parse_flow;
use serde_json::json;

fn input_xpath() -> String {
    let seen = block_on(todo_browser().observe(&Reach::InView)).unwrap();
    seen.extraction.elements.iter().find(|e| e.tag == "input").unwrap().xpath.clone()
}

#[test]
fn a_flow_runs_its_items_in_order_as_one_run() {
    let yaml = format!(
            "web:\n  url: http://127.0.0.1/todo.html\ntasks:\n  - name: add a todo\n    flow:\n      - aiInput: the todo box\n        value: buy milk\n        xpath: {:?}\n      - aiKeyboardPress: Enter\n      - sleep: 200\n      - aiQuery: the todo titles\n        name: todos\n",
            input_xpath()
        );
    let flow = parse_flow(&yaml).unwrap();
    let mut browser = todo_browser();
    let model = ScriptedModel::new(vec![Ok(r#"{"data":["buy milk"]}"#)]);
    let run = block_on(run_flow("f".into(), &flow, &RunOptions::default(), &config(), &mut browser, &model));
    assert_eq!(run.status, RunStatus::Succeeded, "{:?}", run.error);
    assert_eq!(browser.page.items, ["buy milk"]);
    assert_eq!(run.model_calls, 1, "the XPath found the box; only the query asked the model");
    assert_eq!(run.instruction, "add a todo");
    assert_eq!(run.result, Some(json!({"todos": ["buy milk"]})));
    let record = run.flow.as_ref().unwrap();
    let titles: Vec<_> = record.items.iter().map(|i| (i.title.as_str(), i.status)).collect();
    assert_eq!(
        titles,
        [
            ("aiInput \u{201c}buy milk\u{201d} into \u{201c}the todo box\u{201d}", RunStatus::Succeeded),
            ("aiKeyboardPress Enter", RunStatus::Succeeded),
            ("sleep 200 ms", RunStatus::Succeeded),
            ("aiQuery \u{201c}the todo titles\u{201d}", RunStatus::Succeeded),
        ]
    );
    assert_eq!(run.steps[0].note.as_deref(), Some("by the flow's XPath: no model call"));
    // Its badge says the XPath found it, not the cache (an earlier run): nothing was cached.
    assert_eq!(run.steps[0].found_by, Some(crate::agent::record::FoundBy::Xpath));
    assert!(!run.steps[0].cached, "a flow's XPath is not the cache");
    assert_eq!(record.items.iter().map(|i| i.steps).sum::<usize>(), run.steps.len(), "every step belongs to an item");
    assert!(browser.clock.now_ms >= 200.0, "the sleep waited");

    // The run exports item by item, and replays with no model call for its actions.
    let ops: Vec<Op> = recording_of(&run).steps.into_iter().map(|s| s.op).collect();
    assert!(
        matches!(
            ops.as_slice(),
            [Op::Input { .. }, Op::Key { .. }, Op::Wait { ms: 200 }, Op::Read { kind: "aiQuery", .. }]
        ),
        "{ops:?}"
    );
    let cache = replay_cache(&run, 1.0).unwrap();
    assert_eq!(cache.0.len(), 1, "the box it located; the sleep and the query keep nothing");
}

#[test]
fn a_flows_dialog_answer_applies_unless_the_run_sets_its_own() {
    let yaml = format!("web:\n  url: http://127.0.0.1/todo.html\n  dialogs: accept\ntasks:\n  - name: delete\n    flow:\n      - aiTap: the todo box\n        xpath: {:?}\n", input_xpath());
    let flow = parse_flow(&yaml).unwrap();
    let confirm = ask::PageDialog {
        kind: ask::DialogKind::Confirm,
        message: "Delete?".into(),
        default_prompt: String::new(),
        url: String::new(),
    };
    let mut browser = todo_browser();
    browser.dialogs.on_click = Some(confirm.clone());
    let run = block_on(run_flow(
        "f".into(),
        &flow,
        &RunOptions::default(),
        &config(),
        &mut browser,
        &ScriptedModel::new(vec![]),
    ));
    assert_eq!(run.status, RunStatus::Succeeded, "{:?}", run.error);
    assert_eq!(
        (browser.person.asked.len(), &browser.dialogs.answers[..]),
        (0, &[(true, None)][..]),
        "the file said accept"
    );
    // The run's own answer comes first.
    let mut browser = todo_browser();
    browser.dialogs.on_click = Some(confirm);
    let dismiss = RunOptions { dialogs: Some(crate::vocab::tasks::DialogPolicy::Dismiss), ..RunOptions::default() };
    block_on(run_flow("f".into(), &flow, &dismiss, &config(), &mut browser, &ScriptedModel::new(vec![])));
    assert_eq!(&browser.dialogs.answers[..], &[(false, None)][..]);
}

#[test]
fn a_flows_upload_asks_before_anything_is_clicked() {
    let yaml = "web:\n  url: http://127.0.0.1/todo.html\ntasks:\n  - name: attach\n    flow:\n      - aiTap: the attach button\n        fileChooserAccept: /etc/hostname\n";
    let flow = parse_flow(yaml).unwrap();
    let mut browser = todo_browser();
    browser.person.answers = vec![ask::Answer::Upload { allow: false }];
    let run = block_on(run_flow(
        "f".into(),
        &flow,
        &RunOptions::default(),
        &config(),
        &mut browser,
        &ScriptedModel::new(vec![]),
    ));
    assert_eq!(run.status, RunStatus::Failed);
    assert_eq!(browser.person.asked, [ask::Question::Upload { paths: vec!["/etc/hostname".into()] }]);
    assert!(browser.dispatched.is_empty() && browser.page.uploaded.is_empty());
    assert_eq!(
        run.flow.unwrap().items[0].error.as_ref().map(|e| e.message.as_str()),
        Some("you refused the upload of /etc/hostname")
    );
    // Even when the caller says its paths are typed, a flow's are the file's.
    let typed = RunOptions { typed_uploads: true, ..RunOptions::default() };
    let mut browser = todo_browser();
    let run = block_on(run_flow("f".into(), &flow, &typed, &config(), &mut browser, &ScriptedModel::new(vec![])));
    assert_eq!(run.status, RunStatus::Failed);
    assert!(browser.page.uploaded.is_empty());
}

/// A flow's XPath finds the element with no model call, and its locators are still read, so
/// the run's Playwright export names it as a person sees it instead of by its path.
#[test]
fn an_element_found_by_the_flows_xpath_keeps_its_locators_for_the_exports() {
    use crate::describe::locators::LocatorData;
    let yaml = format!(
        "tasks:\n  - name: add\n    flow:\n      - aiInput: the todo box\n        value: buy milk\n        xpath: {:?}\n",
        input_xpath()
    );
    let mut browser = todo_browser();
    browser.page.locator_data = Some(LocatorData {
        role: Some("textbox".into()),
        name: Some("What needs to be done?".into()),
        role_names: vec!["What needs to be done?".into()],
        role_index: Some(0),
        ..Default::default()
    });
    let flow = parse_flow(&yaml).unwrap();
    let run = block_on(run_flow(
        "f".into(),
        &flow,
        &RunOptions::default(),
        &config(),
        &mut browser,
        &ScriptedModel::new(vec![]),
    ));
    assert_eq!((run.status, run.model_calls), (RunStatus::Succeeded, 0), "{:?}", run.error);
    assert!(run.steps[0].target.as_ref().unwrap().locators.is_some(), "locators read for the XPath's element");
    let spec = crate::export::to_playwright(&recording_of(&run), crate::vocab::geometry::WindowSize::default());
    assert!(
        spec.contains("page.getByRole('textbox', { name: 'What needs to be done?' }).fill(\"buy milk\")"),
        "{spec}"
    );
    assert!(!spec.contains("xpath="), "{spec}");
}

#[test]
fn a_stale_xpath_heals_through_the_model_and_a_failure_ends_its_task() {
    let yaml = "tasks:\n  - name: one\n    continueOnError: true\n    flow:\n      - aiTap: the todo box\n        xpath: /html/body/div[9]\n      - aiAssert: there are 5 todos\n      - sleep: 10\n  - name: two\n    flow:\n      - sleep: 20\n";
    let flow = parse_flow(yaml).unwrap();
    let mut browser = todo_browser();
    let model = ScriptedModel::new(vec![Ok(r#"{"element":1}"#), Ok(r#"{"pass":false,"reason":"there are none"}"#)]);
    let run = block_on(run_flow("f".into(), &flow, &RunOptions::default(), &config(), &mut browser, &model));
    assert_eq!(run.status, RunStatus::Failed);
    assert_eq!(
        run.error.as_ref().map(|e| e.message.as_str()),
        Some("aiAssert \u{201c}there are 5 todos\u{201d}: assertion failed: there are none")
    );
    let items = &run.flow.as_ref().unwrap().items;
    assert_eq!(
        items.iter().map(|i| (i.task, i.step, i.status)).collect::<Vec<_>>(),
        [(0, 0, RunStatus::Succeeded), (0, 1, RunStatus::Failed), (1, 0, RunStatus::Succeeded)]
    );
    assert!(
        run.steps[0]
            .note
            .as_deref()
            .unwrap()
            .contains("the flow's XPath matched nothing: found again by its description"),
        "{:?}",
        run.steps[0].note
    );
    assert_eq!(browser.store.cache.0.len(), 1, "the healed element is kept for the next run");

    // Without continueOnError, the flow ends at the failure.
    let flow = parse_flow(&yaml.replace("    continueOnError: true\n", "")).unwrap();
    let model = ScriptedModel::new(vec![Ok(r#"{"pass":false,"reason":"there are none"}"#)]);
    let cache = browser.store.cache.clone();
    let mut browser = todo_browser();
    browser.store.cache = cache;
    let options = RunOptions { cache: browser.store.cache.clone(), ..RunOptions::default() };
    let run = block_on(run_flow("g".into(), &flow, &options, &config(), &mut browser, &model));
    assert_eq!(run.flow.as_ref().unwrap().items.len(), 2);
    assert_eq!(run.model_calls, 1, "the tap came from the cache");
}

/// `agent: aiActContext` reaches the model with each instruction; `replanningCycleLimit` caps its rounds.
#[test]
fn a_flows_agent_context_and_round_limit_apply_to_its_instructions() {
    let yaml = "agent:\n  aiActContext: Todos are always written in lower case.\n  replanningCycleLimit: 1\ntasks:\n  - name: add\n    flow:\n      - ai: add a todo\n";
    let flow = parse_flow(yaml).unwrap();
    let mut browser = todo_browser();
    let not_done = r#"{"thought":"type","actions":[{"type":"Input","target":1,"value":"buy milk"}],"done":false}"#;
    let model = ScriptedModel::new(vec![Ok(not_done)]);
    let run = block_on(run_flow("f".into(), &flow, &RunOptions::default(), &config(), &mut browser, &model));
    let sent: String = model.seen.borrow()[0]
        .iter()
        .flat_map(|m| &m.content)
        .filter_map(|p| match p {
            ContentPart::Text { text } => Some(text.as_str()),
            _ => None,
        })
        .collect();
    assert!(sent.contains("Todos are always written in lower case."), "{sent}");
    assert_eq!(run.status, RunStatus::Failed);
    assert_eq!(run.error.unwrap().code, "step_limit", "one round, as the file says");
}

#[test]
fn a_flows_script_runs_only_where_that_very_file_was_allowed_and_its_value_is_named() {
    let yaml = "web:\n  url: http://127.0.0.1/todo.html\ntasks:\n  - name: read\n    flow:\n      - javascript: document.title\n        name: title\n      - javascript: localStorage.setItem('k', 'v')\n";
    let flow = parse_flow(yaml).unwrap();
    // Not allowed (an agent's call, or a panel run the person did not allow): nothing runs.
    for allowed in [None, Some("0".repeat(64))] {
        let mut browser = todo_browser();
        let options = RunOptions { scripts_allowed: allowed, ..RunOptions::default() };
        let run = block_on(run_flow("f".into(), &flow, &options, &config(), &mut browser, &ScriptedModel::new(vec![])));
        assert_eq!(run.status, RunStatus::Failed);
        assert_eq!(run.error.as_ref().map(|e| e.code.as_str()), Some("script_not_allowed"));
        assert!(browser.evaluated.is_empty(), "no code reached the page");
        assert_eq!(run.flow.as_ref().unwrap().items.len(), 1, "the flow ended at its first script");
    }
    // A saved run's flow, edited to carry the allowed flow's hash, is judged by what it runs.
    let edited = crate::flow::Flow { hash: flow.hash.clone(), ..parse_flow(&yaml.replace("'v'", "'w'")).unwrap() };
    let mut browser = todo_browser();
    let options = RunOptions { scripts_allowed: Some(flow.hash.clone()), ..RunOptions::default() };
    let run = block_on(run_flow("f".into(), &edited, &options, &config(), &mut browser, &ScriptedModel::new(vec![])));
    assert_eq!(run.error.as_ref().map(|e| e.code.as_str()), Some("script_not_allowed"));
    assert!(browser.evaluated.is_empty());
    // Allowed by its hash: each runs in turn, the named value is the flow's result.
    let mut browser = todo_browser();
    browser.script_answers = vec![Ok(json!("Todos")), Ok(serde_json::Value::Null)].into();
    let options = RunOptions { scripts_allowed: Some(flow.hash.clone()), ..RunOptions::default() };
    let run = block_on(run_flow("f".into(), &flow, &options, &config(), &mut browser, &ScriptedModel::new(vec![])));
    assert_eq!(run.status, RunStatus::Succeeded, "{:?}", run.error);
    assert_eq!(browser.evaluated, ["document.title", "localStorage.setItem('k', 'v')"]);
    assert_eq!(run.result, Some(json!({"title": "Todos"})));
    assert_eq!(run.model_calls, 0);
    assert_eq!(run.steps[0].action, "Ran javascript \u{201c}document.title\u{201d}");
    // A script that throws fails its item with the page's words.
    let mut browser = todo_browser();
    browser.script_answers = vec![Err("ReferenceError: nope is not defined".into())].into();
    let run = block_on(run_flow("f".into(), &flow, &options, &config(), &mut browser, &ScriptedModel::new(vec![])));
    let error = run.error.unwrap();
    assert_eq!(error.code, "script_failed");
    assert!(error.message.contains("ReferenceError: nope is not defined"), "{}", error.message);
}

#[test]
fn a_script_runs_only_on_the_allowed_sites_and_its_value_hides_secrets() {
    use crate::agent::browser::fake::{FakeTab, FakeTabs};
    let yaml = "tasks:\n  - flow:\n      - javascript: document.querySelector('#pw').value\n        name: pw\n";
    let flow = parse_flow(yaml).unwrap();
    let secret = crate::agent::guard::Secret {
        name: "pw".into(),
        value: "hunter2-long".into(),
        sites: vec!["127.0.0.1".into()],
        selector: String::new(),
    };
    let options = |sites: &[&str]| RunOptions {
        scripts_allowed: Some(flow.hash.clone()),
        allowed_sites: sites.iter().map(|s| s.to_string()).collect(),
        secrets: vec![secret.clone()],
        ..RunOptions::default()
    };
    let browser_on = |url: &str| {
        let mut b = todo_browser();
        b.tabs = Some(FakeTabs::new(vec![FakeTab::new(1, "t", &[url], 0)], 1));
        b.script_answers = vec![Ok(json!({"value": "hunter2-long"}))].into();
        b
    };
    let mut elsewhere = browser_on("http://evil.example/");
    let run = block_on(run_flow(
        "f".into(),
        &flow,
        &options(&["127.0.0.1"]),
        &config(),
        &mut elsewhere,
        &ScriptedModel::new(vec![]),
    ));
    assert_eq!(run.error.map(|e| e.code), Some("site_not_allowed".into()));
    assert!(elsewhere.evaluated.is_empty());
    let mut here = browser_on("http://127.0.0.1/login.html");
    let run = block_on(run_flow(
        "f".into(),
        &flow,
        &options(&["127.0.0.1"]),
        &config(),
        &mut here,
        &ScriptedModel::new(vec![]),
    ));
    assert_eq!(run.status, RunStatus::Succeeded, "{:?}", run.error);
    assert_eq!(run.result, Some(json!({"pw": {"value": "<secret>pw</secret>"}})));
}

#[test]
fn a_flows_cache_strategy_narrows_what_the_run_reads_and_keeps() {
    let flow_with = |agent: &str| {
        parse_flow(&format!("agent:\n{agent}tasks:\n  - flow:\n      - aiAct: add a todo 'buy milk'\n")).unwrap()
    };
    let run_with = |flow: &crate::flow::Flow, options: &RunOptions| {
        let mut browser = todo_browser();
        let run = block_on(run_flow(
            "f".into(),
            flow,
            options,
            &config(),
            &mut browser,
            &ScriptedModel::new(vec![Ok(ADD_MILK)]),
        ));
        assert_eq!(run.status, RunStatus::Succeeded, "{:?}", run.error);
        (run.model_calls, browser.store.cache)
    };
    // read-write (`cache: true`): what it planned is kept; a later run uses it.
    let (calls, kept) = run_with(&flow_with("  cache: true\n"), &RunOptions::default());
    assert_eq!((calls > 0, kept.0.len()), (true, 1));
    let cached = RunOptions { cache: kept.clone(), ..RunOptions::default() };
    assert_eq!(run_with(&flow_with("  cache: true\n"), &cached).0, 0, "replayed from the cache");
    // read-only: used, nothing new kept; write-only: not used, kept anew; false: neither.
    let (calls, kept_now) = run_with(&flow_with("  cache:\n    strategy: read-only\n"), &cached);
    assert_eq!((calls, kept_now.0.len()), (0, 0));
    assert!(run_with(&flow_with("  cache:\n    strategy: read-only\n"), &RunOptions::default()).1 .0.is_empty());
    let (calls, _) = run_with(&flow_with("  cache:\n    strategy: write-only\n"), &cached);
    assert!(calls > 0, "write-only looks nothing up");
    assert_eq!(run_with(&flow_with("  cache:\n    strategy: write-only\n"), &RunOptions::default()).1 .0.len(), 1);
    let (calls, kept_now) = run_with(&flow_with("  cache: false\n"), &cached);
    assert!(calls > 0 && kept_now.0.is_empty());
    // The file never turns on a cache the caller turned off.
    let off = RunOptions { use_cache: false, ..cached.clone() };
    let (calls, kept_now) = run_with(&flow_with("  cache: true\n"), &off);
    assert!(calls > 0 && kept_now.0.is_empty());
}

/// An agent reaches the browser only through its calls: none runs a flow file or code, so a
/// flow's scripts never run for an agent (in the panel they wait for the person's Allow).
#[test]
fn no_agent_call_runs_a_flow_or_code() {
    for call in crate::vocab::calls::CALLS {
        let name = call.name.to_ascii_lowercase();
        assert!(
            !["flow", "yaml", "javascript", "script", "evaluate", "eval"].iter().any(|w| name.contains(w)),
            "{} would let an agent run code: it must be refused unless the person allowed the file",
            call.name
        );
    }
}

#[test]
fn back_forward_and_reload_from_an_exported_flow_go_through_the_tabs_history_with_no_model() {
    use crate::agent::browser::fake::{FakeTab, FakeTabs};
    use crate::vocab::actions::Go;
    let yaml = "web:\n  url: http://127.0.0.1/todo.html\ntasks:\n  - name: around\n    flow:\n      - javascript: \"history.back()\"\n      - javascript: \"history.forward()\"\n      - javascript: \"location.reload()\"\n";
    let flow = parse_flow(yaml).unwrap();
    let mut browser = todo_browser();
    let history = ["http://127.0.0.1/a.html", "http://127.0.0.1/todo.html"];
    browser.tabs = Some(FakeTabs::new(vec![FakeTab::new(1, "Todos", &history, 1)], 1));
    let model = ScriptedModel::new(vec![]);
    let run = block_on(run_flow("f".into(), &flow, &RunOptions::default(), &config(), &mut browser, &model));
    assert_eq!(run.status, RunStatus::Succeeded, "{:?}", run.error);
    assert_eq!(run.model_calls, 0);
    assert_eq!(browser.tabs.as_ref().unwrap().went, [Go::Back, Go::Forward, Go::Reload]);
    let titles: Vec<&str> = run.flow.as_ref().unwrap().items.iter().map(|i| i.title.as_str()).collect();
    assert_eq!(titles, ["Go back", "Go forward", "Reload the page"]);
    // Exported again, the same three steps.
    let ops: Vec<Op> = recording_of(&run).steps.into_iter().map(|s| s.op).collect();
    assert!(matches!(ops.as_slice(), [Op::History { .. }, Op::History { .. }, Op::History { .. }]), "{ops:?}");
}

#[test]
fn a_batch_summary_names_a_flow_partly_failed_only_when_its_failures_were_all_allowed_to_go_on() {
    use crate::agent::replay::flow::batch_result_type;
    let run_of = |continue_on_error: bool| {
        let yaml = format!(
            "web:\n  url: http://127.0.0.1/todo.html\ntasks:\n  - name: may fail\n    continueOnError: {continue_on_error}\n    flow:\n      - aiTap: the missing button\n  - name: goes on\n    flow:\n      - sleep: 10\n"
        );
        let flow = parse_flow(&yaml).unwrap();
        let missing = r#"{"element": null, "error": "no such button"}"#;
        let model = ScriptedModel::new(vec![Ok(missing), Ok(missing), Ok(missing)]);
        block_on(run_flow("f".into(), &flow, &RunOptions::default(), &config(), &mut todo_browser(), &model))
    };
    let partial = run_of(true);
    assert_eq!(partial.status, RunStatus::Failed);
    assert_eq!(partial.flow.as_ref().unwrap().items.len(), 2, "it went on to the next task");
    assert_eq!(batch_result_type(&partial), "partialFailed");
    assert_eq!(batch_result_type(&run_of(false)), "failed");
    let done = block_on(run_flow(
        "f".into(),
        &parse_flow("tasks:\n  - name: a\n    flow:\n      - sleep: 1\n").unwrap(),
        &RunOptions::default(),
        &config(),
        &mut todo_browser(),
        &ScriptedModel::new(vec![]),
    ));
    assert_eq!(batch_result_type(&done), "success");
}
