//! Midscene's YAML script → [`Flow`]. Items are read the way Midscene's own runner reads them
//! (`@midscene/core`'s yaml compat layer): `aiInput` with `locate` takes its value from
//! `aiInput`, without it from `value`; `aiKeyboardPress` with `locate` or `keyName` likewise.
//! Anything the file asks that Sightline cannot do is an error naming the item, before any
//! step runs.

use super::{Flow, FlowStep, FlowTask};
use crate::vocab::actions::InputMode;
use crate::vocab::actions::ScrollDirection;
use crate::vocab::actions::ScrollType;
use crate::vocab::geometry::WindowSize;
use crate::vocab::tasks::DialogPolicy;
use crate::vocab::tasks::Task;
use serde_json::Value;
use yaml_rust2::parser::{Event, MarkedEventReceiver, Parser};
use yaml_rust2::scanner::Marker;
use yaml_rust2::{Yaml, YamlLoader};

/// A flow file is a script, not data: 1 MB is far more than any needs.
pub const MAX_FLOW_BYTES: usize = 1 << 20;
/// Nesting deeper than this is no flow (and deep trees are costly to drop).
const MAX_DEPTH: usize = 32;

#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum FlowError {
    #[error("the flow file is empty")]
    Empty,
    #[error("the flow file is {0} KB; a flow file may be at most 1024 KB")]
    TooBig(usize),
    #[error("the flow file is not valid YAML: {message} (line {line}, column {column})")]
    Syntax { message: String, line: usize, column: usize },
    #[error("the flow file uses a YAML alias (*name) at line {0}: write the value out instead")]
    Alias(usize),
    #[error("the flow file nests deeper than {MAX_DEPTH} levels (line {0})")]
    TooDeep(usize),
    /// Valid YAML that is not a flow Sightline can run; says where and why.
    #[error("{0}")]
    Shape(String),
}

/// Reads a Midscene YAML script with no `${NAME}` to fill. Every item is checked before anything runs.
pub fn parse_flow(text: &str) -> Result<Flow, FlowError> {
    parse_flow_with(text, &super::FlowVars::default())
}

/// Reads a Midscene YAML script, its `${NAME}`s filled from `vars` (`flow::vars`).
pub fn parse_flow_with(text: &str, vars: &super::FlowVars) -> Result<Flow, FlowError> {
    let (document, lines) = load(text, vars)?;
    let root = match &document {
        Some(Yaml::Hash(h)) => h,
        Some(Yaml::BadValue | Yaml::Null) | None => return Err(FlowError::Empty),
        Some(_) => return Err(shape("the flow file is not a mapping: it needs `web:` and `tasks:`")),
    };
    let mut flow = Flow::default();
    let lines = &lines;
    let mut tasks = None;
    for (key, value) in root {
        let key = key.as_str().unwrap_or_default();
        match key {
            "web" | "target" | "page" | "browser" => read_web(key, value, &mut flow, lines)?,
            "android" | "ios" | "harmony" | "computer" | "interface" => {
                return Err(shape(&format!("this flow is for `{key}`: Sightline runs web flows (`web:`)")));
            }
            "tasks" => tasks = Some(value),
            "agent" => read_agent(value, &mut flow, lines)?,
            "output" => flow.output = Some(output_path("output", value)?),
            other => {
                let why = format!("`{other}:` is not part of a Midscene web flow: ignored");
                flow.warnings.push(at_line(lines, other, &why));
            }
        }
    }
    let Some(Yaml::Array(tasks)) = tasks else {
        if is_index(root) {
            return Err(shape(
                "this is a batch index file (`files:`), not a flow: run it with scripts/suite, which runs each of its files",
            ));
        }
        return Err(shape("the flow file has no `tasks:` list"));
    };
    for (i, task) in tasks.iter().enumerate() {
        flow.tasks.push(read_task(i, task, &mut flow.warnings, lines)?);
    }
    if flow.step_count() == 0 {
        return Err(shape("the flow has no steps: each task needs a `flow:` list of steps"));
    }
    flow.hash = super::scripts::flow_hash(&flow);
    Ok(flow)
}

