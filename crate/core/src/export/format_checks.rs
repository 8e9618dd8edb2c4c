//! Each export read back by a real parser of its format, as the program that runs or shows it
//! would read it, and refused where it holds anything the exporter does not write: code, a key,
//! an anchor or tag, markup. Shared by `hostile_tests.rs` (host tests) and the export fuzz
//! targets (crate/fuzz, which include this file by path): it reads text only and names no
//! path of the crate.
//!
//! Each reader returns the output's shape (node kinds, keys, tags in order) and the strings it
//! holds, so a caller can also compare a hostile recording's export with that of a benign twin
//! (the same steps, every text a plain word): escaped text changes strings only, never shape.

#![allow(dead_code)] // each export fuzz target uses its own reader

use oxc_allocator::Allocator;
use oxc_ast::ast::{BindingIdentifier, ImportExpression, TemplateLiteral};
use oxc_ast::ast::{CallExpression, IdentifierName, IdentifierReference, ImportDeclaration, StringLiteral};
use oxc_ast::AstKind;
use oxc_ast_visit::{walk, Visit};
use oxc_parser::Parser;
use oxc_span::SourceType;

/// JavaScript's line terminators besides LF and CR, and the bidirectional controls: none
/// belongs in a file we write, raw (escaped inside literals, left out of comments).
const NEVER_RAW: &[char] = &[
    '\u{2028}', '\u{2029}', '\u{61c}', '\u{200e}', '\u{200f}', '\u{202a}', '\u{202b}', '\u{202c}', '\u{202d}',
    '\u{202e}', '\u{2066}', '\u{2067}', '\u{2068}', '\u{2069}',
];

/// Every name a Playwright spec we write uses: functions, methods, options, parameters.
pub const SPEC_NAMES: &[&str] = &[
    "test",
    "expect",
    "use",
    "viewport",
    "width",
    "height",
    "page",
    "goto",
    "locator",
    "getByRole",
    "getByTestId",
    "getByPlaceholder",
    "getByLabel",
    "getByText",
    "name",
    "exact",
    "nth",
    "contentFrame",
    "frameLocator",
    "or",
    "first",
    "click",
    "dblclick",
    "hover",
    "button",
    "position",
    "x",
    "y",
    "toBeVisible",
    "toHaveText",
    "toContainText",
    "toHaveValue",
    "selectOption",
    "label",
    "fill",
    "press",
    "pressSequentially",
    "mouse",
    "keyboard",
    "type",
    "move",
    "down",
    "up",
    "steps",
    "wheel",
    "evaluate",
    "el",
    "scrollTo",
    "scrollLeft",
    "scrollHeight",
    "scrollWidth",
    "scrollTop",
    "document",
    "scrollingElement",
    "chooser",
    "waitForEvent",
    "setFiles",
    "goBack",
    "goForward",
    "reload",
    "waitFor",
    "state",
    "timeout",
    "waitForTimeout",
    "secret",
    "value",
    "process",
    "env",
    "undefined",
    "Error",
    "dragTo",
];

/// Every name the scripts in Midscene flows and Recorder expressions use.
pub const SCRIPT_NAMES: &[&str] = &[
    "location",
    "href",
    "history",
    "back",
    "forward",
    "reload",
    "s",
    "o",
    "document",
    "evaluate",
    "singleNodeValue",
    "options",
    "find",
    "value",
    "text",
    "trim",
    "Error",
    "dispatchEvent",
    "Event",
    "bubbles",
    "body",
    "innerText",
    "includes",
    "Promise",
    "r",
    "setTimeout",
];

/// A program's shape and contents as the parser read them.
#[derive(Debug, Default, PartialEq)]
pub struct Code {
    /// Node kinds in source order: the program's shape.
    pub kinds: Vec<String>,
    /// Every string literal's value (escapes read).
    pub strings: Vec<String>,
    /// Every comment's text, without its `//`.
    pub comments: Vec<String>,
    pub statements: usize,
    pub calls: usize,
}

struct Reader<'n> {
    code: Code,
    names: &'n [&'n str],
    imports: Vec<String>,
    problems: Vec<String>,
}

