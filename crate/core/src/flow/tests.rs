use super::*;
use crate::export::{to_midscene_yaml, Op, RecStep, Recording, Target};
use crate::vocab::actions::InputMode;
use crate::vocab::actions::ScrollDirection;
use crate::vocab::actions::ScrollType;
use crate::vocab::geometry::WindowSize;
use crate::vocab::tasks::Task;

fn steps(flow: &Flow) -> Vec<&FlowStep> {
    flow.tasks.iter().flat_map(|t| &t.steps).collect()
}

fn tap(locate: &str, xpath: Option<&str>) -> FlowStep {
    FlowStep::Task { task: Task::Tap { locate: locate.into() }, xpath: xpath.map(Into::into), name: None }
}

fn target(describe: &str, xpath: &str) -> Option<Target> {
    Some(Target {
        describe: describe.into(),
        xpath: xpath.into(),
        xpath_text: None,
        holder_point: None,
        point: (10.0, 10.0),
        size: (20.0, 20.0),
        tag: "input".into(),
        locators: None,
    })
}

fn rec(op: Op, target: Option<Target>) -> RecStep {
    RecStep { op, target, caption: String::new(), duration_ms: 0.0, screenshot: None }
}

#[test]
fn what_our_midscene_export_writes_reads_back_as_the_same_steps() {
    let recording = Recording {
        title: "sign in".into(),
        url: "http://127.0.0.1:8000/form.html".into(),
        steps: vec![
            rec(Op::Input { value: "ada".into(), append: false }, target("input \"Name\"", "//*[@id=\"name\"]")),
            rec(Op::Type { value: "more".into() }, None),
            rec(
                Op::Key { key: crate::export::recording::key_of("Enter") },
                target("input \"Name\"", "//*[@id=\"name\"]"),
            ),
            rec(Op::Scroll { direction: ScrollDirection::Down, distance: None, to_edge: true }, None),
            rec(Op::Tap, target("button \"Go\"", "/html[1]/body[1]/button[1]")),
            rec(Op::Wait { ms: 300 }, None),
            rec(Op::WaitFor { assertion: "a welcome shows".into(), timeout_ms: 5000 }, None),
        ],
        language: crate::i18n::Lang::En,
    };
    let flow = parse_flow(&to_midscene_yaml(&recording, WindowSize { width: 1024, height: 700 })).unwrap();
    assert_eq!(flow.url.as_deref(), Some("http://127.0.0.1:8000/form.html"));
    assert_eq!(flow.viewport, Some(WindowSize { width: 1024, height: 700 }));
    assert_eq!(flow.title(), "sign in");
    let name_xpath = Some("//*[@id=\"name\"]".to_string());
    assert_eq!(
        steps(&flow),
        vec![
            &FlowStep::Task {
                task: Task::Input { locate: "input \"Name\"".into(), value: "ada".into(), mode: InputMode::Replace },
                xpath: name_xpath.clone(),
                name: None
            },
            &FlowStep::Task {
                task: Task::Input { locate: String::new(), value: "more".into(), mode: InputMode::Append },
                xpath: None,
                name: None
            },
            &FlowStep::Task {
                task: Task::KeyboardPress { key: "Enter".into(), locate: Some("input \"Name\"".into()) },
                xpath: name_xpath,
                name: None
            },
            &FlowStep::Task {
                task: Task::Scroll {
                    locate: None,
                    direction: ScrollDirection::Down,
                    scroll_type: ScrollType::UntilEdge,
                    distance: None
                },
                xpath: None,
                name: None
            },
            &tap("button \"Go\"", Some("/html[1]/body[1]/button[1]")),
            &FlowStep::Sleep { ms: 300 },
            &FlowStep::Task {
                task: Task::WaitFor { assertion: "a welcome shows".into(), timeout_ms: 5000, interval_ms: 1000 },
                xpath: None,
                name: None
            },
        ]
    );
}

