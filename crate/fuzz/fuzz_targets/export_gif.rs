//! The GIF of a run of hostile texts (its captions are drawn, not written, so no text can be
//! more than pixels): the gif crate's decoder reads it back as one frame per shown screenshot
//! (one card when none shows), every frame the logical screen's size, 800 pixels wide, within
//! the height a frame may have.
#![no_main]
use libfuzzer_sys::fuzz_target;
use sightline::export::to_gif;
use std::collections::HashMap;
#[path = "../export_input.rs"]
mod export_input;
use export_input::Input;

/// A 1×1 PNG; a step whose first text byte is odd shows it, the others a reference with no image.
const PIXEL: &str = "data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==";

fuzz_target!(|data: &[u8]| {
    let Some(input) = Input::read(data) else { return };
    let shot = if data.get(2).is_some_and(|b| b % 2 == 1) { "shot" } else { "gone" };
    let images = HashMap::from([("shot".to_string(), PIXEL.to_string())]);
    let (run, _) = input.runs(shot);
    let bytes = to_gif(&run, &images).expect("the GIF encodes");
    let mut options = gif::DecodeOptions::new();
    options.set_color_output(gif::ColorOutput::RGBA);
    let mut decoder = options.read_info(bytes.as_slice()).expect("a GIF");
    let (w, h) = (decoder.width(), decoder.height());
    assert_eq!(w, 800);
    // A page at most 1600 high, a 32-pixel title bar and a 76-pixel caption bar.
    assert!(h > 0 && h <= 1600 + 32 + 76, "{h} high");
    let mut frames = 0;
    while let Some(frame) = decoder.read_next_frame().expect("a frame") {
        assert_eq!((frame.width, frame.height, frame.left, frame.top), (w, h, 0, 0));
        frames += 1;
    }
    let shown = if shot == "shot" { run.steps.len() } else { 0 };
    assert_eq!(frames, shown.max(1), "one frame per screenshot, one card without");
});
