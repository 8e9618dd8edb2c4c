//! A Playwright test (`@playwright/test`, TypeScript) that repeats the run with concrete
//! selectors and no model: each element by its recorded XPath, or its text-based XPath where
//! the first no longer matches. Elements inside frames go through `frameLocator`; inside a
//! shadow root (XPath cannot enter one) the recorded point is clicked instead.

use super::recording::{History, Op, RecStep, Recording, Target};
use super::{one_line, quoted as js};
use crate::vocab::actions::ScrollDirection;
use crate::vocab::geometry::WindowSize;
use std::fmt::Write;

/// Where a person adds their own checks; tests put theirs here too.
pub const END_STATE_MARK: &str = "// End state: add your checks here.";

pub fn to_playwright(rec: &Recording, viewport: WindowSize) -> String {
    let lang = rec.language;
    let mut out = String::new();
    let _ = writeln!(out, "// {}", lang.say("export.exported", &[("title", &one_line(&rec.title))]));
    let _ = writeln!(out, "// {}", lang.say("export.replays", &[]));
    out.push_str("import { test, expect } from '@playwright/test';\n\n");
    let _ = writeln!(out, "test.use({{ viewport: {{ width: {}, height: {} }} }});\n", viewport.width, viewport.height);
    let secrets = secret_names(rec);
    if !secrets.is_empty() {
        // The run typed secrets the export does not hold: they come from the environment.
        let names = secrets.iter().map(|n| env_name(n)).collect::<Vec<_>>().join(", ");
        let _ = writeln!(out, "// {}", lang.say("export.secrets_from_env", &[("names", &names)]));
        out.push_str("function secret(name: string): string {\n  const value = process.env[name];\n  if (value === undefined) throw new Error(`set ${name}: this test types a secret it does not hold`);\n  return value;\n}\n\n");
    }
    let _ = writeln!(out, "test({}, async ({{ page }}) => {{", js(&rec.title));
    let _ = writeln!(out, "  await page.goto({});", js(&rec.url));
    for step in &rec.steps {
        let on = step.target.as_ref().map(|t| format!(" \u{2192} {}", one_line(&t.describe))).unwrap_or_default();
        let _ = writeln!(out, "\n  // {}{on}", one_line(&step.caption));
        write_step(&mut out, step, viewport, lang);
    }
    let _ = writeln!(out, "\n  {END_STATE_MARK}");
    out.push_str("});\n");
    out
}

/// Typed text as a TypeScript expression: its `<secret>name</secret>` placeholders read
/// from the environment.
fn typed(value: &str) -> String {
    use crate::agent::guard::{pieces, Piece};
    let parts: Vec<String> = pieces(value)
        .into_iter()
        .map(|p| match p {
            Piece::Text(t) => js(t),
            Piece::Secret(name) => format!("secret({})", js(&env_name(name))),
        })
        .collect();
    parts.join(" + ")
}

/// `site_password` → `SIGHTLINE_SECRET_SITE_PASSWORD`.
fn env_name(name: &str) -> String {
    let upper: String =
        name.chars().map(|c| if c.is_ascii_alphanumeric() { c.to_ascii_uppercase() } else { '_' }).collect();
    format!("SIGHTLINE_SECRET_{upper}")
}

fn secret_names(rec: &Recording) -> Vec<String> {
    use crate::agent::guard::{pieces, Piece};
    let mut names: Vec<String> = Vec::new();
    for step in &rec.steps {
        let (Op::Input { value, .. } | Op::Type { value }) = &step.op else { continue };
        for p in pieces(value) {
            if let Piece::Secret(n) = p {
                if !names.iter().any(|x| x == n) {
                    names.push(n.to_string());
                }
            }
        }
    }
    names
}

