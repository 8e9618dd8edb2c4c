//! "Record my steps": what a person does on the page by hand, kept as a run like any other, so
//! the panel shows it, Replay repeats it and every export writes it out. The content script
//! reports each trusted event with the element under it (described by the same classifier the
//! model's description uses); this module turns the events into steps, merging what a person
//! does in pieces (keystrokes into one input, two clicks into a double-click, a long scroll).
//! Secrets are held to the same [`Limits`] as runs: an event is [`ManualEvent::screened`]
//! before it is recorded, and each step's screenshot is a [`step_screenshot`].

use super::guard::Limits;
use super::record::{Run, Step, StepKind, TargetInfo};
use super::steps::join_notes;
use crate::vocab::actions::{ElementCheck, MouseButton, PlannedAction, ScrollDirection};
use crate::vocab::geometry::Rect;
use crate::vocab::wire::internally_tagged;
use serde::{Deserialize, Serialize};

/// An element a person acted on, as the content script describes it.
#[derive(Clone, Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Picked {
    #[serde(flatten)]
    pub info: TargetInfo,
    /// A password or similar: its value is never recorded.
    #[serde(default)]
    pub sensitive: bool,
    /// The field's name or id, naming the placeholder a sensitive value is recorded as.
    #[serde(default)]
    pub field: String,
}

/// The flattened form `{...info, sensitive, field}`, read through one Value rather than serde's
/// `flatten` buffering (see `vocab::wire`).
impl<'de> Deserialize<'de> for Picked {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        #[derive(Deserialize)]
        struct Flags {
            #[serde(default)]
            sensitive: bool,
            #[serde(default)]
            field: String,
        }
        use crate::vocab::objects::from_value;
        use serde_json::Value;
        let mut value = Value::deserialize(d)?;
        // The flags taken out of the object (the target's own fields ignore them anyway).
        let flags = match &mut value {
            Value::Object(map) => {
                let mut flags = serde_json::Map::new();
                for (k, v) in ["sensitive", "field"].iter().filter_map(|k| map.remove_entry(*k)) {
                    flags.insert(k, v);
                }
                Value::Object(flags)
            }
            other => other.clone(),
        };
        let flags: Flags = from_value(flags).map_err(serde::de::Error::custom)?;
        let info: TargetInfo = from_value(value).map_err(serde::de::Error::custom)?;
        Ok(Picked { info, sensitive: flags.sensitive, field: flags.field })
    }
}

impl Picked {
    /// A node the description does not list (a row a person hovered), named by its path in
    /// `snapshot`, the box the page measured and its text; None for a text node or a node
    /// past the snapshot.
    pub fn of_node(snapshot: &crate::snapshot::PageSnapshot, node: usize, rect: Rect, text: &str) -> Option<Self> {
        let tag = snapshot.nodes.get(node)?.tag()?.to_ascii_lowercase();
        let ends = snapshot.subtree_ends();
        let xpath = crate::describe::xpath::XPaths::new(snapshot, &ends).of(node);
        let words = crate::describe::truncate_chars(&crate::describe::collapse_whitespace(text), 40);
        let summary = if words.is_empty() { tag.clone() } else { format!("{tag} \"{words}\"") };
        Some(Picked {
            info: TargetInfo {
                index: 0,
                id: String::new(),
                summary,
                xpath,
                xpath_text: None,
                tag,
                rect,
                locators: None,
                holder_point: None,
            },
            sensitive: false,
            field: String::new(),
        })
    }

    /// The element `e`, with `attr` reading its attributes: a snapshot node's in full where
    /// the page is at hand, else the described element's own.
    pub fn of<'a>(e: &crate::describe::Element, attr: impl Fn(&str) -> Option<&'a str>) -> Self {
        Picked {
            info: TargetInfo::of(e),
            sensitive: crate::describe::is_sensitive(&attr),
            field: ["name", "id"].iter().find_map(|k| attr(k)).unwrap_or_default().to_string(),
        }
    }
}

internally_tagged! {
    tag = "kind", rename_all = "camelCase", name = "ManualEvent";
    #[derive(Clone, Debug, Serialize)]
    pub enum ManualEvent {
        /// `hovered`: the ancestor whose hover showed the target (a row's delete button), as
        /// the page read it when the press began.
        Tap {
            target: Option<Picked>,
            hovered: Option<Picked>,
        },
        DoubleClick {
            target: Option<Picked>,
            hovered: Option<Picked>,
        },
        RightClick {
            target: Option<Picked>,
            hovered: Option<Picked>,
        },
        /// The field's whole value after the person's edit.
        Input {
            target: Option<Picked>,
            value: String,
        },
        /// A choice in a native select: the chosen option's text and value.
        Select {
            target: Option<Picked>,
            option: String,
            #[serde(default)]
            value: String,
        },
        /// `target`: the element that had focus as the key went down.
        Key {
            key: String,
            target: Option<Picked>,
        },
        /// The page moved by (dx, dy) CSS px.
        Scroll {
            dx: f64,
            dy: f64,
        },
        /// The person opened an address themselves (typed it, reloaded, went back or forward);
        /// navigations their clicks caused are not steps: the click is.
        Navigate {
            url: String,
        },
        /// A check the person added (the panel's Check buttons, then a click on the element):
        /// `expected` is its text or value as the page showed it then.
        Check {
            target: Option<Picked>,
            check: ElementCheck,
            #[serde(default)]
            expected: String,
        },
    }
}

