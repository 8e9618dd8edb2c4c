//! The JSON forms of the internally tagged enums (and the untagged and flattened forms) as serde's
//! own derives wrote and read them: saved runs in IndexedDB, exported and imported files, the MCP
//! bridge and docs/API.md's JSON. They are read through `vocab::wire` now (not serde's buffered
//! `Content`); each text here must read, from JSON text and from a parsed value (what crosses from
//! JS), and write back byte-identically.

use serde::de::DeserializeOwned;
use serde::Serialize;
use serde_json::{json, Value};
use sightline::agent::ask::{Answer, Question};
use sightline::agent::recorder::ManualEvent;
use sightline::agent::replay::cache::CacheEntry;
use sightline::describe::midscene::AttrValue;
use sightline::flow::FlowStep;
use sightline::model::ContentPart;
use sightline::snapshot::NodeData;
use sightline::vision::fit::{ImageFormat, ImageOptions, ImageRule};
use sightline::vision::markers::Overlay;
use sightline::vocab::actions::{Go, PlannedAction};
use sightline::vocab::family::CoordSpace;
use sightline::vocab::objects;
use sightline::vocab::tasks::Task;
use sightline::vocab::text as structs_from_objects;

/// Reads `text` from JSON text and from a Value (serde_json's readers, and `vocab::text` and
/// `vocab::objects`, the ones the core reads records with), all the same; writes it back as it was.
fn same<T: Serialize + DeserializeOwned + PartialEq + std::fmt::Debug>(text: &str) -> T {
    let from_text: T = serde_json::from_str(text).unwrap_or_else(|e| panic!("{text}: {e}"));
    let value: Value = serde_json::from_str(text).unwrap();
    let from_value: T = serde_json::from_value(value.clone()).unwrap_or_else(|e| panic!("{text} (as a value): {e}"));
    assert_eq!(from_text, from_value, "{text}");
    let from_objects: T = objects::from_value(value).unwrap_or_else(|e| panic!("{text} (vocab::objects): {e}"));
    assert_eq!(from_text, from_objects, "{text}");
    let from_text_objects: T =
        structs_from_objects::from_str(text).unwrap_or_else(|e| panic!("{text} (vocab::text): {e}"));
    assert_eq!(from_text, from_text_objects, "{text}");
    assert_eq!(serde_json::to_string(&from_text).unwrap(), text, "written back");
    from_text
}

fn all_same<T: Serialize + DeserializeOwned + PartialEq + std::fmt::Debug>(texts: &[&str]) {
    for text in texts {
        same::<T>(text);
    }
}

#[test]
fn planned_actions_read_and_write_as_before() {
    all_same::<PlannedAction>(&[
        r#"{"type":"Tap","target":3}"#,
        r#"{"type":"Input","target":2,"value":"hello"}"#,
        r#"{"type":"KeyPress","key":"Control+A"}"#,
        r#"{"type":"Scroll","target":null,"direction":"down","distance":300.0}"#,
        r#"{"type":"Scroll","target":7,"direction":"left","distance":null}"#,
        r#"{"type":"TapAt","x":10.5,"y":20.0,"button":"right","clicks":2}"#,
        r#"{"type":"HoverAt","x":1.0,"y":2.0}"#,
        r#"{"type":"DragAt","from":[1.0,2.0],"to":[3.5,4.0]}"#,
        r#"{"type":"Type","value":"x","submit":true}"#,
        r#"{"type":"ScrollAt","x":5.0,"y":6.0,"direction":"up","distance":null}"#,
        r#"{"type":"Wait","ms":500}"#,
        r#"{"type":"Navigate","url":"https://example.com/"}"#,
        r#"{"type":"AskUser","question":"Which account?"}"#,
        r#"{"type":"DoubleClick","target":1}"#,
        r#"{"type":"Select","target":4,"option":"Red"}"#,
        r#"{"type":"Select","target":4,"option":"Red","value":"r"}"#,
        r#"{"type":"SelectAt","x":1.0,"y":2.0,"option":"Blue"}"#,
        r#"{"type":"ScrollToEdge","target":null,"direction":"down"}"#,
        r#"{"type":"Drag","from":1,"to":2}"#,
        r#"{"type":"Upload","target":3,"files":["/tmp/a.txt","/tmp/b.png"]}"#,
        r#"{"type":"WaitFor","text":"Done","gone":true,"timeout_ms":2000}"#,
        r#"{"type":"Back"}"#,
        r#"{"type":"CloseTab"}"#,
        r#"{"type":"SwitchTab","tab":-4}"#,
        r#"{"type":"Remember","note":"the price","data":{"items":[1,"two",null],"price":12.5}}"#,
        r#"{"type":"Remember","note":""}"#,
        r#"{"type":"Tool","name":"lookup","arguments":{"n":3,"q":"lamps"}}"#,
    ]);
}

