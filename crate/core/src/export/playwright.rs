//! A Playwright test (`@playwright/test`, TypeScript) that repeats the run with concrete
//! selectors and no model. Each element is found as Playwright's codegen would write it, from
//! the [`Locators`] recorded with the step: `getByTestId`, `getByRole(role, { name })`
//! (`exact` only when needed), `getByPlaceholder`, `getByLabel`, `getByText`, and
//! `getByRole(…).nth(i)` for duplicates; frames by `locator('iframe[name="…"]').contentFrame()`;
//! role and text locators pierce open shadow roots. Records without them (older ones, elements
//! nothing names) fall back to the recorded XPath, or its text-based XPath where the first no
//! longer matches; inside a shadow root (XPath cannot enter one) the recorded point is clicked.

use super::recording::{History, Op, RecStep, Recording, Target};
use crate::describe::locators::{Locators, Named};
use crate::vocab::actions::{ElementCheck, ScrollDirection};
use crate::vocab::escape::{css_string, js_comment, js_single as pw, js_string as js};
use crate::vocab::geometry::WindowSize;
use std::fmt::Write;

/// Where a person adds their own checks; tests put theirs here too.
pub const END_STATE_MARK: &str = "// End state: add your checks here.";

pub fn to_playwright(rec: &Recording, viewport: WindowSize) -> String {
    let lang = rec.language;
    let mut out = String::new();
    let _ = writeln!(out, "// {}", js_comment(&lang.say("export.exported", &[("title", &rec.title)])));
    let _ = writeln!(out, "// {}", lang.say("export.replays", &[]));
    out.push_str("import { test, expect } from '@playwright/test';\n\n");
    let _ = writeln!(out, "test.use({{ viewport: {{ width: {}, height: {} }} }});\n", viewport.width, viewport.height);
    let secrets = secret_names(rec);
    if !secrets.is_empty() {
        // The run typed secrets the export does not hold: they come from the environment.
        let names = secrets.iter().map(|n| env_name(n)).collect::<Vec<_>>().join(", ");
        let _ = writeln!(out, "// {}", js_comment(&lang.say("export.secrets_from_env", &[("names", &names)])));
        out.push_str("function secret(name: string): string {\n  const value = process.env[name];\n  if (value === undefined) throw new Error(`set ${name}: this test types a secret it does not hold`);\n  return value;\n}\n\n");
    }
    let _ = writeln!(out, "test({}, async ({{ page }}) => {{", js(&rec.title));
    let _ = writeln!(out, "  await page.goto({});", js(&rec.url));
    let mut typed_into: Option<&str> = None;
    for step in &rec.steps {
        let on = step.target.as_ref().map(|t| format!(" \u{2192} {}", t.describe)).unwrap_or_default();
        let _ = writeln!(out, "\n  // {}", js_comment(&format!("{}{on}", step.caption)));
        // A key ending the typing in a field is pressed where the typing left the focus: the
        // field's locator may read words the typing changed (a row re-rendered from its value,
        // on some pages as the keys went down, on others as the field changed).
        let in_typed_field = matches!(step.op, Op::Key { .. })
            && step.target.as_ref().is_some_and(|t| Some(t.xpath.as_str()) == typed_into);
        if let (true, Op::Key { key }) = (in_typed_field, &step.op) {
            let _ = writeln!(out, "  await page.locator(':focus').press({});", js(&key.to_string()));
        } else {
            write_step(&mut out, step, viewport, lang);
        }
        typed_into = match &step.op {
            Op::Input { .. } | Op::Key { .. } => step.target.as_ref().map(|t| t.xpath.as_str()),
            _ => None,
        };
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
    // A text is acted on inside the element holding it, where the text is.
    let at = target
        .and_then(Target::click_offset)
        .map(|p| p.in_padding_box())
        .map(|(x, y)| format!("position: {{ x: {}, y: {} }}", x.round(), y.round()));
    let options = |first: Option<&str>| {
        let all: Vec<&str> = first.into_iter().chain(at.as_deref()).collect();
        if all.is_empty() {
            String::new()
        } else {
            format!("{{ {} }}", all.join(", "))
        }
    };
    match (&step.op, &locator) {
        // A checkbox or radio is ticked to the state the person's tap left it in.
        (Op::Tap, Some(l)) => match target.and_then(|t| t.locators.as_ref()).and_then(|x| x.checked) {
            Some(before) => line(format!("await {l}.{}();", if before { "uncheck" } else { "check" })),
            None => line(format!("await {l}.click({});", options(None))),
        },
        (Op::DoubleClick, Some(l)) => line(format!("await {l}.dblclick({});", options(None))),
        (Op::RightClick, Some(l)) => line(format!("await {l}.click({});", options(Some("button: 'right'")))),
        (Op::Hover, Some(l)) => line(format!("await {l}.hover({});", options(None))),
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
                line(format!("// {}", js_comment(&lang.say("export.no_element", &[]))));
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
        (Op::Drag { to, to_point, .. }, _) => match (&locator, to.as_deref().and_then(locator_of)) {
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
            let files: Vec<String> = files.iter().map(|f| js(f)).collect();
            line(format!("await (await chooser).setFiles([{}]);", files.join(",")));
        }
        (Op::Select { option, value }, Some(l)) => match value {
            Some(v) => line(format!("await {l}.selectOption({});", js(v))),
            None => line(format!("await {l}.selectOption({{ label: {} }});", js(option))),
        },
        (Op::Select { option, .. }, None) => line(format!(
            "// {}",
            js_comment(&format!(
                "choose \u{201c}{option}\u{201d} (no element Playwright can reach was recorded for this step)"
            ))
        )),
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
            line(format!("// {}", js_comment(&format!("{kind} {prompt}: the run read {answer}"))));
        }
        (Op::Assert { assertion }, _) => line(format!(
            "// {}",
            js_comment(&format!("aiAssert held when recorded (checking it again needs a model): {assertion}"))
        )),
        (Op::WaitFor { assertion, .. }, _) => line(format!(
            "// {}",
            js_comment(&format!("aiWaitFor held when recorded (checking it again needs a model): {assertion}"))
        )),
        (Op::Check { check, expected }, Some(l)) => line(match check {
            // A text is checked in the element holding it, which may say more around it.
            ElementCheck::Text if step.target.as_ref().is_some_and(Target::is_text) => {
                format!("await expect({l}).toContainText({});", js(expected))
            }
            ElementCheck::Text => format!("await expect({l}).toHaveText({});", js(expected)),
            // A list's value as the page reads it is its chosen option's text.
            ElementCheck::Value if step.target.as_ref().is_some_and(|t| t.tag == "select") => {
                format!("await expect({l}.locator('option:checked')).toHaveText({});", js(expected))
            }
            ElementCheck::Value => format!("await expect({l}).toHaveValue({});", js(expected)),
            ElementCheck::Visible => format!("await expect({l}).toBeVisible();"),
        }),
        // No element Playwright can reach: the page's text, where the check has one.
        (Op::Check { check: ElementCheck::Text, expected }, None) => {
            line(format!("await expect(page.getByText({}).first()).toBeVisible();", js(expected)))
        }
        (Op::Check { .. }, None) => line(format!("// {}", js_comment(&lang.say("export.no_element", &[])))),
    }
}

