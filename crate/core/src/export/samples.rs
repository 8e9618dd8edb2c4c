// Recordings and runs made of given texts, for the export checks (format_checks.rs): any op on
// any kind of element (none, top document by XPath, each locator Playwright prefers, frames by
// name, title or path, a shadow root, a text node), every text a draw. A draw is `Text` where
// page or person text goes (names, captions, options, values, titles, addresses) and `Raw`
// where a path or key goes; a benign twin draws `benign` texts and the same raws, so its
// exports have the hostile one's shape.
//
// Included with include!() by hostile_tests.rs and the export fuzz targets (crate/fuzz), in a
// module where `sightline` names the core crate.

use sightline::agent::guard::{pieces, placeholder, Piece};
use sightline::agent::record::{
    ConsoleEntry, Exchange, Gathered, ModelRole, ModelUse, Run, RunErrorRecord, RunStatus, Step, StepKind, StepStatus,
    SuccessCheck, TargetInfo,
};
use sightline::describe::locators::{FrameRef, HolderPoint, Locators, Named, RoleName};
use sightline::export::recording::{key_of, History, Op, RecStep, Recording, Target};
use sightline::i18n::Lang;
use sightline::vocab::actions::{ElementCheck, ScrollDirection};

/// Which kind of text a draw is for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Draw {
    /// Text a page or person wrote: a benign twin gets `benign` of it.
    Text,
    /// A path, a role or a key: the same in the twin.
    Raw,
}

/// How many ops and element kinds `recording` knows (a step is `(op, element)`, each modulo these).
pub const OPS: u8 = 28;
pub const ELEMENTS: u8 = 13;

/// `s` as a plain word with the same shape where exports look at text: empty or blank text
/// stays as it is, secret placeholders stay, and text with a character the Recorder's selectors
/// refuse keeps one.
pub fn benign(s: &str) -> String {
    pieces(s)
        .into_iter()
        .map(|p| match p {
            Piece::Secret(name) => placeholder(name),
            // Blank stays blank: readers refuse an element described by nothing.
            Piece::Text(t) if t.trim().is_empty() => t.to_string(),
            Piece::Text(t) if t.contains(['[', ']', '(', ')', '"']) => "x[".into(),
            Piece::Text(_) => "x".into(),
        })
        .collect()
}

fn named(text: String, exact: bool, nth: Option<u32>) -> Named {
    Named { text, cut: false, exact, nth }
}

/// An element of kind `kind` (modulo `ELEMENTS`); None for kind 0.
fn element(kind: u8, draw: &mut dyn FnMut(Draw) -> String) -> Option<Target> {
    let kind = kind % ELEMENTS;
    if kind == 0 {
        return None;
    }
    let describe = draw(Draw::Text);
    let mut t = Target {
        describe,
        xpath: "/html[1]/body[1]/form[1]/select[1]".into(),
        xpath_text: None,
        holder_point: None,
        point: (120.4, 64.6),
        size: (200.0, 40.0),
        tag: if kind.is_multiple_of(2) { "select" } else { "button" }.into(),
        locators: None,
    };
    let mut loc = Locators::default();
    let frame = "/html[1]/body[1]/iframe[1] >>> /html[1]/body[1]/button[1]";
    match kind {
        1 => {
            t.xpath = draw(Draw::Raw);
            t.xpath_text = Some(draw(Draw::Raw));
        }
        2 => loc.role = Some(RoleName { role: draw(Draw::Raw), name: named(draw(Draw::Text), true, None) }),
        3 => loc.test_id = Some(named(draw(Draw::Text), false, None)),
        4 => loc.placeholder = Some(named(draw(Draw::Text), true, None)),
        5 => loc.label = Some(named(draw(Draw::Text), false, None)),
        6 => loc.text = Some(named(draw(Draw::Text), false, None)),
        7 => loc.role = Some(RoleName { role: "button".into(), name: named(draw(Draw::Text), false, Some(2)) }),
        8..=10 => {
            t.xpath = frame.into();
            let text = draw(Draw::Text);
            let (name, title) = match kind {
                8 => (Some(text), None),
                9 => (None, Some(text)),
                _ => (None, None),
            };
            loc.frames = vec![FrameRef { name, title, index: 0 }];
            loc.role = Some(RoleName { role: "button".into(), name: named(draw(Draw::Text), false, None) });
        }
        11 => t.xpath = format!("//*[@id={}]/my-card[1] >>> /div[1]/select[1]", draw(Draw::Raw)),
        _ => {
            t.xpath = format!("//*[@id={}]/p[1]/text()[1]", draw(Draw::Raw));
            t.xpath_text = Some(format!("//p[normalize-space()={}]/text()[normalize-space()]", draw(Draw::Raw)));
            t.holder_point = Some(HolderPoint { x: 30.2, y: 8.7, border_left: 1.0, border_top: 1.0 });
        }
    }
    if loc != Locators::default() {
        t.locators = Some(loc);
    }
    Some(t)
}

