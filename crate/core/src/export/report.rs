//! A run as one self-contained HTML file: the steps with their screenshots, the model's input
//! and output, tokens, cost and timings. Screenshots are re-encoded as JPEG and shrunk until
//! they fit a budget, so a long run stays small enough to mail (50 steps: under 15 MB).

use crate::agent::record::{Run, Step, StepKind, StepStatus};
use crate::i18n::Lang;
use crate::model::ContentPart;
use crate::vision::pipeline::{decode_data_url, shrink_to_jpeg};
use crate::vocab::escape::html as esc;
use std::collections::HashMap;
use std::fmt::Write;

/// The report's policy, a second line of defence behind `escape::html`: it runs no script,
/// loads nothing (its screenshots are data URLs, its style inline), and sends no form. Written
/// first in `<head>`, before any recorded text.
pub const CSP: &str =
    "default-src 'none'; style-src 'unsafe-inline'; img-src data:; base-uri 'none'; form-action 'none'";

/// Bytes all screenshots together may take.
pub const IMAGE_BUDGET: usize = 13 * 1024 * 1024;
/// The widest a screenshot is shown.
const MAX_WIDTH: u32 = 1024;

/// `images`: image reference → data URL, for the references the run's steps use.
pub fn to_html_report(run: &Run, images: &HashMap<String, String>) -> String {
    let refs: Vec<&str> = run.steps.iter().filter_map(|s| s.screenshot.as_deref()).collect();
    let budget = IMAGE_BUDGET / refs.len().max(1);
    let mut shown: HashMap<&str, Option<String>> = HashMap::new();
    for r in &refs {
        shown.entry(r).or_insert_with(|| images.get(*r).and_then(|url| fit_image(url, budget)));
    }

    let lang = run.language;
    let mut out = String::with_capacity(64 * 1024);
    let title = format!("Sightline: {}", run.instruction);
    let _ = write!(
        out,
        "<!doctype html>\n<html lang=\"{}\">\n<head>\n<meta charset=\"utf-8\">\n<meta http-equiv=\"Content-Security-Policy\" content=\"{CSP}\">\n<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n<title>{}</title>\n<style>{STYLE}</style>\n</head>\n<body>\n",
        if lang == Lang::ZhCn { "zh-CN" } else { "en" },
        esc(&title)
    );
    let _ = write!(out, "<header><h1>{}</h1>", esc(&run.instruction));
    // A flow's names for its test (`agent: groupName`, `testId`).
    if let Some(names) = run.flow.as_ref().map(|f| &f.flow.report) {
        let named: Vec<&str> = [names.group_name.as_deref(), names.test_id.as_deref()].into_iter().flatten().collect();
        if !named.is_empty() {
            let _ = write!(
                out,
                "<p class=\"meta\">{}</p>",
                esc(&lang.say("report.test", &[("names", &named.join(" \u{b7} "))]))
            );
        }
    }
    let status = format!("{:?}", run.status).to_lowercase();
    let shown_status = lang.say(&format!("status.{status}"), &[]);
    let _ =
        write!(out, "<p class=\"meta\"><span class=\"pill {status}\">{}</span> {}", esc(&shown_status), esc(&run.url));
    let _ = write!(out, " · {}", lang.say("report.started", &[("time", &utc(run.started_ms))]));
    if let Some(end) = run.ended_ms {
        let _ = write!(out, " · {}", lang.say("report.took", &[("duration", &ms(end - run.started_ms))]));
    }
    let total = tokens(run.usage.prompt_tokens + run.usage.completion_tokens, run.usage.estimated);
    let _ = write!(
        out,
        " · {} · {}",
        lang.say("report.model_calls", &[("count", &run.model_calls)]),
        lang.say("report.tokens", &[("count", &total)])
    );
    if let Some(cost) = run.cost {
        let _ = write!(out, " · {}", usd(cost, run.usage.estimated));
    }
    out.push_str("</p>");
    // A run with a planning model: each model's share, priced by its own name.
    for share in &run.models {
        let role = lang.say(&format!("report.role_{}", role_name(share.role)), &[]);
        let used = tokens(share.usage.total(), share.usage.estimated);
        let mut line = lang.say(
            "report.model_share",
            &[("role", &role), ("model", &share.model), ("calls", &share.calls), ("tokens", &used)],
        );
        if let Some(cost) = share.cost {
            let _ = write!(line, " · {}", usd(cost, share.usage.estimated));
        }
        let _ = write!(out, "<p class=\"meta model-share\">{}</p>", esc(&line));
    }
    if let Some(e) = &run.error {
        let _ = write!(out, "<p class=\"error\">{}</p>", esc(&e.message));
    }
    if let Some(check) = &run.check {
        let (class, key) =
            if check.confirmed { ("checked", "report.checked") } else { ("unconfirmed", "report.unconfirmed") };
        let _ = write!(out, "<p class=\"check {class}\">{}</p>", esc(&lang.say(key, &[("reason", &check.reason)])));
    }
    if let Some(result) = &run.result {
        let text = match result {
            serde_json::Value::String(s) => s.clone(),
            other => serde_json::to_string_pretty(other).unwrap_or_default(),
        };
        let _ =
            write!(out, "<h2>{}</h2><pre class=\"result\">{}</pre>", esc(&lang.say("report.result", &[])), esc(&text));
    }
    if !run.memory.gathered.is_empty() {
        let _ = write!(out, "<h2>{}</h2><ul class=\"gathered\">", esc(&lang.say("report.gathered", &[])));
        for g in &run.memory.gathered {
            let data = g.data.as_ref().map(|d| d.to_string()).unwrap_or_default();
            let _ = write!(out, "<li><code>{}</code> {} {}</li>", esc(&g.url), esc(&g.note), esc(&data));
        }
        out.push_str("</ul>");
    }
    out.push_str("</header>\n<ol class=\"steps\">\n");
    for (i, step) in run.steps.iter().enumerate() {
        write_step(&mut out, i + 1, step, &shown, lang);
    }
    let _ = write!(out, "</ol>\n<footer>{}</footer>\n</body>\n</html>\n", esc(&lang.say("report.footer", &[])));
    out
}

