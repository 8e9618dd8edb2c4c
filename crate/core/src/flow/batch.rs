//! A batch index file: Midscene's YAML config for running many flow files (`files:` globs,
//! `concurrent`, `continueOnError`, `retry`, `summary`, `shareBrowserContext`, one shared
//! `web:`), read here and run by `scripts/suite` on Playwright Test's runner. As Midscene does,
//! the index's `web:` keys win over each file's own (the file's other keys stay); the globs are
//! relative to the index file; with `concurrent: 1` the files run in the order listed. A key
//! Sightline cannot honour is warned with its line, or refused where the run would not be the
//! one asked for. [`summary`] writes the results in Midscene's summary shape.

use super::yaml::{at_line, is_index, load, number, read_web, shape, text, KeyLines};
use super::{Flow, FlowError, FlowVars};
use crate::vocab::geometry::WindowSize;
use crate::vocab::tasks::DialogPolicy;
use serde::{Deserialize, Serialize};
use yaml_rust2::yaml::Hash;
use yaml_rust2::Yaml;

/// More workers than this is no batch a machine runs well (each is a Chromium).
pub const MAX_CONCURRENT: u32 = 64;
/// More retries than this hides a broken flow.
pub const MAX_RETRY: u32 = 10;

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct BatchIndex {
    /// The globs (or paths), relative to the index file, in the order written.
    pub files: Vec<String>,
    /// How many files run at once (Playwright Test workers); 1: in the order of `files`.
    pub concurrent: u32,
    /// False: the batch stops after the first failed file, the rest not executed.
    pub continue_on_error: bool,
    /// Extra attempts for a failed file.
    pub retry: u32,
    /// Where the summary JSON goes, relative to the suite's output folder.
    pub summary: String,
    /// One browser context (cookies, local storage) across the files a worker runs, in order.
    pub share_browser_context: bool,
    pub headed: bool,
    /// The shared `web:`: its keys win over each file's.
    #[serde(default, skip_serializing_if = "BatchWeb::is_empty")]
    pub web: BatchWeb,
    /// What the index asks that is not honoured, each with its line.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub warnings: Vec<String>,
}

/// The keys of an index's `web:` that a flow takes.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct BatchWeb {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub url: Option<String>,
    /// Relative to the index file (checked as a flow's `web.serve` is).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub serve: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub viewport: Option<WindowSize>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dialogs: Option<DialogPolicy>,
}

impl BatchWeb {
    pub fn is_empty(&self) -> bool {
        self == &BatchWeb::default()
    }
}

/// Reads a batch index file; `Ok(None)` when the text is not one (a flow). A text the YAML
/// reader refuses (syntax, aliases, an unset `${NAME}`) is not taken for an index either:
/// reading it as a flow says why, with its line.
pub fn parse_batch(text_in: &str, vars: &FlowVars) -> Result<Option<BatchIndex>, FlowError> {
    let Ok((document, lines)) = load(text_in, vars) else { return Ok(None) };
    let Some(Yaml::Hash(root)) = &document else { return Ok(None) };
    if !is_index(root) {
        return Ok(None);
    }
    read_index(root, &lines).map(Some)
}