#[test]
fn midscene_forms_are_read_as_midscene_reads_them() {
    let flow = parse_flow(
        r#"
web:
  serve: ./site
  url: /todo.html
tasks:
  - name: add
    continueOnError: true
    flow:
      - aiAction: add a todo
      - aiInput: buy milk            # the old form: the value, then `locate`
        locate: the new todo box
      - aiKeyboardPress: the box     # `keyName` given: the item names the element
        keyName: Enter
      - aiTap:
          prompt: the first todo
      - aiQuery: {items: "string[], the todo titles"}
        name: todos
      - aiScroll: null
        direction: up
        distance: 300
      - aiDragAndDrop:
          from: {prompt: card A}
          to: {prompt: column B}
      - aiTap: the file field
        fileChooserAccept: /tmp/a.txt
      - aiAssert: 3 todos are listed
      - logScreenshot: end
  - name: second
    flow:
      - ai: clear completed
"#,
    )
    .unwrap();
    assert_eq!((flow.serve.as_deref(), flow.url.as_deref(), flow.viewport), (Some("./site"), Some("/todo.html"), None));
    assert!(flow.tasks[0].continue_on_error && !flow.tasks[1].continue_on_error);
    assert_eq!(flow.title(), "add · second");
    let s = steps(&flow);
    assert_eq!(s[0], &FlowStep::Act { instruction: "add a todo".into() });
    assert_eq!(
        s[1],
        &FlowStep::Task {
            task: Task::Input { locate: "the new todo box".into(), value: "buy milk".into(), mode: InputMode::Replace },
            xpath: None,
            name: None
        }
    );
    assert_eq!(
        s[2],
        &FlowStep::Task {
            task: Task::KeyboardPress { key: "Enter".into(), locate: Some("the box".into()) },
            xpath: None,
            name: None
        }
    );
    assert_eq!(s[3], &tap("the first todo", None));
    match s[4] {
        FlowStep::Task { task: Task::Query { demand }, name, .. } => {
            assert_eq!(demand["items"], "string[], the todo titles");
            assert_eq!(name.as_deref(), Some("todos"));
        }
        other => panic!("{other:?}"),
    }
    assert_eq!(
        s[5],
        &FlowStep::Task {
            task: Task::Scroll {
                locate: None,
                direction: ScrollDirection::Up,
                scroll_type: ScrollType::Once,
                distance: Some(300.0)
            },
            xpath: None,
            name: None
        }
    );
    assert_eq!(
        s[6],
        &FlowStep::Task { task: Task::Drag { from: "card A".into(), to: "column B".into() }, xpath: None, name: None }
    );
    assert_eq!(
        s[7],
        &FlowStep::Task {
            task: Task::Upload { locate: "the file field".into(), files: vec!["/tmp/a.txt".into()] },
            xpath: None,
            name: None
        }
    );
    assert_eq!(
        s[8],
        &FlowStep::Task { task: Task::Assert { assertion: "3 todos are listed".into() }, xpath: None, name: None }
    );
    assert_eq!(s[9], &FlowStep::Act { instruction: "clear completed".into() });
    assert_eq!(flow.warnings, vec!["line 27: task 1 (\u{201c}add\u{201d}), step 10: logScreenshot is not needed: the report has a screenshot of every step"]);
}

#[test]
fn a_flow_that_cannot_run_says_where_and_why() {
    let err = |text: &str| parse_flow(text).unwrap_err().to_string();
    assert_eq!(err(""), "the flow file is empty");
    assert!(
        err("web: {url: x}\ntasks:\n  - name: a\n    flow: [\n").starts_with("the flow file is not valid YAML:"),
        "{}",
        err("tasks: [")
    );
    assert_eq!(err("web:\n  url: x\n"), "the flow file has no `tasks:` list");
    assert_eq!(
        err("android:\n  deviceId: x\ntasks: []\n"),
        "this flow is for `android`: Sightline runs web flows (`web:`)"
    );
    assert_eq!(
        err("tasks:\n  - name: a\n    flow: []\n"),
        "the flow has no steps: each task needs a `flow:` list of steps"
    );
    assert_eq!(
        err("tasks:\n  - name: a\n    flow:\n      - sleep: 10\n      - aiTapp: Save\n"),
        "task 1 (\u{201c}a\u{201d}), step 2: no step Sightline knows (keys: aiTapp); steps are aiAct, aiAction, ai, aiTap, aiDoubleClick, aiRightClick, aiHover, aiLocate, aiInput, aiKeyboardPress, aiScroll, aiDragAndDrop, aiQuery, aiBoolean, aiNumber, aiString, aiAsk, aiAssert, aiWaitFor, sleep"
    );
    assert_eq!(
        err("tasks:\n  - name: a\n    flow:\n      - javascript: ''\n"),
        "task 1 (\u{201c}a\u{201d}), step 1: javascript needs the code to run"
    );
    assert_eq!(
        err("tasks:\n  - flow:\n      - aiTap: ''\n"),
        "task 1 (\u{201c}Task 1\u{201d}), step 1: aiTap needs a description of the element"
    );
    assert_eq!(err("tasks:\n  - flow:\n      - aiInput: ''\n        value: x\n"), "task 1 (\u{201c}Task 1\u{201d}), step 1: aiInput needs a description of the field (or `mode: typeOnly` to type into what has focus)");
    assert_eq!(
        err("tasks:\n  - flow:\n      - sleep: soon\n"),
        "task 1 (\u{201c}Task 1\u{201d}), step 1: sleep needs a number of milliseconds"
    );
}