/// A YAML file's first document, screened (size, aliases, depth) and its `${NAME}`s filled
/// from `vars`, with the line of each of its keys.
pub(super) fn load(text: &str, vars: &super::FlowVars) -> Result<(Option<Yaml>, KeyLines), FlowError> {
    if text.len() > MAX_FLOW_BYTES {
        return Err(FlowError::TooBig(text.len() / 1024));
    }
    if text.trim().is_empty() {
        return Err(FlowError::Empty);
    }
    let mut reader = ScreenedLoader::default();
    let syntax = Parser::new_from_str(text).load(&mut reader, true);
    if let Some(refused) = reader.refused {
        return Err(refused);
    }
    syntax.map_err(syntax_error)?;
    if reader.documents_ended != reader.loader.documents().len() {
        // The loader stopped on an error it keeps to itself (a key twice in a mapping): only its
        // own entry point says which. Errors alone pay for a second parse.
        YamlLoader::load_from_parser(&mut Parser::new_from_str(text)).map_err(syntax_error)?;
    }
    let mut document = reader.loader.documents().first().cloned();
    if let Some(doc) = document.as_mut() {
        let resolver = super::vars::Resolver::new(vars).map_err(FlowError::Shape)?;
        fill_names(doc, "", &resolver, &reader.lines)?;
    }
    Ok((document, reader.lines))
}

/// True when a YAML mapping is an index file (`files:`, or the older `order:`) and not a flow.
pub(super) fn is_index(root: &yaml_rust2::yaml::Hash) -> bool {
    let has = |k: &str| root.contains_key(&Yaml::String(k.into()));
    (has("files") || has("order")) && !has("tasks")
}

pub(super) fn shape(message: &str) -> FlowError {
    FlowError::Shape(inert(message))
}

/// A message quoting the file's own words with its control characters written out (`\u{1b}`):
/// the panel shows messages as text, but `scripts/run` prints them to a terminal, where a key
/// holding escape sequences would act.
fn inert(message: &str) -> String {
    message.chars().map(|c| if c.is_control() { c.escape_default().to_string() } else { c.to_string() }).collect()
}

fn syntax_error(e: yaml_rust2::ScanError) -> FlowError {
    FlowError::Syntax { message: e.info().to_string(), line: e.marker().line(), column: e.marker().col() + 1 }
}

/// The loader behind a screen, in one pass over the parser's events: no aliases (the loader
/// copies what they name, so a few lines can expand to gigabytes) and bounded depth; nothing
/// reaches the loader after a refusal. Syntax errors are the parser's.
#[derive(Default)]
struct ScreenedLoader {
    loader: YamlLoader,
    depth: usize,
    refused: Option<FlowError>,
    /// Documents the loader was handed to the end: it keeps one for each unless it failed.
    documents_ended: usize,
    /// Where each mapping key is, for warnings that name the line.
    lines: KeyLines,
    /// The open mappings and sequences, and the path to the innermost.
    open: Vec<Open>,
    path: Vec<String>,
}

/// A mapping (waiting for a key, or for the value of `key`) or a sequence (at item `index`).
enum Open {
    Map { key: Option<String> },
    Seq { index: usize },
}

/// The line of each mapping key of the file's first document, by its path
/// (`tasks/0/flow/2/aiTap`).
#[derive(Default)]
pub(super) struct KeyLines(std::collections::HashMap<String, usize>);

impl KeyLines {
    fn line(&self, path: &str) -> Option<usize> {
        self.0.get(path).copied()
    }
}

impl ScreenedLoader {
    /// The path segment a value now starting takes: its key, or its index.
    fn segment(&self) -> Option<String> {
        match self.open.last()? {
            Open::Map { key } => key.clone(),
            Open::Seq { index } => Some(index.to_string()),
        }
    }

    /// A value ended: its mapping waits for the next key, its sequence moves on.
    fn value_done(&mut self) {
        match self.open.last_mut() {
            Some(Open::Map { key }) => *key = None,
            Some(Open::Seq { index }) => *index += 1,
            None => {}
        }
    }

    fn track(&mut self, ev: &Event, mark: &Marker) {
        match ev {
            Event::Scalar(value, ..) => match self.open.last_mut() {
                Some(Open::Map { key: key @ None }) => {
                    *key = Some(value.clone());
                    let path =
                        self.path.iter().map(String::as_str).chain([value.as_str()]).collect::<Vec<_>>().join("/");
                    if self.documents_ended == 0 {
                        self.lines.0.entry(path).or_insert(mark.line());
                    }
                }
                _ => self.value_done(),
            },
            Event::MappingStart(..) | Event::SequenceStart(..) => {
                let segment = self.segment();
                if !self.open.is_empty() {
                    self.path.push(segment.unwrap_or_default());
                }
                self.open.push(match ev {
                    Event::MappingStart(..) => Open::Map { key: None },
                    _ => Open::Seq { index: 0 },
                });
            }
            Event::MappingEnd | Event::SequenceEnd => {
                self.open.pop();
                if !self.open.is_empty() {
                    self.path.pop();
                }
                self.value_done();
            }
            _ => {}
        }
    }
}

