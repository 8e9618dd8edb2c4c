use super::*;
use crate::agent::replay::cache::CacheEntry;
use crate::agent::tasks::run_task;
use crate::vocab::tasks::Task;

fn with_cache(cache: &cache::Cache) -> RunOptions {
    RunOptions { cache: cache.clone(), ..Default::default() }
}

#[test]
fn a_cached_plan_replays_with_no_model_call() {
    let mut first = todo_browser();
    let model = ScriptedModel::new(vec![Ok(ADD_MILK)]);
    let run = block_on(run_instruction(
        "a".into(),
        "add a todo 'buy milk'",
        &RunOptions::default(),
        &config(),
        &mut first,
        &model,
    ));
    assert_eq!(run.status, RunStatus::Succeeded, "{:?}", run.error);
    assert!(
        matches!(first.store.cache.0.as_slice(), [CacheEntry::Plan { rounds, .. }] if rounds.len() == 1 && rounds[0].done)
    );

    let mut again = todo_browser();
    let silent = ScriptedModel::new(vec![]);
    let run = block_on(run_instruction(
        "b".into(),
        "Add a todo 'buy milk'",
        &with_cache(&first.store.cache),
        &config(),
        &mut again,
        &silent,
    ));
    assert_eq!(run.status, RunStatus::Succeeded, "{:?}", run.error);
    assert_eq!((run.model_calls, again.page.items.clone()), (0, vec!["buy milk".to_string()]));
    assert!(run.steps[0].note.as_deref().unwrap().starts_with("from the cache"));
    assert!(again.store.cache.0.is_empty(), "an unchanged replay rewrites nothing");
}

#[test]
fn a_stale_plan_falls_back_to_the_model_and_is_healed() {
    let mut first = todo_browser();
    block_on(run_instruction(
        "a".into(),
        "add a todo 'buy milk'",
        &RunOptions::default(),
        &config(),
        &mut first,
        &ScriptedModel::new(vec![Ok(ADD_MILK)]),
    ));
    // The input's fingerprint no longer matches: its target cannot be verified.
    let mut stale = first.store.cache.clone();
    if let Some(CacheEntry::Plan { rounds, .. }) = stale.0.first_mut() {
        rounds[0].actions[0].target.as_mut().unwrap().summary = "input \"Search\"".into();
    }
    let mut browser = todo_browser();
    let model = ScriptedModel::new(vec![Ok(ADD_MILK)]);
    let run = block_on(run_instruction(
        "b".into(),
        "add a todo 'buy milk'",
        &with_cache(&stale),
        &config(),
        &mut browser,
        &model,
    ));
    assert_eq!((run.status, run.model_calls), (RunStatus::Succeeded, 2), "one plan, one check");
    assert_eq!(browser.store.cache, first.store.cache, "healed: the entry is what the model found again");
}

#[test]
fn a_cached_element_far_off_screen_is_found_by_reading_the_whole_page_once() {
    let mut browser = todo_browser();
    browser.page.far_below = true;
    let whole = browser.page.read(&DescribeOptions::default()).extraction;
    let far = whole.elements.iter().find(|e| e.content == "Far below").unwrap();
    let cache = Cache(vec![CacheEntry::Locate {
        page: cache::page_key(&whole.url),
        prompt: cache::prompt_key("the far button"),
        element: ElementKey::of(far),
        updated_ms: 0.0,
    }]);
    browser.page.reads.clear();
    let tap = serde_json::from_value::<Task>(serde_json::json!({"type": "aiTap", "locate": "the far button"})).unwrap();
    let run =
        block_on(run_task("a".into(), &tap, &with_cache(&cache), &config(), &mut browser, &ScriptedModel::new(vec![])));
    assert_eq!((run.status, run.model_calls), (RunStatus::Succeeded, 0), "{:?}", run.error);
    assert!(
        matches!(browser.page.reads.as_slice(), [Reach::InView, Reach::Seeking(sought), Reach::InView] if sought.len() == 1),
        "the view, the page for the cached element, the view scrolled to it: {:?}",
        browser.page.reads
    );
    assert_eq!(browser.page.reveals, 1);
    let press = browser.dispatched.iter().find(|c| c.params["type"] == "mousePressed").unwrap();
    assert_eq!(press.params["y"], 415.0, "clicked where the button is after scrolling");
}

#[test]
fn a_located_element_is_reused_and_ask_user_plans_are_not_kept() {
    let mut browser = todo_browser();
    let tap =
        || serde_json::from_value::<Task>(serde_json::json!({"type": "aiTap", "locate": "the todo box"})).unwrap();
    let model = ScriptedModel::new(vec![Ok(r#"{"element":1}"#)]);
    block_on(run_task("a".into(), &tap(), &RunOptions::default(), &config(), &mut browser, &model));
    let mut browser2 = todo_browser();
    let run = block_on(run_task(
        "b".into(),
        &tap(),
        &with_cache(&browser.store.cache),
        &config(),
        &mut browser2,
        &ScriptedModel::new(vec![]),
    ));
    assert_eq!((run.status, run.model_calls), (RunStatus::Succeeded, 0));
    assert!(browser2.dispatched.iter().any(|c| c.params["type"] == "mousePressed"));
    assert_eq!(browser2.page.reads, [Reach::InView], "found in view: the whole page is not read");

    let mut asked = todo_browser();
    asked.person.answers = vec![ask::Answer::Text { text: "oat".into() }];
    let ask = r#"{"actions":[{"type":"AskUser","question":"which milk?"}],"done":false}"#;
    let model = ScriptedModel::new(vec![Ok(ask), Ok(ADD_MILK)]);
    block_on(run_instruction("c".into(), "add milk", &RunOptions::default(), &config(), &mut asked, &model));
    assert!(asked.store.cache.0.is_empty(), "an answer may differ next time: not replayed");
}
