use super::*;
use crate::agent::record::{Run, RunStatus, Step, StepKind, StepStatus, TargetInfo};
use crate::vocab::actions::{PlannedAction, ScrollDirection};
use crate::vocab::geometry::{Rect, WindowSize};
use crate::vocab::tasks::Task;

fn target(xpath: &str, text: Option<&str>, summary: &str) -> TargetInfo {
    TargetInfo {
        index: 2,
        id: "abc".into(),
        summary: summary.into(),
        xpath: xpath.into(),
        xpath_text: text.map(Into::into),
        tag: "input".into(),
        rect: Rect { x: 100.0, y: 50.0, width: 200.0, height: 40.0 },
        locators: None,
        holder_point: None,
    }
}

fn action(planned: PlannedAction, caption: &str, target: Option<TargetInfo>) -> Step {
    let mut s = Step::new(StepKind::Action, 0.0);
    s.planned = Some(planned);
    s.action = caption.into();
    s.target = target;
    s
}

/// The todo run: a plan, typing into the box, Enter; plus a failed click the run went past.
fn todo_run() -> Run {
    let mut run = Run::new("r".into(), "add a todo \u{2018}buy milk\u{2019}", 0.0);
    run.url = "http://127.0.0.1:8000/todo.html".into();
    run.status = RunStatus::Succeeded;
    run.steps.push(Step::new(StepKind::Plan, 0.0));
    let input = target("//*[@id=\"app\"]/header[1]/input[1]", None, "input \"New todo\"");
    run.steps.push(action(
        PlannedAction::Input { target: 2, value: "buy \"milk\"".into() },
        "Input \"buy milk\" into [2]",
        Some(input),
    ));
    let mut failed = action(PlannedAction::Tap { target: 9 }, "Tap [9]", None);
    failed.status = StepStatus::Failed;
    run.steps.push(failed);
    run.steps.push(action(PlannedAction::KeyPress { key: "Enter".into() }, "Press Enter", None));
    run
}

#[test]
fn a_run_records_the_actions_that_ran_with_their_elements() {
    let rec = recording_of(&todo_run());
    assert_eq!(rec.steps.len(), 2, "the plan and the failed tap are not steps to repeat");
    assert_eq!(rec.steps[0].op, Op::Input { value: "buy \"milk\"".into(), append: false });
    let t = rec.steps[0].target.as_ref().unwrap();
    assert_eq!(t.describe, "input \"New todo\"");
    assert_eq!(t.point, (200.0, 70.0));
    assert_eq!(rec.steps[1].op, Op::Key { key: crate::export::recording::key_of("Enter") });
}

#[test]
fn midscene_yaml_names_elements_in_words_and_by_xpath() {
    let yaml = to_midscene_yaml(&recording_of(&todo_run()), WindowSize::default());
    let expected = r#"# Exported by Sightline: add a todo ‘buy milk’
# Midscene's YAML script format (web: and tasks: of flow: items): run it with Midscene's CLI (midscene FILE.yaml) or Sightline's scripts/run FILE.yaml.
web:
  url: "http://127.0.0.1:8000/todo.html"
  viewportWidth: 1280
  viewportHeight: 800
tasks:
  - name: "add a todo ‘buy milk’"
    flow:
      - aiInput: "input \"New todo\""
        value: "buy \"milk\""
        xpath: "//*[@id=\"app\"]/header[1]/input[1]"
      - aiKeyboardPress: "Enter"
"#;
    assert_eq!(yaml, expected);
}

#[test]
fn a_task_run_exports_as_its_task_with_its_answer() {
    let mut run = Run::new("q".into(), "aiQuery", 0.0);
    run.url = "https://shop.example/".into();
    run.status = RunStatus::Succeeded;
    run.task = Some(
        serde_json::from_value(serde_json::json!({"type": "aiQuery", "demand": "the prices as number[]"})).unwrap(),
    );
    run.result = Some(serde_json::json!([3, 4.5]));
    let rec = recording_of(&run);
    let yaml = to_midscene_yaml(&rec, WindowSize::default());
    assert!(yaml.contains("      - aiQuery: \"the prices as number[]\"\n        name: \"result\"\n"), "{yaml}");
    let ts = to_playwright(&rec, WindowSize::default());
    assert!(ts.contains("// aiQuery the prices as number[]: the run read [3,4.5]"), "{ts}");

    // A tap task that found nothing has nothing to repeat: the instruction goes to Midscene's planner.
    let mut run = Run::new("t".into(), "aiTap \u{201c}Save\u{201d}", 0.0);
    run.status = RunStatus::Failed;
    run.task = Some(Task::Tap { locate: "Save".into() });
    let yaml = to_midscene_yaml(&recording_of(&run), WindowSize::default());
    assert!(yaml.ends_with("    flow:\n      - aiAct: \"aiTap “Save”\"\n"), "{yaml}");
}

