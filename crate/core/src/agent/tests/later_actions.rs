use super::*;

/// A list of three, and one reply that taps the first and the last of them as numbered now.
fn tap_first_and_last(browser: &mut TodoBrowser) -> (String, u32) {
    browser.page.items = vec!["apples".into(), "bread".into(), "cheese".into()];
    let seen = block_on(browser.observe(&Reach::InView)).unwrap().extraction;
    browser.page.reads.clear();
    let n = |text: &str| seen.elements.iter().find(|e| e.content == text).unwrap().index;
    let (first, last) = (n("apples"), n("cheese"));
    let plan = format!(
        r#"{{"thought":"both","actions":[{{"type":"Tap","target":{first}}},{{"type":"Tap","target":{last}}}],"done":false}}"#
    );
    (plan, last)
}

fn presses(browser: &TodoBrowser) -> Vec<(f64, f64)> {
    browser
        .dispatched
        .iter()
        .filter(|c| c.params["type"] == "mousePressed")
        .map(|c| (c.params["x"].as_f64().unwrap(), c.params["y"].as_f64().unwrap()))
        .collect()
}

const DONE: &str = r#"{"thought":"nothing more","actions":[],"done":true}"#;

#[test]
fn a_later_tap_lands_where_its_element_moved() {
    let mut browser = todo_browser();
    browser.page.on_click = Some(Layout::Banner(80.0));
    let (plan, last) = tap_first_and_last(&mut browser);
    let model = ScriptedModel::new(vec![Ok(&plan), Ok(DONE)]);
    let run = block_on(run_instruction("r".into(), "tap", &RunOptions::default(), &config(), &mut browser, &model));
    // The first tap aims at the page as planned (no read before it); the second reads
    // the view again, without a capture, and finds "cheese" one number later and 80 px lower.
    assert_eq!(browser.page.reads[..2], [Reach::InView, Reach::Aiming], "{:?}", browser.page.reads);
    assert_eq!(presses(&browser), [(300.0, 170.0), (300.0, 150.0 + 80.0 + 80.0 + 20.0)]);
    let tap = &run.steps[2];
    assert_eq!(tap.status, StepStatus::Ok, "{:?}", tap.error);
    assert_eq!(tap.planned, Some(PlannedAction::Tap { target: last + 1 }), "recorded as it ran");
    let target = tap.target.as_ref().unwrap();
    assert_eq!((target.index, target.rect.y), (last + 1, 310.0));
    assert!(target.summary.contains("cheese"), "{}", target.summary);
    // The model is told of the change against the page it planned on.
    assert!(model.user_text(1).contains("Saved"), "{}", model.user_text(1));
}

#[test]
fn a_later_tap_whose_element_is_gone_stops_the_plan() {
    let mut browser = todo_browser();
    browser.page.on_click = Some(Layout::Cleared);
    let (plan, last) = tap_first_and_last(&mut browser);
    let model = ScriptedModel::new(vec![Ok(&plan), Ok(DONE)]);
    let lang = RunOptions { language: crate::i18n::Lang::ZhCn, ..RunOptions::default() };
    let run = block_on(run_instruction("r".into(), "tap", &lang, &config(), &mut browser, &model));
    assert_eq!(presses(&browser).len(), 1, "the second tap was not sent");
    let actions: Vec<_> = run.steps.iter().filter(|s| s.kind == StepKind::Action).collect();
    assert_eq!(actions.len(), 1, "the stopped tap is no step of its own");
    let note = actions[0].note.as_deref().unwrap_or_default();
    assert!(note.contains(&format!("[{last}] 已不在计划所见之处显示")), "{note}");
    assert_eq!(run.model_calls, 3, "the model planned again on the page as it is, then the check");
    let next = model.user_text(1);
    assert!(next.contains(&format!("the rest of your plan did not run (Tap [{last}]): plan it again")), "{next}");
    assert_eq!(run.status, RunStatus::Succeeded, "{:?}", run.error);
}

#[test]
fn a_later_tap_on_an_unchanged_page_aims_as_planned() {
    let mut browser = todo_browser();
    let (plan, last) = tap_first_and_last(&mut browser);
    let model = ScriptedModel::new(vec![Ok(&plan), Ok(DONE)]);
    let run = block_on(run_instruction("r".into(), "tap", &RunOptions::default(), &config(), &mut browser, &model));
    assert_eq!(browser.page.reads[..2], [Reach::InView, Reach::Aiming], "{:?}", browser.page.reads);
    assert_eq!(browser.page.reads.iter().filter(|r| **r == Reach::Aiming).count(), 1, "once, for the second tap");
    assert_eq!(presses(&browser), [(300.0, 170.0), (300.0, 250.0)]);
    assert_eq!(run.steps[2].planned, Some(PlannedAction::Tap { target: last }));
    assert!(run.steps[2].note.is_none() || !run.steps[2].note.as_deref().unwrap().contains("no longer"));
}

#[test]
fn a_number_the_plan_saw_no_element_under_is_not_aimed_at_the_new_reading() {
    let mut browser = todo_browser();
    browser.page.on_click = Some(Layout::Banner(80.0));
    browser.page.items = vec!["apples".into()];
    let seen = block_on(browser.observe(&Reach::InView)).unwrap().extraction;
    let apples = seen.elements.iter().find(|e| e.content == "apples").unwrap().index;
    // One past the plan's page: after the banner opens, the new reading has an element there.
    let beyond = seen.elements.len() as u32 + 1;
    let plan = format!(
        r#"{{"thought":"","actions":[{{"type":"Tap","target":{apples}}},{{"type":"Tap","target":{apples}}},{{"type":"Tap","target":{beyond}}}],"done":false}}"#
    );
    let model = ScriptedModel::new(vec![Ok(&plan), Ok(DONE)]);
    block_on(run_instruction("r".into(), "tap", &RunOptions::default(), &config(), &mut browser, &model));
    assert_eq!(presses(&browser).len(), 2, "the third tap was not sent to whatever the new reading numbers so");
    assert!(model.user_text(1).contains(&format!("did not run (Tap [{beyond}])")), "{}", model.user_text(1));
}

#[test]
fn a_drag_after_the_view_was_read_again_stops_the_plan() {
    let mut browser = todo_browser();
    browser.page.on_click = Some(Layout::Banner(80.0));
    let (plan, last) = tap_first_and_last(&mut browser);
    // Its numbers are the plan's page's; the view has been read again for the second tap.
    let plan =
        plan.replace(r#"],"done":false"#, &format!(r#",{{"type":"Drag","from":{last},"to":{last}}}],"done":false"#));
    let model = ScriptedModel::new(vec![Ok(&plan), Ok(DONE)]);
    block_on(run_instruction("r".into(), "tap", &RunOptions::default(), &config(), &mut browser, &model));
    assert_eq!(presses(&browser).len(), 2, "the drag was not sent between whatever the new reading numbers so");
    assert!(model.user_text(1).contains("the rest of your plan did not run (Drag"), "{}", model.user_text(1));
}

#[test]
fn a_plan_that_sent_no_input_reads_nothing_more() {
    let mut browser = todo_browser();
    browser.page.items = vec!["apples".into()];
    let plan = r#"{"thought":"","actions":[{"type":"Wait","ms":10},{"type":"Tap","target":1}],"done":true}"#;
    let model = ScriptedModel::new(vec![Ok(plan), Ok(DONE)]);
    block_on(run_instruction("r".into(), "tap", &RunOptions::default(), &config(), &mut browser, &model));
    assert!(!browser.page.reads.contains(&Reach::Aiming), "{:?}", browser.page.reads);
}