fn write_step(out: &mut String, n: usize, step: &Step, shown: &HashMap<&str, Option<String>>, lang: Lang) {
    let class = match (step.kind, step.status) {
        (_, StepStatus::Failed) => "failed",
        (StepKind::Plan, _) => "plan",
        (StepKind::Action, _) => "action",
    };
    let _ = write!(out, "<li class=\"step {class}\" id=\"step-{n}\"><div class=\"head\"><span class=\"n\">{n}</span><span class=\"what\">{}</span>", esc(&step.action));
    if let Some(role) = step.role {
        let _ = write!(
            out,
            "<span class=\"badge\">{}</span>",
            esc(&lang.say(&format!("report.role_{}", role_name(role)), &[]))
        );
    }
    if step.cached {
        let _ = write!(out, "<span class=\"badge\">{}</span>", esc(&lang.say("report.cached", &[])));
    } else if step.found_by == Some(crate::agent::record::FoundBy::Xpath) {
        let _ = write!(out, "<span class=\"badge\">{}</span>", esc(&lang.say("report.found_xpath", &[])));
    }
    let mut meta = ms(step.duration_ms);
    if let Some(u) = &step.usage {
        let _ = write!(
            meta,
            " · {}",
            lang.say("report.tokens", &[("count", &tokens(u.prompt_tokens + u.completion_tokens, u.estimated))])
        );
    }
    if let Some(c) = step.cost {
        let _ = write!(meta, " · {}", usd(c, step.usage.as_ref().is_some_and(|u| u.estimated)));
    }
    let _ = write!(out, "<span class=\"meta\">{}</span></div>", esc(&meta));
    if !step.thought.is_empty() {
        let _ = write!(out, "<p class=\"thought\">{}</p>", esc(&step.thought));
    }
    if let Some(notes) = &step.notes {
        let _ = write!(out, "<p class=\"memo\">Notes: {}</p>", esc(notes));
    }
    if let Some(goal) = &step.next_goal {
        let _ = write!(out, "<p class=\"memo\">Next goal: {}</p>", esc(goal));
    }
    if let Some(t) = &step.target {
        let _ = write!(out, "<p class=\"target\">→ {} <code>{}</code></p>", esc(&t.summary), esc(&t.xpath));
    }
    if let Some(e) = &step.error {
        let _ = write!(out, "<p class=\"error\">{}</p>", esc(e));
    }
    if let Some(note) = &step.note {
        let _ = write!(out, "<p class=\"note\">{}</p>", esc(note));
    }
    if !step.console.is_empty() {
        let summary = lang.say("report.console", &[("count", &step.console.len())]);
        let _ = write!(out, "<details class=\"console\"><summary>{}</summary><ul>", esc(&summary));
        for entry in &step.console {
            let _ = write!(
                out,
                "<li class=\"{}\">{}</li>",
                if entry.level == "error" { "error" } else { "note" },
                esc(&entry.line())
            );
        }
        if step.console_dropped > 0 {
            let dropped = lang.say("report.console_dropped", &[("count", &step.console_dropped)]);
            let _ = write!(out, "<li class=\"note\">{}</li>", esc(&dropped));
        }
        out.push_str("</ul></details>");
    }
    if let Some(r) = step.screenshot.as_deref() {
        match shown.get(r) {
            Some(Some(url)) => {
                let what =
                    lang.say(if step.kind == StepKind::Plan { "report.model_saw" } else { "report.page_after" }, &[]);
                let alt = lang.say("report.screenshot", &[("what", &what)]);
                let _ = write!(
                    out,
                    "<figure><img src=\"{}\" alt=\"{}\" loading=\"lazy\"><figcaption>{}</figcaption></figure>",
                    esc(url),
                    esc(&alt),
                    esc(&what)
                );
            }
            _ => {
                let _ = write!(out, "<p class=\"note\">{}</p>", esc(&lang.say("report.screenshot_gone", &[])));
            }
        }
    }
    if let Some(x) = &step.exchange {
        let _ = write!(out, "<details><summary>{}</summary>", esc(&lang.say("report.exchange", &[])));
        for m in &x.request {
            let text: Vec<String> = m
                .content
                .iter()
                .map(|p| match p {
                    ContentPart::Text { text } => text.clone(),
                    ContentPart::ImageUrl { .. } => lang.say("report.screenshot_above", &[]),
                })
                .collect();
            let _ = write!(out, "<h4>{}</h4><pre>{}</pre>", esc(&m.role), esc(&text.join("\n")));
        }
        let _ = write!(out, "<h4>{}</h4><pre>{}</pre></details>", esc(&lang.say("report.reply", &[])), esc(&x.reply));
    }
    out.push_str("</li>\n");
}

