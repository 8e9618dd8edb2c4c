//! Pipeline tests on synthetic captures, and golden images checked with a tolerance.
//! `UPDATE_GOLDEN=1 cargo test -p sightline vision` rewrites the golden files (look at them).

use super::*;
use crate::describe::{Element, ElementKind, Extraction};
use crate::vocab::geometry::Rect;
use image::{Rgb, RgbImage};
use std::path::PathBuf;

/// A page-like capture: white, a header bar, text-like stripes, some buttons.
fn synthetic_page(w: u32, h: u32, dpr: f64) -> RgbImage {
    let mut img = RgbImage::from_pixel(w, h, Rgb([255, 255, 255]));
    let s = |v: f64| (v * dpr).round() as i64;
    let fill = |img: &mut RgbImage, x: f64, y: f64, bw: f64, bh: f64, c: [u8; 3]| {
        draw::fill_rect(img, draw::PixelRect { x: s(x), y: s(y), w: s(bw), h: s(bh) }, c)
    };
    fill(&mut img, 0.0, 0.0, 640.0, 48.0, [40, 44, 52]);
    for line in 0..12 {
        fill(&mut img, 24.0, 80.0 + line as f64 * 22.0, 300.0 + (line * 37 % 200) as f64, 10.0, [90, 90, 90]);
    }
    for b in 0..4 {
        fill(&mut img, 400.0 + b as f64 * 56.0, 80.0, 48.0, 24.0, [220, 230, 245]);
    }
    img
}

fn png_bytes(img: &RgbImage) -> Vec<u8> {
    pipeline::encode(img, ImageFormat::Png).unwrap()
}

fn element(index: u32, rect: Rect) -> Element {
    Element {
        index,
        id: format!("e{index}"),
        kind: ElementKind::Button,
        tag: "button".into(),
        attributes: vec![],
        content: format!("Button {index}"),
        rect,
        center: rect.center(),
        in_viewport: 1.0,
        visible_rect: None,
        occluded: false,
        xpath: String::new(),
        xpath_text: None,
        node: index,
        frame_origin: None,
        options: Vec::new(),
    }
}

fn buttons() -> Vec<Element> {
    (0..4).map(|b| element(b + 1, Rect::new(400.0 + b as f64 * 56.0, 80.0, 48.0, 24.0))).collect()
}

fn decode_data_url(url: &str) -> RgbImage {
    let b64 = url.split_once(";base64,").unwrap().1;
    image::load_from_memory(&base64::decode(b64).unwrap()).unwrap().into_rgb8()
}

#[test]
fn markers_are_drawn_at_css_size_from_a_dpr_2_capture() {
    let capture = Capture {
        bytes: png_bytes(&synthetic_page(1280, 800, 2.0)),
        device_pixel_ratio: 2.0,
        origin: (0.0, 0.0),
        pixels: Default::default(),
    };
    let extraction = Extraction { elements: buttons(), ..Default::default() };
    let shot = model_image(&capture, &extraction, &ImageOptions::default()).unwrap();
    assert_eq!((shot.mapping.width, shot.mapping.height), (640, 400));
    let img = decode_data_url(&shot.data_url);
    assert_eq!(img.dimensions(), (640, 400));
    // Button 1's outline is in its palette colour at its CSS position.
    assert_eq!(img.get_pixel(400, 90).0, markers::color_of(1));
    // And its label sits left of it, in the same colour.
    assert_eq!(img.get_pixel(399, 81).0, markers::color_of(1));
}

#[test]
fn qwen_padding_is_white_and_outside_the_content() {
    let capture = Capture {
        bytes: png_bytes(&synthetic_page(640, 400, 1.0)),
        device_pixel_ratio: 1.0,
        origin: (0.0, 0.0),
        pixels: Default::default(),
    };
    let opts = ImageOptions { rule: ImageRule::QwenPad28, ..Default::default() };
    let frame = Frame::from_capture(&capture, &opts).unwrap();
    assert_eq!(frame.image.dimensions(), (644, 420));
    assert_eq!(frame.image.get_pixel(643, 10).0, [255, 255, 255]);
    assert_eq!(frame.image.get_pixel(10, 10).0, [40, 44, 52], "content is not moved or scaled");
    assert_eq!(frame.image.get_pixel(10, 419).0, [255, 255, 255]);
}