#[test]
fn playwright_uses_the_xpaths_and_falls_back_to_the_text_path() {
    let mut run = todo_run();
    run.steps.push(action(
        PlannedAction::Tap { target: 3 },
        "Tap [3]",
        Some(target("/html[1]/body[1]/button[2]", Some("//button[normalize-space()=\"Save\"]"), "button \"Save\"")),
    ));
    let ts = to_playwright(&recording_of(&run), WindowSize { width: 1024, height: 700 });
    assert!(ts.starts_with("// Exported by Sightline: add a todo ‘buy milk’\n"));
    assert!(ts.contains("test.use({ viewport: { width: 1024, height: 700 } });"));
    assert!(ts.contains("  await page.goto(\"http://127.0.0.1:8000/todo.html\");\n"));
    assert!(
        ts.contains(
            "  await page.locator(\"xpath=//*[@id=\\\"app\\\"]/header[1]/input[1]\").fill(\"buy \\\"milk\\\"\");\n"
        ),
        "{ts}"
    );
    assert!(ts.contains("  await page.keyboard.press(\"Enter\");\n"));
    assert!(ts.contains("page.locator(\"xpath=/html[1]/body[1]/button[2]\").or(page.locator(\"xpath=//button[normalize-space()=\\\"Save\\\"]\")).first().click();"), "{ts}");
    assert!(ts.trim_end().ends_with(&format!("{}\n}});", playwright::END_STATE_MARK)));
}

#[test]
fn a_text_is_acted_on_in_the_element_holding_it_where_it_is_and_flows_keep_its_own_path() {
    let mut run = todo_run();
    let mut text = target(
        "/html[1]/body[1]/p[1]/text()[2]",
        Some("//p[normalize-space()=\"Words\"]/text()[normalize-space()]"),
        "text \"Words\"",
    );
    text.holder_point =
        Some(crate::describe::locators::HolderPoint { x: 106.6, y: 10.2, border_left: 2.0, border_top: 1.0 });
    run.steps.push(action(PlannedAction::Tap { target: 4 }, "Tap [4]", Some(text.clone())));
    text.holder_point = None; // an older record, or the page did not say
    run.steps.push(action(PlannedAction::Hover { target: 4 }, "Hover [4]", Some(text)));
    let rec = recording_of(&run);
    let ts = to_playwright(&rec, WindowSize::default());
    assert!(ts.contains("page.locator(\"xpath=/html[1]/body[1]/p[1]\").or(page.locator(\"xpath=//p[normalize-space()=\\\"Words\\\"]\")).first().click({ position: { x: 105, y: 9 } });"), "{ts}");
    assert!(ts.contains("page.locator(\"xpath=/html[1]/body[1]/p[1]\").or(page.locator(\"xpath=//p[normalize-space()=\\\"Words\\\"]\")).first().hover();"), "{ts}");
    assert!(!ts.contains("text()"), "no locator for a text node: {ts}");
    let flow = to_recorder(&rec, WindowSize::default());
    let click = flow["steps"].as_array().unwrap().iter().find(|s| s["type"] == "click").unwrap();
    assert_eq!(
        click["selectors"],
        serde_json::json!([["xpath//html[1]/body[1]/p[1]"], ["xpath///p[normalize-space()=\"Words\"]"]])
    );
    // Puppeteer's offsets count from the border box, Playwright's position from the padding box.
    assert_eq!((click["offsetX"].as_f64(), click["offsetY"].as_f64()), (Some(107.0), Some(10.0)));
    // Midscene's flows name the text node itself, as Sightline's replay finds it.
    let yaml = to_midscene_yaml(&rec, WindowSize::default());
    assert!(yaml.contains("/html[1]/body[1]/p[1]/text()[2]"), "{yaml}");
}