impl Reader<'_> {
    fn name(&mut self, name: &str, what: &str) {
        if !self.names.contains(&name) {
            self.problems.push(format!("{what} `{name}` is not one the exporter writes"));
        }
    }
}

impl<'a> Visit<'a> for Reader<'_> {
    fn enter_node(&mut self, kind: AstKind<'a>) {
        if kind.is_statement() {
            self.code.statements += 1;
        }
        self.code.kinds.push(format!("{:?}", kind.ty()));
    }
    fn visit_call_expression(&mut self, it: &CallExpression<'a>) {
        self.code.calls += 1;
        walk::walk_call_expression(self, it);
    }
    fn visit_import_expression(&mut self, it: &ImportExpression<'a>) {
        self.problems.push("a dynamic import()".into());
        walk::walk_import_expression(self, it);
    }
    fn visit_import_declaration(&mut self, it: &ImportDeclaration<'a>) {
        self.imports.push(it.source.value.to_string());
        walk::walk_import_declaration(self, it);
    }
    fn visit_string_literal(&mut self, it: &StringLiteral<'a>) {
        self.code.strings.push(it.value.to_string());
        walk::walk_string_literal(self, it);
    }
    fn visit_template_literal(&mut self, it: &TemplateLiteral<'a>) {
        for q in &it.quasis {
            self.code.strings.push(q.value.raw.to_string());
        }
        walk::walk_template_literal(self, it);
    }
    fn visit_identifier_reference(&mut self, it: &IdentifierReference<'a>) {
        self.name(it.name.as_str(), "identifier");
    }
    fn visit_identifier_name(&mut self, it: &IdentifierName<'a>) {
        self.name(it.name.as_str(), "property");
    }
    fn visit_binding_identifier(&mut self, it: &BindingIdentifier<'a>) {
        self.name(it.name.as_str(), "binding");
    }
}

/// Parses `src` as TypeScript (`ts`) or a JavaScript script, refusing syntax errors, raw line
/// separators or bidirectional controls anywhere, block comments, dynamic imports, and any
/// name not in `names`.
pub fn read_js(src: &str, ts: bool, names: &[&str]) -> Result<(Code, Vec<String>), String> {
    if let Some(c) = src.chars().find(|c| NEVER_RAW.contains(c)) {
        return Err(format!("a raw U+{:04X} in the code", c as u32));
    }
    let allocator = Allocator::default();
    let source_type = if ts { SourceType::ts() } else { SourceType::cjs() };
    let parsed = Parser::new(&allocator, src, source_type).parse();
    if parsed.panicked || !parsed.diagnostics.is_empty() {
        let errors: Vec<String> = parsed.diagnostics.iter().map(|d| d.to_string()).collect();
        return Err(format!("does not parse: {}", errors.join("; ")));
    }
    let mut reader = Reader { code: Code::default(), names, imports: Vec::new(), problems: Vec::new() };
    reader.visit_program(&parsed.program);
    for comment in &parsed.program.comments {
        let text = &src[comment.span.start as usize..comment.span.end as usize];
        let Some(body) = text.strip_prefix("//").filter(|_| comment.is_line()) else {
            reader.problems.push(format!("a block comment {text:?}"));
            continue;
        };
        reader.code.comments.push(body.to_string());
    }
    if !reader.problems.is_empty() {
        return Err(reader.problems.join("; "));
    }
    Ok((reader.code, reader.imports))
}

/// A Playwright spec: TypeScript importing only `@playwright/test`, once, and nothing but the
/// exporter's own names.
pub fn read_spec(src: &str) -> Result<Code, String> {
    let (code, imports) = read_js(src, true, SPEC_NAMES)?;
    if imports != ["@playwright/test"] {
        return Err(format!("imports {imports:?}"));
    }
    Ok(code)
}

/// A script inside a Midscene flow or a Recorder step: plain JavaScript, no import.
pub fn read_script(src: &str) -> Result<Code, String> {
    let (code, imports) = read_js(src, false, SCRIPT_NAMES)?;
    if !imports.is_empty() {
        return Err(format!("imports {imports:?}"));
    }
    Ok(code)
}

