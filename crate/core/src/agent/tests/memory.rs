//! What a run keeps from round to round: notes, the next goal, remembered data, the answer.

use super::*;

#[test]
fn notes_and_next_goal_carry_to_the_next_round_with_the_site_knowledge_and_context() {
    let mut browser = todo_browser();
    let first = r#"{"thought":"type it","notes":"the list was empty","next_goal":"press Enter","actions":[{"type":"Input","target":1,"value":"buy milk"}],"done":false}"#;
    let second = r#"{"thought":"submit","actions":[{"type":"KeyPress","key":"Enter"}],"done":true}"#;
    let model = ScriptedModel::new(vec![Ok(first), Ok(second)]);
    let options = RunOptions {
        knowledge: vec![crate::agent::options::SiteKnowledge {
            sites: "todo.test, other.test".into(),
            text: "Items are added with Enter.".into(),
        }],
        context: "This is my shopping list.".into(),
        ..RunOptions::default()
    };
    browser.page.url = "http://todo.test/".into();
    let run = block_on(run_instruction("r".into(), "add a todo 'buy milk'", &options, &config(), &mut browser, &model));
    assert_eq!(run.status, RunStatus::Succeeded, "{:?}", run.error);
    assert_eq!(
        (run.steps[0].notes.as_deref(), run.steps[0].next_goal.as_deref()),
        (Some("the list was empty"), Some("press Enter"))
    );
    assert_eq!((run.memory.notes.as_str(), run.memory.next_goal.as_str()), ("the list was empty", "press Enter"));
    let (first_prompt, second_prompt) = (model.user_text(0), model.user_text(1));
    assert!(!first_prompt.contains("<notes>"), "nothing noted yet: {first_prompt}");
    assert!(
        second_prompt.contains("<notes>\nthe list was empty\nNext goal then: press Enter\n</notes>"),
        "{second_prompt}"
    );
    for prompt in [&first_prompt, &second_prompt] {
        assert!(prompt.contains("<knowledge>\nItems are added with Enter.\n</knowledge>"), "{prompt}");
        assert!(prompt.contains("<context>\nThis is my shopping list.\n</context>"), "{prompt}");
    }
}

#[test]
fn remembered_data_accumulates_and_the_final_answer_is_the_runs_result() {
    let mut browser = todo_browser();
    browser.page.url = "http://todo.test/".into();
    let first = r#"{"thought":"note the count","actions":[{"type":"Remember","note":"items before","data":{"count":0}},{"type":"Input","target":1,"value":"buy milk"}],"done":false}"#;
    let second = r#"{"thought":"done","actions":[{"type":"KeyPress","key":"Enter"}],"done":true,"answer":"Added; the list had 0 items before."}"#;
    let model = ScriptedModel::new(vec![Ok(first), Ok(second)]);
    let run = block_on(run_instruction(
        "r".into(),
        "add a todo 'buy milk'",
        &RunOptions::default(),
        &config(),
        &mut browser,
        &model,
    ));
    assert_eq!(run.status, RunStatus::Succeeded, "{:?}", run.error);
    assert_eq!(
        run.result,
        Some(serde_json::json!("Added; the list had 0 items before.")),
        "the answer is the run's result"
    );
    assert_eq!(run.memory.gathered.len(), 1);
    let gathered = &run.memory.gathered[0];
    assert_eq!((gathered.url.as_str(), gathered.note.as_str()), ("http://todo.test/", "items before"));
    assert_eq!(gathered.data, Some(serde_json::json!({"count": 0})));
    // The next round is briefed with it; the check sees the answer.
    assert!(model.user_text(1).contains("items before {\"count\":0}"), "{}", model.user_text(1));
    assert!(model.checks.borrow()[0].iter().any(|m| m
        .content
        .iter()
        .any(|p| matches!(p, ContentPart::Text { text } if text.contains("Added; the list had 0 items before.")))));
}

#[test]
fn a_done_refused_keeps_no_answer() {
    let mut browser = todo_browser();
    // "Done" with an action that changes nothing: refused, so its answer is not the result.
    let noop =
        r#"{"thought":"done","actions":[{"type":"Scroll","direction":"up"}],"done":true,"answer":"It is done."}"#;
    let finish = r#"{"thought":"nothing left","actions":[],"done":true}"#;
    let model = ScriptedModel::new(vec![Ok(noop), Ok(finish)]);
    let run = block_on(run_instruction("r".into(), "look", &RunOptions::default(), &config(), &mut browser, &model));
    assert_eq!(run.status, RunStatus::Succeeded, "{:?}", run.error);
    assert_eq!(run.result, None, "{:?}", run.result);
}

