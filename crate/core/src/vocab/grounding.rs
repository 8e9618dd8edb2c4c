//! The actions of the grounding families, which act at points on the screenshot (point tools
//! for Qwen-VL and Gemini, UI-TARS, MAI-UI), each declared once: what it does (`Gesture`), the
//! names each reader takes for it, and how each family's prompt writes it. The prompts' action
//! lists (`grammar`) and the readers' name tables (`by_tool_name`, `by_ui_tars_name`) are
//! derived from it, so what a prompt offers and what its parser reads cannot drift apart.

use super::catalog;

/// What a grounding call does, as the readers turn it into a planned action.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Gesture {
    Click,
    DoubleClick,
    RightClick,
    Hover,
    Drag,
    Type,
    Select,
    Key,
    Scroll,
    /// A finger's swipe: between two points it drags; in a direction it scrolls the other way.
    Swipe,
    /// MAI-UI's phone buttons: enter, back.
    SystemButton,
    Wait,
    Navigate,
    Back,
    Forward,
    Reload,
    OpenTab,
    SwitchTab,
    CloseTab,
    Remember,
    Finished,
    /// MAI-UI's answer: done, with the answer.
    Answer,
    AskUser,
}

/// A family's way of writing calls.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Grammar {
    /// A JSON list of `{"name", "arguments"}` calls (Qwen-VL, Gemini).
    PointTools,
    /// `name(key='value')` calls after `Action:`.
    UiTars,
    /// `<tool_call>` with `browser_use` and an `"action"` in its arguments.
    MaiUi,
}

/// How one grammar's action list writes one action.
#[derive(Clone, Copy, Debug)]
pub struct Written {
    pub grammar: Grammar,
    /// The name the list writes.
    pub name: &'static str,
    /// Its arguments with placeholders, as the grammar writes them (`"coordinate": [x, y]`,
    /// `start_box='(x,y)'`); empty for none.
    pub args: &'static str,
    /// What the list says about it; for a run of joined actions, the first's.
    pub gloss: &'static str,
    /// Written on the line of the action before it in this grammar.
    pub joins: bool,
}

/// One grounding action.
#[derive(Clone, Copy, Debug)]
pub struct PointAction {
    pub gesture: Gesture,
    /// The element action it is, at a point (`catalog::ACTIONS`): the tool-call reader takes
    /// that action's call names for it.
    pub element_action: Option<&'static str>,
    /// Names the tool-call reader takes besides the element action's (MAI-UI's own).
    pub tool_names: &'static [&'static str],
    /// Names the UI-TARS reader takes, lower case.
    pub ui_tars_names: &'static [&'static str],
    /// How each grammar's list writes it; a grammar with no entry does not offer it (its reader
    /// may still take it).
    pub written: &'static [Written],
}

const fn w(grammar: Grammar, name: &'static str, args: &'static str, gloss: &'static str) -> Written {
    Written { grammar, name, args, gloss, joins: false }
}

const fn joined(grammar: Grammar, name: &'static str, args: &'static str) -> Written {
    Written { grammar, name, args, gloss: "", joins: true }
}

use Grammar::{MaiUi as M, PointTools as P, UiTars as U};

const POINT_P: &str = r#""coordinate": [x, y]"#;
const POINT_U: &str = "start_box='(x,y)'";
const URL_P: &str = r#""url": "https://...""#;
const URL_U: &str = "url='https://...'";
const INTO_FIELD: &str =
    "types into the field at the coordinate (optional: else the focused one); end with \\n to submit";
const ANSWER: &str = "what was done, or the answer asked for";