/// The element as a Playwright locator expression: by what a person sees of it where the
/// record says so, else by XPath; None inside a shadow root with nothing else to go by.
fn locator_of(t: &Target) -> Option<String> {
    t.locators.as_ref().and_then(|l| preferred_locator(l, t)).or_else(|| xpath_locator(t))
}

/// Codegen's order (lower scores first): test id, role and name, placeholder, label, text,
/// then role and name with a position. None when none names the element.
fn preferred_locator(l: &Locators, t: &Target) -> Option<String> {
    let scope = frame_scope(l, t)?;
    let unique = |n: &Option<Named>| n.as_ref().filter(|n| n.is_unique()).cloned();
    let role = |name: &Named, role: &str| {
        let exact = if name.exact { ", exact: true" } else { "" };
        let nth = name.nth.map(|i| format!(".nth({i})")).unwrap_or_default();
        format!("{scope}.getByRole({}, {{ name: {}{exact} }}){nth}", pw(role), pw(&name.text))
    };
    let by = |method: &str, n: &Named| {
        let exact = if n.exact { ", { exact: true }" } else { "" };
        format!("{scope}.{method}({}{exact})", pw(&n.text))
    };
    if let Some(id) = unique(&l.test_id) {
        return Some(format!("{scope}.getByTestId({})", pw(&id.text)));
    }
    if let Some(r) = l.role.as_ref().filter(|r| r.name.is_unique()) {
        return Some(role(&r.name, &r.role));
    }
    if let Some(r) = &l.in_row {
        let row = format!("{scope}.getByRole({}).filter({{ hasText: {} }})", pw(&r.row_role), pw(&r.row_text.text));
        let Some(inner) = &r.role else { return Some(row) };
        let name = r.name.as_ref().map(|n| {
            let exact = if n.exact { ", exact: true" } else { "" };
            format!(", {{ name: {}{exact} }}", pw(&n.text))
        });
        let nth = r.nth.map(|i| format!(".nth({i})")).unwrap_or_default();
        return Some(format!("{row}.getByRole({}{}){nth}", pw(inner), name.unwrap_or_default()));
    }
    for (method, named) in [("getByPlaceholder", &l.placeholder), ("getByLabel", &l.label), ("getByText", &l.text)] {
        if let Some(n) = unique(named) {
            return Some(by(method, &n));
        }
    }
    l.role.as_ref().map(|r| role(&r.name, &r.role))
}

/// `page`, or the frames on the way, each as codegen names it: by its `name`, else its
/// `title`, else its recorded XPath.
fn frame_scope(l: &Locators, t: &Target) -> Option<String> {
    let segments = t.segments();
    let frame_paths: Vec<&str> = segments.iter().copied().filter(|s| is_frame_path(s)).collect();
    if frame_paths.len() != l.frames.len() {
        // Some frame on the way was not read (cross-origin): no scope to write.
        return None;
    }
    let mut scope = "page".to_string();
    for (i, frame) in l.frames.iter().enumerate() {
        let css = match (&frame.name, &frame.title) {
            (Some(name), _) if !name.is_empty() => format!("iframe[name={}]", css_string(name)),
            (_, Some(title)) if !title.is_empty() => format!("iframe[title={}]", css_string(title)),
            // By its path, where every tree on the way is a frame's (XPath enters no shadow root).
            _ if frame_paths.len() == l.frames.len() && segments.len() == l.frames.len() + 1 => {
                format!("xpath={}", frame_paths[i])
            }
            _ => return None,
        };
        scope = format!("{scope}.locator({}).contentFrame()", pw(&css));
    }
    Some(scope)
}

/// The element by its XPaths; None inside a shadow root.
fn xpath_locator(t: &Target) -> Option<String> {
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
        .element_xpath_text()
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
