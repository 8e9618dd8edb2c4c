//! The action catalog (`vocab::catalog`) and what is derived from it agree: the tool specs, the
//! prompts' action lists and the parsers' name tables name the same actions, and each action's
//! example call parses back to the action it declares. So do the agent calls (`vocab::calls`)
//! and what `agent::remote` plans, and the calls that mirror an action take its arguments.

use serde_json::{json, Value};
use sightline::agent::remote::{plan, Call};
use sightline::i18n::Lang;
use sightline::parse::{parse_plan, parse_reply, Plan};
use sightline::prompt::{planner_system_prompt, system_prompt};
use sightline::vocab::calls::{self, CALLS};
use sightline::vocab::catalog::{by_call_name, by_plan_type, Action, ListFor, ACTIONS};
use sightline::vocab::family::ModelFamily;
use sightline::vocab::grounding::{by_tool_name, Gesture, Grammar, POINT_ACTIONS};
use sightline::vocab::tools::element_tools;
use sightline::vocab::tools::json_type;
use std::collections::BTreeSet;

/// MAI-UI's own actions, read by the shared tool-call parser but no element family's.
const MAI_UI_OWN: &[&str] = &["swipe", "system_button", "answer"];

fn example(a: &Action) -> Value {
    serde_json::from_str(a.example).unwrap_or_else(|e| panic!("{}: example is not JSON: {e}", a.name))
}

fn kind_of(plan: &Plan) -> Option<String> {
    let last = plan.actions.last()?;
    serde_json::to_value(last).ok()?.get("type")?.as_str().map(str::to_string)
}

fn called(name: &str, arguments: &Value) -> Plan {
    let reply = json!([{ "name": name, "arguments": arguments }]).to_string();
    parse_reply(ModelFamily::FunctionCalling, &reply, None).unwrap_or_else(|e| panic!("{name} {arguments}: {e}"))
}

fn planned(kind: &str, arguments: &Value) -> Plan {
    let mut action = arguments.as_object().cloned().unwrap_or_default();
    action.insert("type".into(), Value::from(kind));
    let reply = json!({ "actions": [action] }).to_string();
    parse_plan(&reply).unwrap_or_else(|e| panic!("{kind} {arguments}: {e}"))
}

#[test]
fn names_and_aliases_are_unique() {
    let mut calls = BTreeSet::new();
    let mut types = BTreeSet::new();
    for a in ACTIONS {
        for name in std::iter::once(&a.name).chain(a.aliases) {
            assert_eq!(name.to_ascii_lowercase(), *name, "call names are lower case");
            assert!(calls.insert(*name), "{name} names two actions");
        }
        for kind in a.plan_type.iter().chain(a.plan_aliases) {
            assert!(types.insert(*kind), "{kind} names two actions");
        }
        assert!(a.params.iter().map(|p| p.name).collect::<BTreeSet<_>>().len() == a.params.len(), "{}", a.name);
    }
}

#[test]
fn every_example_parses_back_to_its_action_by_every_name() {
    for a in ACTIONS {
        let args = example(a);
        for name in std::iter::once(&a.name).chain(a.aliases) {
            let plan = called(name, &args);
            match a.plan_type {
                Some(kind) => assert_eq!(kind_of(&plan).as_deref(), Some(kind), "call {name} {args}"),
                None => assert!(plan.done && plan.actions.is_empty(), "call {name} ends the instruction"),
            }
        }
        for kind in a.plan_type.iter().chain(a.plan_aliases) {
            let plan = planned(kind, &args);
            assert_eq!(kind_of(&plan).as_deref(), a.plan_type, "plan type {kind} {args}");
        }
        for p in a.params.iter().filter(|p| p.required) {
            assert!(args.get(p.name).is_some(), "{}'s example lacks its required {}", a.name, p.name);
        }
    }
}