/// A data shape: keys and value types in order, as `path:type` lines; strings apart.
#[derive(Debug, Default, PartialEq)]
pub struct Data {
    pub shape: Vec<String>,
    pub strings: Vec<String>,
    /// The scripts inside, read by [`read_script`]: their node kinds.
    pub scripts: Vec<Vec<String>>,
}

/// Keys a Midscene flow item can have: the step keys first, then their options.
const FLOW_STEPS: &[&str] = &[
    "aiAct",
    "aiTap",
    "aiDoubleClick",
    "aiRightClick",
    "aiHover",
    "aiLocate",
    "aiInput",
    "aiKeyboardPress",
    "aiScroll",
    "aiDragAndDrop",
    "javascript",
    "aiWaitFor",
    "sleep",
    "aiQuery",
    "aiBoolean",
    "aiNumber",
    "aiString",
    "aiAsk",
    "aiAssert",
];
const FLOW_OPTIONS: &[&str] = &[
    "value",
    "mode",
    "locate",
    "scrollType",
    "direction",
    "distance",
    "fileChooserAccept",
    "timeout",
    "name",
    "xpath",
];

/// A Midscene YAML flow as we write it: one document of `web` (url, viewport) and `tasks`
/// (name, flow of items), each item a known step key with its known options, scalars plain
/// strings, numbers or null; no anchor, alias or tag anywhere; each `javascript` a script
/// [`read_script`] accepts.
pub fn read_midscene(src: &str) -> Result<Data, String> {
    use yaml_rust2::parser::{Event, Parser};
    // YAML's printable characters (yaml-rust2 reads more; js-yaml, Midscene's reader, refuses
    // the rest), less the line breaks YAML 1.1 readers see in U+0085, U+2028 and U+2029, and the
    // byte-order mark, which may only open a stream.
    let printable = |c: char| {
        matches!(c, '\t' | '\n' | '\r' | ' '..='~' | '\u{a0}'..='\u{d7ff}' | '\u{e000}'..='\u{fffd}' | '\u{10000}'..)
            && !matches!(c, '\u{2028}' | '\u{2029}' | '\u{feff}')
    };
    if let Some(c) = src.chars().find(|c| !printable(*c)) {
        return Err(format!("a raw U+{:04X}, which YAML readers refuse or break a line at", c as u32));
    }
    let mut parser = Parser::new_from_str(src);
    loop {
        let (event, _) = parser.next_token().map_err(|e| format!("does not parse: {e}"))?;
        match event {
            Event::StreamEnd => break,
            Event::Alias(_) => return Err("an alias".into()),
            Event::Scalar(_, _, anchor, tag) | Event::SequenceStart(anchor, tag) | Event::MappingStart(anchor, tag)
                if anchor != 0 || tag.is_some() =>
            {
                return Err(format!("an anchor or tag ({anchor}, {tag:?})"));
            }
            _ => {}
        }
    }
    let docs = yaml_rust2::YamlLoader::load_from_str(src).map_err(|e| format!("does not load: {e}"))?;
    let [doc] = docs.as_slice() else { return Err(format!("{} documents", docs.len())) };
    let mut data = Data::default();
    let top = hash(doc, "the document", &["web", "tasks"], &mut data)?;
    if top.len() != 2 {
        return Err("web and tasks, both".into());
    }
    let web = hash(&doc["web"], "web", &["url", "viewportWidth", "viewportHeight"], &mut data)?;
    for (k, v) in web {
        scalar(v, &format!("web.{k}"), &mut data)?;
    }
    let Some(tasks) = doc["tasks"].as_vec() else { return Err("tasks is no list".into()) };
    for (i, task) in tasks.iter().enumerate() {
        hash(task, &format!("task {i}"), &["name", "flow"], &mut data)?;
        scalar(&task["name"], "name", &mut data)?;
        let Some(flow) = task["flow"].as_vec() else { return Err(format!("task {i}: flow is no list")) };
        for (j, item) in flow.iter().enumerate() {
            let at = format!("task {i} item {j}");
            let all: Vec<&str> = FLOW_STEPS.iter().chain(FLOW_OPTIONS).copied().collect();
            let keys = hash(item, &at, &all, &mut data)?;
            if !keys.first().is_some_and(|(k, _)| FLOW_STEPS.contains(k)) {
                return Err(format!("{at}: does not start with a step"));
            }
            for (k, v) in keys {
                let at = format!("{at}.{k}");
                match k {
                    "aiDragAndDrop" => {
                        hash(v, &at, &["from", "to"], &mut data)?;
                        for end in ["from", "to"] {
                            hash(&v[end], &at, &["prompt"], &mut data)?;
                            scalar(&v[end]["prompt"], &at, &mut data)?;
                        }
                    }
                    "fileChooserAccept" => {
                        let Some(files) = v.as_vec() else { return Err(format!("{at}: no list")) };
                        data.shape.push(format!("{at}:list"));
                        for f in files {
                            scalar(f, &at, &mut data)?;
                        }
                    }
                    "javascript" => {
                        let Some(script) = v.as_str() else { return Err(format!("{at}: no string")) };
                        data.shape.push(format!("{at}:script"));
                        let code = read_script(script).map_err(|e| format!("{at}: {e}"))?;
                        data.strings.extend(code.strings);
                        data.scripts.push(code.kinds);
                    }
                    _ => scalar(v, &at, &mut data)?,
                }
            }
        }
    }
    Ok(data)
}