#[test]
fn bad_captures_are_errors_not_panics() {
    let opts = ImageOptions::default();
    let cap = |bytes: &[u8]| Capture {
        bytes: bytes.to_vec(),
        device_pixel_ratio: 1.0,
        origin: (0.0, 0.0),
        pixels: Default::default(),
    };
    let written = serde_json::json!({ "base64": "not*base64", "devicePixelRatio": 1.0 });
    let refused = serde_json::from_value::<Capture>(written).unwrap_err().to_string();
    assert!(refused.contains("not valid base64"), "{refused}");
    assert!(matches!(Frame::from_capture(&cap(&[0; 6]), &opts), Err(VisionError::Decode(_))));
    // A PNG header claiming 100000 × 100000 pixels is refused before any decoding.
    let mut huge = b"\x89PNG\r\n\x1a\n\0\0\0\x0dIHDR".to_vec();
    huge.extend_from_slice(&100_000u32.to_be_bytes());
    huge.extend_from_slice(&100_000u32.to_be_bytes());
    huge.extend_from_slice(&[8, 2, 0, 0, 0, 0, 0, 0, 0]);
    assert!(matches!(
        Frame::from_capture(&cap(&huge), &opts),
        Err(VisionError::TooLarge { .. }) | Err(VisionError::Decode(_))
    ));
    // A truncated PNG.
    let good = pipeline::encode(&synthetic_page(64, 64, 1.0), ImageFormat::Png).unwrap();
    assert!(matches!(Frame::from_capture(&cap(&good[..good.len() / 2]), &opts), Err(VisionError::Decode(_))));
}

#[test]
fn hostile_element_rects_draw_nothing_wild() {
    let capture = Capture {
        bytes: png_bytes(&synthetic_page(320, 200, 1.0)),
        device_pixel_ratio: 1.0,
        origin: (0.0, 0.0),
        pixels: Default::default(),
    };
    let mut elements = buttons();
    elements.push(element(9, Rect::new(f64::NAN, 5.0, 10.0, 10.0)));
    elements.push(element(10, Rect::new(-1e300, 1e300, f64::INFINITY, 3.0)));
    let extraction = Extraction { elements, ..Default::default() };
    let shot = model_image(&capture, &extraction, &ImageOptions::default()).unwrap();
    assert_eq!(decode_data_url(&shot.data_url).dimensions(), (320, 200));
}

#[test]
fn jpeg_output_is_smaller_and_decodes() {
    let capture = Capture {
        bytes: png_bytes(&synthetic_page(640, 400, 1.0)),
        device_pixel_ratio: 1.0,
        origin: (0.0, 0.0),
        pixels: Default::default(),
    };
    let opts = ImageOptions { format: ImageFormat::Jpeg { quality: 80 }, ..Default::default() };
    let shot = model_image(&capture, &Extraction::default(), &opts).unwrap();
    assert!(shot.data_url.starts_with("data:image/jpeg;base64,"));
    assert_eq!(decode_data_url(&shot.data_url).dimensions(), (640, 400));
}

#[test]
fn labels_on_a_dense_page_never_overlap_and_match_their_boxes() {
    let capture = Capture {
        bytes: png_bytes(&RgbImage::from_pixel(1280, 800, Rgb([250, 250, 250]))),
        device_pixel_ratio: 1.0,
        origin: (0.0, 0.0),
        pixels: Default::default(),
    };
    let mut elements = Vec::new();
    for row in 0..10 {
        for col in 0..15 {
            let n = row * 15 + col + 1;
            elements.push(element(n, Rect::new(20.0 + col as f64 * 82.0, 30.0 + row as f64 * 74.0, 76.0, 26.0)));
        }
    }
    let frame = Frame::from_capture(&capture, &ImageOptions::default()).unwrap();
    let (_, labels) = frame.with_markers(&markers::markers_for(&elements));
    assert_eq!(labels.len(), 150);
    for (i, a) in labels.iter().enumerate() {
        assert_eq!(a.number, i as u32 + 1);
        assert!(a.x >= 0 && a.y >= 0 && a.x + a.width <= 1280 && a.y + a.height <= 800);
        for b in &labels[i + 1..] {
            let apart = a.x + a.width <= b.x || b.x + b.width <= a.x || a.y + a.height <= b.y || b.y + b.height <= a.y;
            assert!(apart, "labels {} and {} overlap", a.number, b.number);
        }
    }
}

