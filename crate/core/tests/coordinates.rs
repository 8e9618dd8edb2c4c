//! Property tests: every transform between CSS, device and image pixels has an exact
//! inverse, and a point written in any family's native coordinates parses back to where it
//! was on the page, within the rounding of the integers the model writes.

use proptest::prelude::*;
use sightline::parse::parse_reply;
use sightline::vision::fit::fit;
use sightline::vision::{ImageMapping, ImageOptions, ImageRule};
use sightline::vocab::actions::PlannedAction;
use sightline::vocab::family::CoordSpace;
use sightline::vocab::family::ModelFamily;

fn rules() -> impl Strategy<Value = ImageRule> {
    prop_oneof![
        Just(ImageRule::AsIs),
        Just(ImageRule::QwenPad28),
        Just(ImageRule::UI_TARS_1_0),
        Just(ImageRule::UI_TARS_1_5),
        Just(ImageRule::DOUBAO_UI_TARS),
    ]
}

fn dprs() -> impl Strategy<Value = f64> {
    prop_oneof![Just(1.0), Just(1.25), Just(1.5), Just(2.0), Just(3.0)]
}

fn close(a: (f64, f64), b: (f64, f64), tol: f64) -> bool {
    (a.0 - b.0).abs() <= tol && (a.1 - b.1).abs() <= tol
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 2000, ..ProptestConfig::default() })]

    #[test]
    fn css_and_image_pixels_invert_exactly(
        css_w in 320u32..2600, css_h in 320u32..2000, dpr in dprs(), shrink in 0.25f64..=1.0, rule in rules(),
        resize_to_css in any::<bool>(), ox in -4000f64..=0.0, oy in -20000f64..=0.0, fx in 0f64..1.0, fy in 0f64..1.0,
    ) {
        let (w, h) = ((css_w as f64 * dpr).round() as u32, (css_h as f64 * dpr).round() as u32);
        let opts = ImageOptions { shrink, rule, resize_to_css, ..Default::default() };
        let m = fit(w, h, dpr, (ox, oy), &opts).unwrap();
        // What the capture covers, in CSS pixels (device sizes are whole pixels).
        let (cw, ch) = (w as f64 / dpr, h as f64 / dpr);
        let css = (ox + fx * cw, oy + fy * ch);
        prop_assert!(close(m.image_to_css(m.css_to_image(css)), css, 1e-6));
        // Device pixels are DPR × CSS from the same origin.
        prop_assert!(close(m.device_to_css(((css.0 - ox) * dpr, (css.1 - oy) * dpr)), css, 1e-6));
        // Relative coordinates, on any range, come back too.
        for range in [999.0, 1000.0] {
            let img = m.css_to_image(css);
            let rel = (img.0 / m.width as f64 * range, img.1 / m.height as f64 * range);
            prop_assert!(close(m.relative_to_css(rel, range), css, 1e-6));
        }
        // Rectangles keep their corners.
        let r = sightline::vocab::geometry::Rect::new(css.0, css.1, 37.5, 12.25);
        let back = m.rect_to_css(&m.rect_to_image(&r));
        prop_assert!(close((back.x, back.y), (r.x, r.y), 1e-6) && close((back.width, back.height), (r.width, r.height), 1e-6));
        // The page fills the content area; padding is only added, never over the page.
        prop_assert!(m.content_width <= m.width && m.content_height <= m.height);
        let far = m.css_to_image((ox + cw - 1e-3, oy + ch - 1e-3));
        prop_assert!(far.0 <= m.content_width as f64 + 1e-6 && far.1 <= m.content_height as f64 + 1e-6);
    }

    #[test]
    fn a_point_written_natively_parses_back_to_the_page(
        family in prop::sample::select(ModelFamily::ALL.iter().copied().filter(|f| f.grounds_on_image()).collect::<Vec<_>>()),
        css_w in 360u32..2000, css_h in 360u32..1400, dpr in dprs(), fx in 0.01f64..0.99, fy in 0.01f64..0.99,
    ) {
        // As a run fits the viewport capture for the family.
        let (w, h) = ((css_w as f64 * dpr).round() as u32, (css_h as f64 * dpr).round() as u32);
        let opts = ImageOptions { rule: ImageRule::for_family(family), ..Default::default() };
        let m: ImageMapping = fit(w, h, dpr, (0.0, 0.0), &opts).unwrap();
        let css = (fx * w as f64 / dpr, fy * h as f64 / dpr);
        let img = m.css_to_image(css);
        let space = family.coord_space().unwrap();
        // What the model writes: integers in its own space; one unit of it, in CSS pixels.
        let (native, unit_css) = match space {
            CoordSpace::ImagePixels => ((img.0.round(), img.1.round()), (1.0 / m.scale_x).max(1.0 / m.scale_y)),
            CoordSpace::Relative { range } => {
                let rel = ((img.0 / m.width as f64 * range).round(), (img.1 / m.height as f64 * range).round());
                (rel, (m.width as f64 / range / m.scale_x).max(m.height as f64 / range / m.scale_y))
            }
            CoordSpace::GeminiYx => {
                let rel = ((img.0 / m.width as f64 * 1000.0).round(), (img.1 / m.height as f64 * 1000.0).round());
                (rel, (m.width as f64 / 1000.0 / m.scale_x).max(m.height as f64 / 1000.0 / m.scale_y))
            }
        };
        let (a, b) = (native.0 as i64, native.1 as i64);
        let reply = match family {
            ModelFamily::UiTars10 | ModelFamily::UiTars15 | ModelFamily::DoubaoUiTars => format!("Thought: there.\nAction: click(start_box='({a},{b})')"),
            ModelFamily::MaiUi => format!(r#"<tool_call>{{"name":"browser_use","arguments":{{"action":"click","coordinate":[{a},{b}]}}}}</tool_call>"#),
            ModelFamily::Gemini => format!(r#"[{{"name":"click","arguments":{{"coordinate":[{b},{a}]}}}}]"#),
            _ => format!(r#"[{{"name":"click","arguments":{{"coordinate":[{a},{b}]}}}}]"#),
        };
        let plan = parse_reply(family, &reply, Some(&m)).map_err(|e| TestCaseError::fail(format!("{family:?}: {reply}: {e}")))?;
        match plan.actions.first() {
            Some(PlannedAction::TapAt { x, y, .. }) => prop_assert!(
                close((*x, *y), css, unit_css / 2.0 + 1e-6),
                "{family:?}: wrote {reply}, read ({x}, {y}), was {css:?}, one unit = {unit_css} css px"
            ),
            other => prop_assert!(false, "{family:?}: expected a tap, got {other:?}"),
        }
    }
}