impl ManualEvent {
    /// The event as a recording may keep it, like a page a run reads ([`Limits::screen`]):
    /// a configured secret's value, wherever it shows (the typed value, the element's name, an
    /// address), becomes its placeholder, and placeholders the page wrote are made inert.
    pub fn screened(self, limits: &Limits) -> ManualEvent {
        let pick = |target: Option<Picked>| {
            target.map(|mut t| {
                t.info.summary = limits.shown(&t.info.summary);
                t.info.xpath = limits.conceal(&t.info.xpath);
                t.info.xpath_text = t.info.xpath_text.map(|x| limits.conceal(&x));
                t
            })
        };
        match self {
            ManualEvent::Tap { target, hovered } => ManualEvent::Tap { target: pick(target), hovered: pick(hovered) },
            ManualEvent::DoubleClick { target, hovered } => {
                ManualEvent::DoubleClick { target: pick(target), hovered: pick(hovered) }
            }
            ManualEvent::RightClick { target, hovered } => {
                ManualEvent::RightClick { target: pick(target), hovered: pick(hovered) }
            }
            ManualEvent::Key { key, target } => ManualEvent::Key { key, target: pick(target) },
            ManualEvent::Input { target, value } => {
                ManualEvent::Input { target: pick(target), value: limits.shown(&value) }
            }
            ManualEvent::Navigate { url } => ManualEvent::Navigate { url: limits.conceal(&url) },
            ManualEvent::Select { target, option, value } => {
                ManualEvent::Select { target: pick(target), option: limits.shown(&option), value: limits.shown(&value) }
            }
            ManualEvent::Check { target, check, expected } => {
                ManualEvent::Check { target: pick(target), check, expected: limits.shown(&expected) }
            }
            other @ ManualEvent::Scroll { .. } => other,
        }
    }
}

/// The screenshot kept with a recorded step: the capture as taken, with sensitive fields and
/// anything showing a secret painted over, as in the screenshots a model is sent. `elements`:
/// those in view when it was taken (an extraction), read as a run would read them.
pub fn step_screenshot(
    capture: &crate::vision::Capture,
    elements: Vec<crate::describe::Element>,
    limits: &Limits,
) -> Result<String, crate::vision::VisionError> {
    let mut page = crate::describe::Extraction { elements, ..Default::default() };
    limits.screen(&mut page);
    crate::vision::pipeline::redacted_capture(capture, &page.elements)
}

/// What a check on the element at `xpath` reads on `page`: its content (its text, or a
/// control's value), as a replay's check compares it; None when the page has no such element.
pub fn check_reads(page: &crate::describe::Extraction, xpath: &str) -> Option<String> {
    page.elements.iter().find(|e| e.xpath == xpath).map(|e| e.content.clone())
}

/// Two clicks on one element within this long make a double-click.
const DOUBLE_CLICK_MS: f64 = 600.0;

/// The placeholder recorded for a sensitive field's value.
pub fn secret_placeholder(field: &str) -> String {
    let name = if field.trim().is_empty() { "password" } else { field.trim() };
    format!("<secret>{name}</secret>")
}