impl MarkedEventReceiver for ScreenedLoader {
    fn on_event(&mut self, ev: Event, mark: Marker) {
        if self.refused.is_some() {
            return;
        }
        match ev {
            Event::Alias(_) => self.refused = Some(FlowError::Alias(mark.line())),
            Event::SequenceStart(..) | Event::MappingStart(..) => {
                self.depth += 1;
                if self.depth > MAX_DEPTH {
                    self.refused = Some(FlowError::TooDeep(mark.line()));
                }
            }
            Event::SequenceEnd | Event::MappingEnd => self.depth = self.depth.saturating_sub(1),
            Event::DocumentEnd => self.documents_ended += 1,
            _ => {}
        }
        if self.refused.is_none() {
            self.track(&ev, &mark);
            self.loader.on_event(ev, mark);
        }
    }
}

/// Every `${NAME}` in the values under `path` filled in; an error names the line.
fn fill_names(v: &mut Yaml, path: &str, resolver: &super::vars::Resolver, lines: &KeyLines) -> Result<(), FlowError> {
    let join = |key: &str| if path.is_empty() { key.to_string() } else { format!("{path}/{key}") };
    match v {
        Yaml::String(s) if s.contains("${") => {
            *s = resolver.fill(s).map_err(|why| {
                // The line of the value's key, or of the nearest key above it (a list item's).
                let mut at = path;
                while !at.is_empty() && lines.line(at).is_none() {
                    at = at.rsplit_once('/').map_or("", |(up, _)| up);
                }
                shape(&at_line(lines, at, &why))
            })?;
        }
        Yaml::Hash(h) => {
            for (key, value) in h.iter_mut() {
                fill_names(value, &join(key.as_str().unwrap_or_default()), resolver, lines)?;
            }
        }
        Yaml::Array(items) => {
            for (i, item) in items.iter_mut().enumerate() {
                fill_names(item, &join(&i.to_string()), resolver, lines)?;
            }
        }
        _ => {}
    }
    Ok(())
}

/// `why`, with the line of the key at `path` where the file has it.
pub(super) fn at_line(lines: &KeyLines, path: &str, why: &str) -> String {
    match lines.line(path) {
        Some(line) => format!("line {line}: {}", inert(why)),
        None => inert(why),
    }
}

/// `web:` keys read here.
const WEB_KEYS: &[&str] = &["url", "serve", "viewportWidth", "viewportHeight", "dialogs", "output"];

pub(super) fn read_web(section: &str, value: &Yaml, flow: &mut Flow, lines: &KeyLines) -> Result<(), FlowError> {
    let Yaml::Hash(web) = value else {
        return Err(shape("`web:` should be a mapping with `url:`"));
    };
    for key in web.keys().filter_map(Yaml::as_str).filter(|k| !WEB_KEYS.contains(k)) {
        let why = format!("`{section}: {key}:` is not honoured here: the flow runs in the browser as it is");
        flow.warnings.push(at_line(lines, &format!("{section}/{key}"), &why));
    }
    let get = |k: &str| web.get(&Yaml::String(k.into()));
    flow.url = get("url").and_then(text);
    flow.serve = get("serve").and_then(text).map(|folder| served_folder(&folder)).transpose()?;
    if let Some(output) = get("output") {
        flow.output = Some(output_path(&format!("{section}: output"), output)?);
    }
    let size = |k: &str| get(k).and_then(number).filter(|n| *n >= 1.0 && *n <= 10_000.0).map(|n| n as u32);
    if let (Some(width), Some(height)) = (size("viewportWidth"), size("viewportHeight")) {
        flow.viewport = Some(WindowSize { width, height });
    }
    if let Some(answer) = get("dialogs") {
        let name = text(answer).unwrap_or_default();
        flow.dialogs = Some(DialogPolicy::from_name(&name).ok_or_else(|| {
            shape(&format!("`web: dialogs:` \u{201c}{name}\u{201d} is not one of {}: how the page's dialogs (confirm, prompt, leave the page?) are answered", DialogPolicy::NAMES))
        })?);
    }
    Ok(())
}