/// The screenshot as a JPEG data URL within `budget` bytes: smaller and coarser until it fits.
fn fit_image(url: &str, budget: usize) -> Option<String> {
    let img = decode_data_url(url).ok()?;
    let mut width = MAX_WIDTH.min(img.width());
    let mut quality = 72u8;
    loop {
        let shrunk = shrink_to_jpeg(&img, width, quality).ok()?;
        if shrunk.len() <= budget || width <= 160 {
            return (shrunk.len() <= budget).then_some(shrunk);
        }
        width = (width as f64 * 0.75) as u32;
        quality = quality.saturating_sub(10).max(35);
    }
}

#[cfg(test)]
pub(crate) fn fit_image_for_test(url: &str, budget: usize) -> Option<String> {
    fit_image(url, budget)
}

fn ms(v: f64) -> String {
    if v >= 1000.0 {
        format!("{:.1} s", v / 1000.0)
    } else {
        format!("{} ms", v.round())
    }
}

fn role_name(role: crate::agent::record::ModelRole) -> &'static str {
    match role {
        crate::agent::record::ModelRole::Planner => "planner",
        crate::agent::record::ModelRole::Actor => "actor",
    }
}

fn tokens(n: u64, estimated: bool) -> String {
    format!("{}{n}", if estimated { "≈" } else { "" })
}

fn usd(v: f64, estimated: bool) -> String {
    let approx = if estimated { "≈" } else { "" };
    if v < 0.01 {
        format!("{approx}${v:.4}")
    } else {
        format!("{approx}${v:.2}")
    }
}

/// Epoch milliseconds as `YYYY-MM-DD HH:MM:SS UTC` (days to civil date: Howard Hinnant's method).
fn utc(epoch_ms: f64) -> String {
    if !epoch_ms.is_finite() || epoch_ms < 0.0 {
        return "—".into();
    }
    let secs = (epoch_ms / 1000.0) as i64;
    let (days, rem) = (secs.div_euclid(86_400), secs.rem_euclid(86_400));
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(m <= 2);
    format!("{y:04}-{m:02}-{d:02} {:02}:{:02}:{:02} UTC", rem / 3600, rem % 3600 / 60, rem % 60)
}

const STYLE: &str = "
:root { color-scheme: light dark; --fg: #1d2127; --bg: #fff; --muted: #667085; --line: #e3e6ea; --card: #f6f7f9; --ok: #16794c; --bad: #c2352b; --accent: #2f6fed; }
@media (prefers-color-scheme: dark) { :root { --fg: #e7e9ec; --bg: #17191c; --muted: #9aa3ae; --line: #2c3036; --card: #202328; --ok: #4cc38a; --bad: #f07167; --accent: #5b8ef5; } }
body { font: 15px/1.5 system-ui, sans-serif; color: var(--fg); background: var(--bg); max-width: 1100px; margin: 0 auto; padding: 16px; }
h1 { font-size: 22px; margin: 0 0 6px; } .meta { color: var(--muted); }
.pill { text-transform: uppercase; font-size: 12px; border: 1px solid currentColor; border-radius: 10px; padding: 0 8px; }
.pill.succeeded, .check.checked { color: var(--ok); } .pill.unconfirmed, .check.unconfirmed { color: #b7791f; } .memo { color: var(--muted); font-size: 13px; } .pill.failed { color: var(--bad); } .pill.running, .pill.stopped { color: var(--accent); }
.error { color: var(--bad); } .note { color: var(--muted); font-size: 13px; }
.steps { list-style: none; padding: 0; } .step { border-top: 1px solid var(--line); padding: 10px 0; }
.head { display: flex; gap: 10px; align-items: baseline; } .n { color: var(--muted); min-width: 2em; }
.what { font-weight: 600; flex: 1; } .step.failed .what { color: var(--bad); }
.badge { font-size: 12px; color: var(--accent); } .thought, .target { margin: 4px 0 0 2.6em; color: var(--muted); }
code { font-size: 12px; word-break: break-all; }
figure { margin: 8px 0 0 2.6em; } figure img { max-width: 100%; border: 1px solid var(--line); border-radius: 6px; }
figcaption { color: var(--muted); font-size: 12px; }
details { margin: 6px 0 0 2.6em; } pre { white-space: pre-wrap; word-break: break-word; background: var(--card); padding: 8px; border-radius: 6px; font-size: 12px; max-height: 30em; overflow: auto; }
.result { font-size: 13px; } footer { color: var(--muted); font-size: 12px; margin-top: 24px; }
";