#[test]
fn a_select_is_chosen_from_not_typed_into() {
    let mut run = todo_run();
    let mut size = target("/html[1]/body[1]/select[1]", None, "select \"size\"");
    size.tag = "select".into();
    run.steps.push(action(PlannedAction::Input { target: 5, value: "L".into() }, "Input \"L\"", Some(size)));
    let ts = to_playwright(&recording_of(&run), WindowSize::default());
    assert!(ts.contains("await page.locator(\"xpath=/html[1]/body[1]/select[1]\").selectOption(\"L\");"), "{ts}");
}

#[test]
fn secrets_are_read_from_the_environment_in_playwright() {
    let mut run = todo_run();
    let password = target("//*[@id=\"password\"]", None, "input \"password\"");
    run.steps.push(action(
        PlannedAction::Input { target: 5, value: "pin <secret>site_password</secret>!".into() },
        "Input",
        Some(password),
    ));
    let ts = to_playwright(&recording_of(&run), WindowSize::default());
    assert!(ts.contains(".fill(\"pin \" + secret(\"SIGHTLINE_SECRET_SITE_PASSWORD\") + \"!\");"), "{ts}");
    assert!(
        ts.contains("environment variables: SIGHTLINE_SECRET_SITE_PASSWORD.")
            && ts.contains("function secret(name: string)"),
        "{ts}"
    );
    assert!(!ts.contains("<secret>"), "{ts}");
    let plain = to_playwright(&recording_of(&todo_run()), WindowSize::default());
    assert!(!plain.contains("function secret"), "only where a secret is typed");
}

#[test]
fn frames_go_through_frame_locators_and_shadow_roots_through_the_point() {
    let mut run = todo_run();
    run.steps.truncate(1);
    run.steps.push(action(
        PlannedAction::Tap { target: 1 },
        "Tap in frame",
        Some(target("/html[1]/body[1]/iframe[1] >>> /html[1]/body[1]/a[1]", None, "a \"Help\"")),
    ));
    run.steps.push(action(
        PlannedAction::Tap { target: 2 },
        "Tap in shadow",
        Some(target("/html[1]/body[1]/my-card[1] >>> /div[1]/button[1]", None, "button \"Buy\"")),
    ));
    let ts = to_playwright(&recording_of(&run), WindowSize::default());
    assert!(ts.contains("await page.frameLocator(\"xpath=/html[1]/body[1]/iframe[1]\").locator(\"xpath=/html[1]/body[1]/a[1]\").click();"), "{ts}");
    assert!(ts.contains("// Tap in shadow → button \"Buy\"\n  await page.mouse.click(200, 70);"), "{ts}");
    let yaml = to_midscene_yaml(&recording_of(&run), WindowSize::default());
    assert!(!yaml.contains("xpath:"), "Midscene cannot follow our frame segments: words only\n{yaml}");
}

#[test]
fn recorder_flow_clicks_types_and_presses_with_xpath_selectors() {
    let mut run = todo_run();
    run.steps.push(action(PlannedAction::KeyPress { key: "Control+A".into() }, "Press Control+A", None));
    run.steps.push(action(
        PlannedAction::Scroll { target: None, direction: ScrollDirection::Down, distance: Some(500.0) },
        "Scroll down",
        None,
    ));
    run.steps.push(action(PlannedAction::DragAt { from: (1.0, 1.0), to: (5.0, 5.0) }, "Drag", None));
    let flow = to_recorder(&recording_of(&run), WindowSize::default());
    let steps = flow["steps"].as_array().unwrap();
    let types: Vec<&str> = steps.iter().map(|s| s["type"].as_str().unwrap()).collect();
    assert_eq!(
        types,
        ["setViewport", "navigate", "change", "keyDown", "keyUp", "keyDown", "keyDown", "keyUp", "keyUp", "scroll"]
    );
    assert_eq!(steps[2]["selectors"], serde_json::json!([["xpath///*[@id=\"app\"]/header[1]/input[1]"]]));
    assert_eq!(steps[2]["value"], "buy \"milk\"");
    assert_eq!(steps[6]["key"], "A");
    assert_eq!(steps[9]["y"], 500.0);
    assert!(flow["title"].as_str().unwrap().ends_with("(left out, no Recorder step for them: Drag)"));
}