fn golden_path(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/golden").join(name)
}

/// Same size, and at most 0.5% of pixels differ by more than 24 in any channel.
fn assert_like_golden(img: &RgbImage, name: &str) {
    let path = golden_path(name);
    if std::env::var_os("UPDATE_GOLDEN").is_some() {
        img.save(&path).unwrap();
        return;
    }
    let golden = image::open(&path)
        .unwrap_or_else(|e| panic!("{}: {e} (UPDATE_GOLDEN=1 writes it)", path.display()))
        .into_rgb8();
    assert_eq!(img.dimensions(), golden.dimensions(), "{name}: size");
    let off = img
        .pixels()
        .zip(golden.pixels())
        .filter(|(a, b)| a.0.iter().zip(b.0.iter()).any(|(x, y)| x.abs_diff(*y) > 24))
        .count();
    let allowed = (img.len() / 3) / 200;
    assert!(off <= allowed, "{name}: {off} pixels differ (allowed {allowed})");
}

#[test]
fn golden_markers_at_dpr_1_and_2() {
    let extraction = Extraction { elements: buttons(), ..Default::default() };
    for (dpr, name) in [(1.0, "markers-dpr1.png"), (2.0, "markers-dpr2-kept.png")] {
        let (w, h) = ((640.0 * dpr) as u32, (400.0 * dpr) as u32);
        let capture = Capture {
            bytes: png_bytes(&synthetic_page(w, h, dpr)),
            device_pixel_ratio: dpr,
            origin: (0.0, 0.0),
            pixels: Default::default(),
        };
        let opts = ImageOptions { resize_to_css: false, ..Default::default() };
        let frame = Frame::from_capture(&capture, &opts).unwrap();
        let (img, _) = frame.with_markers(&markers::markers_for(&extraction.elements));
        assert_like_golden(&img, name);
    }
}

#[test]
fn golden_overlays() {
    let capture = Capture {
        bytes: png_bytes(&synthetic_page(640, 400, 1.0)),
        device_pixel_ratio: 1.0,
        origin: (0.0, 0.0),
        pixels: Default::default(),
    };
    let frame = Frame::from_capture(&capture, &ImageOptions::default()).unwrap();
    let img = frame.with_overlays(&[
        Overlay::Highlight { rect: Rect::new(400.0, 80.0, 48.0, 24.0) },
        Overlay::Bbox { rect: Rect::new(20.0, 70.0, 320.0, 40.0) },
        Overlay::Point { x: 480.0, y: 200.0 },
    ]);
    assert_like_golden(&img, "overlays.png");
}