#[test]
fn web_dialogs_says_how_the_pages_dialogs_are_answered() {
    use crate::vocab::tasks::DialogPolicy;
    let flow =
        |web: &str| parse_flow(&format!("web:\n  url: https://x.org/\n{web}tasks:\n  - flow:\n      - sleep: 1\n"));
    assert_eq!(flow("").unwrap().dialogs, None, "unset: the run's own, else ask");
    assert_eq!(flow("  dialogs: accept\n").unwrap().dialogs, Some(DialogPolicy::Accept));
    assert_eq!(flow("  dialogs: Dismiss\n").unwrap().dialogs, Some(DialogPolicy::Dismiss));
    assert_eq!(flow("  dialogs: ask\n").unwrap().dialogs, Some(DialogPolicy::Ask));
    let e = flow("  dialogs: yes\n").unwrap_err().to_string();
    assert!(e.contains("\u{201c}yes\u{201d} is not one of ask, accept, dismiss"), "{e}");
}

#[test]
fn web_serve_is_only_the_flow_files_own_folder_tree() {
    let flow = |serve: &str| {
        parse_flow(&format!("web:\n  serve: {serve}\n  url: /a.html\ntasks:\n  - flow:\n      - sleep: 1\n"))
    };
    for inside in [".", "./site", "site/pages", "'a..b'", "site/.well-known", "'..site'"] {
        assert!(flow(inside).is_ok(), "{inside}: {:?}", flow(inside).unwrap_err());
    }
    // A shared flow file naming the person's own folders, before: served as they were.
    for (outside, why) in [
        ("/home/ada/.ssh", "is an absolute path"),
        ("/etc", "is an absolute path"),
        ("'\\\\server\\share'", "is an absolute path"),
        ("'C:\\Users\\ada'", "is an absolute path"),
        ("'c:/Users'", "is an absolute path"),
        ("..", "climbs out of the flow file's folder (`..`)"),
        ("../..", "climbs out"),
        ("site/../../x", "climbs out"),
        ("'site\\..\\..'", "climbs out"),
        ("./..", "climbs out"),
        ("\"site/\\0\"", "is not a folder's name"),
    ] {
        let e = flow(outside).unwrap_err();
        assert!(matches!(e, FlowError::Shape(_)), "{outside}: {e}");
        let said = e.to_string();
        assert!(said.starts_with("`web: serve:` \u{201c}"), "{said}");
        assert!(
            said.contains(why) && said.contains("a flow serves only its own folder and the folders in it"),
            "{outside}: {said}"
        );
    }
}

#[test]
fn hostile_yaml_is_refused_before_it_expands() {
    // Each alias level multiplies the copies the loader would make: nine levels of ten are
    // a billion strings.
    let mut bomb =
        String::from("a: &a [\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\"]\n");
    for (prev, name) in ["a", "b", "c", "d", "e", "f", "g", "h"].iter().zip(["b", "c", "d", "e", "f", "g", "h", "i"]) {
        bomb.push_str(&format!("{name}: &{name} [{}]\n", vec![format!("*{prev}"); 10].join(",")));
    }
    bomb.push_str("tasks: []\n");
    assert_eq!(parse_flow(&bomb), Err(FlowError::Alias(2)));
    // Deep nesting: the scanner refuses flow style itself; block style is counted.
    let deep = format!("tasks: {}{}", "[".repeat(50_000), "]".repeat(50_000));
    assert!(matches!(parse_flow(&deep), Err(FlowError::Syntax { .. })), "{:?}", parse_flow(&deep));
    let block: String = (0..40).map(|i| format!("{}- \n", "  ".repeat(i))).collect();
    assert!(matches!(parse_flow(&format!("tasks:\n{block}")), Err(FlowError::TooDeep(_))));
    let big = format!("# {}\ntasks: []\n", "x".repeat(MAX_FLOW_BYTES));
    assert_eq!(parse_flow(&big), Err(FlowError::TooBig(1024)));
}

#[test]
fn a_key_twice_in_a_mapping_is_a_syntax_error_naming_it_in_any_document() {
    let steps = "tasks:\n  - name: t\n    flow:\n      - aiTap: Save\n";
    let twice = format!("web:\n  url: https://a.example/\n  url: https://b.example/\n{steps}");
    let e = parse_flow(&twice).unwrap_err();
    assert!(matches!(&e, FlowError::Syntax { line: 3, .. }), "{e:?}");
    assert!(e.to_string().contains("duplicated key"), "{e}");
    // Only the first document is the flow, but the whole file must be valid YAML.
    assert!(parse_flow(&format!("{steps}---\na: 1\n")).is_ok());
    let e = parse_flow(&format!("{steps}---\na: 1\na: 2\n")).unwrap_err();
    assert!(e.to_string().contains("duplicated key"), "{e}");
}