/// Adds what the person did to the recording `run` at `now_ms`.
pub fn record_event(run: &mut Run, event: ManualEvent, now_ms: f64) {
    match event {
        ManualEvent::Tap { target, hovered } => {
            hover_first(run, now_ms, hovered, &target);
            push(run, now_ms, target.as_ref().map(|t| PlannedAction::Tap { target: t.info.index }), target, "Tap")
        }
        ManualEvent::DoubleClick { target, hovered } => {
            // The browser reported the two clicks first: they become this one step.
            let same = |s: &Step| {
                s.planned == target.as_ref().map(|t| PlannedAction::Tap { target: t.info.index })
                    && s.target.as_ref().map(|x| &x.xpath) == target.as_ref().map(|t| &t.info.xpath)
            };
            for _ in 0..2 {
                if run.steps.last().is_some_and(|s| same(s) && now_ms - s.started_ms <= DOUBLE_CLICK_MS) {
                    run.steps.pop();
                }
            }
            let action = target.as_ref().map(|t| at(&t.info, MouseButton::Left, 2));
            hover_first(run, now_ms, hovered, &target);
            push(run, now_ms, action, target, "Double-click");
        }
        ManualEvent::RightClick { target, hovered } => {
            let action = target.as_ref().map(|t| at(&t.info, MouseButton::Right, 1));
            hover_first(run, now_ms, hovered, &target);
            push(run, now_ms, action, target, "Right-click");
        }
        ManualEvent::Input { target, value } => {
            let Some(t) = target else { return };
            let value = if t.sensitive { secret_placeholder(&t.field) } else { value };
            // Typing arrives as many events: the field's last value is the step.
            if let Some(last) = run.steps.last_mut() {
                if let (Some(PlannedAction::Input { value: v, .. }), Some(x)) = (&mut last.planned, &last.target) {
                    if x.xpath == t.info.xpath {
                        *v = value.clone();
                        last.action = format!("Input \u{201c}{}\u{201d} into {}", value, x.summary);
                        return;
                    }
                }
            }
            let caption = format!("Input \u{201c}{value}\u{201d} into");
            push(run, now_ms, Some(PlannedAction::Input { target: t.info.index, value }), Some(t), &caption);
        }
        ManualEvent::Select { target, option, value } => {
            let Some(t) = target else { return };
            // The click that opened the select's list is part of the choice, not a step.
            if run.steps.last().is_some_and(|s| {
                s.planned == Some(PlannedAction::Tap { target: t.info.index })
                    && s.target.as_ref().map(|x| &x.xpath) == Some(&t.info.xpath)
            }) {
                run.steps.pop();
            }
            let caption = format!("Choose \u{201c}{option}\u{201d} in");
            let value = (!value.is_empty()).then_some(value);
            push(run, now_ms, Some(PlannedAction::Select { target: t.info.index, option, value }), Some(t), &caption);
        }
        ManualEvent::Check { target, check, expected } => {
            let Some(t) = target else { return };
            // A sensitive field's value is never kept: what is checked there is that it shows.
            let (check, expected) = match check {
                ElementCheck::Visible => (ElementCheck::Visible, String::new()),
                _ if t.sensitive => (ElementCheck::Visible, String::new()),
                _ => (check, crate::vocab::actions::normalized(&expected)),
            };
            let verb = match check {
                ElementCheck::Text => format!("Check the text \u{201c}{expected}\u{201d} of"),
                ElementCheck::Value => format!("Check the value \u{201c}{expected}\u{201d} of"),
                ElementCheck::Visible => "Check that this is visible:".to_string(),
            };
            let action = PlannedAction::Expect { target: t.info.index, check, expected };
            push(run, now_ms, Some(action), Some(t), &verb);
        }
        ManualEvent::Key { key, target } => {
            let mut step = Step::new(StepKind::Action, now_ms);
            step.action = format!("Press {key}");
            step.planned = Some(PlannedAction::KeyPress { key });
            // Pressed in the focused text field: exports press it there, not on whatever has
            // focus. Other focused elements are left out: exports that focus by clicking would
            // tick a checkbox or press a button.
            step.target = target.filter(takes_text).map(|t| t.info);
            run.steps.push(step);
        }
        ManualEvent::Navigate { url } => {
            let mut step = Step::new(StepKind::Action, now_ms);
            step.action = format!("Go to {url}");
            step.planned = Some(PlannedAction::Navigate { url });
            // A redirect chain arrives as several commits: the last address is the step.
            if run.steps.last().is_some_and(|s| {
                matches!(s.planned, Some(PlannedAction::Navigate { .. })) && now_ms - s.started_ms < 2_000.0
            }) {
                run.steps.pop();
            }
            run.steps.push(step);
        }
        ManualEvent::Scroll { dx, dy } => {
            let (direction, distance) = if dy.abs() >= dx.abs() {
                (if dy >= 0.0 { ScrollDirection::Down } else { ScrollDirection::Up }, dy.abs())
            } else {
                (if dx >= 0.0 { ScrollDirection::Right } else { ScrollDirection::Left }, dx.abs())
            };
            if distance < 1.0 {
                return;
            }
            // One gesture, one step: a scroll the same way as the last step adds to it.
            if let Some(last) = run.steps.last_mut() {
                if let Some(PlannedAction::Scroll { target: None, direction: d, distance: Some(total) }) =
                    &mut last.planned
                {
                    if *d == direction {
                        *total += distance;
                        last.action = format!("Scroll {} {} px", direction.as_str(), total.round());
                        return;
                    }
                }
            }
            let mut step = Step::new(StepKind::Action, now_ms);
            step.action = format!("Scroll {} {} px", direction.as_str(), distance.round());
            step.planned = Some(PlannedAction::Scroll { target: None, direction, distance: Some(distance) });
            run.steps.push(step);
        }
    }
}

/// A text field (by its role, as the locators read it, or a textarea), where a key is pressed.
fn takes_text(t: &Picked) -> bool {
    const TEXT_ROLES: [&str; 4] = ["textbox", "searchbox", "combobox", "spinbutton"];
    let l = t.info.locators.as_ref();
    let role = l.and_then(|l| {
        l.role.as_ref().map(|r| r.role.as_str()).or_else(|| l.in_row.as_ref().and_then(|r| r.role.as_deref()))
    });
    t.info.tag == "textarea" || role.is_some_and(|r| TEXT_ROLES.contains(&r))
}