/// `agent:`: the run's context, its rounds, the cache and the report's names are honoured;
/// the rest is said not to be.
fn read_agent(value: &Yaml, flow: &mut Flow, lines: &KeyLines) -> Result<(), FlowError> {
    let Yaml::Hash(agent) = value else {
        flow.warnings.push(at_line(lines, "agent", "`agent:` should be a mapping: ignored"));
        return Ok(());
    };
    for (key, value) in agent {
        let key = key.as_str().unwrap_or_default();
        let path = format!("agent/{key}");
        let mut warn = |why: &str| flow.warnings.push(at_line(lines, &path, why));
        match key {
            "aiActContext" | "aiActionContext" => match text(value).filter(|t| !t.trim().is_empty()) {
                Some(context) => flow.context = Some(context),
                None => warn(&format!("`agent: {key}:` should be text: ignored")),
            },
            "replanningCycleLimit" => match number(value).filter(|n| *n >= 1.0) {
                Some(n) => flow.max_rounds = Some(n.min(1_000.0) as u32),
                None => warn("`agent: replanningCycleLimit:` should be a number of at least 1: ignored"),
            },
            "cache" => {
                let (cache, notes) = read_cache(value)?;
                for (sub, why) in notes {
                    flow.warnings.push(at_line(lines, &format!("{path}/{sub}"), &why));
                }
                flow.cache = Some(cache);
            }
            "testId" | "groupName" => match text(value).filter(|t| !t.trim().is_empty()) {
                Some(name) if key == "testId" => flow.report.test_id = Some(name),
                Some(name) => flow.report.group_name = Some(name),
                None => warn(&format!("`agent: {key}:` should be text: ignored")),
            },
            "reportFileName" => flow.report.file_name = Some(report_file_name(value)?),
            "groupDescription" => {
                warn("`agent: groupDescription:` is not shown: the report has the flow's tasks and steps")
            }
            other => warn(&format!("`agent: {other}:` is not honoured here: the run uses Sightline's own setting")),
        }
    }
    Ok(())
}

/// `agent: cache`: `true` / `false`, or `{id, strategy}` (Midscene's strategies). Its notes: what
/// of it is not honoured, as (the key under `cache`, why).
fn read_cache(value: &Yaml) -> Result<(super::FlowCache, Vec<(String, String)>), FlowError> {
    use super::FlowCache;
    let mut notes = Vec::new();
    let cache = match value {
        Yaml::Boolean(on) => FlowCache { read: *on, write: *on, id: None },
        Yaml::Hash(h) => {
            let get = |k: &str| h.get(&Yaml::String(k.into()));
            let (read, write) = match get("strategy").map(|s| text(s).unwrap_or_default()).as_deref() {
                None | Some("read-write") => (true, true),
                Some("read-only") => (true, false),
                Some("write-only") => (false, true),
                Some(other) => {
                    return Err(shape(&format!(
                    "`agent: cache: strategy:` \u{201c}{other}\u{201d} is not one of read-write, read-only, write-only"
                )))
                }
            };
            let id = get("id").and_then(text).filter(|t| !t.trim().is_empty());
            if id.is_some() {
                notes.push((
                    "id".into(),
                    "`agent: cache: id:` names Midscene's cache file: Sightline keeps one cache, by page and prompt (the strategy is honoured)".into(),
                ));
            }
            for key in h.keys().filter_map(Yaml::as_str).filter(|k| !["id", "strategy"].contains(k)) {
                notes.push((key.to_string(), format!("`agent: cache: {key}:` is not honoured here: ignored")));
            }
            FlowCache { read, write, id }
        }
        _ => return Err(shape("`agent: cache:` should be true, false or `{id, strategy}`")),
    };
    Ok((cache, notes))
}