pub const POINT_ACTIONS: &[PointAction] = &[
    PointAction {
        gesture: Gesture::Click,
        element_action: Some("tap"),
        tool_names: &[],
        ui_tars_names: &["click", "left_single", "left_click", "tap"],
        written: &[w(P, "click", POINT_P, ""), w(U, "click", POINT_U, ""), w(M, "click", POINT_P, "")],
    },
    PointAction {
        gesture: Gesture::DoubleClick,
        element_action: Some("double_click"),
        tool_names: &[],
        ui_tars_names: &["left_double", "double_click", "doubleclick"],
        written: &[
            joined(P, "double_click", POINT_P),
            w(U, "left_double", POINT_U, ""),
            w(M, "double_click", POINT_P, ""),
        ],
    },
    PointAction {
        gesture: Gesture::RightClick,
        element_action: Some("right_click"),
        tool_names: &[],
        ui_tars_names: &["right_single", "right_click"],
        written: &[joined(P, "right_click", POINT_P), w(U, "right_single", POINT_U, "")],
    },
    PointAction {
        gesture: Gesture::Hover,
        element_action: Some("hover"),
        tool_names: &[],
        ui_tars_names: &["hover", "mouse_move", "move_to"],
        written: &[joined(P, "hover", POINT_P), w(U, "hover", POINT_U, "")],
    },
    PointAction {
        gesture: Gesture::Type,
        element_action: Some("input"),
        tool_names: &[],
        ui_tars_names: &["type", "input", "type_text"],
        written: &[
            w(P, "type", r#""text": "...", "coordinate": [x, y]"#, INTO_FIELD),
            w(
                U,
                "type",
                "content='text', start_box='(x,y)'",
                "into the field at the box (optional: else the focused one); end the content with \\n to submit it",
            ),
            w(M, "type", r#""text": "...", "coordinate": [x, y]"#, INTO_FIELD),
        ],
    },
    PointAction {
        gesture: Gesture::Select,
        element_action: Some("select_option"),
        tool_names: &[],
        ui_tars_names: &["select_option", "select_value", "choose"],
        written: &[
            w(
                P,
                "select_option",
                r#""coordinate": [x, y], "option": "text""#,
                "chooses the option with this text in the select or list box there",
            ),
            w(
                U,
                "select_option",
                "start_box='(x,y)', option='text'",
                "choose an option in the select or list box there",
            ),
            w(
                M,
                "select_option",
                r#""coordinate": [x, y], "option": "...""#,
                "chooses an option in the select or list box there",
            ),
        ],
    },
    PointAction {
        gesture: Gesture::Key,
        element_action: Some("key"),
        tool_names: &[],
        ui_tars_names: &["hotkey", "press", "key", "keydown"],
        written: &[
            w(P, "key", r#""key": "Enter""#, "a key or combination such as \"Control+A\""),
            w(U, "hotkey", "key='ctrl c'", "keys in lower case, separated by spaces"),
        ],
    },
    PointAction {
        gesture: Gesture::Scroll,
        element_action: Some("scroll"),
        tool_names: &[],
        ui_tars_names: &["scroll"],
        written: &[
            w(P, "scroll", r#""direction": "down", "coordinate": [x, y]"#, "coordinate optional"),
            w(U, "scroll", "start_box='(x,y)', direction='down or up or left or right'", ""),
        ],
    },
    PointAction {
        gesture: Gesture::Swipe,
        element_action: None,
        tool_names: &["swipe"],
        ui_tars_names: &["swipe"],
        written: &[w(
            M,
            "swipe",
            r#""direction": "up", "coordinate": [x, y]"#,
            "like a finger: up shows what is below; coordinate optional",
        )],
    },
    PointAction {
        gesture: Gesture::Drag,
        element_action: Some("drag"),
        tool_names: &[],
        ui_tars_names: &["drag", "select", "left_drag"],
        written: &[
            w(P, "drag", r#""start_coordinate": [x, y], "end_coordinate": [x, y]"#, ""),
            w(U, "drag", "start_box='(x1,y1)', end_box='(x2,y2)'", ""),
            w(M, "drag", r#""start_coordinate": [x1, y1], "end_coordinate": [x2, y2]"#, ""),
        ],
    },
    PointAction {
        gesture: Gesture::SystemButton,
        element_action: None,
        tool_names: &["system_button"],
        ui_tars_names: &[],
        written: &[w(M, "system_button", r#""button": "enter""#, "enter, or back (the tab's history)")],
    },
    PointAction {
        gesture: Gesture::Wait,
        element_action: Some("wait"),
        tool_names: &[],
        ui_tars_names: &["wait", "sleep"],
        written: &[
            w(P, "wait", r#"{} or {"text": "..."}"#, "when the page is still loading, or until it shows a text"),
            w(U, "wait", "", "the page is still loading"),
            w(M, "wait", "", ""),
        ],
    },
    PointAction {
        gesture: Gesture::Navigate,
        element_action: Some("navigate"),
        tool_names: &[],
        ui_tars_names: &["open_url", "open_app", "navigate", "goto", "open"],
        written: &[
            w(P, "navigate", URL_P, "open an address"),
            w(U, "open_url", URL_U, "open an address"),
            w(M, "open", r#""text": "https://...""#, "opens an address"),
        ],
    },
    PointAction {
        gesture: Gesture::Back,
        element_action: Some("back"),
        tool_names: &[],
        ui_tars_names: &["go_back", "back", "press_back"],
        written: &[w(P, "back", "", "the tab's history"), w(U, "go_back", "", "the tab's history")],
    },
    PointAction {
        gesture: Gesture::Forward,
        element_action: Some("forward"),
        tool_names: &[],
        ui_tars_names: &["go_forward", "forward"],
        written: &[joined(P, "forward", ""), joined(U, "go_forward", "")],
    },
    PointAction {
        gesture: Gesture::Reload,
        element_action: Some("reload"),
        tool_names: &[],
        ui_tars_names: &["reload", "refresh"],
        written: &[joined(P, "reload", ""), joined(U, "reload", "")],
    },
    PointAction {
        gesture: Gesture::OpenTab,
        element_action: Some("open_tab"),
        tool_names: &[],
        ui_tars_names: &["open_tab", "new_tab"],
        written: &[
            w(P, "open_tab", URL_P, "tabs"),
            w(U, "open_tab", URL_U, "tabs"),
            w(M, "open_tab", r#""text": "https://...""#, "opens an address in a new tab"),
        ],
    },
    PointAction {
        gesture: Gesture::SwitchTab,
        element_action: Some("switch_tab"),
        tool_names: &[],
        ui_tars_names: &["switch_tab"],
        written: &[
            joined(P, "switch_tab", r#""tab": id"#),
            joined(U, "switch_tab", "tab='id'"),
            w(M, "switch_tab", r#""tab": id"#, "tabs"),
        ],
    },
    PointAction {
        gesture: Gesture::CloseTab,
        element_action: Some("close_tab"),
        tool_names: &[],
        ui_tars_names: &["close_tab"],
        written: &[joined(P, "close_tab", ""), joined(U, "close_tab", ""), joined(M, "close_tab", "")],
    },
    PointAction {
        gesture: Gesture::Remember,
        element_action: Some("remember"),
        tool_names: &[],
        ui_tars_names: &["remember", "note"],
        written: &[
            w(P, "remember", r#""note": "...""#, "keep a note for later steps"),
            w(U, "remember", "content='a note for later steps'", ""),
            w(M, "remember", r#""text": "...""#, "keep a note for later steps"),
        ],
    },
    PointAction {
        gesture: Gesture::Finished,
        element_action: Some("finished"),
        tool_names: &[],
        ui_tars_names: &["finished", "finish", "done"],
        written: &[
            w(P, "finished", r#""text": "what was done, or the answer asked for""#, ""),
            w(U, "finished", "content='what was done, or the answer asked for'", ""),
            w(M, "terminate", r#""status": "success or fail""#, "the task is over"),
        ],
    },
    PointAction {
        gesture: Gesture::Answer,
        element_action: None,
        tool_names: &["answer"],
        ui_tars_names: &[],
        written: &[w(M, "answer", r#""text": "...""#, ANSWER)],
    },
    PointAction {
        gesture: Gesture::AskUser,
        element_action: Some("ask_user"),
        tool_names: &[],
        ui_tars_names: &["call_user", "ask_user"],
        written: &[
            w(P, "ask_user", r#""question": "...""#, "only when the person alone can decide"),
            w(U, "call_user", "", "only the person can continue"),
            w(M, "ask_user", r#""text": "...""#, "only when the person alone can decide"),
        ],
    },
];

/// The grounding action a tool call names (point tools, MAI-UI): an element action's name or
/// alias (any case), or MAI-UI's own.
pub fn by_tool_name(name: &str) -> Option<&'static PointAction> {
    let element = catalog::by_call_name(name).map(|a| a.name);
    POINT_ACTIONS.iter().find(|p| {
        (element.is_some() && p.element_action == element) || p.tool_names.iter().any(|n| n.eq_ignore_ascii_case(name))
    })
}

/// The grounding action a UI-TARS call names (any case).
pub fn by_ui_tars_name(name: &str) -> Option<&'static PointAction> {
    POINT_ACTIONS.iter().find(|p| p.ui_tars_names.iter().any(|n| n.eq_ignore_ascii_case(name)))
}

/// The names a grammar's list offers, in its order.
pub fn offered(grammar: Grammar) -> Vec<&'static str> {
    entries(grammar).map(|(_, w)| w.name).collect()
}

fn entries(grammar: Grammar) -> impl Iterator<Item = (&'static PointAction, &'static Written)> {
    POINT_ACTIONS.iter().flat_map(move |p| p.written.iter().filter(move |w| w.grammar == grammar).map(move |w| (p, w)))
}

impl Written {
    /// The call as its grammar's list writes it, placeholders and all.
    pub fn call(&self) -> String {
        call(self)
    }
}

/// One call as its grammar writes it.
fn call(w: &Written) -> String {
    match w.grammar {
        // Arguments already written as objects (`{} or {"text": …}`) stand as they are.
        Grammar::PointTools if w.args.starts_with('{') => format!("{} {}", w.name, w.args),
        Grammar::PointTools => format!("{} {{{}}}", w.name, w.args),
        Grammar::UiTars => format!("{}({})", w.name, w.args),
        Grammar::MaiUi if w.args.is_empty() => format!("{{\"action\": \"{}\"}}", w.name),
        Grammar::MaiUi => format!("{{\"action\": \"{}\", {}}}", w.name, w.args),
    }
}

/// A grammar's action list, one line per run of joined actions: the calls, then the gloss.
pub fn grammar(grammar: Grammar) -> String {
    let mut runs: Vec<Vec<&Written>> = Vec::new();
    for (_, w) in entries(grammar) {
        match runs.last_mut() {
            Some(run) if w.joins => run.push(w),
            _ => runs.push(vec![w]),
        }
    }
    let lines: Vec<String> = runs
        .iter()
        .map(|run| {
            let calls = match grammar {
                // Point tools that take the same arguments share them: `click, hover {…}`.
                Grammar::PointTools if run.iter().all(|w| w.args == run[0].args) && run.len() > 1 => {
                    let names: Vec<&str> = run.iter().map(|w| w.name).collect();
                    format!("{} {}", names.join(", "), call(run[0]).trim_start_matches(run[0].name).trim_start())
                }
                Grammar::MaiUi => run.iter().map(|w| call(w)).collect::<Vec<_>>().join("  "),
                _ => run.iter().map(|w| call(w)).collect::<Vec<_>>().join(", "),
            };
            let gloss = run[0].gloss;
            match (grammar, gloss) {
                (_, "") => calls,
                (Grammar::UiTars, _) => format!("{calls:<34} # {gloss}"),
                _ => format!("{calls:<38} {gloss}"),
            }
        })
        .collect();
    let indent = if grammar == Grammar::PointTools { "  " } else { "" };
    lines.iter().map(|l| format!("{indent}{l}")).collect::<Vec<_>>().join("\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_name_means_one_action_in_each_reader() {
        for p in POINT_ACTIONS {
            for n in p.ui_tars_names {
                assert_eq!(by_ui_tars_name(n).map(|q| q.gesture), Some(p.gesture), "UI-TARS {n}");
            }
            for n in p.tool_names {
                assert_eq!(by_tool_name(n).map(|q| q.gesture), Some(p.gesture), "tool {n}");
            }
            if let Some(e) = p.element_action {
                assert!(catalog::ACTIONS.iter().any(|a| a.name == e), "{e} is an element action");
            }
            for w in p.written {
                let read = match w.grammar {
                    Grammar::UiTars => by_ui_tars_name(w.name),
                    _ => by_tool_name(w.name),
                };
                assert_eq!(
                    read.map(|q| q.gesture),
                    Some(p.gesture),
                    "{:?} writes {} for {:?}",
                    w.grammar,
                    w.name,
                    p.gesture
                );
            }
        }
    }

    #[test]
    fn lists_write_each_grammars_calls() {
        let p = grammar(Grammar::PointTools);
        assert!(p.starts_with(r#"  click, double_click, right_click, hover {"coordinate": [x, y]}"#), "{p}");
        assert!(p.contains(r#"  wait {} or {"text": "..."}"#), "{p}");
        assert!(p.contains(r#"open_tab {"url": "https://..."}, switch_tab {"tab": id}, close_tab {}"#), "{p}");
        let u = grammar(Grammar::UiTars);
        assert!(u.contains("go_back(), go_forward(), reload()"), "{u}");
        assert!(u.lines().any(|l| l == "drag(start_box='(x1,y1)', end_box='(x2,y2)')"), "{u}");
        let m = grammar(Grammar::MaiUi);
        assert!(m.contains(r#"{"action": "switch_tab", "tab": id}  {"action": "close_tab"}"#), "{m}");
        assert!(m.lines().any(|l| l == r#"{"action": "wait"}"#), "{m}");
    }
}