#[test]
fn the_tool_specs_are_the_offered_actions() {
    let offered: Vec<&str> = ACTIONS.iter().filter(|a| a.offered).map(|a| a.name).collect();
    let specs = element_tools();
    assert_eq!(specs.iter().map(|s| s.name).collect::<Vec<_>>(), offered);
    for spec in &specs {
        let a = by_call_name(spec.name).unwrap();
        let properties = spec.parameters["properties"].as_object().unwrap();
        assert_eq!(
            properties.keys().map(String::as_str).collect::<BTreeSet<_>>(),
            a.params.iter().map(|p| p.name).collect()
        );
        let args = example(a);
        for (name, value) in args.as_object().unwrap() {
            let ty = properties[name]["type"].as_str().unwrap_or("any");
            let fits = match ty {
                "integer" => value.is_u64() || value.is_i64(),
                "number" => value.is_number(),
                "string" => value.is_string(),
                "boolean" => value.is_boolean(),
                "array" => value.is_array(),
                _ => true,
            };
            assert!(fits, "{}'s example gives {name} {value}, the spec says {ty}", a.name);
        }
    }
}

/// The names on a tool list's lines (`  tap, double_click {"target": N}  …`).
fn listed_calls(prompt: &str) -> BTreeSet<String> {
    let list = prompt.split("Tools:\n").nth(1).unwrap().split("\n\n").next().unwrap();
    list.lines()
        .flat_map(|l| l.trim().split(" {").next().unwrap().split(", ").map(str::to_string).collect::<Vec<_>>())
        .collect()
}

/// The types on a JSON plan's action lines (`  {"type": "Back"|"Forward", …}  …`).
fn listed_types(prompt: &str) -> BTreeSet<String> {
    prompt
        .lines()
        .filter_map(|l| l.trim_start().strip_prefix("{\"type\": \""))
        .flat_map(|rest| {
            let types = rest.split([',', '}']).next().unwrap();
            types.split('|').map(|t| t.trim_matches('"').to_string()).collect::<Vec<_>>()
        })
        .collect()
}

#[test]
fn the_prompts_list_the_offered_actions() {
    let calls: BTreeSet<String> = ACTIONS.iter().filter(|a| a.offered).map(|a| a.name.to_string()).collect();
    assert_eq!(listed_calls(&system_prompt(ModelFamily::FunctionCalling)), calls);
    let types = |list: ListFor| -> BTreeSet<String> {
        ACTIONS.iter().filter(|a| a.listed_for(list)).filter_map(|a| a.plan_type).map(str::to_string).collect()
    };
    assert_eq!(listed_types(&system_prompt(ModelFamily::Generic)), types(ListFor::JsonPlan));
    for numbers in [true, false] {
        assert_eq!(
            listed_types(&planner_system_prompt(numbers)),
            types(ListFor::Planner),
            "planner, numbers: {numbers}"
        );
    }
    // The planner describes elements in view only: it plans no ScrollTo, as before the catalog.
    let unplanned: Vec<String> = types(ListFor::JsonPlan).difference(&types(ListFor::Planner)).cloned().collect();
    assert_eq!(unplanned, ["ScrollTo"]);
}

/// The string patterns of the arms of each `match <scrutinee> {` in a source file.
fn arms(source: &str, scrutinee: &str) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    let opener = format!("match {scrutinee} {{\n");
    for (at, _) in source.match_indices(&opener) {
        let body = &source[at + opener.len()..];
        let indent = |l: &str| l.len() - l.trim_start().len();
        let arm_indent = indent(body.lines().next().unwrap());
        for line in body.lines() {
            if !line.trim().is_empty() && indent(line) < arm_indent {
                break;
            }
            // An or-pattern wrapped onto a line of its own would hide its names from this read.
            let wrapped = indent(line) == arm_indent && line.trim_start().starts_with("| ");
            assert!(!wrapped, "a wrapped `match {scrutinee}` arm: {line:?}");
            if indent(line) != arm_indent || !line.trim_start().starts_with('"') {
                continue;
            }
            let patterns = line.split("=>").next().unwrap().split(" if ").next().unwrap();
            out.extend(patterns.split('|').map(|p| p.trim().trim_matches('"').to_string()));
        }
    }
    assert!(!out.is_empty(), "no `match {scrutinee}` arms read");
    out
}

