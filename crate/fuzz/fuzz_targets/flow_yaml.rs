//! Flow files (Midscene YAML), as a person opens one in the panel or `scripts/run` reads it:
//! any text is a flow or an error saying why; a flow has steps, its navigations are web
//! addresses, its keys are keys or an error, and it crosses to JavaScript and back as JSON
//! unchanged (`parseFlow`, then `runFlow`; compared as in ../round_trip.rs).
#![no_main]
use libfuzzer_sys::fuzz_target;
use sightline::vocab::tasks::Task;
use sightline::flow::{parse_flow, Flow, FlowStep};
#[path = "../round_trip.rs"]
mod round_trip;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };
    let Ok(flow) = parse_flow(text) else { return };
    assert!(flow.step_count() > 0, "a flow with no steps");
    let _ = flow.title();
    for step in flow.tasks.iter().flat_map(|t| &t.steps) {
        let _ = step.title();
        match step {
            FlowStep::Navigate { url } => assert!(sightline::action::is_web_address(url), "a flow opens {url:?}"),
            FlowStep::Sleep { ms } => assert!(*ms <= 600_000),
            FlowStep::Task { task: Task::KeyboardPress { key, .. }, .. } => {
                let _ = sightline::action::key_events(key);
            }
            _ => {}
        }
    }
    round_trip::check_serde::<Flow>(&flow, "the flow");
});