/// A Hover step on `hovered` before the action on `target`, where hovering it showed the
/// target: a replay that only clicked would find the target hidden (or another row's).
/// Once per hover: the second tap of a double-click, or another tap in the same row, finds
/// the step there already.
fn hover_first(run: &mut Run, now_ms: f64, hovered: Option<Picked>, target: &Option<Picked>) {
    let (Some(hovered), Some(_)) = (hovered, target) else { return };
    let hovering_it = |s: &Step| {
        matches!(s.planned, Some(PlannedAction::HoverAt { .. }))
            && s.target.as_ref().is_some_and(|t| t.xpath == hovered.info.xpath)
    };
    // Looked for past the taps that a double-click merges away.
    if run.steps.iter().rev().take(3).any(hovering_it) {
        return;
    }
    // At its point, as a double-click is: a row is not an element the description numbers.
    let (x, y) = hovered.info.rect.center();
    push(run, now_ms, Some(PlannedAction::HoverAt { x, y }), Some(hovered), "Hover");
}

fn at(t: &TargetInfo, button: MouseButton, clicks: u8) -> PlannedAction {
    let (x, y) = t.rect.center();
    PlannedAction::TapAt { x, y, button, clicks }
}

fn push(run: &mut Run, now_ms: f64, action: Option<PlannedAction>, target: Option<Picked>, verb: &str) {
    // An event on nothing Sightline can name (the page's background) is not a step to repeat.
    let (Some(action), Some(target)) = (action, target) else { return };
    let mut step = Step::new(StepKind::Action, now_ms);
    step.action = format!("{verb} {}", target.info.summary);
    step.planned = Some(action);
    step.target = Some(target.info);
    run.steps.push(step);
}

/// Longest description kept from the model: a phrase, not a paragraph.
const MAX_DESCRIPTION_CHARS: usize = 120;