/// A 1280×800 screenshot-like PNG (bands, boxes and speckled "text"), different per `seed`.
fn page_like_png(seed: u32) -> String {
    let mut state = seed.wrapping_mul(2_654_435_761).wrapping_add(1);
    let mut rnd = move || {
        state ^= state << 13;
        state ^= state >> 17;
        state ^= state << 5;
        state
    };
    let img = image::RgbImage::from_fn(1280, 800, |x, y| {
        let band = (y / 40 + seed) % 7;
        if x % 300 < 220 && y % 40 < 14 && band.is_multiple_of(2) {
            // "text": dark speckles
            let v = (rnd() % 90) as u8;
            image::Rgb([v, v, v])
        } else if (x / 160 + y / 100 + seed).is_multiple_of(9) {
            image::Rgb([47, 111, (rnd() % 40 + 200) as u8])
        } else {
            image::Rgb([250, 250, 250])
        }
    });
    let png = crate::vision::pipeline::encode(&img, crate::vision::ImageFormat::Png).unwrap();
    crate::vision::pipeline::data_url(&png, crate::vision::ImageFormat::Png).unwrap()
}

#[test]
fn the_html_report_is_one_file_with_every_step_and_stays_small() {
    let mut run = todo_run();
    run.instruction = "check <b>the</b> \"report\"".into();
    run.error = None;
    let mut images = std::collections::HashMap::new();
    // 50 steps, each with its own screenshot (a model call's and the page after it).
    run.steps.clear();
    for i in 0..50 {
        let mut s = action(PlannedAction::Tap { target: 1 }, &format!("Tap [{i}] <x>"), None);
        s.screenshot = Some(format!("r/{i}"));
        images.insert(format!("r/{i}"), page_like_png(i));
        run.steps.push(s);
    }
    run.steps[3].exchange = Some(crate::agent::record::Exchange {
        request: vec![crate::model::ChatMessage::text("user", "press <Enter>")],
        reply: "{\"done\": true}".into(),
    });
    let html = to_html_report(&run, &images);
    assert!(html.len() < 15 * 1024 * 1024, "{} bytes", html.len());
    assert!(html.contains("<h1>check &lt;b&gt;the&lt;/b&gt; &quot;report&quot;</h1>"), "text is escaped");
    assert_eq!(html.matches("<img src=\"data:image/jpeg;base64,").count(), 50);
    assert!(html.contains("<pre>press &lt;Enter&gt;</pre>") && html.contains("{&quot;done&quot;: true}"));
    assert!(!html.contains("<script"), "a report runs no code");
}

#[test]
fn a_flows_report_names_its_group_and_test_as_text() {
    let mut run = todo_run();
    let flow = crate::flow::parse_flow(
        "agent:\n  groupName: Todo <app>\n  testId: add-1\ntasks:\n  - name: add\n    flow:\n      - sleep: 1\n",
    )
    .unwrap();
    run.flow = Some(crate::agent::record::FlowRecord { flow, items: Vec::new() });
    let html = to_html_report(&run, &std::collections::HashMap::new());
    assert!(html.contains("<p class=\"meta\">test: Todo &lt;app&gt; \u{b7} add-1</p>"), "{html}");
    run.flow = None;
    assert!(!to_html_report(&run, &std::collections::HashMap::new()).contains("test: "));
}

#[test]
fn the_report_says_done_but_not_confirmed_and_carries_the_answer_and_the_memory() {
    use crate::agent::record::{Gathered, RunStatus, SuccessCheck};
    let mut run = todo_run();
    run.status = RunStatus::Unconfirmed;
    run.error = None;
    run.check = Some(SuccessCheck { confirmed: false, reason: "the cart is <empty>".into() });
    run.result = Some(serde_json::Value::String("The lamp costs $49".into()));
    run.memory.gathered.push(Gathered { url: "http://shop.test/p/1".into(), note: "lamp".into(), data: None });
    run.steps[0].notes = Some("lamp $49".into());
    run.steps[0].next_goal = Some("open the cart".into());
    let html = to_html_report(&run, &std::collections::HashMap::new());
    assert!(html.contains("<span class=\"pill unconfirmed\">done, not confirmed</span>"), "{html}");
    assert!(html.contains("Not confirmed by the page: the cart is &lt;empty&gt;"));
    assert!(html.contains("<pre class=\"result\">The lamp costs $49</pre>"), "an answer reads as text");
    assert!(html.contains("<code>http://shop.test/p/1</code> lamp"));
    assert!(html.contains("Notes: lamp $49") && html.contains("Next goal: open the cart"));
}