/// The mapping's entries, refusing a key not in `keys` (and any key not a plain string).
fn hash<'y>(
    y: &'y yaml_rust2::Yaml,
    at: &str,
    keys: &[&str],
    data: &mut Data,
) -> Result<Vec<(&'y str, &'y yaml_rust2::Yaml)>, String> {
    let Some(h) = y.as_hash() else { return Err(format!("{at} is no mapping")) };
    let mut out = Vec::new();
    for (k, v) in h {
        let Some(k) = k.as_str().filter(|k| keys.contains(k)) else {
            return Err(format!("{at}: a key the exporter does not write: {k:?}"));
        };
        data.shape.push(format!("{at}.{k}"));
        out.push((k, v));
    }
    Ok(out)
}

fn scalar(y: &yaml_rust2::Yaml, at: &str, data: &mut Data) -> Result<(), String> {
    use yaml_rust2::Yaml;
    let kind = match y {
        Yaml::String(s) => {
            data.strings.push(s.clone());
            "string"
        }
        Yaml::Integer(_) => "integer",
        Yaml::Null => "null",
        other => return Err(format!("{at}: {other:?} where a string or number belongs")),
    };
    data.shape.push(format!("{at}:{kind}"));
    Ok(())
}

/// Keys of a Recorder step we write.
const RECORDER_KEYS: &[&str] = &[
    "type",
    "target",
    "selectors",
    "frame",
    "offsetX",
    "offsetY",
    "button",
    "value",
    "key",
    "url",
    "assertedEvents",
    "expression",
    "x",
    "y",
    "width",
    "height",
    "deviceScaleFactor",
    "isMobile",
    "hasTouch",
    "isLandscape",
    "title",
    "visible",
    "properties",
];

/// A Chrome Recorder flow as we write it: `title` and `steps`, each step's keys known, its
/// selectors lists of strings, each `expression` a script [`read_script`] accepts.
pub fn read_recorder(src: &str) -> Result<Data, String> {
    use serde_json::Value;
    let flow: Value = serde_json::from_str(src).map_err(|e| format!("does not parse: {e}"))?;
    let Some(top) = flow.as_object() else { return Err("no object".into()) };
    let mut data = Data::default();
    if top.keys().map(String::as_str).collect::<Vec<_>>() != ["steps", "title"] {
        return Err(format!("top keys {:?}", top.keys().collect::<Vec<_>>()));
    }
    data.strings.push(flow["title"].as_str().ok_or("title is no string")?.to_string());
    let steps = flow["steps"].as_array().ok_or("steps is no list")?;
    for (i, step) in steps.iter().enumerate() {
        let Some(step) = step.as_object() else { return Err(format!("step {i} is no object")) };
        for (k, v) in step {
            if !RECORDER_KEYS.contains(&k.as_str()) {
                return Err(format!("step {i}: a key the exporter does not write: {k:?}"));
            }
            let at = format!("{i}.{k}");
            match (k.as_str(), v) {
                ("selectors", Value::Array(alternatives)) => {
                    for parts in alternatives {
                        let parts = parts.as_array().ok_or("a selector is no list")?;
                        data.shape.push(format!("{at}:{}", parts.len()));
                        for p in parts {
                            data.strings.push(p.as_str().ok_or("a selector part is no string")?.to_string());
                        }
                    }
                }
                // A check's element properties: the ones we write, each a string.
                ("properties", Value::Object(props)) => {
                    for (name, value) in props {
                        if !["innerText", "value"].contains(&name.as_str()) {
                            return Err(format!("{at}: a property the exporter does not write: {name:?}"));
                        }
                        let text = value.as_str().ok_or_else(|| format!("{at}.{name} is no string"))?;
                        data.shape.push(format!("{at}.{name}:string"));
                        data.strings.push(text.to_string());
                    }
                }
                ("expression", Value::String(script)) => {
                    let code = read_script(script).map_err(|e| format!("{at}: {e}"))?;
                    data.shape.push(format!("{at}:script"));
                    data.strings.extend(code.strings);
                    data.scripts.push(code.kinds);
                }
                (_, Value::String(s)) => {
                    data.shape.push(format!("{at}:string"));
                    data.strings.push(s.clone());
                }
                (_, other) => data.shape.push(format!("{at}:{}", shape_of(other))),
            }
        }
    }
    Ok(data)
}

