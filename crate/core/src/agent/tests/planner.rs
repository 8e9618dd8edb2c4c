//! A planning model beside the acting one.

use super::*;

/// Two models behind one client, told apart by the configured model name: a planning model
/// and the run's own (acting) model, each with its own script.
struct TwoModels {
    planner: ScriptedModel,
    actor: ScriptedModel,
}

impl ModelClient for TwoModels {
    async fn complete(&self, c: &ModelConfig, messages: &[ChatMessage]) -> Result<ChatReply, ModelError> {
        match c.model.as_str() {
            "planner-x" => self.planner.complete(c, messages).await,
            _ => self.actor.complete(c, messages).await,
        }
    }
}

fn with_planner() -> RunOptions {
    RunOptions {
        planner: Some(ModelConfig { model: "planner-x".into(), ..config() }),
        prices: crate::model::PriceTable::parse("planner-x 10 100\nmock 1 1").unwrap(),
        ..Default::default()
    }
}

fn system_text(messages: &[ChatMessage]) -> String {
    match &messages[0].content[0] {
        ContentPart::Text { text } => text.clone(),
        _ => panic!("text first"),
    }
}

#[test]
fn a_planning_model_plans_and_the_grounding_model_finds_what_it_described() {
    let mut browser = todo_browser();
    let plan = r#"{"thought":"add it","actions":[{"type":"Input","target":"the new todo box at the top","value":"buy milk"},{"type":"KeyPress","key":"Enter"}],"done":true,"notes":"adding milk"}"#;
    let models = TwoModels {
        planner: ScriptedModel::new(vec![Ok(plan)]),
        // UI-TARS answers the locate in its own pixels of the smart-resized screenshot.
        actor: ScriptedModel::new(vec![Ok("Thought: the input box.\nAction: click(start_box='(302,122)')")]),
    };
    let config = ModelConfig { family: crate::vocab::family::ModelFamily::UiTars15, ..config() };
    let run =
        block_on(run_instruction("r".into(), "add a todo 'buy milk'", &with_planner(), &config, &mut browser, &models));
    assert_eq!(run.status, RunStatus::Succeeded, "{:?}", run.error);
    assert_eq!(browser.page.items, ["buy milk"]);
    // The planner got the planning prompt, the element list and the screenshot; numbers are not for it.
    let planned = &models.planner.seen.borrow()[0];
    assert!(system_text(planned).contains("A second model carries your actions out"));
    assert!(system_text(planned).contains("Never give the list's numbers"));
    assert!(models.planner.user_text(0).contains("[1] input"), "{}", models.planner.user_text(0));
    assert!(models.planner.image_url(0).is_some());
    // The grounder got one locate request for the description, and nothing else.
    let located = models.actor.seen.borrow();
    assert_eq!(located.len(), 1);
    assert_eq!(system_text(&located[0]), crate::prompt::system_prompt(crate::vocab::family::ModelFamily::UiTars15));
    assert!(models.actor.user_text(0).contains("the new todo box at the top"), "{}", models.actor.user_text(0));
    // The planner checked the goal; the actor was asked only to locate.
    assert_eq!(models.planner.checks.borrow().len(), 1);
    assert!(models.actor.checks.borrow().is_empty());
    // Steps: the plan (planner), the locate (actor), the typing on the element found there, the key, the check.
    let roles: Vec<_> = run.steps.iter().map(|s| (s.kind, s.role)).collect();
    use super::record::ModelRole::{Actor, Planner};
    assert_eq!(
        roles,
        [
            (StepKind::Plan, Some(Planner)),
            (StepKind::Plan, Some(Actor)),
            (StepKind::Action, None),
            (StepKind::Action, None),
            (StepKind::Plan, Some(Planner)),
        ]
    );
    assert_eq!(run.steps[1].action, "Locate \u{201c}the new todo box at the top\u{201d}");
    assert!(matches!(run.steps[2].planned, Some(PlannedAction::Input { target: 1, .. })), "{:?}", run.steps[2].planned);
    assert_eq!(run.memory.notes, "adding milk", "the planner keeps the memo");
    // Usage and cost per model, each priced by its own name; the totals are their sums.
    assert_eq!(run.models.len(), 2);
    let (planner, actor) = (&run.models[0], &run.models[1]);
    assert_eq!((planner.role, planner.model.as_str(), planner.calls), (Planner, "planner-x", 2));
    assert_eq!((actor.role, actor.model.as_str(), actor.calls), (Actor, "mock", 1));
    assert_eq!(planner.usage.prompt_tokens, 200);
    assert_eq!(planner.cost, Some(0.004), "2 × (100 × 10 + 10 × 100) / 1e6");
    assert_eq!(actor.cost, Some(0.00011), "(100 × 1 + 10 × 1) / 1e6");
    assert_eq!(run.model_calls, 3);
    assert_eq!(run.usage.prompt_tokens, 300);
    assert!((run.cost.unwrap() - 0.00411).abs() < 1e-12, "{:?}", run.cost);
}