/// A path a file names for what a runner writes, checked as `web.serve` is: relative to the
/// flow file, inside its folder tree, and (for `output`) a `.json` file, so a shared flow
/// cannot have a runner overwrite `~/.bashrc` or `../../x`. (A symlink leading out is the
/// runner's to refuse: only the machine can tell.)
fn output_path(key: &str, value: &Yaml) -> Result<String, FlowError> {
    let path = text(value).unwrap_or_default();
    let said = |why: &str| {
        shape(&format!(
            "`{key}:` \u{201c}{path}\u{201d} {why}: the named results are written only into the flow file's own folder or one in it, as a .json file (e.g. `output: results.json`)"
        ))
    };
    if path.trim().is_empty() {
        return Err(said("is no path"));
    }
    let bytes = path.as_bytes();
    let drive = bytes.len() >= 2 && bytes[0].is_ascii_alphabetic() && bytes[1] == b':';
    if path.starts_with(['/', '\\', '~']) || drive {
        return Err(said("is an absolute path"));
    }
    if path.split(['/', '\\']).any(|part| part == "..") {
        return Err(said("climbs out of the flow file's folder (`..`)"));
    }
    if path.chars().any(char::is_control) {
        return Err(said("is not a file's name"));
    }
    if !path.to_ascii_lowercase().ends_with(".json") {
        return Err(said("is not a .json file"));
    }
    Ok(path)
}

/// `agent: reportFileName`: a file's name (no folder), the report's file in the runner's output.
fn report_file_name(value: &Yaml) -> Result<String, FlowError> {
    let name = text(value).unwrap_or_default();
    let name = name.trim();
    let bad = name.is_empty()
        || name.len() > 200
        || name.starts_with('.')
        || name.chars().any(|c| c.is_control() || matches!(c, '/' | '\\' | ':' | '*' | '?' | '"' | '<' | '>' | '|'));
    if bad {
        return Err(shape(&format!(
            "`agent: reportFileName:` \u{201c}{name}\u{201d} is not a file's name: write a name without a folder (e.g. `reportFileName: todo-report`)"
        )));
    }
    Ok(name.to_string())
}

/// A flow serves only its own folder and the folders in it, so a shared file cannot have a
/// runner serve `/home/…/.ssh` or `../..`: `web.serve` is a relative path with no `..`. (A
/// symlink leading out is the runner's to refuse: only the machine can tell.)
fn served_folder(folder: &str) -> Result<String, FlowError> {
    let said = |why: &str| {
        shape(&format!(
            "`web: serve:` \u{201c}{folder}\u{201d} {why}: a flow serves only its own folder and the folders in it; write the folder relative to the flow file (e.g. `.` or `site`), or move the flow file into the folder it serves"
        ))
    };
    let bytes = folder.as_bytes();
    let drive = bytes.len() >= 2 && bytes[0].is_ascii_alphabetic() && bytes[1] == b':';
    if folder.starts_with(['/', '\\']) || drive {
        return Err(said("is an absolute path"));
    }
    if folder.split(['/', '\\']).any(|part| part == "..") {
        return Err(said("climbs out of the flow file's folder (`..`)"));
    }
    if folder.contains('\0') {
        return Err(said("is not a folder's name"));
    }
    Ok(folder.to_string())
}

fn read_task(i: usize, task: &Yaml, warnings: &mut Vec<String>, lines: &KeyLines) -> Result<FlowTask, FlowError> {
    let Yaml::Hash(h) = task else {
        return Err(shape(&format!("task {}: should be a mapping with `name:` and `flow:`", i + 1)));
    };
    let get = |k: &str| h.get(&Yaml::String(k.into()));
    let name = get("name").and_then(text).unwrap_or_else(|| format!("Task {}", i + 1));
    let at = |n: usize| format!("task {} (\u{201c}{}\u{201d}), step {}", i + 1, name, n + 1);
    let items = match get("flow") {
        Some(Yaml::Array(items)) => items,
        _ => return Err(shape(&format!("task {} (\u{201c}{name}\u{201d}): it has no `flow:` list of steps", i + 1))),
    };
    for key in h.keys().filter_map(Yaml::as_str).filter(|k| !["name", "flow", "continueOnError"].contains(k)) {
        let why = format!("task {} (\u{201c}{name}\u{201d}): `{key}:` is not a task option: ignored", i + 1);
        warnings.push(at_line(lines, &format!("tasks/{i}/{key}"), &why));
    }
    let mut steps = Vec::new();
    for (n, item) in items.iter().enumerate() {
        let mut notes = Vec::new();
        let read = read_item(item, &mut notes).map_err(|why| shape(&format!("{}: {why}", at(n))))?;
        for (key, why) in notes {
            warnings.push(at_line(lines, &format!("tasks/{i}/flow/{n}/{key}"), &format!("{}: {why}", at(n))));
        }
        if let Item::Step(step) = read {
            steps.push(step);
        }
    }
    let continue_on_error = matches!(get("continueOnError"), Some(Yaml::Boolean(true)));
    Ok(FlowTask { name, continue_on_error, steps })
}