/// A JSON value's shape with its strings left out.
fn shape_of(v: &serde_json::Value) -> String {
    use serde_json::Value;
    match v {
        Value::String(_) => "string".into(),
        Value::Array(a) => format!("[{}]", a.iter().map(shape_of).collect::<Vec<_>>().join(",")),
        Value::Object(o) => {
            format!("{{{}}}", o.iter().map(|(k, v)| format!("{k}:{}", shape_of(v))).collect::<Vec<_>>().join(","))
        }
        other => other.to_string(),
    }
}

/// Elements and attributes the report is made of.
const REPORT_TAGS: &[&str] = &[
    "html",
    "head",
    "meta",
    "title",
    "style",
    "body",
    "header",
    "h1",
    "h2",
    "h4",
    "p",
    "span",
    "ul",
    "ol",
    "li",
    "div",
    "code",
    "pre",
    "details",
    "summary",
    "figure",
    "img",
    "figcaption",
    "footer",
];
const REPORT_ATTRIBUTES: &[&str] =
    &["lang", "charset", "http-equiv", "content", "name", "class", "id", "src", "alt", "loading"];

/// The HTML report as a browser's parser (html5ever) builds it: only the elements and
/// attributes it is made of, no script, no handler, images only as data URLs, and `csp` its
/// Content-Security-Policy, the first thing after the charset. Returns the elements in order
/// (`tag.class`) as its shape and every text node as its strings.
pub fn read_report(src: &str, csp: &str) -> Result<Data, String> {
    let doc = scraper::Html::parse_document(src);
    let mut data = Data::default();
    for node in doc.tree.nodes() {
        match node.value() {
            scraper::Node::Element(e) => {
                let tag = e.name();
                if !REPORT_TAGS.contains(&tag) {
                    return Err(format!("a <{tag}> element"));
                }
                for (name, value) in e.attrs() {
                    if !REPORT_ATTRIBUTES.contains(&name) {
                        return Err(format!("<{tag}> with the attribute {name}={value:?}"));
                    }
                    if name == "src" && !value.starts_with("data:image/") {
                        return Err(format!("<{tag}> loads {value:?}"));
                    }
                }
                data.shape.push(format!("{tag}.{}", e.attr("class").unwrap_or_default()));
            }
            scraper::Node::Text(t) => data.strings.push(t.to_string()),
            _ => {}
        }
    }
    let head = scraper::Selector::parse("head > *").expect("a selector");
    let first: Vec<_> = doc.select(&head).take(2).map(|e| e.value()).collect();
    let policy = first.get(1).filter(|m| m.name() == "meta" && m.attr("http-equiv") == Some("Content-Security-Policy"));
    if first.first().and_then(|m| m.attr("charset")).is_none() || policy.and_then(|m| m.attr("content")) != Some(csp) {
        return Err("the charset then the Content-Security-Policy do not open <head>".into());
    }
    Ok(data)
}