#[test]
fn the_parsers_know_the_catalogs_names_and_no_others() {
    // Calls naming an element are read by `match named` in the tool-call parser; calls at a point
    // by their grounding action (`vocab::grounding`), which names its element action.
    let element_arms = arms(include_str!("../src/parse/tool_calls.rs"), "named");
    let names: BTreeSet<String> = ACTIONS.iter().map(|a| a.name.to_string()).collect();
    let unknown: Vec<&String> = element_arms.difference(&names).collect();
    assert!(unknown.is_empty(), "element calls the catalog lacks: {unknown:?}");
    let at_points: BTreeSet<String> =
        POINT_ACTIONS.iter().filter_map(|p| p.element_action).map(str::to_string).collect();
    let unread: Vec<&String> = names.difference(&element_arms).filter(|n| !at_points.contains(*n)).collect();
    assert!(unread.is_empty(), "catalog names no reader takes: {unread:?}");
    let own: BTreeSet<&str> = POINT_ACTIONS.iter().flat_map(|p| p.tool_names.iter().copied()).collect();
    assert_eq!(own, MAI_UI_OWN.iter().copied().collect(), "the tool-call reader's names beyond the catalog's");
    for name in MAI_UI_OWN {
        assert!(by_call_name(name).is_none(), "{name} is MAI-UI's");
    }
    let plan_types = arms(include_str!("../src/parse/mod.rs"), "kind");
    let types: BTreeSet<String> = ACTIONS.iter().filter_map(|a| a.plan_type).map(str::to_string).collect();
    assert_eq!(plan_types, types, "the JSON plan's arms are the catalog's types");
    assert!(by_plan_type("Finished").is_none() && by_plan_type("tap").is_none(), "plan types match exactly");
}

#[test]
fn every_agent_calls_example_fits_its_schema_and_plans() {
    let mut names = BTreeSet::new();
    for call in CALLS {
        assert!(names.insert(call.name), "{} is declared twice", call.name);
        let args: Value = serde_json::from_str(call.example).unwrap_or_else(|e| panic!("{}: {e}", call.name));
        assert_eq!(calls::type_problem(call, args.as_object().unwrap()), None, "{}", call.name);
        let planned = plan(&Call { tool: call.name.into(), args }, Lang::En);
        assert!(planned.is_ok(), "{}: {planned:?}", call.name);
        let mut missing = serde_json::Map::new();
        if let Some(p) = call.params.iter().find(|p| p.required) {
            assert_eq!(calls::type_problem(call, &missing), Some(format!("{} is missing", p.name)));
            missing.insert(p.name.into(), json!({"not": "this kind"}));
            assert!(json_type(p.kind).is_none() || calls::type_problem(call, &missing).is_some(), "{}", call.name);
        }
    }
}

/// The body of `plan`'s `match tool {`, arm by arm: the tool names and the text of each arm.
fn plan_arms(source: &str) -> Vec<(Vec<String>, String)> {
    let opener = "    match tool {\n";
    let body = &source[source.find(opener).expect("plan's match") + opener.len()..];
    let mut out: Vec<(Vec<String>, String)> = Vec::new();
    for line in body.lines().take_while(|l| *l != "    }") {
        let arm_start = line.starts_with("        \"") && line.contains("=>");
        if arm_start {
            let names = line.split("=>").next().unwrap().split('|').map(|n| n.trim().trim_matches('"').to_string());
            out.push((names.collect(), String::new()));
        }
        if let Some((_, text)) = out.last_mut() {
            text.push_str(line);
            text.push('\n');
        }
    }
    out
}

/// The string literals an arm passes to the argument reads (`args.text("url")`, `args.target("element", "description")`).
fn argument_reads(arm: &str) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    for (at, _) in arm.match_indices("args.") {
        let call = &arm[at + 5..];
        let (read, rest) = call.split_once('(').unwrap();
        if read == "problem" {
            continue;
        }
        let inner = rest.split(')').next().unwrap();
        out.extend(inner.split(',').filter_map(|a| a.trim().strip_prefix('"')?.strip_suffix('"').map(str::to_string)));
    }
    out
}

