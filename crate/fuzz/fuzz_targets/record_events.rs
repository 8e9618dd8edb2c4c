//! "Record my steps": the events the content script reports from the page (one JSON object a
//! line, as `recordEvent` receives them, 250 ms apart), turned into steps; then the recording
//! every export reads. Every recorded step is an action with its plan, and the run crosses
//! to JavaScript and back as JSON unchanged (`recordEvent` returns it for the next event;
//! compared as in ../round_trip.rs).
#![no_main]
use libfuzzer_sys::fuzz_target;
use sightline::agent::recorder::{record_event, ManualEvent};
use sightline::agent::record::{Run, StepKind};
use sightline::export;
use sightline::vocab::geometry::WindowSize;
#[path = "../round_trip.rs"]
mod round_trip;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };
    let mut run = Run::new("rec".into(), "Record my steps", 0.0);
    let mut now = 0.0;
    for line in text.lines() {
        let Ok(event) = serde_json::from_str::<ManualEvent>(line) else { continue };
        now += 250.0;
        record_event(&mut run, event, now);
    }
    for step in &run.steps {
        assert!(step.kind == StepKind::Action && step.planned.is_some(), "a recorded step with no action: {step:?}");
    }
    round_trip::check_serde(&run, "the recording run");
    let _ = sightline::agent::replay::trajectory::replay_cache(&run, now);
    let recording = export::recording_of(&run);
    let viewport = WindowSize::default();
    let _ = sightline::flow::parse_flow(&export::to_midscene_yaml(&recording, viewport));
    let _ = export::to_playwright(&recording, viewport);
    let _ = export::to_recorder(&recording, viewport);
});