#[test]
fn defaults_unit_variants_and_the_tag_anywhere_read_as_serde_read_them() {
    let read = |v: Value| serde_json::from_value::<PlannedAction>(v).unwrap();
    assert_eq!(
        read(json!({"type": "WaitFor", "text": "Done"})),
        PlannedAction::WaitFor { text: "Done".into(), gone: false, timeout_ms: 10_000 }
    );
    assert_eq!(read(json!({"target": 3, "type": "Tap"})), PlannedAction::Tap { target: 3 });
    assert_eq!(read(json!({"type": "Back", "extra": 1})), PlannedAction::Back);
    assert_eq!(read(json!({"type": "Remember"})), PlannedAction::Remember { note: String::new(), data: None });
    // An integer where a float is kept, as JS sends whole numbers.
    assert_eq!(read(json!({"type": "HoverAt", "x": 1, "y": 2})), PlannedAction::HoverAt { x: 1.0, y: 2.0 });
    let text: PlannedAction = serde_json::from_str(r#"{ "target" : 3 , "type" : "Tap" }"#).unwrap();
    assert_eq!(text, PlannedAction::Tap { target: 3 });
}

#[test]
fn what_is_wrong_is_said_as_before() {
    let error = |v: Value| {
        let said = serde_json::from_value::<PlannedAction>(v.clone()).unwrap_err().to_string();
        assert_eq!(objects::from_value::<PlannedAction>(v).unwrap_err().to_string(), said);
        said
    };
    assert!(error(json!({"target": 3})).contains("missing field `type`"), "{}", error(json!({"target": 3})));
    let unknown = error(json!({"type": "Fly"}));
    assert!(unknown.contains("unknown variant `Fly`") && unknown.contains("`Tap`"), "{unknown}");
    assert!(error(json!({"type": "Tap"})).contains("missing field `target`"));
    assert!(error(json!({"type": "Tap", "target": "three"})).contains("invalid type: string \"three\""));
    assert!(error(json!("Tap")).contains("invalid type: string \"Tap\""));
    let text = serde_json::from_str::<Task>(r#"{"type":"aiTap"}"#).unwrap_err().to_string();
    assert!(text.contains("missing field `locate`"), "{text}");
}

#[test]
fn tasks_and_flow_steps_read_and_write_as_before() {
    all_same::<Task>(&[
        r#"{"type":"aiTap","locate":"the Save button"}"#,
        r#"{"type":"aiInput","locate":"Email","value":"a@b.c","mode":"append"}"#,
        r#"{"type":"aiKeyboardPress","key":"Enter","locate":null}"#,
        r#"{"type":"aiScroll","locate":null,"direction":"down","scrollType":"untilEdge","distance":null}"#,
        r#"{"type":"aiDrag","from":"a","to":"b"}"#,
        r#"{"type":"aiUpload","locate":"Attach","files":["/tmp/x"]}"#,
        r#"{"type":"aiQuery","demand":{"name":"string","price":"number"}}"#,
        r#"{"type":"aiQuery","demand":"the prices"}"#,
        r#"{"type":"aiAssert","assertion":"the cart is empty"}"#,
        r#"{"type":"aiWaitFor","assertion":"loaded","timeoutMs":15000,"intervalMs":1000}"#,
    ]);
    assert_eq!(
        serde_json::from_value::<Task>(json!({"type": "aiWaitFor", "assertion": "loaded"})).unwrap(),
        serde_json::from_str::<Task>(
            r#"{"type":"aiWaitFor","assertion":"loaded","timeoutMs":15000,"intervalMs":1000}"#
        )
        .unwrap()
    );
    all_same::<FlowStep>(&[
        r#"{"kind":"act","instruction":"add a todo"}"#,
        r#"{"kind":"task","task":{"type":"aiTap","locate":"Add"},"xpath":"/html/body/button[1]","name":"added"}"#,
        r#"{"kind":"task","task":{"type":"aiAssert","assertion":"one todo"}}"#,
        r#"{"kind":"sleep","ms":300}"#,
        r#"{"kind":"navigate","url":"https://example.com/"}"#,
    ]);
}

#[test]
fn questions_answers_cache_entries_and_images_read_and_write_as_before() {
    all_same::<Question>(&[
        r#"{"kind":"text","text":"Which size?"}"#,
        r#"{"kind":"pageDialog","dialog":{"type":"prompt","message":"Name?","defaultPrompt":"x","url":"https://a.b/"}}"#,
        r#"{"kind":"upload","paths":["/tmp/a"]}"#,
    ]);
    all_same::<Answer>(&[
        r#"{"kind":"text","text":"M"}"#,
        r#"{"kind":"dialog","accept":true,"text":"Bob"}"#,
        r#"{"kind":"dialog","accept":false}"#,
        r#"{"kind":"upload","allow":true}"#,
    ]);
    all_same::<CacheEntry>(&[
        r#"{"kind":"locate","page":"https://a.b/","prompt":"Save","element":{"xpath":"/html/body/button","xpathText":"//button[text()='Save']","tag":"button","summary":"button \"Save\""},"updatedMs":1700000000000.0}"#,
        r#"{"kind":"plan","page":"https://a.b/","prompt":"add","rounds":[],"updatedMs":1.5}"#,
    ]);
    all_same::<Overlay>(&[
        r#"{"kind":"highlight","rect":{"x":1.0,"y":2.0,"width":3.0,"height":4.0}}"#,
        r#"{"kind":"bbox","rect":{"x":0.0,"y":0.0,"width":10.0,"height":10.0}}"#,
        r#"{"kind":"point","x":5.0,"y":6.0}"#,
        r#"{"kind":"redact","rect":{"x":1.0,"y":2.0,"width":3.0,"height":4.0}}"#,
    ]);
    all_same::<ImageOptions>(&[
        r#"{"resizeToCss":true,"shrink":1.0,"rule":{"kind":"asIs"},"format":{"type":"png"}}"#,
        r#"{"resizeToCss":false,"shrink":0.5,"rule":{"kind":"smartResize","minPixels":3136,"maxPixels":1003520},"format":{"type":"jpeg","quality":80}}"#,
        r#"{"resizeToCss":true,"shrink":1.0,"rule":{"kind":"qwenPad28"},"format":{"type":"png"}}"#,
    ]);
    assert_eq!(ImageRule::default(), ImageRule::AsIs);
    assert_eq!(ImageFormat::default(), ImageFormat::Png);
    all_same::<CoordSpace>(&[
        r#"{"kind":"imagePixels"}"#,
        r#"{"kind":"relative","range":999.0}"#,
        r#"{"kind":"geminiYx"}"#,
    ]);
    all_same::<Go>(&[
        r#"{"kind":"address","url":"https://a.b/"}"#,
        r#"{"kind":"back"}"#,
        r#"{"kind":"switchTab","tab":3}"#,
    ]);
    all_same::<ContentPart>(&[
        r#"{"type":"text","text":"hi"}"#,
        r#"{"type":"image_url","image_url":{"url":"data:image/png;base64,AAAA"}}"#,
    ]);
    all_same::<NodeData>(&[
        r#"{"kind":"element","tag":"a","attributes":[["href","/x"]]}"#,
        r#"{"kind":"text","text":"hello"}"#,
    ]);
    all_same::<AttrValue>(&[r#""text""#, r#"3.0"#, r#"1.5"#]);
    assert_eq!(serde_json::from_value::<AttrValue>(json!(3)).unwrap(), AttrValue::Number(3.0));
}

#[test]
fn a_recorded_event_reads_its_flattened_element() {
    let event: ManualEvent = serde_json::from_value(json!({
        "kind": "select",
        "target": {"index": 4, "id": "e4", "summary": "select Colour", "xpath": "/html/body/select",
                   "rect": {"x": 1, "y": 2, "width": 3, "height": 4}, "sensitive": true, "field": "colour"},
        "option": "Red",
    }))
    .unwrap();
    let ManualEvent::Select { target: Some(picked), option, value } = event else { panic!("{event:?}") };
    assert_eq!((option.as_str(), value.as_str()), ("Red", ""));
    assert_eq!((picked.info.index, picked.info.xpath.as_str(), picked.info.tag.as_str()), (4, "/html/body/select", ""));
    assert_eq!((picked.sensitive, picked.field.as_str()), (true, "colour"));
    let plain: ManualEvent = serde_json::from_str(r#"{"kind":"tap","target":null}"#).unwrap();
    assert!(matches!(plain, ManualEvent::Tap { target: None, hovered: None }));
    let scroll: ManualEvent = serde_json::from_str(r#"{"kind":"scroll","dx":0,"dy":120.5}"#).unwrap();
    assert!(matches!(scroll, ManualEvent::Scroll { dx, dy } if dx == 0.0 && dy == 120.5));
}