#[test]
fn remote_plans_each_declared_call_reading_only_its_arguments() {
    let arms = plan_arms(include_str!("../src/agent/remote.rs"));
    let planned: BTreeSet<&str> = arms.iter().flat_map(|(names, _)| names.iter().map(String::as_str)).collect();
    assert_eq!(planned, CALLS.iter().map(|c| c.name).collect::<BTreeSet<_>>(), "plan's arms are the declared calls");
    for (names, arm) in &arms {
        for name in names {
            let call = calls::by_name(name).unwrap();
            for read in argument_reads(arm) {
                assert!(call.param(&read).is_some(), "plan reads {name}'s {read}, which vocab::calls does not declare");
            }
        }
    }
    let reads = argument_reads(&arms.iter().find(|(n, _)| n[0] == "drag").unwrap().1);
    assert_eq!(reads, ["from", "from_element", "to", "to_element"].map(String::from).into(), "the read is read");
}

/// An agent names an element by number or in words, where the catalog's actions take a number:
/// each such pair stands for the catalog's argument.
const ELEMENT_NAMES: &[(&str, &str, &str)] =
    &[("element", "description", "target"), ("from_element", "from", "from"), ("to_element", "to", "to")];
/// An agent call's own names for a catalog argument.
const RENAMED: &[(&str, &str)] = &[("text", "value"), ("to_edge", "to_end")];
/// Arguments only the agent call takes (its key may go to an element, clicked first).
const CALL_ONLY: &[(&str, &str)] = &[("key", "element"), ("key", "description")];

#[test]
fn agent_calls_that_mirror_an_action_take_its_arguments_or_say_why_not() {
    let mut mirrored = Vec::new();
    for call in CALLS {
        let actions: Vec<&Action> = call
            .actions
            .iter()
            .map(|name| by_call_name(name).filter(|a| a.name == *name).unwrap_or_else(|| panic!("{name}: no action")))
            .collect();
        if actions.iter().any(|a| a.name != call.name) {
            assert!(
                !call.differs.is_empty(),
                "{} carries out {:?} under another name: say why",
                call.name,
                call.actions
            );
            continue;
        }
        assert!(call.differs.is_empty(), "{}: same name, nothing differs", call.name);
        let Some(action) = actions.first() else { continue };
        mirrored.push(call.name);
        for p in call.params {
            let name = p.name;
            if CALL_ONLY.contains(&(call.name, name)) {
                continue;
            }
            let (catalog_name, kind) = match ELEMENT_NAMES.iter().find(|(n, w, _)| *n == name || *w == name) {
                Some((_, _, stands_for)) => (*stands_for, "integer"),
                None => (
                    RENAMED.iter().find(|(m, _)| *m == name).map_or(name, |(_, c)| *c),
                    json_type(p.kind).unwrap_or("any"),
                ),
            };
            let param = action.params.iter().find(|q| q.name == catalog_name).unwrap_or_else(|| {
                panic!("the call {} takes {name}, which the catalog's {} lacks", call.name, action.name)
            });
            let expected = json_type(param.kind).unwrap_or("any");
            assert!(
                expected == "any" || kind == expected,
                "{}.{name}: the call says {kind}, the catalog {expected}",
                call.name
            );
        }
    }
    assert_eq!(
        mirrored,
        ["tap", "double_click", "right_click", "hover", "input", "key", "scroll", "drag", "upload"],
        "the calls that are a model's action under its own name"
    );
}

/// A grounding family's action list with its placeholders filled in, so each call can be parsed.
fn filled(list: &str) -> String {
    [
        ("(x1,y1)", "(100,200)"),
        ("(x2,y2)", "(300,400)"),
        ("(x,y)", "(100,200)"),
        ("[x1, y1]", "[100, 200]"),
        ("[x2, y2]", "[300, 400]"),
        ("[x, y]", "[100, 200]"),
        ("'id'", "'2'"),
        (": id", ": 2"),
        ("'down or up or left or right'", "'down'"),
        ("\"success or fail\"", "\"success\""),
    ]
    .iter()
    .fold(list.to_string(), |text, (from, to)| text.replace(from, to))
}