enum Item {
    Step(FlowStep),
    /// Read, and not run (what it asks is done anyway).
    Skip,
}

/// Step options read here (each where its step takes it).
const STEP_OPTIONS: &[&str] = &[
    "locate",
    "prompt",
    "value",
    "mode",
    "xpath",
    "name",
    "keyName",
    "direction",
    "scrollType",
    "distance",
    "timeout",
    "fileChooserAccept",
    "from",
    "to",
    "instruction",
];

/// Step options of Midscene's that change how its model works, which Sightline's does its own way.
const MODEL_OPTIONS: &[&str] = &[
    "cacheable",
    "deepThink",
    "deepLocate",
    "domIncluded",
    "screenshotIncluded",
    "planningStrategy",
    "images",
    "convertHttpImage2Base64",
    "autoDismissKeyboard",
    "errorMessage",
];

/// The keys that name what an item does, in the order Midscene's runner tries them.
const ACTION_KEYS: &[&str] = &[
    "aiAct",
    "aiAction",
    "ai",
    "aiTap",
    "aiDoubleClick",
    "aiRightClick",
    "aiHover",
    "aiLocate",
    "aiInput",
    "aiKeyboardPress",
    "aiScroll",
    "aiDragAndDrop",
    "aiQuery",
    "aiBoolean",
    "aiNumber",
    "aiString",
    "aiAsk",
    "aiAssert",
    "aiWaitFor",
    "sleep",
    "javascript",
    "logScreenshot",
    "recordToReport",
    "runGherkinScenario",
];