/// Every key the file has that is not honoured is said, with its line, and the steps still run;
/// what `agent:` says that has a meaning here is taken.
#[test]
fn keys_not_honoured_are_warned_with_their_lines_and_agent_settings_are_taken() {
    let flow = parse_flow(
        "web:
  url: http://127.0.0.1/todo.html
  userAgent: Bot/1.0
agent:
  aiActContext: The site is in English.
  replanningCycleLimit: 7
  bridgeMode: newTabWithUrl
config:
  x: 1
tasks:
  - name: add
    retries: 2
    flow:
      - aiTap:
          locate:
            prompt: the new todo box
            images:
              - name: box
                url: http://127.0.0.1/box.png
        deepThink: true
        colour: red
      - aiInput: buy milk
        locate: {prompt: the new todo box}
        cacheable: false
",
    )
    .unwrap();
    assert_eq!(steps(&flow)[0], &tap("the new todo box", None), "the nested locate form");
    assert!(
        matches!(steps(&flow)[1], FlowStep::Task { task: Task::Input { locate, value, .. }, .. } if locate == "the new todo box" && value == "buy milk")
    );
    assert_eq!(flow.context.as_deref(), Some("The site is in English."));
    assert_eq!(flow.max_rounds, Some(7));
    let at = "task 1 (\u{201c}add\u{201d})";
    assert_eq!(
        flow.warnings,
        vec![
            "line 3: `web: userAgent:` is not honoured here: the flow runs in the browser as it is".to_string(),
            "line 7: `agent: bridgeMode:` is not honoured here: the run uses Sightline's own setting".into(),
            "line 8: `config:` is not part of a Midscene web flow: ignored".into(),
            format!("line 12: {at}: `retries:` is not a task option: ignored"),
            format!("line 20: {at}, step 1: `deepThink:` is not honoured here: Sightline's model works its own way"),
            format!("line 21: {at}, step 1: `colour:` is not an option of aiTap: ignored"),
            format!(
                "line 17: {at}, step 1: `images:` are not sent with the description: the model is given its words only"
            ),
            format!("line 24: {at}, step 2: `cacheable:` is not honoured here: Sightline's model works its own way"),
        ]
    );
}

#[test]
fn names_in_a_flow_are_filled_and_an_unset_one_names_its_line() {
    let yaml = "web:\n  url: http://${HOST}/todo.html\ntasks:\n  - name: add\n    flow:\n      - aiInput: ${ITEM}\n        locate: the new todo box\n      - aiInput: ${SITE_PASSWORD}\n        locate: the password\n";
    let vars = FlowVars {
        dotenv: Some("HOST=127.0.0.1:8080\nITEM=buy milk\n".into()),
        secrets: vec!["site_password".into()],
        ..Default::default()
    };
    let flow = parse_flow_with(yaml, &vars).unwrap();
    assert_eq!(flow.url.as_deref(), Some("http://127.0.0.1:8080/todo.html"));
    let values: Vec<_> = steps(&flow)
        .iter()
        .map(|s| match s {
            FlowStep::Task { task: Task::Input { value, .. }, .. } => value.clone(),
            other => panic!("{other:?}"),
        })
        .collect();
    assert_eq!(values, ["buy milk", "<secret>site_password</secret>"], "a secret stays its placeholder");
    let unset = parse_flow(yaml).unwrap_err().to_string();
    assert!(unset.starts_with("line 2: `${HOST}` is not set"), "{unset}");
}

/// A key holding terminal escape sequences is quoted with them written out, in warnings and errors alike.
#[test]
fn the_files_own_words_in_messages_carry_no_control_characters() {
    let flow =
        parse_flow("tasks:\n  - name: t\n    flow:\n      - sleep: 1\n        \"\\e[2J\\e]0;pwned\\a\": 1\n").unwrap();
    assert_eq!(flow.warnings.len(), 1);
    assert!(!flow.warnings[0].chars().any(char::is_control), "{:?}", flow.warnings);
    assert!(flow.warnings[0].contains("\\u{1b}[2J"), "{:?}", flow.warnings);
    let refused = parse_flow("tasks:\n  - name: t\n    flow:\n      - \"\\e[31mtap\": 1\n").unwrap_err().to_string();
    assert!(!refused.chars().any(char::is_control) && refused.contains("\\u{1b}[31mtap"), "{refused}");
}

fn script(code: &str, name: Option<&str>) -> FlowStep {
    FlowStep::Script { code: code.into(), name: name.map(Into::into) }
}