fn read_index(root: &Hash, lines: &KeyLines) -> Result<BatchIndex, FlowError> {
    let mut index = BatchIndex {
        files: Vec::new(),
        concurrent: 1,
        continue_on_error: false,
        retry: 0,
        summary: "index.json".into(),
        share_browser_context: false,
        headed: false,
        web: BatchWeb::default(),
        warnings: Vec::new(),
    };
    let said = |key: &str, why: &str| shape(&at_line(lines, key, &format!("`{key}:` {why}")));
    let flag = |key: &str, v: &Yaml| match v {
        Yaml::Boolean(b) => Ok(*b),
        _ => Err(said(key, "should be true or false")),
    };
    let whole = |key: &str, v: &Yaml, min: u32, max: u32| {
        number(v)
            .filter(|n| n.fract() == 0.0 && *n >= min as f64 && *n <= max as f64)
            .map(|n| n as u32)
            .ok_or_else(|| said(key, &format!("should be a whole number from {min} to {max}")))
    };
    let mut web_sections = Vec::new();
    for (key, value) in root {
        let key = key.as_str().unwrap_or_default();
        match key {
            "files" | "order" => {
                let Yaml::Array(items) = value else {
                    return Err(said(key, "should be a list of flow files or globs, relative to the index file"));
                };
                for item in items {
                    let file = text(item).filter(|f| !f.trim().is_empty()).ok_or_else(|| {
                        said(key, "should list flow files or globs (text), relative to the index file")
                    })?;
                    index.files.push(relative_path(key, &file, lines)?);
                }
                if key == "order" {
                    let why = "`order:` is the older name of `files:`: read as `files:`";
                    index.warnings.push(at_line(lines, key, why));
                }
            }
            "concurrent" => index.concurrent = whole(key, value, 1, MAX_CONCURRENT)?,
            "continueOnError" => index.continue_on_error = flag(key, value)?,
            "retry" => index.retry = whole(key, value, 0, MAX_RETRY)?,
            "shareBrowserContext" => index.share_browser_context = flag(key, value)?,
            "headed" => index.headed = flag(key, value)?,
            "summary" => {
                let file = text(value).filter(|f| !f.trim().is_empty()).ok_or_else(|| {
                    said(key, "should be the summary file's path, relative to the suite's output folder")
                })?;
                index.summary = relative_path(key, &file, lines)?;
            }
            "web" | "page" | "browser" | "target" => web_sections.push((key, value)),
            "android" | "ios" | "harmony" | "computer" | "interface" => {
                return Err(said(key, "is not a web target: Sightline runs web flows (`web:`)"));
            }
            "setup" => {
                return Err(said(
                    key,
                    "is not run by Sightline's suite: list the setup flow first in `files:` with `concurrent: 1` and `shareBrowserContext: true`, and `continueOnError: false` so nothing runs after it fails",
                ));
            }
            "keepWindow" => index.warnings.push(at_line(
                lines,
                key,
                "`keepWindow:` is not honoured: the suite closes its browsers at the end (`headed: true` shows them)",
            )),
            "reusePage" => index.warnings.push(at_line(
                lines,
                key,
                "`reusePage:` is not honoured: every file runs on a page of its own (`shareBrowserContext: true` keeps cookies and local storage)",
            )),
            "dotenvOverride" | "dotenvDebug" => index.warnings.push(at_line(
                lines,
                key,
                &format!("`{key}:` is not honoured: a flow's `${{NAME}}`s come from the `.env` beside it and SIGHTLINE_FLOW_ENV"),
            )),
            "output" => index.warnings.push(at_line(
                lines,
                key,
                "`output:` of an index file is not honoured: `summary:` names the summary file",
            )),
            other => {
                let why = format!("`{other}:` is not part of a batch index file: ignored");
                index.warnings.push(at_line(lines, other, &why));
            }
        }
    }
    if index.files.is_empty() {
        return Err(shape("the index file's `files:` list is empty: list the flow files (or globs) to run"));
    }
    if web_sections.len() > 1 {
        let names: Vec<&str> = web_sections.iter().map(|(k, _)| *k).collect();
        return Err(shape(&format!(
            "the index file has {} target sections ({}): give the shared settings in one `web:`",
            names.len(),
            names.join(", ")
        )));
    }
    if let Some((section, value)) = web_sections.first() {
        let mut read = Flow::default();
        read_web(section, value, &mut read, lines)?;
        index.warnings.append(&mut read.warnings);
        index.web = BatchWeb { url: read.url, serve: read.serve, viewport: read.viewport, dialogs: read.dialogs };
    }
    Ok(index)
}

/// A path the index names (a glob or the summary): relative, inside the folder it is relative
/// to. A shared index file must not have the suite read flows from, or write over, a file
/// anywhere on the machine.
fn relative_path(key: &str, path: &str, lines: &KeyLines) -> Result<String, FlowError> {
    let said = |why: &str| {
        shape(&at_line(
            lines,
            key,
            &format!("`{key}:` \u{201c}{path}\u{201d} {why}: an index file names paths relative to its own folder (the summary: to the suite's output folder), and inside it"),
        ))
    };
    let bytes = path.as_bytes();
    let drive = bytes.len() >= 2 && bytes[0].is_ascii_alphabetic() && bytes[1] == b':';
    if path.starts_with(['/', '\\', '~']) || drive {
        return Err(said("is an absolute path"));
    }
    if path.split(['/', '\\']).any(|part| part == "..") {
        return Err(said("climbs out of the folder (`..`)"));
    }
    if path.contains('\0') {
        return Err(said("is not a path"));
    }
    Ok(path.trim().to_string())
}

/// The index's `web:` applied to one of its flows: each key the index gives wins over the file's.
pub fn apply_web(mut flow: Flow, web: &BatchWeb) -> Flow {
    if web.url.is_some() {
        flow.url = web.url.clone();
    }
    if web.serve.is_some() {
        flow.serve = web.serve.clone();
    }
    if web.viewport.is_some() {
        flow.viewport = web.viewport;
    }
    if web.dialogs.is_some() {
        flow.dialogs = web.dialogs;
    }
    flow
}