fn write_step(out: &mut String, step: &RecStep, viewport: WindowSize, lang: crate::i18n::Lang) {
    let target = step.target.as_ref();
    let locator = target.and_then(locator_of);
    // An element Playwright cannot reach by XPath: act at the point where it was.
    let point = target.map(|t| t.point);
    let mut line = |s: String| {
        let _ = writeln!(out, "  {s}");
    };
    match (&step.op, &locator) {
        (Op::Tap, Some(l)) => line(format!("await {l}.click();")),
        (Op::DoubleClick, Some(l)) => line(format!("await {l}.dblclick();")),
        (Op::RightClick, Some(l)) => line(format!("await {l}.click({{ button: 'right' }});")),
        (Op::Hover, Some(l)) => line(format!("await {l}.hover();")),
        (Op::Locate, Some(l)) => line(format!("await expect({l}).toBeVisible();")),
        (Op::Input { value, append: false }, Some(l)) if target.is_some_and(|t| t.tag == "select") => {
            line(format!("await {l}.selectOption({});", js(value)))
        }
        (Op::Input { value, append: false }, Some(l)) => line(format!("await {l}.fill({});", typed(value))),
        (Op::Input { value, append: true }, Some(l)) => {
            line(format!("await {l}.press('End');"));
            line(format!("await {l}.pressSequentially({});", typed(value)));
        }
        (Op::Tap | Op::DoubleClick | Op::RightClick | Op::Hover | Op::Locate | Op::Input { .. }, None) => {
            let Some((x, y)) = point else {
                line(format!("// {}", lang.say("export.no_element", &[])));
                return;
            };
            let (x, y) = (x.round(), y.round());
            match &step.op {
                Op::Tap => line(format!("await page.mouse.click({x}, {y});")),
                Op::DoubleClick => line(format!("await page.mouse.dblclick({x}, {y});")),
                Op::RightClick => line(format!("await page.mouse.click({x}, {y}, {{ button: 'right' }});")),
                Op::Hover | Op::Locate => line(format!("await page.mouse.move({x}, {y});")),
                Op::Input { value, append } => {
                    line(format!("await page.mouse.click({x}, {y});"));
                    if !append {
                        line("await page.keyboard.press('ControlOrMeta+A');".into());
                    }
                    line(format!("await page.keyboard.type({});", typed(value)));
                }
                _ => {}
            }
        }
        (Op::Type { value }, _) => line(format!("await page.keyboard.type({});", typed(value))),
        (Op::Key { key }, Some(l)) => line(format!("await {l}.press({});", js(&key.to_string()))),
        (Op::Key { key }, None) => line(format!("await page.keyboard.press({});", js(&key.to_string()))),
        (Op::Scroll { direction, distance, to_edge }, _) => {
            let d = distance.unwrap_or(viewport.height as f64 * 0.8).round();
            let (dx, dy) = match direction {
                ScrollDirection::Down => (0.0, d),
                ScrollDirection::Up => (0.0, -d),
                ScrollDirection::Right => (d, 0.0),
                ScrollDirection::Left => (-d, 0.0),
            };
            if *to_edge {
                let (x, y) = match direction {
                    ScrollDirection::Down => ("el.scrollLeft", "el.scrollHeight"),
                    ScrollDirection::Up => ("el.scrollLeft", "0"),
                    ScrollDirection::Right => ("el.scrollWidth", "el.scrollTop"),
                    ScrollDirection::Left => ("0", "el.scrollTop"),
                };
                match &locator {
                    Some(l) => line(format!("await {l}.evaluate((el) => el.scrollTo({x}, {y}));")),
                    None => line(format!("await page.evaluate(() => {{ const el = document.scrollingElement; el.scrollTo({x}, {y}); }});")),
                }
            } else {
                if let Some(l) = &locator {
                    line(format!("await {l}.hover();"));
                } else if let Some((x, y)) = point {
                    line(format!("await page.mouse.move({}, {});", x.round(), y.round()));
                }
                line(format!("await page.mouse.wheel({dx}, {dy});"));
            }
        }
        (Op::Drag { to, to_point, .. }, _) => match (&locator, to.as_ref().and_then(locator_of)) {
            (Some(from), Some(dest)) => line(format!("await {from}.dragTo({dest});")),
            _ => {
                let (fx, fy) = point.unwrap_or_default();
                line(format!("await page.mouse.move({}, {});", fx.round(), fy.round()));
                line("await page.mouse.down();".into());
                line(format!(
                    "await page.mouse.move({}, {}, {{ steps: 10 }});",
                    to_point.0.round(),
                    to_point.1.round()
                ));
                line("await page.mouse.up();".into());
            }
        },
        (Op::Upload { files }, _) => {
            let click = match (&locator, point) {
                (Some(l), _) => format!("{l}.click()"),
                (None, Some((x, y))) => format!("page.mouse.click({}, {})", x.round(), y.round()),
                (None, None) => return,
            };
            line("const chooser = page.waitForEvent('filechooser');".into());
            line(format!("await {click};"));
            line(format!("await (await chooser).setFiles({});", serde_json::to_string(files).unwrap_or_default()));
        }
        (Op::Select { option, value }, Some(l)) => match value {
            Some(v) => line(format!("await {l}.selectOption({});", js(v))),
            None => line(format!("await {l}.selectOption({{ label: {} }});", js(option))),
        },
        (Op::Select { option, .. }, None) => {
            line(format!("// choose {} (no element Playwright can reach was recorded for this step)", js(option)))
        }
        (Op::History { go }, _) => line(
            match go {
                History::Back => "await page.goBack();",
                History::Forward => "await page.goForward();",
                History::Reload => "await page.reload();",
            }
            .into(),
        ),
        (Op::WaitText { text, gone, timeout_ms }, _) => line(format!(
            "await page.getByText({}).first().waitFor({{ state: '{}', timeout: {timeout_ms} }});",
            js(text),
            if *gone { "hidden" } else { "visible" }
        )),
        (Op::Wait { ms }, _) => line(format!("await page.waitForTimeout({ms});")),
        (Op::Navigate { url }, _) => line(format!("await page.goto({});", js(url))),
        (Op::Read { kind, prompt, answer }, _) => {
            let prompt = prompt.as_str().map(str::to_string).unwrap_or_else(|| prompt.to_string());
            let answer = answer.as_ref().map_or("nothing".to_string(), |a| a.to_string());
            line(format!("// {kind} {}: the run read {}", one_line(&prompt), one_line(&answer)));
        }
        (Op::Assert { assertion }, _) => {
            line(format!("// aiAssert held when recorded (checking it again needs a model): {}", one_line(assertion)))
        }
        (Op::WaitFor { assertion, .. }, _) => {
            line(format!("// aiWaitFor held when recorded (checking it again needs a model): {}", one_line(assertion)))
        }
    }
}

/// The element as a Playwright locator expression, or None inside a shadow root.
fn locator_of(t: &Target) -> Option<String> {
    let segments = t.segments();
    let (last, frames) = segments.split_last()?;
    if !frames.iter().all(|s| is_frame_path(s)) {
        return None;
    }
    let mut scope = "page".to_string();
    for frame in frames {
        scope = format!("{scope}.frameLocator({})", js(&format!("xpath={frame}")));
    }
    let by_path = format!("{scope}.locator({})", js(&format!("xpath={last}")));
    let by_text = t
        .xpath_text
        .as_deref()
        .and_then(|x| x.split(crate::describe::xpath::TREE_SEPARATOR).last())
        .filter(|x| x != last);
    Some(match by_text {
        Some(text) => format!("{by_path}.or({scope}.locator({})).first()", js(&format!("xpath={text}"))),
        None => by_path,
    })
}

/// True when the path's last step is an `<iframe>` or `<frame>` (a frame segment, not a shadow host).
pub(crate) fn is_frame_path(path: &str) -> bool {
    let last = path.rsplit('/').next().unwrap_or_default();
    let tag = last.split('[').next().unwrap_or_default().to_ascii_lowercase();
    tag == "iframe" || tag == "frame"
}