#[test]
fn done_with_only_a_note_kept_is_a_bare_done_and_checked() {
    let mut browser = todo_browser();
    let reply = r#"{"thought":"keep it","actions":[{"type":"Remember","note":"no todos yet"}],"done":true,"answer":"There are no todos."}"#;
    let model = ScriptedModel::new(vec![Ok(reply)]);
    let run = block_on(run_instruction(
        "r".into(),
        "how many todos?",
        &RunOptions::default(),
        &config(),
        &mut browser,
        &model,
    ));
    assert_eq!(run.status, RunStatus::Succeeded, "{:?}", run.error);
    assert_eq!(model.seen.borrow().len(), 1, "no second planning call");
    assert_eq!(run.result, Some(serde_json::json!("There are no todos.")));
    assert_eq!(run.memory.gathered.len(), 1);
}

fn too_long() -> ModelError {
    ModelError::Http {
        status: 400,
        message: "This model's maximum context length is 8192 tokens. However, your messages resulted in 9113 tokens."
            .into(),
    }
}

#[test]
fn a_request_too_long_for_the_models_context_is_sent_again_once_shorter_with_a_note() {
    let mut browser = todo_browser();
    let first = r#"{"thought":"type it","actions":[{"type":"Input","target":1,"value":"buy milk"}],"done":false}"#;
    let second = r#"{"thought":"submit","actions":[{"type":"KeyPress","key":"Enter"}],"done":true}"#;
    // Round 1 fits; round 2 (with round 1 in its history) is refused, then sent again.
    let model = ScriptedModel::new(vec![Ok(first), Err(too_long()), Ok(second)]);
    let run =
        block_on(run_instruction("r".into(), "add buy milk", &RunOptions::default(), &config(), &mut browser, &model));
    assert_eq!(run.status, RunStatus::Succeeded, "{:?}", run.error);
    assert_eq!(browser.page.items, ["buy milk"]);
    assert_eq!(model.seen.borrow().len(), 3);
    let (refused, again) = (model.user_text(1), model.user_text(2));
    assert!(refused.contains("Done so far:\n1."), "{refused}");
    // Its one earlier round is the latest (always kept) and it has no screenshot: the
    // element list is what is cut.
    assert!(again.contains("more lines left out"), "{again}");
    let note = run.steps.iter().filter_map(|s| s.note.as_deref()).find(|n| n.contains("context")).expect("a note");
    assert!(note.starts_with("the request was too long for the model's context: sent again with"), "{note}");
}

#[test]
fn with_nothing_else_to_leave_out_half_the_element_list_goes_and_a_second_refusal_fails_the_run() {
    let mut browser = todo_browser();
    let done = r#"{"thought":"nothing to do","actions":[],"done":true}"#;
    let model = ScriptedModel::new(vec![Err(too_long()), Ok(done)]);
    let run = block_on(run_instruction("r".into(), "look", &RunOptions::default(), &config(), &mut browser, &model));
    assert_eq!(run.status, RunStatus::Succeeded, "{:?}", run.error);
    let again = model.user_text(1);
    assert!(again.contains("more lines left out: the request was too long for the model's context"), "{again}");
    let note = run.steps.iter().filter_map(|s| s.note.as_deref()).find(|n| n.contains("context")).expect("a note");
    assert!(note.contains("0 earlier round(s) and 0 screenshot(s) left out, and the element list cut"), "{note}");

    // Refused again: the run fails with the endpoint's own error, after one retry only.
    let mut browser = todo_browser();
    let model = ScriptedModel::new(vec![Err(too_long()), Err(too_long())]);
    let run = block_on(run_instruction("r".into(), "look", &RunOptions::default(), &config(), &mut browser, &model));
    assert_eq!(run.status, RunStatus::Failed);
    assert_eq!(run.error.map(|e| e.code).as_deref(), Some("model_http"));
    assert_eq!(model.seen.borrow().len(), 2);
}