#[test]
fn the_report_shows_each_models_calls_tokens_and_cost_beside_the_total() {
    use crate::agent::record::{ModelRole, ModelUse};
    use crate::model::Usage;
    let mut run = todo_run();
    let usage = |p, c| Usage { prompt_tokens: p, completion_tokens: c, estimated: false };
    run.models = vec![
        ModelUse {
            role: ModelRole::Planner,
            model: "gpt-4.1".into(),
            calls: 2,
            usage: usage(1000, 200),
            cost: Some(0.0036),
        },
        ModelUse {
            role: ModelRole::Actor,
            model: "ui-tars-1.5-7b".into(),
            calls: 1,
            usage: usage(900, 20),
            cost: None,
        },
    ];
    run.steps[0].role = Some(ModelRole::Planner);
    let html = to_html_report(&run, &std::collections::HashMap::new());
    assert!(html.contains("Planner gpt-4.1: 2 model call(s) · 1200 tokens · $0.0036"), "{html}");
    assert!(html.contains("Actor ui-tars-1.5-7b: 1 model call(s) · 920 tokens</p>"), "unpriced: no cost");
    assert!(html.contains("<span class=\"badge\">Planner</span>"));
    run.language = crate::i18n::Lang::ZhCn;
    let zh = to_html_report(&run, &std::collections::HashMap::new());
    assert!(zh.contains("规划模型 gpt-4.1：2 次模型调用 · 1200 个令牌"), "{zh}");
}

#[test]
fn report_images_shrink_until_they_fit_their_share() {
    let url = page_like_png(7);
    let fitted = report::fit_image_for_test(&url, 40_000).expect("fits");
    assert!(fitted.len() <= 40_000 && fitted.starts_with("data:image/jpeg;base64,"));
    assert_eq!(
        report::fit_image_for_test("data:image/png;base64,!!!", 40_000),
        None,
        "an unreadable image is left out"
    );
}

#[test]
fn a_tall_thin_screenshot_makes_a_bounded_gif_frame() {
    // 1×20000: scaled to 800 px wide it would ask for 16 million rows.
    let img = image::RgbImage::from_pixel(1, 20_000, image::Rgb([10, 20, 30]));
    let png = crate::vision::pipeline::encode(&img, crate::vision::ImageFormat::Png).unwrap();
    let mut run = todo_run();
    run.steps[1].screenshot = Some("tall".into());
    let images = std::collections::HashMap::from([(
        "tall".to_string(),
        crate::vision::pipeline::data_url(&png, crate::vision::ImageFormat::Png).unwrap(),
    )]);
    let gif = gif::to_gif(&run, &images).unwrap();
    let frame = image::load_from_memory(&gif).unwrap();
    assert!(frame.height() <= 1600 + 200 && frame.width() == 800, "{}×{}", frame.width(), frame.height());
}

#[test]
fn the_gif_has_a_captioned_frame_per_screenshot() {
    let mut run = todo_run();
    let mut images = std::collections::HashMap::new();
    for (i, s) in run.steps.iter_mut().enumerate().take(3) {
        s.screenshot = Some(format!("g/{i}"));
        images.insert(format!("g/{i}"), page_like_png(i as u32));
    }
    let gif = to_gif(&run, &images).unwrap();
    assert!(gif.starts_with(b"GIF89a"));
    use image::AnimationDecoder;
    let frames: Vec<_> = image::codecs::gif::GifDecoder::new(std::io::Cursor::new(&gif))
        .unwrap()
        .into_frames()
        .collect::<Result<_, _>>()
        .unwrap();
    assert_eq!(frames.len(), 3);
    let first = frames[0].buffer();
    assert_eq!(first.width(), 800);
    // Title bar, page (800×500 from 1280×800), caption bar of three lines; every frame alike.
    assert_eq!(first.height(), 32 + 500 + 3 * 20 + 16);
    assert!(frames.iter().all(|f| f.buffer().dimensions() == (800, 608)));
    let lit = |img: &image::RgbaImage, y0: u32, y1: u32| {
        (y0..y1)
            .flat_map(|y| (0..800).map(move |x| (x, y)))
            .filter(|&(x, y)| {
                img.get_pixel(x, y).0[0] > 200 && img.get_pixel(x, y).0[2] > 200 && img.get_pixel(x, y).0[1] > 200
            })
            .count()
    };
    assert!(lit(first, 0, 28) > 100, "the instruction is written in the title bar");
    assert!(lit(first, 532, 588) > 100, "the caption is written under the page");
    // No screenshots: one card saying so.
    let bare = to_gif(&todo_run(), &Default::default()).unwrap();
    let frames = image::codecs::gif::GifDecoder::new(std::io::Cursor::new(&bare)).unwrap().into_frames().count();
    assert_eq!(frames, 1);
}