#[test]
fn a_planner_names_elements_by_number_when_the_acting_model_reads_numbers_and_a_miss_is_told() {
    let mut browser = todo_browser();
    // Element 1 by number needs no finding; a description the actor cannot find fails the action.
    let first = r#"{"thought":"look for it","actions":[{"type":"Tap","target":"the purple unicorn"}],"done":false}"#;
    let second = r#"{"thought":"type it","actions":[{"type":"Input","target":1,"value":"buy milk"},{"type":"KeyPress","key":"Enter"}],"done":true}"#;
    let models = TwoModels {
        planner: ScriptedModel::new(vec![Ok(first), Ok(second)]),
        actor: ScriptedModel::new(vec![Ok(r#"{"thought":"none","found":false,"reason":"no unicorn on the page"}"#)]),
    };
    let run = block_on(run_instruction(
        "r".into(),
        "add a todo 'buy milk'",
        &with_planner(),
        &config(),
        &mut browser,
        &models,
    ));
    assert_eq!(run.status, RunStatus::Succeeded, "{:?}", run.error);
    assert_eq!(browser.page.items, ["buy milk"]);
    assert!(system_text(&models.planner.seen.borrow()[0]).contains("You may give an element's number"));
    assert_eq!(models.actor.seen.borrow().len(), 1, "the number needed no locate");
    let told = models.planner.user_text(1);
    assert!(
        told.contains("Tap \u{201c}the purple unicorn\u{201d} failed: \"the purple unicorn\" was not found"),
        "{told}"
    );
}

#[test]
fn without_a_planning_model_nothing_is_counted_per_model() {
    let mut browser = todo_browser();
    let model = ScriptedModel::new(vec![Ok(ADD_MILK)]);
    let run = block_on(run_instruction(
        "r".into(),
        "add a todo 'buy milk'",
        &RunOptions::default(),
        &config(),
        &mut browser,
        &model,
    ));
    assert!(run.models.is_empty() && run.steps.iter().all(|s| s.role.is_none()));
    let json = serde_json::to_value(&run).unwrap();
    assert!(json.get("models").is_none());
    assert!(json["steps"].as_array().unwrap().iter().all(|s| s.get("role").is_none()), "{json}");
}

#[test]
fn a_dead_planning_endpoint_fails_the_run_naming_the_planner() {
    let mut browser = todo_browser();
    let models = TwoModels {
        planner: ScriptedModel::new(vec![Err(ModelError::Network("connection refused".into()))]),
        actor: ScriptedModel::new(vec![]),
    };
    let run = block_on(run_instruction(
        "r".into(),
        "add a todo 'buy milk'",
        &with_planner(),
        &config(),
        &mut browser,
        &models,
    ));
    assert_eq!(run.status, RunStatus::Failed);
    let error = run.error.unwrap();
    assert_eq!(error.code, "planner_model_failed");
    assert!(error.message.starts_with("the planning model planner-x failed:"), "{}", error.message);
    assert!(error.message.contains("connection refused"), "{}", error.message);
}