#[test]
fn kept_screenshots_too_large_are_refused_before_decoding() {
    // Found by fuzzing (screenshot): 683 bytes of JPEG whose header declares 8198×20535 pixels
    // (168 M) took 14 s to decode and shrink for the HTML report. The same header here.
    let mut jpeg = pipeline::encode(&RgbImage::new(8, 8), ImageFormat::Jpeg { quality: 80 }).unwrap();
    let sof = jpeg.windows(2).position(|w| w == [0xff, 0xc0]).unwrap();
    jpeg[sof + 5..sof + 9].copy_from_slice(&[0x50, 0x37, 0x20, 0x06]); // height 20535, width 8198
    let url = pipeline::data_url(&jpeg, ImageFormat::Jpeg { quality: 80 }).unwrap();
    assert!(!pipeline::browser_decodes(&url), "the worker's JS leaves it as it is");
    assert!(
        matches!(pipeline::decode_data_url(&url), Err(VisionError::TooLarge { width: 8198, height: 20535 })),
        "and the core refuses it by its size"
    );
    // A PNG declaring as much is refused by its size, not decoded.
    let mut png = pipeline::encode(&RgbImage::new(8, 8), ImageFormat::Png).unwrap();
    png[16..24].copy_from_slice(&[0, 0, 0x20, 0x06, 0, 0, 0x50, 0x37]);
    let crc = png[12..29].iter().fold(!0u32, |c, &b| {
        (0..8).fold(c ^ b as u32, |c, _| if c & 1 == 1 { (c >> 1) ^ 0xEDB8_8320 } else { c >> 1 })
    });
    png[29..33].copy_from_slice(&(!crc).to_be_bytes()); // IHDR's checksum, which the decoder checks
    let url = pipeline::data_url(&png, ImageFormat::Png).unwrap();
    assert!(matches!(pipeline::decode_data_url(&url), Err(VisionError::TooLarge { width: 8198, height: 20535 })));
    let small =
        pipeline::data_url(&pipeline::encode(&RgbImage::new(8, 8), ImageFormat::Png).unwrap(), ImageFormat::Png)
            .unwrap();
    assert_eq!(pipeline::decode_data_url(&small).unwrap().dimensions(), (8, 8));
}

#[test]
fn kept_jpegs_are_decoded_by_the_browser() {
    let jpeg = pipeline::encode(&RgbImage::new(64, 48), ImageFormat::Jpeg { quality: 80 }).unwrap();
    let url = pipeline::data_url(&jpeg, ImageFormat::Jpeg { quality: 80 }).unwrap();
    assert!(pipeline::browser_decodes(&url));
    assert!(matches!(pipeline::decode_data_url(&url), Err(VisionError::Decode(_))));
    let png = pipeline::data_url(&pipeline::encode(&RgbImage::new(8, 8), ImageFormat::Png).unwrap(), ImageFormat::Png)
        .unwrap();
    assert!(!pipeline::browser_decodes(&png), "PNGs are the core's to decode");
    assert!(!pipeline::browser_decodes("data:image/jpeg;base64,!!!"));
    let capture = Capture { bytes: jpeg, device_pixel_ratio: 1.0, origin: (0.0, 0.0), pixels: Default::default() };
    assert!(matches!(Frame::from_capture(&capture, &ImageOptions::default()), Err(VisionError::Decode(_))));
}

#[test]
fn a_capture_decoded_ahead_makes_the_same_images() {
    let bytes = png_bytes(&synthetic_page(1280, 800, 2.0));
    let fresh =
        Capture { bytes: bytes.clone(), device_pixel_ratio: 2.0, origin: (0.0, 0.0), pixels: Default::default() };
    let extraction = Extraction { elements: buttons(), ..Default::default() };
    let padded = ImageOptions { rule: ImageRule::QwenPad28, resize_to_css: false, ..Default::default() };
    for opts in [ImageOptions::default(), padded] {
        let mut ahead = fresh.clone();
        ahead.decode_ahead();
        assert_eq!(ahead.pixels.borrow().as_ref().map(|p| p.dimensions()), Some((1280, 800)));
        let made = model_image(&ahead, &extraction, &opts).unwrap();
        assert_eq!(made, model_image(&fresh, &extraction, &opts).unwrap());
        assert!(ahead.pixels.borrow().is_none(), "taken by the frame: not kept beside the bytes");
        assert_eq!(model_image(&ahead, &extraction, &opts).unwrap(), made, "the next frame decodes the bytes");
    }
    let mut ahead = fresh.clone();
    ahead.decode_ahead();
    assert!(serde_json::to_value(&ahead).unwrap().get("pixels").is_none(), "pixels are never written out");
    // Bytes that do not decode are left as they came: the image made from them says why.
    let mut broken = Capture { bytes: bytes[..bytes.len() / 2].to_vec(), ..fresh };
    broken.decode_ahead();
    assert!(broken.pixels.borrow().is_none());
    assert!(matches!(model_image(&broken, &extraction, &ImageOptions::default()), Err(VisionError::Decode(_))));
}