/// Keys as a model writes them reach every export in names the consumer accepts
/// (`page.keyboard.press("ctrl+a")` throws `Unknown key: "ctrl"`).
#[test]
fn written_keys_are_exported_in_canonical_names() {
    let mut run = Run::new("k".into(), "select all and leave", 0.0);
    run.url = "http://127.0.0.1:8000/todo.html".into();
    run.status = RunStatus::Succeeded;
    for key in ["ctrl+a", "esc", "ControlOrMeta+c", "space"] {
        run.steps.push(action(PlannedAction::KeyPress { key: key.into() }, &format!("Press {key}"), None));
    }
    let rec = recording_of(&run);
    let spec = to_playwright(&rec, WindowSize::default());
    for line in [
        "await page.keyboard.press(\"Control+a\");",
        "await page.keyboard.press(\"Escape\");",
        "await page.keyboard.press(\"ControlOrMeta+c\");",
        "await page.keyboard.press(\"Space\");",
    ] {
        assert!(spec.contains(line), "{line} in\n{spec}");
    }
    assert!(!spec.contains("press(\"ctrl") && !spec.contains("press(\"esc\""), "{spec}");
    let flow = to_recorder(&rec, WindowSize::default());
    let keys: Vec<(String, String)> = flow["steps"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|s| s["type"] == "keyDown" || s["type"] == "keyUp")
        .map(|s| (s["type"].as_str().unwrap().into(), s["key"].as_str().unwrap().into()))
        .collect();
    let expect: Vec<(String, String)> = [
        ("keyDown", "Control"),
        ("keyDown", "a"),
        ("keyUp", "a"),
        ("keyUp", "Control"),
        ("keyDown", "Escape"),
        ("keyUp", "Escape"),
        ("keyDown", "Control"),
        ("keyDown", "c"),
        ("keyUp", "c"),
        ("keyUp", "Control"),
        ("keyDown", "Space"),
        ("keyUp", "Space"),
    ]
    .iter()
    .map(|(a, b)| (a.to_string(), b.to_string()))
    .collect();
    assert_eq!(keys, expect);
    let yaml = to_midscene_yaml(&rec, WindowSize::default());
    assert!(
        yaml.contains("aiKeyboardPress: \"Control+a\"") && yaml.contains("aiKeyboardPress: \"Control+c\""),
        "{yaml}"
    );
}

fn located(xpath: &str, summary: &str, locators: &str) -> TargetInfo {
    let mut t = target(xpath, None, summary);
    t.locators = Some(serde_json::from_str(locators).unwrap());
    t
}