#[test]
fn javascript_steps_are_read_as_code_with_their_names_and_the_flow_is_known_by_its_hash() {
    let yaml = "web:\n  url: http://127.0.0.1/todo.html\ntasks:\n  - name: check\n    flow:\n      - javascript: document.title\n        name: title\n      - javascript: |\n          localStorage.setItem('seen', '1');\n          await Promise.resolve(2)\n      - javascript: 'location.href = \"http://127.0.0.1/b.html\"'\n";
    let flow = parse_flow(yaml).unwrap();
    assert_eq!(
        steps(&flow),
        vec![
            &script("document.title", Some("title")),
            &script("localStorage.setItem('seen', '1');\nawait Promise.resolve(2)\n", None),
            // Our export's navigation is opened, not run as code.
            &FlowStep::Navigate { url: "http://127.0.0.1/b.html".into() },
        ]
    );
    assert!(flow.warnings.is_empty(), "{:?}", flow.warnings);
    assert_eq!(steps(&flow)[0].title(), "javascript \u{201c}document.title\u{201d}");
    assert_eq!(steps(&flow)[1].title(), "javascript \u{201c}localStorage.setItem('seen', '1');\u{2026}\u{201d}");
    // SHA-256, hex: the same file, the same hash; one character of a script changed, another.
    assert_eq!(flow.hash.len(), 64);
    assert!(flow.hash.chars().all(|c| c.is_ascii_hexdigit()));
    assert_eq!(parse_flow(yaml).unwrap().hash, flow.hash);
    assert_ne!(parse_flow(&yaml.replace("'1'", "'2'")).unwrap().hash, flow.hash);
    // A name the code is filled from changes the code, and with it the hash, the text unchanged.
    let filled = "tasks:\n  - flow:\n      - javascript: localStorage.setItem('k', '${VALUE}')\n";
    let with = |v: &str| FlowVars { dotenv: Some(format!("VALUE={v}\n")), ..Default::default() };
    let (a, b) = (parse_flow_with(filled, &with("1")).unwrap(), parse_flow_with(filled, &with("2")).unwrap());
    assert_eq!(steps(&a), [&script("localStorage.setItem('k', '1')", None)]);
    assert_ne!(a.hash, b.hash);
}

#[test]
fn a_flows_scripts_need_the_persons_allowance_of_that_very_file() {
    let yaml = "tasks:\n  - name: read\n    flow:\n      - sleep: 1\n      - javascript: document.title\n        name: title\n";
    let flow = parse_flow(yaml).unwrap();
    let asked = script_consent(&flow, &[]);
    assert!(!asked.allowed);
    assert_eq!(asked.hash, flow.hash);
    assert_eq!(
        asked.scripts,
        [ShownScript { task: "read".into(), step: 2, code: "document.title".into(), name: Some("title".into()) }]
    );
    assert!(script_consent(&flow, std::slice::from_ref(&flow.hash)).allowed);
    // The allowance of the file before it changed does not carry over.
    let changed = parse_flow(&yaml.replace("document.title", "document.cookie")).unwrap();
    assert!(!script_consent(&changed, std::slice::from_ref(&flow.hash)).allowed);
    // A flow with no scripts asks nothing.
    let plain = parse_flow("tasks:\n  - flow:\n      - sleep: 1\n").unwrap();
    assert!(script_consent(&plain, &[]).allowed && script_consent(&plain, &[]).scripts.is_empty());
    // A flow carrying an allowed flow's hash (a saved run's, edited) is judged by what it runs.
    let forged = Flow { hash: flow.hash.clone(), ..changed.clone() };
    assert!(!script_consent(&forged, std::slice::from_ref(&flow.hash)).allowed);
    assert_eq!(script_consent(&forged, &[]).hash, changed.hash);
    // Comments and layout are not what runs: the same flow, the same hash; a setting is.
    let relaid = parse_flow(&format!("# a comment\n{}", yaml.replace("name: title", "name:   title"))).unwrap();
    assert_eq!(relaid.hash, flow.hash);
    let elsewhere = parse_flow(&format!("web:\n  url: http://evil.example/\n{yaml}")).unwrap();
    assert_ne!(elsewhere.hash, flow.hash);
}

