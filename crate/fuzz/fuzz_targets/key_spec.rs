//! Key names as a model or a flow file writes them (`Enter`, `Control+A`, `Shift++`): keys or
//! an error, and every key pressed is released.
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(spec) = std::str::from_utf8(data) else { return };
    let Ok(commands) = sightline::action::key_events(spec) else { return };
    let kind = |c: &sightline::action::InputCommand| c.params["type"].as_str().unwrap_or_default().to_string();
    let downs = commands.iter().filter(|c| kind(c) != "keyUp").count();
    let ups = commands.iter().filter(|c| kind(c) == "keyUp").count();
    assert!(downs >= 1 && downs == ups, "{spec:?}: {downs} down, {ups} up");
    assert_eq!(kind(commands.last().unwrap()), "keyUp");
});