/// One step of a task's `flow:`. `notes`: what of it is not honoured, as (the key's path in the
/// step, why).
fn read_item(item: &Yaml, notes: &mut Vec<(String, String)>) -> Result<Item, String> {
    let Yaml::Hash(h) = item else {
        return Err("a step should be a mapping, e.g. `- aiTap: the Save button`".into());
    };
    let get = |k: &str| h.get(&Yaml::String(k.into()));
    let Some(&kind) = ACTION_KEYS.iter().find(|k| get(k).is_some()) else {
        let keys: Vec<&str> = h.keys().filter_map(Yaml::as_str).collect();
        return Err(format!(
            "no step Sightline knows (keys: {}); steps are {}",
            keys.join(", "),
            ACTION_KEYS[..20].join(", ")
        ));
    };
    for key in h.keys().filter_map(Yaml::as_str).filter(|k| *k != kind && !STEP_OPTIONS.contains(k)) {
        let why = match key {
            k if ACTION_KEYS.contains(&k) => format!("`{k}:` is a second step in the same item: only `{kind}` runs"),
            k if MODEL_OPTIONS.contains(&k) => {
                format!("`{k}:` is not honoured here: Sightline's model works its own way")
            }
            k => format!("`{k}:` is not an option of {kind}: ignored"),
        };
        notes.push((key.to_string(), why));
    }
    let value = get(kind).unwrap_or(&Yaml::Null);
    // Pictures that describe the element, in either locate form: read, not sent.
    for (path, locate) in [(kind.to_string(), Some(value)), ("locate".to_string(), get("locate"))] {
        if let Some(path) = images_in(locate, &path) {
            notes.push((path, "`images:` are not sent with the description: the model is given its words only".into()));
        }
    }
    let prompt_of = |v: Option<&Yaml>| v.and_then(prompt).filter(|p| !p.trim().is_empty());
    // The element: the item's own value, else `locate:` / `prompt:`.
    let locate = || prompt_of(Some(value)).or_else(|| prompt_of(get("locate"))).or_else(|| prompt_of(get("prompt")));
    let need_locate = || locate().ok_or_else(|| format!("{kind} needs a description of the element"));
    let xpath = get("xpath").and_then(text).filter(|x| !x.trim().is_empty());
    let name = get("name").and_then(text);
    let task = |task: Task| Ok(Item::Step(FlowStep::Task { task, xpath: xpath.clone(), name: name.clone() }));
    match kind {
        "aiAct" | "aiAction" | "ai" => {
            let instruction = prompt_of(Some(value))
                .or_else(|| prompt_of(get("instruction")))
                .ok_or(format!("{kind} needs an instruction"))?;
            Ok(Item::Step(FlowStep::Act { instruction }))
        }
        "aiTap" => match get("fileChooserAccept") {
            Some(files) => {
                let files = match files {
                    Yaml::Array(list) => list.iter().filter_map(text).collect(),
                    one => text(one).into_iter().collect(),
                };
                task(Task::Upload { locate: need_locate()?, files })
            }
            None => task(Task::Tap { locate: need_locate()? }),
        },
        "aiDoubleClick" => task(Task::DoubleClick { locate: need_locate()? }),
        "aiRightClick" => task(Task::RightClick { locate: need_locate()? }),
        "aiHover" => task(Task::Hover { locate: need_locate()? }),
        "aiLocate" => task(Task::Locate { locate: need_locate()? }),
        "aiInput" => {
            // Midscene's two forms: `aiInput: <value>` + `locate:`, or `aiInput: <element>` + `value:`.
            let (locate, value) = match prompt_of(get("locate")) {
                Some(l) => (l, text(value).unwrap_or_default()),
                None => (prompt_of(Some(value)).unwrap_or_default(), get("value").and_then(text).unwrap_or_default()),
            };
            let mode = match get("mode").and_then(text).as_deref() {
                None | Some("replace") => InputMode::Replace,
                Some("typeOnly" | "append") => InputMode::Append,
                Some("clear") => InputMode::Clear,
                Some(other) => {
                    return Err(format!("aiInput mode \u{201c}{other}\u{201d} is not one of replace, typeOnly, clear"))
                }
            };
            if locate.is_empty() && mode != InputMode::Append {
                return Err(
                    "aiInput needs a description of the field (or `mode: typeOnly` to type into what has focus)".into(),
                );
            }
            task(Task::Input { locate, value, mode })
        }
        "aiKeyboardPress" => {
            let (key, locate) = match (prompt_of(get("locate")), get("keyName").and_then(text)) {
                (Some(l), _) => (text(value), Some(l)),
                (None, Some(key)) => (Some(key), prompt_of(Some(value))),
                (None, None) => (text(value), None),
            };
            let key = key.filter(|k| !k.trim().is_empty()).ok_or("aiKeyboardPress needs a key, e.g. Enter")?;
            task(Task::KeyboardPress { key, locate })
        }
        "aiScroll" => {
            let direction = match get("direction").and_then(text).as_deref() {
                None | Some("down") => ScrollDirection::Down,
                Some("up") => ScrollDirection::Up,
                Some("left") => ScrollDirection::Left,
                Some("right") => ScrollDirection::Right,
                Some(other) => {
                    return Err(format!(
                        "aiScroll direction \u{201c}{other}\u{201d} is not one of down, up, left, right"
                    ))
                }
            };
            let (scroll_type, direction) = match get("scrollType").and_then(text).as_deref() {
                None | Some("singleAction" | "once") => (ScrollType::Once, direction),
                Some("scrollToBottom" | "untilBottom") => (ScrollType::UntilEdge, ScrollDirection::Down),
                Some("scrollToTop" | "untilTop") => (ScrollType::UntilEdge, ScrollDirection::Up),
                Some("scrollToRight" | "untilRight") => (ScrollType::UntilEdge, ScrollDirection::Right),
                Some("scrollToLeft" | "untilLeft") => (ScrollType::UntilEdge, ScrollDirection::Left),
                Some(other) => {
                    return Err(format!("aiScroll scrollType \u{201c}{other}\u{201d} is not one Midscene defines"))
                }
            };
            let distance = get("distance").and_then(number).filter(|d| *d > 0.0);
            task(Task::Scroll { locate: locate(), direction, scroll_type, distance })
        }
        "aiDragAndDrop" => {
            let end = |k: &str| {
                prompt_of(get(k)).or_else(|| match value {
                    Yaml::Hash(v) => prompt_of(v.get(&Yaml::String(k.into()))),
                    _ => None,
                })
            };
            let (from, to) =
                (end("from").ok_or("aiDragAndDrop needs `from:`")?, end("to").ok_or("aiDragAndDrop needs `to:`")?);
            Ok(Item::Step(FlowStep::Task { task: Task::Drag { from, to }, xpath: None, name }))
        }
        "aiQuery" => {
            let demand = match value {
                Yaml::Hash(_) | Yaml::Array(_) => to_json(value),
                other => {
                    Value::String(text(other).filter(|t| !t.trim().is_empty()).ok_or("aiQuery needs the data to read")?)
                }
            };
            task(Task::Query { demand })
        }
        "aiBoolean" | "aiNumber" | "aiString" | "aiAsk" => {
            let question = prompt_of(Some(value)).ok_or(format!("{kind} needs a question"))?;
            task(match kind {
                "aiBoolean" => Task::Boolean { question },
                "aiNumber" => Task::Number { question },
                "aiString" => Task::Text { question },
                _ => Task::Ask { question },
            })
        }
        "aiAssert" => {
            task(Task::Assert { assertion: prompt_of(Some(value)).ok_or("aiAssert needs the statement to check")? })
        }
        "aiWaitFor" => {
            let assertion = prompt_of(Some(value)).ok_or("aiWaitFor needs the condition to wait for")?;
            let timeout_ms =
                get("timeout").and_then(number).filter(|t| *t > 0.0).map_or(15_000, |t| t.min(600_000.0) as u32);
            task(Task::WaitFor { assertion, timeout_ms, interval_ms: 1_000.min(timeout_ms) })
        }
        "sleep" => {
            let ms = number(value).filter(|m| *m >= 0.0).ok_or("sleep needs a number of milliseconds")?;
            Ok(Item::Step(FlowStep::Sleep { ms: ms.min(600_000.0) as u32 }))
        }
        "logScreenshot" | "recordToReport" => {
            notes.push((kind.to_string(), format!("{kind} is not needed: the report has a screenshot of every step")));
            Ok(Item::Skip)
        }
        "javascript" => {
            let code = text(value).filter(|c| !c.trim().is_empty()).ok_or("javascript needs the code to run")?;
            match super::known::step_of(&code) {
                // The scripts our export writes (a navigation, back, forward, reload, a choice
                // in a list), done as Sightline's own steps without running them.
                Some(step) => Ok(Item::Step(step)),
                // Code: run in the page where the person allowed this file (`flow::scripts`).
                None => Ok(Item::Step(FlowStep::Script { code, name })),
            }
        }
        _ => Err(format!("{kind} is not supported by Sightline")),
    }
}