#[test]
fn agent_cache_and_report_names_are_honoured_and_what_is_not_is_warned_with_its_line() {
    let read = |agent: &str| parse_flow(&format!("agent:\n{agent}tasks:\n  - flow:\n      - sleep: 1\n"));
    let cache = |agent: &str| read(agent).unwrap().cache;
    let on = |read, write| Some(FlowCache { read, write, id: None });
    assert_eq!(cache("  cache: true\n"), on(true, true));
    assert_eq!(cache("  cache: false\n"), on(false, false));
    assert_eq!(cache("  cache:\n    strategy: read-only\n"), on(true, false));
    assert_eq!(cache("  cache:\n    strategy: write-only\n"), on(false, true));
    let with_id = read("  cache:\n    id: todo-cache\n    strategy: read-write\n    cacheDir: ./c\n").unwrap();
    assert_eq!(with_id.cache, Some(FlowCache { read: true, write: true, id: Some("todo-cache".into()) }));
    assert_eq!(
        with_id.warnings,
        [
            "line 3: `agent: cache: id:` names Midscene's cache file: Sightline keeps one cache, by page and prompt (the strategy is honoured)",
            "line 5: `agent: cache: cacheDir:` is not honoured here: ignored",
        ]
    );
    assert_eq!(cache("  aiActContext: x\n"), None, "no cache key: the run's own setting");
    let err = read("  cache:\n    strategy: sometimes\n").unwrap_err().to_string();
    assert_eq!(
        err,
        "`agent: cache: strategy:` \u{201c}sometimes\u{201d} is not one of read-write, read-only, write-only"
    );
    assert!(read("  cache: [1]\n").is_err());

    let named =
        read("  testId: todo-1\n  groupName: TodoMVC\n  reportFileName: todo-report\n  groupDescription: all of it\n")
            .unwrap();
    assert_eq!(
        named.report,
        FlowReport {
            test_id: Some("todo-1".into()),
            group_name: Some("TodoMVC".into()),
            file_name: Some("todo-report".into())
        }
    );
    assert_eq!(
        named.warnings,
        ["line 5: `agent: groupDescription:` is not shown: the report has the flow's tasks and steps"]
    );
    for bad in ["../x", "a/b", "/etc/passwd", ".hidden", "a\\b", "''"] {
        let e = read(&format!("  reportFileName: {bad}\n")).unwrap_err().to_string();
        assert!(e.contains("is not a file's name"), "{bad}: {e}");
    }
}

/// The name of each kind of recorded step: a new kind fails to compile here until the round
/// trip below covers it.
fn op_kind(op: &Op) -> &'static str {
    match op {
        Op::Tap => "tap",
        Op::DoubleClick => "doubleClick",
        Op::RightClick => "rightClick",
        Op::Hover => "hover",
        Op::Input { .. } => "input",
        Op::Type { .. } => "type",
        Op::Key { .. } => "key",
        Op::Scroll { .. } => "scroll",
        Op::Drag { .. } => "drag",
        Op::Upload { .. } => "upload",
        Op::Wait { .. } => "wait",
        Op::Navigate { .. } => "navigate",
        Op::Select { .. } => "select",
        Op::History { .. } => "history",
        Op::WaitText { .. } => "waitText",
        Op::Read { .. } => "read",
        Op::Locate => "locate",
        Op::Assert { .. } => "assert",
        Op::WaitFor { .. } => "waitFor",
        Op::Check { .. } => "check",
    }
}

#[test]
fn output_names_a_json_file_in_the_flow_files_own_folder_tree() {
    let read = |web: &str, top: &str| {
        parse_flow(&format!("web:\n  url: http://127.0.0.1/\n{web}{top}tasks:\n  - flow:\n      - sleep: 1\n"))
    };
    assert_eq!(read("  output: out/results.json\n", "").unwrap().output.as_deref(), Some("out/results.json"));
    assert_eq!(read("", "output: results.json\n").unwrap().output.as_deref(), Some("results.json"));
    assert!(read("  output: out.json\n", "").unwrap().warnings.is_empty(), "web.output is read");
    for (bad, why) in [
        ("/tmp/x.json", "is an absolute path"),
        ("~/x.json", "is an absolute path"),
        ("C:/x.json", "is an absolute path"),
        ("../x.json", "climbs out of the flow file's folder"),
        ("a/../../x.json", "climbs out of the flow file's folder"),
        ("results.txt", "is not a .json file"),
        ("''", "is no path"),
    ] {
        let e = read(&format!("  output: {bad}\n"), "").unwrap_err().to_string();
        assert!(e.contains(why), "{bad}: {e}");
    }
}

