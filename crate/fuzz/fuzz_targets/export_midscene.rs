//! The Midscene YAML export of a recording of hostile texts, read back by yaml-rust2: one
//! document of the keys the exporter writes, no anchor, alias or tag, only YAML's printable
//! characters, every `javascript` a script oxc reads with only the exporter's names; exactly the
//! keys, types and script shapes of its benign twin's; and Sightline's own flow reader refuses
//! it, if at all, only for what it refuses in any flow (crate/core/src/export/format_checks.rs).
#![no_main]
use libfuzzer_sys::fuzz_target;
use sightline::export::to_midscene_yaml;
#[path = "../export_input.rs"]
mod export_input;
#[path = "../../core/src/export/format_checks.rs"]
mod format_checks;
use export_input::{Input, VIEWPORT};

fuzz_target!(|data: &[u8]| {
    let Some(input) = Input::read(data) else { return };
    let (hostile, twin) = input.recordings();
    let yaml = to_midscene_yaml(&hostile, VIEWPORT);
    let read = format_checks::read_midscene(&yaml).unwrap_or_else(|e| panic!("{e}\n{yaml}"));
    let twin_yaml = to_midscene_yaml(&twin, VIEWPORT);
    let twin_read = format_checks::read_midscene(&twin_yaml).unwrap_or_else(|e| panic!("the twin: {e}\n{twin_yaml}"));
    assert_eq!(read.shape, twin_read.shape, "the texts changed the keys\n{yaml}\n{twin_yaml}");
    assert_eq!(read.scripts, twin_read.scripts, "the texts changed a script\n{yaml}");
    // Refused, if at all, as the twin is: for a step with nothing to name its element (an
    // empty text). Scripts (the select scripts) are read as scripts.
    let read_back = sightline::flow::parse_flow(&yaml);
    assert_eq!(read_back.is_ok(), sightline::flow::parse_flow(&twin_yaml).is_ok(), "{read_back:?}\n{yaml}");
    if let Err(e) = read_back {
        let e = e.to_string();
        assert!(e.contains(" needs "), "{e}\n{yaml}");
    }
});
