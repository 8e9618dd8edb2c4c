//! Kept screenshots as they come back from a trajectory file: base64 text, and the image in a
//! `data:image/…;base64,` URL, decoded where the exports (`report`) and the recording's
//! describe step (`Frame::decode`) decode it. The first byte picks the URL's type and the path.
#![no_main]
use libfuzzer_sys::fuzz_target;
use sightline::vocab::geometry::Rect;
use sightline::vision::{base64, capture, pipeline, Frame, ImageFormat, ImageOptions, Overlay};

fuzz_target!(|data: &[u8]| {
    let Some((&sel, bytes)) = data.split_first() else { return };
    // The bytes as base64 text: what decodes, encodes and decodes to the same bytes.
    if let Ok(text) = std::str::from_utf8(bytes) {
        if let Some(decoded) = base64::decode(text) {
            assert_eq!(base64::decode(&base64::encode(&decoded).unwrap()).as_ref(), Some(&decoded));
        }
    }
    let _ = capture::png_size(bytes);
    // The bytes as the image of a data URL.
    let kind = if sel & 1 == 0 { "png" } else { "jpeg" };
    let url = format!("data:image/{kind};base64,{}", base64::encode(bytes).unwrap());
    assert_eq!(pipeline::data_url_bytes(&url).ok().as_deref(), Some(bytes), "data URL round trip");
    if sel & 2 == 0 {
        // The HTML report: decoded, then shrunk to a JPEG.
        if let Ok(img) = pipeline::decode_data_url(&url) {
            let _ = pipeline::shrink_to_jpeg(&img, 160, 60);
        }
    } else {
        // A recorded step's screenshot, outlined for the model.
        let dpr = [1.0, 2.0, 0.5, 3.0][(sel >> 2 & 3) as usize];
        if let Ok(frame) = Frame::decode(bytes, dpr, (0.0, 0.0), &ImageOptions::default()) {
            let img = frame.with_overlays(&[Overlay::Highlight { rect: Rect::new(2.0, 2.0, 10.0, 10.0) }]);
            let _ = frame.finish(&img, ImageFormat::Jpeg { quality: 80 });
        }
    }
});