#[test]
fn every_kind_of_recorded_or_planned_step_exported_as_midscene_yaml_reads_back_as_the_step_it_was() {
    use crate::export::recording::{key_of, History};
    let field = || target("input \"Name\"", "//*[@id=\"name\"]");
    let x = || Some("//*[@id=\"name\"]".to_string());
    let in_frame = || target("select \"Size\"", "/html[1]/body[1]/iframe[1] >>> /html[1]/body[1]/select[1]");
    let task = |task: Task, xpath: Option<String>| FlowStep::Task { task, xpath, name: None };
    let read = |task: Task| FlowStep::Task { task, xpath: None, name: Some("result".into()) };
    let scroll = |direction, scroll_type, distance| Task::Scroll { locate: None, direction, scroll_type, distance };
    let cases: Vec<(RecStep, FlowStep)> = vec![
        (rec(Op::Tap, field()), tap("input \"Name\"", x().as_deref())),
        (rec(Op::DoubleClick, field()), task(Task::DoubleClick { locate: "input \"Name\"".into() }, x())),
        (rec(Op::RightClick, field()), task(Task::RightClick { locate: "input \"Name\"".into() }, x())),
        (rec(Op::Hover, field()), task(Task::Hover { locate: "input \"Name\"".into() }, x())),
        (
            rec(Op::Input { value: "ada \"the\" 1st\n".into(), append: false }, field()),
            task(
                Task::Input {
                    locate: "input \"Name\"".into(),
                    value: "ada \"the\" 1st\n".into(),
                    mode: InputMode::Replace,
                },
                x(),
            ),
        ),
        (
            rec(Op::Input { value: " more".into(), append: true }, field()),
            task(Task::Input { locate: "input \"Name\"".into(), value: " more".into(), mode: InputMode::Append }, x()),
        ),
        (
            rec(Op::Input { value: String::new(), append: false }, field()),
            task(Task::Input { locate: "input \"Name\"".into(), value: String::new(), mode: InputMode::Clear }, x()),
        ),
        (
            rec(Op::Type { value: "typed".into() }, None),
            task(Task::Input { locate: String::new(), value: "typed".into(), mode: InputMode::Append }, None),
        ),
        (
            rec(Op::Key { key: key_of("ctrl+a") }, None),
            task(Task::KeyboardPress { key: "Control+a".into(), locate: None }, None),
        ),
        (
            rec(Op::Key { key: key_of("Enter") }, field()),
            task(Task::KeyboardPress { key: "Enter".into(), locate: Some("input \"Name\"".into()) }, x()),
        ),
        (
            rec(Op::Scroll { direction: ScrollDirection::Up, distance: Some(240.0), to_edge: false }, None),
            task(scroll(ScrollDirection::Up, ScrollType::Once, Some(240.0)), None),
        ),
        (
            rec(Op::Scroll { direction: ScrollDirection::Left, distance: None, to_edge: true }, None),
            task(scroll(ScrollDirection::Left, ScrollType::UntilEdge, None), None),
        ),
        (
            rec(Op::Drag { to: None, to_point: (5.0, 6.0), to_describe: "the bin".into() }, field()),
            task(Task::Drag { from: "input \"Name\"".into(), to: "the bin".into() }, None),
        ),
        (
            rec(Op::Upload { files: vec!["a.txt".into(), "b c.pdf".into()] }, field()),
            task(Task::Upload { locate: "input \"Name\"".into(), files: vec!["a.txt".into(), "b c.pdf".into()] }, x()),
        ),
        (rec(Op::Wait { ms: 250 }, None), FlowStep::Sleep { ms: 250 }),
        (
            rec(Op::Navigate { url: "http://127.0.0.1:8000/b.html?q=\"x\"".into() }, None),
            FlowStep::Navigate { url: "http://127.0.0.1:8000/b.html?q=\"x\"".into() },
        ),
        (
            rec(
                Op::Select { option: "Large \"L\"".into(), value: Some("l".into()) },
                target("select \"Size\"", "//*[@id=\"size\"]"),
            ),
            FlowStep::Select {
                xpath: "//*[@id=\"size\"]".into(),
                option: "Large \"L\"".into(),
                value: Some("l".into()),
            },
        ),
        (
            rec(Op::Select { option: " Medium ".into(), value: None }, target("select \"Size\"", "//*[@id=\"size\"]")),
            FlowStep::Select { xpath: "//*[@id=\"size\"]".into(), option: " Medium ".into(), value: None },
        ),
        // In a frame no XPath reaches the list: the choice is the planner's, by its words.
        (
            rec(Op::Select { option: "Small".into(), value: None }, in_frame()),
            FlowStep::Act { instruction: "choose the option \u{201c}Small\u{201d} in select \"Size\"".into() },
        ),
        (rec(Op::History { go: History::Back }, None), FlowStep::History { go: FlowHistory::Back }),
        (rec(Op::History { go: History::Forward }, None), FlowStep::History { go: FlowHistory::Forward }),
        (rec(Op::History { go: History::Reload }, None), FlowStep::History { go: FlowHistory::Reload }),
        (
            rec(Op::WaitText { text: "Saved".into(), gone: false, timeout_ms: 4000 }, None),
            task(
                Task::WaitFor {
                    assertion: "the page shows the text \u{201c}Saved\u{201d}".into(),
                    timeout_ms: 4000,
                    interval_ms: 1000,
                },
                None,
            ),
        ),
        (
            rec(
                Op::Read {
                    kind: "aiQuery",
                    prompt: serde_json::json!({"titles": "the titles, as strings", "n": 2}),
                    answer: None,
                },
                None,
            ),
            read(Task::Query { demand: serde_json::json!({"titles": "the titles, as strings", "n": 2}) }),
        ),
        (
            rec(Op::Read { kind: "aiQuery", prompt: serde_json::json!("the titles"), answer: None }, None),
            read(Task::Query { demand: serde_json::json!("the titles") }),
        ),
        (
            rec(Op::Read { kind: "aiBoolean", prompt: serde_json::json!("is it on?"), answer: None }, None),
            read(Task::Boolean { question: "is it on?".into() }),
        ),
        (
            rec(Op::Read { kind: "aiNumber", prompt: serde_json::json!("how many?"), answer: None }, None),
            read(Task::Number { question: "how many?".into() }),
        ),
        (
            rec(Op::Read { kind: "aiString", prompt: serde_json::json!("whose?"), answer: None }, None),
            read(Task::Text { question: "whose?".into() }),
        ),
        (
            rec(Op::Read { kind: "aiAsk", prompt: serde_json::json!("why?"), answer: None }, None),
            read(Task::Ask { question: "why?".into() }),
        ),
        (rec(Op::Locate, field()), task(Task::Locate { locate: "input \"Name\"".into() }, x())),
        (
            rec(Op::Assert { assertion: "it is on".into() }, None),
            task(Task::Assert { assertion: "it is on".into() }, None),
        ),
        (
            rec(Op::WaitFor { assertion: "it is done".into(), timeout_ms: 600 }, None),
            task(Task::WaitFor { assertion: "it is done".into(), timeout_ms: 600, interval_ms: 600 }, None),
        ),
        // A check the person recorded: Midscene's model judges it in words (no XPath: aiAssert takes none).
        (
            rec(Op::Check { check: crate::vocab::actions::ElementCheck::Value, expected: "ada".into() }, field()),
            task(Task::Assert { assertion: "input \"Name\" holds the value \u{201c}ada\u{201d}".into() }, None),
        ),
    ];
    let kinds: std::collections::BTreeSet<&str> = cases.iter().map(|(s, _)| op_kind(&s.op)).collect();
    assert_eq!(kinds.len(), 20, "every kind of step is covered: {kinds:?}");
    let recording = Recording {
        title: "every step".into(),
        url: "http://127.0.0.1:8000/form.html".into(),
        steps: cases.iter().map(|(s, _)| s.clone()).collect(),
        language: crate::i18n::Lang::En,
    };
    let yaml = to_midscene_yaml(&recording, WindowSize { width: 1280, height: 800 });
    assert!(
        yaml.lines().nth(1).unwrap().starts_with("# Midscene's YAML script format (web: and tasks: of flow: items)"),
        "{yaml}"
    );
    let flow = parse_flow(&yaml).unwrap_or_else(|e| panic!("{e}\n{yaml}"));
    assert!(flow.warnings.is_empty(), "{:?}", flow.warnings);
    let want: Vec<&FlowStep> = cases.iter().map(|(_, f)| f).collect();
    assert_eq!(steps(&flow), want);
}

