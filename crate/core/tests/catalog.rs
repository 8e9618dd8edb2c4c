//! The action catalog (`vocab::catalog`) and what is derived from it agree: the tool specs, the
//! prompts' action lists and the parsers' name tables name the same actions, and each action's
//! example call parses back to the action it declares.

use serde_json::{json, Value};
use sightline::parse::{parse_plan, parse_reply, Plan};
use sightline::prompt::{planner_system_prompt, system_prompt};
use sightline::vocab::catalog::{by_call_name, by_plan_type, Action, ACTIONS};
use sightline::vocab::family::ModelFamily;
use sightline::vocab::tools::element_tools;
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
    let types: BTreeSet<String> =
        ACTIONS.iter().filter(|a| a.offered).filter_map(|a| a.plan_type).map(str::to_string).collect();
    assert_eq!(listed_types(&system_prompt(ModelFamily::Generic)), types);
    for numbers in [true, false] {
        assert_eq!(listed_types(&planner_system_prompt(numbers)), types, "planner, numbers: {numbers}");
    }
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
    let tool_calls = arms(include_str!("../src/parse/tool_calls.rs"), "named");
    let names: BTreeSet<String> = ACTIONS.iter().map(|a| a.name.to_string()).collect();
    let own: BTreeSet<String> = MAI_UI_OWN.iter().chain(&[""]).map(|s| s.to_string()).collect();
    assert_eq!(tool_calls.difference(&names).cloned().collect::<BTreeSet<_>>(), own, "call names the catalog lacks");
    assert_eq!(names.difference(&tool_calls).count(), 0, "catalog names no call arm reads");
    for name in MAI_UI_OWN {
        assert!(by_call_name(name).is_none(), "{name} is MAI-UI's");
    }
    let plan_types = arms(include_str!("../src/parse/mod.rs"), "kind");
    let types: BTreeSet<String> = ACTIONS.iter().filter_map(|a| a.plan_type).map(str::to_string).collect();
    assert_eq!(plan_types, types, "the JSON plan's arms are the catalog's types");
    assert!(by_plan_type("Finished").is_none() && by_plan_type("tap").is_none(), "plan types match exactly");
}
