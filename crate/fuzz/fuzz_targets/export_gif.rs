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

/// A 16×2 PNG (a GIF frame of 800×100 under its bars: encoding larger frames under the
/// address sanitizer takes seconds); when the input's third byte is odd every step shows it,
/// else each refers to an image that is not there.
const STRIP: &str = "data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAABAAAAACCAIAAADej8umAAAAUUlEQVR4nAXBMQGAIAAF0YtABCMYwQhEMILjH4lgBCIQgfFGIhDBCL4HWPDAEy+seOODDV/sOHDiwo0fQizxiGe8Yo13fGKLb+xxxBlX3PGLP9cLL4F8B/FiAAAAAElFTkSuQmCC";

fuzz_target!(|data: &[u8]| {
    let Some(input) = Input::read(data) else { return };
    let shot = if data.get(2).is_some_and(|b| b % 2 == 1) { "shot" } else { "gone" };
    let images = HashMap::from([("shot".to_string(), STRIP.to_string())]);
    let (mut run, _) = input.runs(shot);
    run.steps.truncate(2);
    let bytes = to_gif(&run, &images).expect("the GIF encodes");
    let mut options = gif::DecodeOptions::new();
    options.set_color_output(gif::ColorOutput::RGBA);
    let mut decoder = options.read_info(bytes.as_slice()).expect("a GIF");
    let shown = if shot == "shot" { run.steps.len() } else { 0 };
    let (w, h) = (decoder.width(), decoder.height());
    assert_eq!(w, 800);
    // The strip 100 high (the card 200 without one), a 32-pixel title bar, a 76-pixel caption bar.
    assert_eq!(h, if shown > 0 { 100 } else { 200 } + 32 + 76);
    let mut frames = 0;
    while let Some(frame) = decoder.read_next_frame().expect("a frame") {
        assert_eq!((frame.width, frame.height, frame.left, frame.top), (w, h, 0, 0));
        frames += 1;
    }
    assert_eq!(frames, shown.max(1), "one frame per screenshot, one card without");
});