#[test]
fn only_the_scripts_our_export_writes_are_read_as_steps_and_the_rest_as_code_to_allow() {
    let one = |script: &str| {
        let text = format!(
            "tasks:\n  - name: a\n    flow:\n      - javascript: {}\n",
            crate::vocab::escape::yaml_string(script)
        );
        parse_flow(&text).map(|f| f.tasks[0].steps[0].clone())
    };
    assert_eq!(one("history.back();"), Ok(FlowStep::History { go: FlowHistory::Back }));
    let select = crate::flow::known::select_script("//*[@id=\"size\"]", "L", Some("l"));
    assert!(matches!(one(&select), Ok(FlowStep::Select { .. })));
    for other in [
        "history.back(); fetch('/x')",
        "history.go(-2)",
        "location.reload(true)",
        // The export's choice with one more statement, or another literal spliced in.
        &select.replace("s.value = o.value;", "s.value = o.value; fetch(\"/steal\");"),
        &select.replace("(\"//*[@id=\\\"size\\\"]\"", "(\"//x\" + document.cookie + \"\""),
        &select.replace("9, null", "9, alert(1)"),
        &crate::flow::known::select_script("//a", "L", None)
            .replace("o.text.trim() === \"L\"", "o.text.trim() === \"M\""),
    ] {
        // Code like any other: a script, run only where the person allowed this file.
        assert_eq!(one(other), Ok(FlowStep::Script { code: other.to_string(), name: None }), "{other}");
    }
}