/// A scalar as text (numbers and booleans too, as a value to type may be one).
pub(super) fn text(v: &Yaml) -> Option<String> {
    match v {
        Yaml::String(s) | Yaml::Real(s) => Some(s.clone()),
        Yaml::Integer(i) => Some(i.to_string()),
        Yaml::Boolean(b) => Some(b.to_string()),
        _ => None,
    }
}

/// A prompt: text, or Midscene's `{prompt: …}` form, also as `{locate: {prompt: …}}` (a
/// step's own value written as its options).
fn prompt(v: &Yaml) -> Option<String> {
    match v {
        Yaml::Hash(h) => {
            let get = |k: &str| h.get(&Yaml::String(k.into()));
            get("prompt").and_then(text).or_else(|| get("locate").and_then(prompt))
        }
        other => text(other),
    }
}

/// The path of an `images:` key inside a locate value at `path` (either form), if it has one.
fn images_in(v: Option<&Yaml>, path: &str) -> Option<String> {
    let Some(Yaml::Hash(h)) = v else { return None };
    if h.contains_key(&Yaml::String("images".into())) {
        return Some(format!("{path}/images"));
    }
    images_in(h.get(&Yaml::String("locate".into())), &format!("{path}/locate"))
}

pub(super) fn number(v: &Yaml) -> Option<f64> {
    match v {
        Yaml::Integer(i) => Some(*i as f64),
        Yaml::Real(s) | Yaml::String(s) => s.trim().parse().ok().filter(|n: &f64| n.is_finite()),
        _ => None,
    }
}

fn to_json(v: &Yaml) -> Value {
    match v {
        // Inserted one by one: collecting sorts the entries first, a sort compiled for them alone.
        Yaml::Hash(h) => Value::Object(h.iter().fold(serde_json::Map::new(), |mut map, (k, v)| {
            map.insert(text(k).unwrap_or_default(), to_json(v));
            map
        })),
        Yaml::Array(a) => Value::Array(a.iter().map(to_json).collect()),
        Yaml::Integer(i) => Value::from(*i),
        Yaml::Real(s) => {
            s.parse::<f64>().ok().and_then(serde_json::Number::from_f64).map_or(Value::Null, Value::Number)
        }
        Yaml::Boolean(b) => Value::Bool(*b),
        Yaml::String(s) => Value::String(s.clone()),
        _ => Value::Null,
    }
}