/// How one file of the batch went, as the suite runner saw it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct BatchResult {
    /// The flow file, as the summary names it (relative to the summary's folder).
    pub script: String,
    /// Playwright Test's last status for it (`passed`, `failed`, `timedOut`, `interrupted`,
    /// `skipped`), or none when it never ran.
    #[serde(default)]
    pub status: Option<String>,
    #[serde(default)]
    pub error: Option<String>,
    /// All its attempts, in milliseconds.
    #[serde(default)]
    pub duration_ms: f64,
    /// Its Sightline report, relative to the summary's folder.
    #[serde(default)]
    pub report: Option<String>,
    /// How many times it ran (retries included).
    #[serde(default)]
    pub attempts: u32,
    /// Its last run failed only in tasks with `continueOnError` (`agent::replay::flow::batch_result_type`).
    #[serde(default)]
    pub partial: bool,
}

/// The summary JSON in Midscene's shape: `{summary: {total, successful, failed, partialFailed,
/// notExecuted, totalDuration, generatedAt}, results: [{script, success, resultType, report,
/// error, duration}]}` (its keys in Midscene's order). A file that never ran is `notExecuted`
/// (the batch stopped at a failure before it); one whose failed items all belong to tasks with
/// `continueOnError` is `partialFailed`.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Summary {
    pub summary: Totals,
    pub results: Vec<SummaryRow>,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Totals {
    pub total: usize,
    pub successful: usize,
    pub failed: usize,
    pub partial_failed: usize,
    pub not_executed: usize,
    /// Milliseconds, every file's attempts.
    pub total_duration: u64,
    pub generated_at: String,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SummaryRow {
    pub script: String,
    pub success: bool,
    /// `success`, `failed`, `partialFailed` or `notExecuted`.
    pub result_type: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub report: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// Milliseconds.
    pub duration: u64,
}

pub fn summary(results: &[BatchResult], generated_at: &str) -> Summary {
    let kind = |r: &BatchResult| match r.status.as_deref() {
        Some("passed") => "success",
        None | Some("skipped") => "notExecuted",
        Some("failed") if r.partial => "partialFailed",
        _ => "failed",
    };
    let count = |k: &str| results.iter().filter(|r| kind(r) == k).count();
    let rows = results
        .iter()
        .map(|r| {
            let result_type = kind(r);
            let error = match (&r.error, result_type) {
                (Some(e), _) => Some(e.clone()),
                (None, "notExecuted") => Some("Not executed (previous task failed)".to_string()),
                (None, "failed" | "partialFailed") => {
                    Some(format!("the flow ended {}", r.status.as_deref().unwrap_or("failed")))
                }
                _ => None,
            };
            SummaryRow {
                script: r.script.clone(),
                success: result_type == "success",
                result_type,
                report: r.report.clone(),
                error,
                duration: r.duration_ms.max(0.0).round() as u64,
            }
        })
        .collect();
    Summary {
        summary: Totals {
            total: results.len(),
            successful: count("success"),
            failed: count("failed"),
            partial_failed: count("partialFailed"),
            not_executed: count("notExecuted"),
            total_duration: results.iter().map(|r| r.duration_ms.max(0.0)).sum::<f64>().round() as u64,
            generated_at: generated_at.to_string(),
        },
        results: rows,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::{json, Value};

    fn batch(text: &str) -> Result<Option<BatchIndex>, FlowError> {
        parse_batch(text, &FlowVars::default())
    }

    #[test]
    fn an_index_file_is_read_with_midscenes_keys_and_defaults() {
        let index = batch(
            "files:\n  - 'suite-*.yaml'\n  - flows/**/*.yml\nconcurrent: 2\ncontinueOnError: true\nretry: 1\nsummary: out/batch.json\nshareBrowserContext: true\nheaded: false\nweb:\n  url: /todo.html\n  viewportWidth: 800\n  viewportHeight: 600\n  dialogs: accept\n",
        )
        .unwrap()
        .unwrap();
        assert_eq!(index.files, ["suite-*.yaml", "flows/**/*.yml"]);
        assert_eq!((index.concurrent, index.continue_on_error, index.retry), (2, true, 1));
        assert_eq!(index.summary, "out/batch.json");
        assert!(index.share_browser_context && !index.headed);
        assert_eq!(index.web.url.as_deref(), Some("/todo.html"));
        assert_eq!(index.web.viewport, Some(WindowSize { width: 800, height: 600 }));
        assert_eq!(index.web.dialogs, Some(DialogPolicy::Accept));
        assert!(index.warnings.is_empty(), "{:?}", index.warnings);

        let plain = batch("files: [a.yaml]\n").unwrap().unwrap();
        assert_eq!((plain.concurrent, plain.continue_on_error, plain.retry), (1, false, 0));
        assert_eq!(plain.summary, "index.json");
        assert!(!plain.share_browser_context && plain.web.is_empty());
    }

    #[test]
    fn a_flow_is_not_an_index_and_an_index_is_not_a_flow() {
        assert_eq!(
            batch("web:\n  url: https://example.com\ntasks:\n  - name: a\n    flow:\n      - sleep: 1\n"),
            Ok(None)
        );
        let err = super::super::parse_flow("files:\n  - a.yaml\n").unwrap_err().to_string();
        assert!(err.contains("batch index file") && err.contains("scripts/suite"), "{err}");
    }

    #[test]
    fn keys_not_honoured_are_warned_with_their_lines() {
        let index = batch(
            "files:\n  - a.yaml\nkeepWindow: true\nreusePage: true\ndotenvOverride: true\nwhatever: 1\nweb:\n  url: https://example.com\n  userAgent: x\n",
        )
        .unwrap()
        .unwrap();
        let w = &index.warnings;
        assert_eq!(w.len(), 5, "{w:?}");
        assert!(w[0].starts_with("line 3: `keepWindow:`"), "{w:?}");
        assert!(w[1].starts_with("line 4: `reusePage:`"), "{w:?}");
        assert!(w[2].starts_with("line 5: `dotenvOverride:`"), "{w:?}");
        assert!(w[3].starts_with("line 6: `whatever:` is not part of a batch index file"), "{w:?}");
        assert!(w[4].starts_with("line 9: `web: userAgent:`"), "{w:?}");
        let old = batch("order:\n  - a.yaml\n").unwrap().unwrap();
        assert_eq!(old.files, ["a.yaml"]);
        assert!(old.warnings[0].starts_with("line 1: `order:` is the older name"), "{:?}", old.warnings);
    }

    #[test]
    fn what_the_suite_cannot_run_as_asked_is_refused_with_its_line() {
        let refused = |text: &str, says: &str| {
            let err = batch(text).unwrap_err().to_string();
            assert!(err.contains(says), "{text:?}: {err}");
        };
        refused("files: [a.yaml]\nsetup: login.yaml\n", "line 2: `setup:` is not run");
        refused("files: [a.yaml]\nconcurrent: 0\n", "line 2: `concurrent:` should be a whole number from 1 to 64");
        refused("files: [a.yaml]\nconcurrent: 2.5\n", "`concurrent:` should be a whole number");
        refused("files: [a.yaml]\nretry: 99\n", "`retry:` should be a whole number from 0 to 10");
        refused("files: [a.yaml]\ncontinueOnError: yes please\n", "`continueOnError:` should be true or false");
        refused("files: a.yaml\n", "`files:` should be a list");
        refused("files: []\n", "`files:` list is empty");
        refused("files: [a.yaml]\nandroid:\n  deviceId: x\n", "line 2: `android:` is not a web target");
        refused("files: [a.yaml]\nweb:\n  url: a\npage:\n  url: b\n", "2 target sections (web, page)");
        refused("files: [a.yaml]\nweb:\n  serve: /etc\n", "`web: serve:`");
        refused("files: [a.yaml]\nweb:\n  dialogs: maybe\n", "`web: dialogs:`");
    }

    #[test]
    fn paths_stay_inside_their_folders() {
        for (text, says) in [
            ("files:\n  - /etc/*.yaml\n", "line 1: `files:` \u{201c}/etc/*.yaml\u{201d} is an absolute path"),
            ("files:\n  - ../../*.yaml\n", "climbs out"),
            ("files:\n  - 'C:\\flows\\a.yaml'\n", "is an absolute path"),
            ("files:\n  - ~/a.yaml\n", "is an absolute path"),
            (
                "files: [a.yaml]\nsummary: /home/me/.bashrc\n",
                "line 2: `summary:` \u{201c}/home/me/.bashrc\u{201d} is an absolute path",
            ),
            ("files: [a.yaml]\nsummary: ../../x.json\n", "climbs out"),
        ] {
            let err = batch(text).unwrap_err().to_string();
            assert!(err.contains(says), "{text:?}: {err}");
        }
    }

    #[test]
    fn names_in_an_index_are_filled_as_a_flows_are() {
        let vars = FlowVars { dotenv: Some("SITE=https://example.com\n".into()), ..Default::default() };
        let index = parse_batch("files: [a.yaml]\nweb:\n  url: ${SITE}/start\n", &vars).unwrap().unwrap();
        assert_eq!(index.web.url.as_deref(), Some("https://example.com/start"));
        // Not taken for an index: read as a flow, the file says which name and where.
        assert_eq!(batch("files: [a.yaml]\nweb:\n  url: ${NOPE}\n"), Ok(None));
        let err = super::super::parse_flow("files: [a.yaml]\nweb:\n  url: ${NOPE}\n").unwrap_err().to_string();
        assert!(err.contains("line 3") && err.contains("NOPE"), "{err}");
        assert_eq!(batch("files: [a.yaml\n"), Ok(None), "a syntax error is the flow reader's to tell");
    }

    #[test]
    fn the_index_web_wins_over_each_files_own_and_leaves_the_rest() {
        let flow = super::super::parse_flow(
            "web:\n  url: https://example.com/a\n  viewportWidth: 1000\n  viewportHeight: 700\n  dialogs: dismiss\ntasks:\n  - name: a\n    flow:\n      - sleep: 1\n",
        )
        .unwrap();
        let web = BatchWeb {
            url: Some("https://example.org/b".into()),
            dialogs: Some(DialogPolicy::Accept),
            ..Default::default()
        };
        let merged = apply_web(flow.clone(), &web);
        assert_eq!(merged.url.as_deref(), Some("https://example.org/b"));
        assert_eq!(merged.dialogs, Some(DialogPolicy::Accept));
        assert_eq!(merged.viewport, flow.viewport, "what the index leaves is the file's");
        assert_eq!(merged.tasks, flow.tasks);
        assert_eq!(apply_web(flow.clone(), &BatchWeb::default()), flow);
    }

    #[test]
    fn the_summary_has_midscenes_shape() {
        let r = |script: &str, status: Option<&str>, attempts: u32, ms: f64| BatchResult {
            script: script.into(),
            status: status.map(Into::into),
            error: (status == Some("failed")).then(|| "assertion_failed: no".into()),
            duration_ms: ms,
            report: (attempts > 0).then(|| format!("reports/{script}.html")),
            attempts,
            partial: false,
        };
        let s = serde_json::to_value(summary(
            &[
                r("a.yaml", Some("passed"), 1, 1200.4),
                r("b.yaml", Some("failed"), 2, 800.0),
                r("c.yaml", Some("skipped"), 0, 0.0),
                r("d.yaml", None, 0, 0.0),
                r("e.yaml", Some("timedOut"), 1, 300.0),
            ],
            "2026-12-04T18:00:00Z",
        ))
        .unwrap();
        let keys = |v: &Value| v.as_object().unwrap().keys().cloned().collect::<Vec<_>>();
        let written = serde_json::to_string(&summary(&[r("a.yaml", Some("passed"), 1, 1.0)], "now")).unwrap();
        assert!(written.starts_with(r#"{"summary":{"total":1,"successful":1,"failed":0,"partialFailed":0,"notExecuted":0,"totalDuration":1,"generatedAt":"now"},"results":[{"script":"a.yaml","success":true,"resultType":"success""#), "Midscene's order: {written}");
        assert_eq!(keys(&s).len(), 2);
        assert_eq!(
            s["summary"],
            json!({"total": 5, "successful": 1, "failed": 2, "partialFailed": 0, "notExecuted": 2, "totalDuration": 2300, "generatedAt": "2026-12-04T18:00:00Z"})
        );
        assert_eq!(
            s["results"][0],
            json!({"script": "a.yaml", "success": true, "resultType": "success", "duration": 1200, "report": "reports/a.yaml.html"})
        );
        assert_eq!(s["results"][1]["error"], "assertion_failed: no");
        assert_eq!(
            s["results"][2],
            json!({"script": "c.yaml", "success": false, "resultType": "notExecuted", "duration": 0, "error": "Not executed (previous task failed)"})
        );
        assert_eq!(s["results"][3]["resultType"], "notExecuted");
        assert_eq!(s["results"][4]["resultType"], "failed");
        assert_eq!(s["results"][4]["error"], "the flow ended timedOut");
        let partial = BatchResult { partial: true, ..r("f.yaml", Some("failed"), 1, 10.0) };
        let p = summary(&[partial.clone(), BatchResult { status: Some("timedOut".into()), ..partial }], "now");
        assert_eq!(
            (p.summary.failed, p.summary.partial_failed),
            (1, 1),
            "only a failed run is partly failed, not a timed-out one"
        );
        assert_eq!(p.results[0].result_type, "partialFailed");
    }
}