fn op(code: u8, draw: &mut dyn FnMut(Draw) -> String) -> Op {
    let directions = [ScrollDirection::Down, ScrollDirection::Up, ScrollDirection::Right, ScrollDirection::Left];
    match code % OPS {
        0 => Op::Tap,
        1 => Op::DoubleClick,
        2 => Op::RightClick,
        3 => Op::Hover,
        4 => Op::Locate,
        5 => Op::Input { value: draw(Draw::Text), append: false },
        6 => Op::Input { value: draw(Draw::Text), append: true },
        7 => Op::Type { value: draw(Draw::Text) },
        8 => Op::Key { key: key_of(&draw(Draw::Raw)) },
        c @ 9..=12 => Op::Scroll {
            direction: directions[(c - 9) as usize],
            distance: (c % 2 == 1).then_some(312.6),
            to_edge: c >= 11,
        },
        13 => Op::Drag { to: element(2, draw).map(Box::new), to_point: (300.0, 400.0), to_describe: draw(Draw::Text) },
        14 => Op::Drag { to: None, to_point: (10.0, 20.0), to_describe: draw(Draw::Text) },
        15 => Op::Upload { files: vec![draw(Draw::Text), draw(Draw::Text)] },
        16 => Op::Wait { ms: 250 },
        17 => Op::Navigate { url: draw(Draw::Text) },
        18 => Op::Select { option: draw(Draw::Text), value: Some(draw(Draw::Text)) },
        19 => Op::Select { option: draw(Draw::Text), value: None },
        20 => Op::History { go: History::Back },
        21 => Op::WaitText { text: draw(Draw::Text), gone: false, timeout_ms: 5000 },
        22 => Op::WaitText { text: draw(Draw::Text), gone: true, timeout_ms: 5000 },
        23 => Op::Read {
            kind: "aiQuery",
            prompt: serde_json::Value::String(draw(Draw::Text)),
            answer: Some(serde_json::Value::String(draw(Draw::Text))),
        },
        24 => Op::WaitFor { assertion: draw(Draw::Text), timeout_ms: 3000 },
        25 => Op::Check { check: ElementCheck::Text, expected: draw(Draw::Text) },
        26 => Op::Check { check: ElementCheck::Value, expected: draw(Draw::Text) },
        _ => Op::Check { check: ElementCheck::Visible, expected: String::new() },
    }
}

/// A recording of the steps `(op, element)`, its title and address drawn first.
pub fn recording(steps: &[(u8, u8)], chinese: bool, draw: &mut dyn FnMut(Draw) -> String) -> Recording {
    let title = draw(Draw::Text);
    let url = draw(Draw::Text);
    let mut out = Vec::new();
    for &(o, e) in steps {
        let target = element(e, draw);
        let op = op(o, draw);
        out.push(RecStep { op, target, caption: draw(Draw::Text), duration_ms: 120.0, screenshot: None });
    }
    Recording { title, url, steps: out, language: if chinese { Lang::ZhCn } else { Lang::En } }
}

/// A run with every text the HTML report shows drawn: the instruction, address, error, check,
/// answer, memory, model shares, and per step its action, thought, memo, element, error, note,
/// console and model exchange; `shot` is the image reference its steps carry.
pub fn run(steps: usize, chinese: bool, shot: &str, draw: &mut dyn FnMut(Draw) -> String) -> Run {
    let mut run = Run::new("hostile".into(), &draw(Draw::Text), 0.0);
    run.language = if chinese { Lang::ZhCn } else { Lang::En };
    run.url = draw(Draw::Text);
    run.status = RunStatus::Unconfirmed;
    run.ended_ms = Some(4200.0);
    run.error = Some(RunErrorRecord { code: "uncoded".into(), message: draw(Draw::Text), cause: None, advice: None });
    run.check = Some(SuccessCheck { confirmed: false, reason: draw(Draw::Text) });
    run.result = Some(serde_json::Value::String(draw(Draw::Text)));
    run.memory.gathered =
        vec![Gathered { url: draw(Draw::Text), note: draw(Draw::Text), data: Some(draw(Draw::Text).into()) }];
    run.models = vec![ModelUse {
        role: ModelRole::Planner,
        model: draw(Draw::Text),
        calls: 1,
        usage: Default::default(),
        cost: Some(0.002),
    }];
    for i in 0..steps {
        let mut s = Step::new(if i % 2 == 0 { StepKind::Plan } else { StepKind::Action }, 0.0);
        s.status = if i % 3 == 2 { StepStatus::Failed } else { StepStatus::Ok };
        s.action = draw(Draw::Text);
        s.thought = draw(Draw::Text);
        s.notes = Some(draw(Draw::Text));
        s.next_goal = Some(draw(Draw::Text));
        s.role = Some(ModelRole::Actor);
        s.target = Some(TargetInfo {
            index: 1,
            id: "t".into(),
            summary: draw(Draw::Text),
            xpath: draw(Draw::Raw),
            xpath_text: None,
            tag: "button".into(),
            rect: Default::default(),
            locators: None,
            holder_point: None,
        });
        s.error = Some(draw(Draw::Text));
        s.note = Some(draw(Draw::Text));
        s.console = vec![
            ConsoleEntry {
                level: "error".into(),
                source: "console".into(),
                text: draw(Draw::Text),
                url: draw(Draw::Text),
            },
            ConsoleEntry {
                level: "warning".into(),
                source: "network".into(),
                text: draw(Draw::Text),
                url: String::new(),
            },
        ];
        s.screenshot = Some(shot.to_string());
        s.exchange = Some(Exchange {
            request: vec![sightline::model::ChatMessage::text("user", draw(Draw::Text))],
            reply: draw(Draw::Text),
        });
        run.steps.push(s);
    }
    run
}