/// The sign-in as recorded with its locators: Playwright's codegen forms, XPath for none.
#[test]
fn playwright_writes_codegen_locators_where_recorded() {
    let mut run = todo_run();
    run.steps.clear();
    let steps = [
        (r#"{"role":{"role":"textbox","name":{"text":"Name"}}}"#, "//*[@id=\"user\"]"),
        (r#"{"role":{"role":"textbox","name":{"text":"Password","exact":true}}}"#, "//*[@id=\"pw\"]"),
        (
            r#"{"role":{"role":"button","name":{"text":"Add \"it's\"","exact":true,"nth":1}}}"#,
            "/html[1]/body[1]/button[2]",
        ),
        (
            r#"{"testId":{"text":"save-btn"},"role":{"role":"button","name":{"text":"Save"}}}"#,
            "/html[1]/body[1]/button[3]",
        ),
        (
            r#"{"placeholder":{"text":"Search"},"role":{"role":"textbox","name":{"text":"Find","nth":0}}}"#,
            "/html[1]/body[1]/input[1]",
        ),
        (
            r#"{"frames":[{"name":"pay","index":0}],"role":{"role":"button","name":{"text":"Pay now"}}}"#,
            "/html[1]/body[1]/iframe[1] >>> /html[1]/body[1]/button[1]",
        ),
        (
            r#"{"role":{"role":"button","name":{"text":"Inside shadow"}}}"#,
            "/html[1]/body[1]/my-card[1] >>> /div[1]/button[1]",
        ),
    ];
    for (i, (locators, xpath)) in steps.iter().enumerate() {
        run.steps.push(action(PlannedAction::Tap { target: i as u32 }, "Tap", Some(located(xpath, "el", locators))));
    }
    run.steps.push(action(PlannedAction::Tap { target: 9 }, "Tap", Some(target("//*[@id=\"old\"]", None, "old"))));
    let ts = to_playwright(&recording_of(&run), WindowSize::default());
    for line in [
        "await page.getByRole('textbox', { name: 'Name' }).click();",
        "await page.getByRole('textbox', { name: 'Password', exact: true }).click();",
        r#"await page.getByRole('button', { name: 'Add "it\'s"', exact: true }).nth(1).click();"#,
        "await page.getByTestId('save-btn').click();",
        "await page.getByPlaceholder('Search').click();",
        r#"await page.locator('iframe[name="pay"]').contentFrame().getByRole('button', { name: 'Pay now' }).click();"#,
        "await page.getByRole('button', { name: 'Inside shadow' }).click();",
        // A record without locators: its XPath, as before.
        r#"await page.locator("xpath=//*[@id=\"old\"]").click();"#,
    ] {
        assert!(ts.contains(line), "{line}\nnot in\n{ts}");
    }
    assert_eq!(ts.matches("xpath=").count(), 1, "XPath only where nothing else names the element\n{ts}");
}

#[test]
fn recorder_selectors_are_aria_text_shadow_paths_and_frames() {
    let mut run = todo_run();
    run.steps.clear();
    let steps = [
        (r#"{"role":{"role":"textbox","name":{"text":"Email"}}}"#, "//*[@id=\"email\"]"),
        (
            r#"{"role":{"role":"button","name":{"text":"Inside shadow"}}}"#,
            "/html[1]/body[1]/my-card[1] >>> /div[1]/button[2]",
        ),
        (
            r#"{"frames":[{"name":"pay","index":1}],"role":{"role":"button","name":{"text":"Pay now"}}}"#,
            "/html[1]/body[1]/iframe[2] >>> //*[@id=\"pay\"]",
        ),
        (
            r#"{"text":{"text":"Welcome"},"role":{"role":"button","name":{"text":"Go","exact":true,"nth":1}}}"#,
            "/html[1]/body[1]/p[1]",
        ),
    ];
    for (i, (locators, xpath)) in steps.iter().enumerate() {
        run.steps.push(action(PlannedAction::Tap { target: i as u32 }, "Tap", Some(located(xpath, "el", locators))));
    }
    // An old record in a frame: nothing says which frame, so it is left out as before.
    run.steps.push(action(
        PlannedAction::Tap { target: 9 },
        "Tap old frame",
        Some(target("/html[1]/body[1]/iframe[1] >>> /html[1]/body[1]/a[1]", None, "a")),
    ));
    let flow = to_recorder(&recording_of(&run), WindowSize::default());
    let clicks: Vec<&serde_json::Value> =
        flow["steps"].as_array().unwrap().iter().filter(|s| s["type"] == "click").collect();
    assert_eq!(clicks.len(), 4, "{flow:#}");
    assert_eq!(
        clicks[0]["selectors"],
        serde_json::json!([["aria/Email[role=\"textbox\"]"], ["xpath///*[@id=\"email\"]"]])
    );
    assert_eq!(
        clicks[1]["selectors"],
        serde_json::json!([
            ["aria/Inside shadow[role=\"button\"]"],
            [
                "html:nth-of-type(1) > body:nth-of-type(1) > my-card:nth-of-type(1)",
                "div:nth-of-type(1) > button:nth-of-type(2)"
            ]
        ])
    );
    assert_eq!(clicks[2]["frame"], serde_json::json!([1]));
    assert_eq!(
        clicks[2]["selectors"],
        serde_json::json!([["aria/Pay now[role=\"button\"]"], ["xpath///*[@id=\"pay\"]"]])
    );
    assert!(clicks[0].get("frame").is_none());
    assert_eq!(
        clicks[3]["selectors"],
        serde_json::json!([["text/Welcome"], ["xpath//html[1]/body[1]/p[1]"]]),
        "no aria for a duplicate name"
    );
    assert!(flow["title"].as_str().unwrap().contains("Tap old frame"), "{}", flow["title"]);
}
