//! The CDP page reader (`describeCdpSnapshot`): the JSON texts of `DOMSnapshot.captureSnapshot`,
//! `Page.getLayoutMetrics` and the cross-process frames' captures, NUL-separated after a
//! first byte of describe options; decoded, then described with paint-order hit-testing.
#![no_main]
use libfuzzer_sys::fuzz_target;
#[path = "../page_checks.rs"]
mod page_checks;

fuzz_target!(|data: &[u8]| {
    let Some((&options, rest)) = data.split_first() else { return };
    let Ok(text) = std::str::from_utf8(rest) else { return };
    let mut parts = text.splitn(3, '\0');
    let capture = parts.next().unwrap_or_default();
    let metrics = parts.next().unwrap_or("{}");
    let remote_frames = parts.next().unwrap_or_default();
    page_checks::decode_and_describe(capture, metrics, remote_frames, options);
});
