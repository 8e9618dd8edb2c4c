use super::*;
use crate::agent::recorder::{describe_targets, record_event, ManualEvent};
use crate::export::recording_of;
use std::collections::HashMap;

fn recorded() -> (Run, HashMap<String, String>) {
    let mut run = Run::new("m".into(), "Recorded steps", 0.0);
    run.url = "http://127.0.0.1/form.html".into();
    let field = serde_json::json!({"index": 1, "id": "u", "summary": "input \"user\"", "xpath": "//*[@id=\"user\"]", "tag": "input",
            "rect": {"x": 100.0, "y": 100.0, "width": 200.0, "height": 30.0}});
    let event = |v: serde_json::Value| serde_json::from_value::<ManualEvent>(v).unwrap();
    record_event(&mut run, event(serde_json::json!({"kind": "tap", "target": field})), 10.0);
    record_event(&mut run, event(serde_json::json!({"kind": "key", "key": "Enter"})), 20.0);
    let png = vision::pipeline::data_url(&blank_capture(), vision::ImageFormat::Png).unwrap();
    run.steps[0].screenshot = Some("shot-0".into());
    run.steps[1].screenshot = Some("shot-1".into());
    (run, HashMap::from([("shot-0".to_string(), png.clone()), ("shot-1".to_string(), png)]))
}

#[test]
fn each_recorded_element_is_named_by_the_model_from_its_outlined_screenshot() {
    let (mut run, images) = recorded();
    let model = ScriptedModel::new(vec![Ok(r#"{"data":"the \"User name\" field at the top of the sign-in form"}"#)]);
    let n = block_on(describe_targets(&mut run, &images, 1.0, &config(), &model));
    assert_eq!(n, 1, "the key press has no element to describe");
    assert_eq!(run.model_calls, 1);
    assert_eq!(run.steps[0].locate.as_deref(), Some("the \"User name\" field at the top of the sign-in form"));
    // The model saw the step's screenshot with the element outlined, and its summary, fenced as the page's text.
    let sent = model.user_text(0);
    assert!(sent.contains("as the page's source names it: <page>input \"user\"</page>"), "{sent}");
    assert!(!sent.contains("<demand>\nA person acted on the element outlined in the screenshot (input"), "{sent}");
    let url = model.image_url(0).unwrap();
    let jpeg = vision::base64::decode(url.strip_prefix("data:image/jpeg;base64,").unwrap()).unwrap();
    let img = image::load_from_memory(&jpeg).unwrap().into_rgb8();
    assert_ne!(img.get_pixel(100, 100).0, [255, 255, 255], "the outline is drawn at the element");
    assert_eq!(
        recording_of(&run).steps[0].target.as_ref().unwrap().describe,
        "the \"User name\" field at the top of the sign-in form"
    );
}

#[test]
fn a_failed_description_keeps_the_summary_and_says_why() {
    let (mut run, images) = recorded();
    let model = ScriptedModel::new(vec![Err(ModelError::Http { status: 401, message: "bad key".into() })]);
    assert_eq!(block_on(describe_targets(&mut run, &images, 1.0, &config(), &model)), 0);
    assert!(
        run.steps[0].note.as_deref().unwrap().starts_with("not described by the model:"),
        "{:?}",
        run.steps[0].note
    );
    assert_eq!(recording_of(&run).steps[0].target.as_ref().unwrap().describe, "input \"user\"");
    // No model configured: nothing is asked.
    let (mut run, images) = recorded();
    assert_eq!(
        block_on(describe_targets(&mut run, &images, 1.0, &ModelConfig::default(), &ScriptedModel::new(vec![]))),
        0
    );
    assert!(run.steps[0].note.as_deref().unwrap().starts_with("not described by a model:"), "{:?}", run.steps[0].note);
}

#[test]
fn why_a_recorded_element_was_not_described_is_said_in_the_runs_language() {
    let (mut run, images) = recorded();
    run.language = crate::i18n::Lang::ZhCn;
    let model = ScriptedModel::new(vec![Err(ModelError::Http { status: 401, message: "bad key".into() })]);
    block_on(describe_targets(&mut run, &images, 1.0, &config(), &model));
    assert!(run.steps[0].note.as_deref().unwrap().starts_with("模型未能描述："), "{:?}", run.steps[0].note);
    // A reply with no phrase in it.
    let (mut run, images) = recorded();
    run.language = crate::i18n::Lang::ZhCn;
    block_on(describe_targets(&mut run, &images, 1.0, &config(), &ScriptedModel::new(vec![Ok(r#"{"data":""}"#)])));
    assert_eq!(run.steps[0].note.as_deref(), Some("无法读取模型的描述；该元素仍用页面中的说明"));
}