fn section<'a>(prompt: &'a str, start: &str, end: &str) -> &'a str {
    let from = prompt.find(start).unwrap_or_else(|| panic!("{start:?} in {prompt}")) + start.len();
    let rest = &prompt[from..];
    &rest[..rest.find(end).unwrap_or(rest.len())]
}

/// The calls `name(…)` written on a UI-TARS action line, its comment's included (a box's
/// `'(x,y)'` nests its parentheses inside the call's).
fn ui_tars_calls(line: &str) -> Vec<String> {
    let bytes = line.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        let name = bytes[i..].iter().take_while(|b| b.is_ascii_lowercase() || **b == b'_').count();
        let starts = i == 0 || !bytes[i - 1].is_ascii_alphanumeric();
        if name == 0 || !starts || bytes.get(i + name) != Some(&b'(') {
            i += name.max(1);
            continue;
        }
        let mut depth = 0;
        let close = (i + name..bytes.len())
            .find(|&j| {
                depth += match bytes[j] {
                    b'(' => 1,
                    b')' => -1,
                    _ => 0,
                };
                depth == 0
            })
            .unwrap();
        out.push(line[i..=close].to_string());
        i = close + 1;
    }
    out
}

/// The JSON objects written on a line (MAI-UI's arguments, the point tools' calls).
fn objects(line: &str) -> Vec<(usize, String)> {
    let mut out = Vec::new();
    let mut start = None;
    for (i, c) in line.char_indices() {
        match c {
            '{' => start = Some(i),
            '}' => out.extend(start.take().map(|s| (s, line[s..=i].to_string()))),
            _ => {}
        }
    }
    out
}

/// Each grounding family's prompt lists only actions its parser reads: every call on its
/// action list, placeholders filled in, parses.
#[test]
fn the_grounding_prompts_list_only_actions_their_parsers_read() {
    let mapping = sightline::vision::ImageMapping::identity(1000, 1000, 1.0);
    for family in ModelFamily::ALL.into_iter().filter(|f| f.grounds_on_image()) {
        let prompt = filled(&system_prompt(family));
        let mut replies = Vec::new();
        if prompt.contains("## Actions\n") {
            for line in section(&prompt, "## Actions\n", "\n\n").lines() {
                replies.extend(ui_tars_calls(line).into_iter().map(|call| format!("Thought: t\nAction: {call}")));
            }
        } else if prompt.contains("<tool_call>") {
            for line in section(&prompt, "Actions (the \"arguments\" object):\n", "\n\n").lines() {
                replies.extend(objects(line).into_iter().map(|(_, arguments)| {
                    format!("<thinking>t</thinking>\n<tool_call>{{\"name\": \"browser_use\", \"arguments\": {arguments}}}</tool_call>")
                }));
            }
        } else {
            for line in section(&prompt, "Tools:\n", "\n\n").lines() {
                let mut names: Vec<String> = Vec::new();
                for (at, arguments) in objects(line) {
                    let before = line[..at].trim_end();
                    if !before.ends_with(" or") {
                        let written = before.rsplit([';', ':', '}']).next().unwrap();
                        names =
                            written.split(',').map(str::trim).filter(|n| !n.is_empty()).map(str::to_string).collect();
                    }
                    for name in &names {
                        let call = format!("[{{\"name\": \"{name}\", \"arguments\": {arguments}}}]");
                        replies.push(format!("<thinking>t</thinking>\n{call}"));
                    }
                }
            }
        }
        assert!(replies.len() >= 15, "{family:?}: only {} calls read off its prompt", replies.len());
        for reply in replies {
            let parsed = parse_reply(family, &reply, Some(&mapping));
            assert!(parsed.is_ok(), "{family:?}'s prompt lists {reply:?}, which its parser refuses: {parsed:?}");
        }
    }
}