/// Names each element of a recording in the model's words, from the screenshot taken with
/// its step (the element outlined): the phrase the exports use to find it (`step.locate`),
/// where the classifier's summary (`input "pw"`) is all a recording has otherwise.
/// `images`: the run's screenshots by reference; `device_pixel_ratio`: theirs. Stops at the
/// first failed call, saying why on that step; resolves to the number described.
pub async fn describe_targets<M: crate::model::ModelClient>(
    run: &mut Run,
    images: &std::collections::HashMap<String, String>,
    device_pixel_ratio: f64,
    config: &crate::model::ModelConfig,
    model: &M,
) -> usize {
    use crate::parse::answer::{parse_answer, Expect};
    use crate::vision::{self, ImageOptions, Overlay};
    if let Err(e) = config.validate() {
        if let Some(step) = run.steps.iter_mut().find(|s| s.target.is_some()) {
            step.note =
                join_notes(step.note.take(), Some(run.language.say("note.not_described_unset", &[("reason", &e)])));
        }
        return 0;
    }
    let page = crate::describe::Extraction { url: run.url.clone(), ..Default::default() };
    let language = run.language;
    let mut described = 0;
    for step in run.steps.iter_mut().filter(|s| s.locate.is_none()) {
        let (Some(target), Some(shot)) = (&step.target, step.screenshot.as_ref().and_then(|r| images.get(r))) else {
            continue;
        };
        let outlined = vision::pipeline::data_url_bytes(shot)
            .and_then(|bytes| {
                vision::pipeline::Frame::decode(&bytes, device_pixel_ratio, (0.0, 0.0), &ImageOptions::default())
            })
            .and_then(|frame| {
                frame.finish(
                    &frame.with_overlays(&[Overlay::Highlight { rect: target.rect }]),
                    vision::ImageFormat::Jpeg { quality: 80 },
                )
            });
        let Ok(image) = outlined else { continue };
        // The summary is the page's text: fenced like the rest of what the page wrote.
        let ask = format!(
            "A person acted on the element outlined in the screenshot (as the page's source names it: {}). Describe it in one short phrase that would find it again on this page: its visible text or label, what kind of control it is and, only if needed to tell it apart, where it is. Do not mention the outline.\nANSWER is that phrase as a string.",
            crate::prompt::page_quote(&target.summary)
        );
        let messages =
            crate::prompt::task_messages(config.family, &crate::prompt::Ask::Query(&ask), &page, Some(&image.data_url));
        let reply = match model.complete(config, &messages).await {
            Ok(reply) => reply,
            Err(e) => {
                step.note = join_notes(step.note.take(), Some(language.say("note.not_described", &[("reason", &e)])));
                break;
            }
        };
        run.model_calls += 1;
        if let Some(usage) = &reply.usage {
            run.usage.add(usage);
        }
        let phrase = parse_answer(&reply.content, Expect::Text).ok().and_then(|a| a.data.as_str().map(str::to_string));
        match phrase
            .map(|p| p.trim().trim_matches(['"', '\'', '\u{201c}', '\u{201d}']).trim().to_string())
            .filter(|p| !p.is_empty())
        {
            Some(p) => {
                step.locate = Some(p.chars().take(MAX_DESCRIPTION_CHARS).collect());
                described += 1;
            }
            None => {
                step.note = join_notes(step.note.take(), Some(language.say("note.description_unread", &[])));
            }
        }
    }
    described
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::export::{recording_of, Op};

    fn picked(index: u32, xpath: &str, summary: &str, sensitive: bool) -> Option<Picked> {
        Some(Picked {
            info: TargetInfo {
                index,
                id: format!("id{index}"),
                summary: summary.into(),
                xpath: xpath.into(),
                xpath_text: None,
                tag: "input".into(),
                rect: crate::vocab::geometry::Rect { x: 10.0, y: 10.0, width: 100.0, height: 20.0 },
                locators: None,
                holder_point: None,
            },
            sensitive,
            field: if sensitive { "pw".into() } else { String::new() },
        })
    }

    fn ev(v: serde_json::Value) -> ManualEvent {
        serde_json::from_value(v).unwrap()
    }

    #[test]
    fn a_form_filled_by_hand_becomes_steps_with_secrets_as_placeholders() {
        let mut run = Run::new("m".into(), "Recorded steps", 0.0);
        let name = picked(1, "/html[1]/body[1]/input[1]", "input \"Name\"", false);
        let pass = picked(2, "/html[1]/body[1]/input[2]", "input \"Password\"", true);
        record_event(&mut run, ManualEvent::Tap { target: name.clone(), hovered: None }, 10.0);
        for (i, v) in ["A", "Ad", "Ada"].iter().enumerate() {
            record_event(&mut run, ManualEvent::Input { target: name.clone(), value: v.to_string() }, 20.0 + i as f64);
        }
        record_event(&mut run, ManualEvent::Input { target: pass.clone(), value: "hunter2".into() }, 30.0);
        record_event(&mut run, ManualEvent::Key { key: "Enter".into(), target: None }, 40.0);
        record_event(&mut run, ManualEvent::Scroll { dx: 0.0, dy: 300.0 }, 50.0);
        record_event(&mut run, ManualEvent::Scroll { dx: 0.0, dy: 200.0 }, 60.0);
        record_event(&mut run, ManualEvent::Tap { target: None, hovered: None }, 70.0);
        let captions: Vec<&str> = run.steps.iter().map(|s| s.action.as_str()).collect();
        assert_eq!(
            captions,
            [
                "Tap input \"Name\"",
                "Input \u{201c}Ada\u{201d} into input \"Name\"",
                "Input \u{201c}<secret>pw</secret>\u{201d} into input \"Password\"",
                "Press Enter",
                "Scroll down 500 px",
            ]
        );
        let json = serde_json::to_string(&run).unwrap();
        assert!(!json.contains("hunter2"), "the password is nowhere in the record");
        let rec = recording_of(&run);
        assert_eq!(rec.steps[2].op, Op::Input { value: "<secret>pw</secret>".into(), append: false });
        assert_eq!(
            rec.steps[4].op,
            Op::Scroll { direction: ScrollDirection::Down, distance: Some(500.0), to_edge: false }
        );
    }

    #[test]
    fn secret_values_are_recorded_as_placeholders_wherever_they_show() {
        use crate::agent::guard::Secret;
        let limits =
            Limits::new(&[], &[Secret { name: "card".into(), value: "4111-2222".into(), ..Default::default() }]);
        let mut run = Run::new("m".into(), "Recorded steps", 0.0);
        let note = picked(3, "/html[1]/body[1]/textarea[1]", "textarea \"Note\"", false);
        let shows = picked(4, "/html[1]/body[1]/p[1]", "p \"Card 4111-2222\"", false);
        let events = [
            ManualEvent::Input { target: note.clone(), value: "my card is 4111-2222, ok".into() },
            ManualEvent::Tap { target: shows, hovered: None },
            ManualEvent::Navigate { url: "https://shop.example/pay?card=4111-2222".into() },
            ManualEvent::Input {
                target: picked(5, "/html[1]/body[1]/input[9]", "input \"Search\"", false),
                value: "<secret>card</secret>".into(),
            },
        ];
        for (i, e) in events.into_iter().enumerate() {
            record_event(&mut run, e.screened(&limits), 10.0 + 3000.0 * i as f64);
        }
        let captions: Vec<&str> = run.steps.iter().map(|s| s.action.as_str()).collect();
        assert_eq!(
            captions,
            [
                "Input \u{201c}my card is <secret>card</secret>, ok\u{201d} into textarea \"Note\"",
                "Tap p \"Card <secret>card</secret>\"",
                "Go to https://shop.example/pay?card=<secret>card</secret>",
                "Input \u{201c}\u{2039}secret\u{203a}card\u{2039}/secret\u{203a}\u{201d} into input \"Search\"",
            ]
        );
        assert!(!serde_json::to_string(&run).unwrap().contains("4111-2222"), "the value is nowhere in the record");
        assert_eq!(
            recording_of(&run).steps[3].op,
            Op::Input { value: "\u{2039}secret\u{203a}card\u{2039}/secret\u{203a}".into(), append: false },
            "what the page put in a field is never replayed as a secret"
        );
    }

    #[test]
    fn a_recorded_screenshot_paints_over_sensitive_fields_and_fields_showing_a_secret() {
        use crate::agent::guard::Secret;
        use crate::describe::{Element, ElementKind, SECRET_MASK};
        use crate::vision::Capture;
        use crate::vision::{pipeline, ImageFormat};
        use crate::vocab::geometry::Rect;
        let white = image::RgbImage::from_pixel(200, 100, image::Rgb([255, 255, 255]));
        let png = pipeline::encode(&white, ImageFormat::Png).unwrap();
        let capture = Capture { bytes: png, device_pixel_ratio: 2.0, origin: (0.0, 0.0), pixels: Default::default() };
        let field = |content: &str, x: f64| {
            let rect = Rect::new(x, 10.0, 20.0, 10.0);
            Element {
                index: 1,
                id: "f".into(),
                kind: ElementKind::FormItem,
                tag: "input".into(),
                attributes: vec![],
                content: content.into(),
                rect,
                center: rect.center(),
                in_viewport: 1.0,
                visible_rect: None,
                occluded: false,
                xpath: String::new(),
                xpath_text: None,
                node: 1,
                frame_origin: None,
                options: Vec::new(),
            }
        };
        let elements = vec![field(SECRET_MASK, 5.0), field("typed 4111-2222", 35.0), field("nothing secret", 65.0)];
        let limits =
            Limits::new(&[], &[Secret { name: "card".into(), value: "4111-2222".into(), ..Default::default() }]);
        let kept = step_screenshot(&capture, elements, &limits).unwrap();
        let img = crate::vision::pipeline::decode_data_url(&kept).unwrap();
        assert_eq!(img.dimensions(), (200, 100), "kept at the capture's own size (device pixels)");
        let at = |x: u32, y: u32| img.get_pixel(x, y).0;
        assert_ne!(at(30, 30), [255, 255, 255], "the password field is painted over");
        assert_ne!(at(90, 30), [255, 255, 255], "the field showing the secret is painted over");
        assert_eq!(at(150, 30), [255, 255, 255], "the rest is as captured");
        // Nothing to hide: the capture is kept as it came, not re-encoded.
        let plain = step_screenshot(&capture, vec![field("nothing secret", 65.0)], &limits).unwrap();
        assert_eq!(plain, pipeline::data_url(&capture.bytes, ImageFormat::Png).unwrap());
    }

    #[test]
    fn two_clicks_and_a_dblclick_are_one_double_click() {
        let mut run = Run::new("m".into(), "Recorded steps", 0.0);
        let cell = serde_json::json!({"index": 4, "id": "c", "summary": "td \"B2\"", "xpath": "/x", "tag": "td", "rect": {"x": 0.0, "y": 0.0, "width": 40.0, "height": 20.0}});
        record_event(&mut run, ev(serde_json::json!({"kind": "tap", "target": cell})), 100.0);
        record_event(&mut run, ev(serde_json::json!({"kind": "tap", "target": cell})), 250.0);
        record_event(&mut run, ev(serde_json::json!({"kind": "doubleClick", "target": cell})), 260.0);
        assert_eq!(run.steps.len(), 1);
        assert_eq!(run.steps[0].action, "Double-click td \"B2\"");
        assert_eq!(recording_of(&run).steps[0].op, Op::DoubleClick);
    }

    #[test]
    fn a_button_a_rows_hover_shows_is_hovered_first_and_exports_write_codegen_locators() {
        use crate::export::to_playwright;
        use crate::vocab::geometry::WindowSize;
        let el = |index: u32, xpath: &str, summary: &str, tag: &str, locators: serde_json::Value| {
            serde_json::json!({"index": index, "id": format!("e{index}"), "summary": summary, "xpath": xpath, "tag": tag,
                "rect": {"x": 0.0, "y": 100.0 * index as f64, "width": 400.0, "height": 40.0}, "locators": locators})
        };
        let row_of = |text: &str| serde_json::json!({"rowRole": "listitem", "rowText": {"text": text}});
        let field = el(
            1,
            "//*[@id=\"new-todo\"]",
            "input",
            "input",
            serde_json::json!({"role": {"role": "textbox", "name": {"text": "What needs to be done?"}}}),
        );
        let mut tick = row_of("buy milk");
        tick["role"] = "checkbox".into();
        let mut edit = row_of("walk dog");
        edit["role"] = "textbox".into();
        let mut delete = row_of("read book");
        delete["role"] = "button".into();
        let checkbox = el(
            2,
            "/html[1]/body[1]/ul[1]/li[1]/input[1]",
            "checkbox",
            "input",
            serde_json::json!({"inRow": tick, "checked": false}),
        );
        let editing =
            el(3, "/html[1]/body[1]/ul[1]/li[2]/input[2]", "input", "input", serde_json::json!({"inRow": edit}));
        let label = el(
            4,
            "/html[1]/body[1]/ul[1]/li[2]/label[1]/text()[1]",
            "walk dog",
            "#text",
            serde_json::json!({"text": {"text": "walk dog"}}),
        );
        let row = el(
            0,
            "/html[1]/body[1]/ul[1]/li[3]",
            "li \"read book\"",
            "li",
            serde_json::json!({"inRow": row_of("read book")}),
        );
        let button =
            el(5, "/html[1]/body[1]/ul[1]/li[3]/button[1]", "button", "button", serde_json::json!({"inRow": delete}));
        let mut run = Run::new("m".into(), "Recorded steps", 0.0);
        run.url = "http://127.0.0.1/todo.html".into();
        let events = [
            serde_json::json!({"kind": "input", "target": field, "value": "buy milk"}),
            serde_json::json!({"kind": "key", "key": "Enter", "target": field}),
            serde_json::json!({"kind": "tap", "target": checkbox}),
            serde_json::json!({"kind": "tap", "target": label}),
            serde_json::json!({"kind": "tap", "target": label}),
            serde_json::json!({"kind": "doubleClick", "target": label}),
            serde_json::json!({"kind": "input", "target": editing, "value": "walk cat"}),
            serde_json::json!({"kind": "key", "key": "Enter", "target": editing}),
            serde_json::json!({"kind": "tap", "target": button, "hovered": row}),
        ];
        for (i, e) in events.into_iter().enumerate() {
            record_event(&mut run, ev(e), 1000.0 + 100.0 * i as f64);
        }
        let captions: Vec<&str> = run.steps.iter().map(|s| s.action.as_str()).collect();
        assert_eq!(
            captions,
            [
                "Input \u{201c}buy milk\u{201d} into input",
                "Press Enter",
                "Tap checkbox",
                "Double-click walk dog",
                "Input \u{201c}walk cat\u{201d} into input",
                "Press Enter",
                "Hover li \"read book\"",
                "Tap button",
            ]
        );
        let ts = to_playwright(&recording_of(&run), WindowSize::default());
        for line in [
            "await page.getByRole('listitem').filter({ hasText: 'buy milk' }).getByRole('checkbox').check();",
            "await page.getByText('walk dog').dblclick();",
            "await page.getByRole('listitem').filter({ hasText: 'walk dog' }).getByRole('textbox').fill(\"walk cat\");",
            "await page.locator(':focus').press(\"Enter\");",
            "await page.getByRole('listitem').filter({ hasText: 'read book' }).hover();",
            "await page.getByRole('listitem').filter({ hasText: 'read book' }).getByRole('button').click();",
        ] {
            assert!(ts.contains(line), "{line}\nnot in\n{ts}");
        }
        assert!(!ts.contains("page.keyboard") && !ts.contains("xpath="), "{ts}");
        assert_eq!(
            ts.matches("page.locator(':focus').press(\"Enter\")").count(),
            2,
            "each Enter ends the typing\n{ts}"
        );
        // The hover comes right before the click it made possible.
        assert!(ts.find(".hover()").unwrap() < ts.find("getByRole('button').click()").unwrap());
    }

    #[test]
    fn checks_the_person_adds_become_each_exports_assertion() {
        use crate::export::{to_midscene_yaml, to_playwright, to_recorder};
        use crate::vocab::geometry::WindowSize;
        let el = |index: u32, xpath: &str, summary: &str, tag: &str, locators: serde_json::Value| {
            serde_json::json!({"index": index, "id": format!("e{index}"), "summary": summary, "xpath": xpath, "tag": tag,
                "rect": {"x": 0.0, "y": 40.0 * index as f64, "width": 200.0, "height": 20.0}, "locators": locators})
        };
        let count = el(
            1,
            "/html[1]/body[1]/footer[1]/span[1]",
            "span \"2 items left\"",
            "span",
            serde_json::json!({"testId": {"text": "todo-count"}}),
        );
        let field = el(
            2,
            "//*[@id=\"new-todo\"]",
            "input",
            "input",
            serde_json::json!({"role": {"role": "textbox", "name": {"text": "What needs to be done?"}}}),
        );
        let mut password = el(3, "/html[1]/body[1]/input[2]", "input \"Password\"", "input", serde_json::json!({}));
        password["sensitive"] = true.into();
        password["field"] = "pw".into();
        let mut run = Run::new("m".into(), "Recorded steps", 0.0);
        run.url = "http://127.0.0.1/todo.html".into();
        let events = [
            serde_json::json!({"kind": "check", "check": "text", "target": count, "expected": "  2 items\n left "}),
            serde_json::json!({"kind": "check", "check": "value", "target": field, "expected": "buy milk"}),
            serde_json::json!({"kind": "check", "check": "visible", "target": field}),
            serde_json::json!({"kind": "check", "check": "value", "target": password, "expected": "hunter2"}),
            serde_json::json!({"kind": "check", "check": "text", "expected": "on nothing"}),
        ];
        for (i, e) in events.into_iter().enumerate() {
            record_event(&mut run, ev(e), 1000.0 + 100.0 * i as f64);
        }
        let captions: Vec<&str> = run.steps.iter().map(|s| s.action.as_str()).collect();
        assert_eq!(
            captions,
            [
                "Check the text \u{201c}2 items left\u{201d} of span \"2 items left\"",
                "Check the value \u{201c}buy milk\u{201d} of input",
                "Check that this is visible: input",
                "Check that this is visible: input \"Password\"",
            ]
        );
        assert!(!serde_json::to_string(&run).unwrap().contains("hunter2"), "a sensitive field's value is not kept");
        let rec = recording_of(&run);
        let ts = to_playwright(&rec, WindowSize::default());
        for line in [
            "await expect(page.getByTestId('todo-count')).toHaveText(\"2 items left\");",
            "await expect(page.getByRole('textbox', { name: 'What needs to be done?' })).toHaveValue(\"buy milk\");",
            "await expect(page.getByRole('textbox', { name: 'What needs to be done?' })).toBeVisible();",
        ] {
            assert!(ts.contains(line), "{line}\nnot in\n{ts}");
        }
        let yaml = to_midscene_yaml(&rec, WindowSize::default());
        assert!(
            yaml.contains("aiAssert: \"span \\\"2 items left\\\" shows the text \u{201c}2 items left\u{201d}\""),
            "{yaml}"
        );
        assert!(yaml.contains("holds the value \u{201c}buy milk\u{201d}"), "{yaml}");
        let json = to_recorder(&rec, WindowSize::default());
        let waits: Vec<&serde_json::Value> =
            json["steps"].as_array().unwrap().iter().filter(|s| s["type"] == "waitForElement").collect();
        assert_eq!(waits.len(), 4, "{json}");
        assert_eq!(waits[0]["properties"]["innerText"], "2 items left");
        assert_eq!(waits[1]["properties"]["value"], "buy milk");
        assert_eq!(waits[2]["visible"], true);
    }

    #[test]
    fn a_check_holds_on_its_elements_text_with_whitespace_as_one_space() {
        use crate::vocab::actions::ElementCheck as C;
        assert!(C::Text.holds(" 2  items\nleft", "2 items left", false));
        assert!(!C::Text.holds("3 items left", "2 items left", false));
        assert!(!C::Value.holds("", "buy milk", false));
        assert!(C::Value.holds("a long value the reader c\u{2026}", "a long value the reader cut short", true));
        assert!(!C::Text.holds("Loading\u{2026}", "Loading complete", false), "a text ending in … is no cut");
        assert!(!C::Value.holds("\u{2026}", "anything", true), "a content cut to nothing proves nothing");
        assert!(C::Visible.holds("", "whatever", false));
        let long = format!("{}\u{2026}", "x".repeat(300));
        assert!(crate::describe::content_is_cut(&long) && !crate::describe::content_is_cut("Loading\u{2026}"));
    }

    #[test]
    fn an_address_the_person_opened_is_a_step_every_export_repeats() {
        use crate::export::{to_midscene_yaml, to_playwright, to_recorder};
        use crate::flow::known::navigate_script;
        use crate::vocab::geometry::WindowSize;
        let mut run = Run::new("m".into(), "Recorded steps", 0.0);
        run.url = "http://127.0.0.1/a.html".into();
        record_event(&mut run, ev(serde_json::json!({"kind": "navigate", "url": "http://127.0.0.1/b"})), 100.0);
        // The redirect it went through arrives as a second commit: one step, the last address.
        record_event(&mut run, ev(serde_json::json!({"kind": "navigate", "url": "http://127.0.0.1/b.html"})), 300.0);
        assert_eq!(run.steps.len(), 1);
        assert_eq!(run.steps[0].action, "Go to http://127.0.0.1/b.html");
        let rec = recording_of(&run);
        assert_eq!(rec.steps[0].op, Op::Navigate { url: "http://127.0.0.1/b.html".into() });
        let yaml = to_midscene_yaml(&rec, WindowSize::default());
        assert!(
            yaml.contains(&format!(
                "- javascript: {}",
                serde_json::to_string(&navigate_script("http://127.0.0.1/b.html")).unwrap()
            )),
            "{yaml}"
        );
        let flow = crate::flow::parse_flow(&yaml).unwrap();
        assert_eq!(flow.tasks[0].steps, [crate::flow::FlowStep::Navigate { url: "http://127.0.0.1/b.html".into() }]);
        assert!(to_playwright(&rec, WindowSize::default()).contains("await page.goto(\"http://127.0.0.1/b.html\");"));
        assert_eq!(
            to_recorder(&rec, WindowSize::default())["steps"].as_array().unwrap().last().unwrap()["type"],
            "navigate"
        );
        // Only web addresses are opened: not a script, a file or the browser's own pages.
        for url in ["javascript:alert(1)", "file:///etc/passwd", "chrome://settings"] {
            let err = crate::action::commands_for(&PlannedAction::Navigate { url: url.into() }, &Default::default())
                .unwrap_err();
            assert!(err.to_string().contains("only http and https"), "{err}");
        }
        // Only our export's navigation to a web address is opened as one: any other script is
        // code, which runs only where the person allowed the file (`flow::scripts`).
        let only_ours = "tasks:\n  - flow:\n      - javascript: 'location.href = \"javascript:alert(1)\"'\n";
        assert!(matches!(
            crate::flow::parse_flow(only_ours).unwrap().tasks[0].steps[..],
            [crate::flow::FlowStep::Script { .. }]
        ));
    }
}