/// What a grounding gesture plans: the kinds of the plan's last action (`None`: the plan ends).
fn plans(gesture: Gesture) -> &'static [&'static str] {
    match gesture {
        Gesture::Click | Gesture::DoubleClick | Gesture::RightClick => &["TapAt"],
        Gesture::Hover => &["HoverAt"],
        Gesture::Drag => &["DragAt"],
        Gesture::Type => &["Type"],
        Gesture::Select => &["SelectAt"],
        Gesture::Key | Gesture::SystemButton => &["KeyPress"],
        Gesture::Scroll | Gesture::Swipe => &["ScrollAt", "Scroll"],
        Gesture::Wait => &["Wait", "WaitFor"],
        Gesture::Navigate => &["Navigate"],
        Gesture::Back => &["Back"],
        Gesture::Forward => &["Forward"],
        Gesture::Reload => &["Reload"],
        Gesture::OpenTab => &["OpenTab"],
        Gesture::SwitchTab => &["SwitchTab"],
        Gesture::CloseTab => &["CloseTab"],
        Gesture::Remember => &["Remember"],
        Gesture::AskUser => &["AskUser"],
        Gesture::Finished | Gesture::Answer => &[],
    }
}

#[test]
fn each_grounding_call_as_its_list_writes_it_does_what_it_is_declared_to() {
    let mapping = sightline::vision::ImageMapping::identity(1000, 1000, 1.0);
    let mut checked = 0;
    for point in POINT_ACTIONS {
        for written in point.written {
            let call = filled(&written.call())
                .replace("'text'", "'milk'")
                .replace("\"...\"", "\"milk\"")
                .replace("\"text\"}", "\"milk\"}")
                .replace("{} or ", "");
            let (family, reply) = match written.grammar {
                Grammar::UiTars => (ModelFamily::UiTars15, format!("Thought: t\nAction: {call}")),
                Grammar::MaiUi => (
                    ModelFamily::MaiUi,
                    format!("<thinking>t</thinking>\n<tool_call>{{\"name\": \"browser_use\", \"arguments\": {call}}}</tool_call>"),
                ),
                Grammar::PointTools => {
                    let (name, arguments) = call.split_once(' ').unwrap_or((&call, "{}"));
                    (ModelFamily::Qwen3Vl, format!("[{{\"name\": \"{name}\", \"arguments\": {arguments}}}]"))
                }
            };
            let plan = parse_reply(family, &reply, Some(&mapping))
                .unwrap_or_else(|e| panic!("{:?} writes {call}, which its parser refuses: {e}", written.grammar));
            let expected = plans(point.gesture);
            match kind_of(&plan) {
                Some(kind) => {
                    assert!(expected.contains(&kind.as_str()), "{call} plans {kind}, not {:?}", point.gesture)
                }
                None => assert!(expected.is_empty() && plan.done, "{call} plans nothing for {:?}", point.gesture),
            }
            checked += 1;
        }
    }
    assert!(checked >= 50, "only {checked} written calls");
}

#[test]
fn a_name_no_grounding_action_declares_is_refused_or_passed_on_as_a_tool() {
    let mapping = sightline::vision::ImageMapping::identity(1000, 1000, 1.0);
    let refused = parse_reply(ModelFamily::UiTars15, "Thought: t\nAction: fly(start_box='(1,1)')", Some(&mapping));
    let message = format!("{}", refused.expect_err("UI-TARS has no fly"));
    for offered in ["click", "left_double", "open_url", "call_user"] {
        assert!(message.contains(offered), "the refusal lists {offered}: {message}");
    }
    assert!(!message.contains("system_button"), "UI-TARS is not offered MAI-UI's calls: {message}");
    assert!(by_tool_name("fly").is_none());
    let passed = parse_reply(ModelFamily::Qwen3Vl, r#"[{"name": "fly", "arguments": {"to": "moon"}}]"#, Some(&mapping))
        .expect("an unknown tool is passed on");
    assert_eq!(kind_of(&passed).as_deref(), Some("Tool"));
}
