//! The actions of the element-numbering families (generic JSON plan, function calling), each
//! declared once: the names models write, the arguments, what it does and an example call. The
//! tool specs (`tools::element_tools`), the prompts' action lists and the parsers' name tables
//! are derived from it, so they cannot drift apart.

/// What an argument holds, as JSON Schema says it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Kind {
    /// An element's number in the list.
    Element,
    Integer,
    Number,
    Text,
    Flag,
    /// A list of file paths.
    Files,
    /// Text, one of these.
    OneOf(&'static [&'static str]),
    /// Any JSON.
    Any,
}

/// One argument of an action.
#[derive(Clone, Copy, Debug)]
pub struct Param {
    pub name: &'static str,
    pub kind: Kind,
    pub required: bool,
    pub description: &'static str,
    /// How the prompts' action lists write its value (`N`, `"https://..."`).
    pub sketch: &'static str,
}

/// One action as models name and call it.
#[derive(Clone, Copy, Debug)]
pub struct Action {
    /// Its function-calling name (`double_click`).
    pub name: &'static str,
    /// Other call names models write for it, lower case (calls are matched case-insensitively).
    pub aliases: &'static [&'static str],
    /// Its JSON plan `type`, which is also the `PlannedAction` it parses to; `None` for `finished`,
    /// which a JSON plan says with `done`.
    pub plan_type: Option<&'static str>,
    /// Other JSON plan types models write for it (matched exactly, as JSON plans always were).
    pub plan_aliases: &'static [&'static str],
    pub params: &'static [Param],
    /// One line: the tool spec's description.
    pub description: &'static str,
    /// The prompts' words for it, or for the run of actions that share its line.
    pub gloss: &'static str,
    /// Listed on the line of the action before it (same arguments, one gloss for them all).
    pub shares_line: bool,
    /// Offered to the model (prompts and tool specs); the others are only understood.
    pub offered: bool,
    /// Offered to the planning model too (`prompt::planner`). It describes only elements in
    /// view, which the acting model finds on the screenshot, so "scroll until it is in view"
    /// is no action it can plan.
    pub planner: bool,
    /// An example call's arguments, as JSON.
    pub example: &'static str,
}

const fn param(
    name: &'static str,
    kind: Kind,
    required: bool,
    description: &'static str,
    sketch: &'static str,
) -> Param {
    Param { name, kind, required, description, sketch }
}

const TARGET: Param = param("target", Kind::Element, true, "the element's number in the list", "N");
const URL: Param = param("url", Kind::Text, true, "a web address", "\"https://...\"");
const TEXT: &str = "\"text\"";

/// An action on one element, by its number.
const fn on_element(
    name: &'static str,
    aliases: &'static [&'static str],
    plan_type: &'static str,
    plan_aliases: &'static [&'static str],
    description: &'static str,
    gloss: &'static str,
) -> Action {
    Action {
        name,
        aliases,
        plan_type: Some(plan_type),
        plan_aliases,
        params: &[TARGET],
        description,
        gloss,
        shares_line: gloss.is_empty(),
        offered: true,
        planner: true,
        example: r#"{"target": 3}"#,
    }
}

/// An action with no arguments.
const fn bare(
    name: &'static str,
    aliases: &'static [&'static str],
    plan_type: &'static str,
    plan_aliases: &'static [&'static str],
    description: &'static str,
    gloss: &'static str,
) -> Action {
    Action {
        name,
        aliases,
        plan_type: Some(plan_type),
        plan_aliases,
        params: &[],
        description,
        gloss,
        shares_line: gloss.is_empty(),
        offered: true,
        planner: true,
        example: "{}",
    }
}

pub const ACTIONS: &[Action] = &[
    on_element(
        "tap",
        &["click", "left_click", "long_press"],
        "Tap",
        &["Click"],
        "Click element N.",
        "click, double-click, right-click (its context menu) or point at element N (menus that open on hover)",
    ),
    on_element("double_click", &["doubleclick", "left_double"], "DoubleClick", &[], "Double-click element N.", ""),
    on_element(
        "right_click",
        &["rightclick", "right_single", "context_click"],
        "RightClick",
        &[],
        "Right-click element N (its context menu).",
        "",
    ),
    on_element(
        "hover",
        &["mouse_move"],
        "Hover",
        &[],
        "Move the pointer over element N (menus and tips that open on hover).",
        "",
    ),
    Action {
        name: "input",
        aliases: &["type", "type_text"],
        plan_type: Some("Input"),
        plan_aliases: &["Type"],
        params: &[
            TARGET,
            param("value", Kind::Text, true, "the text to type", TEXT),
            param(
                "mode",
                Kind::OneOf(&["replace", "append", "clear"]),
                false,
                "replace (the default), append or clear",
                "\"replace\"",
            ),
        ],
        description: "Type into field N: replace its content (the default), append to it, or clear it.",
        gloss: "type into field N; mode replace (default), append or clear",
        shares_line: false,
        offered: true,
        planner: true,
        example: r#"{"target": 3, "value": "buy milk"}"#,
    },
    // Input's modes, as actions of their own: understood, not offered.
    Action {
        name: "append",
        aliases: &[],
        plan_type: Some("Append"),
        plan_aliases: &[],
        params: &[TARGET, param("value", Kind::Text, true, "the text to add", TEXT)],
        description: "Type after what field N holds.",
        gloss: "",
        shares_line: false,
        offered: false,
        planner: false,
        example: r#"{"target": 3, "value": " and eggs"}"#,
    },
    Action {
        name: "clear",
        aliases: &[],
        plan_type: Some("Clear"),
        plan_aliases: &[],
        params: &[TARGET],
        description: "Empty field N.",
        gloss: "",
        shares_line: false,
        offered: false,
        planner: false,
        example: r#"{"target": 3}"#,
    },
    Action {
        name: "select_option",
        aliases: &["select", "choose"],
        plan_type: Some("Select"),
        plan_aliases: &["SelectOption", "Choose"],
        params: &[TARGET, param("option", Kind::Text, true, "the option's text", TEXT)],
        description: "Choose the option with this text in select or list box N.",
        gloss: "choose the option with this text in select or list box N",
        shares_line: false,
        offered: true,
        planner: true,
        example: r#"{"target": 3, "option": "Blue"}"#,
    },
    Action {
        name: "key",
        aliases: &["press", "keypress", "hotkey", "keyboardpress"],
        plan_type: Some("KeyPress"),
        plan_aliases: &["KeyboardPress"],
        params: &[param("key", Kind::Text, true, "a key or combination", "\"Enter\"")],
        description: "Press a key or combination such as Enter or Control+A.",
        gloss: "a key or combination such as \"Control+A\"",
        shares_line: false,
        offered: true,
        planner: true,
        example: r#"{"key": "Enter"}"#,
    },
    Action {
        name: "scroll",
        aliases: &[],
        plan_type: Some("Scroll"),
        plan_aliases: &[],
        params: &[
            param("direction", Kind::OneOf(&["down", "up", "left", "right"]), true, "which way", "\"down\""),
            param("target", Kind::Element, false, "the element to scroll; the page when left out", "N|null"),
            param("distance", Kind::Number, false, "pixels; one screen when left out", "pixels"),
            param("to_end", Kind::Flag, false, "scroll until it stops", "false"),
        ],
        description: "Scroll the page, or element N when given; to_end scrolls until it stops.",
        gloss: "the page, or element N; up, down, left or right",
        shares_line: false,
        offered: true,
        planner: true,
        example: r#"{"direction": "down"}"#,
    },
    Action {
        planner: false,
        ..on_element(
            "scroll_to",
            &["scroll_into_view"],
            "ScrollTo",
            &[],
            "Scroll until element N is in view.",
            "scroll until element N is in view",
        )
    },
    Action {
        name: "drag",
        aliases: &["drag_and_drop", "left_click_drag"],
        plan_type: Some("Drag"),
        plan_aliases: &["DragAndDrop"],
        params: &[
            param("from", Kind::Element, true, "the element dragged", "N"),
            param("to", Kind::Element, true, "the element it is dropped on", "M"),
        ],
        description: "Drag element N onto element M.",
        gloss: "drag element N onto element M",
        shares_line: false,
        offered: true,
        planner: true,
        example: r#"{"from": 3, "to": 5}"#,
    },
    Action {
        name: "upload",
        aliases: &["upload_files"],
        plan_type: Some("Upload"),
        plan_aliases: &[],
        params: &[TARGET, param("files", Kind::Files, true, "paths the person gave", "[\"/full/path\"]")],
        description: "Give file field N (or the button that opens one) these files: only paths the person gave.",
        gloss: "files for file field N (or the button that opens one); only paths the person gave",
        shares_line: false,
        offered: true,
        planner: true,
        example: r#"{"target": 3, "files": ["/home/me/cv.pdf"]}"#,
    },
    Action {
        name: "wait",
        aliases: &[],
        plan_type: Some("Wait"),
        plan_aliases: &["WaitFor"],
        params: &[
            param("ms", Kind::Integer, false, "how long, in milliseconds", "1000"),
            param("text", Kind::Text, false, "wait until the page shows this text", "\"...\""),
            param("gone", Kind::Flag, false, "wait until the text no longer shows", "false"),
            param("timeout", Kind::Integer, false, "the longest wait for the text, in milliseconds", "10000"),
        ],
        description: "Wait a while (ms), or until the page shows a text (or, with gone, no longer shows it).",
        gloss: "either ms alone, or until the page shows text (gone: stops showing it)",
        shares_line: false,
        offered: true,
        planner: true,
        example: r#"{"ms": 1000}"#,
    },
    Action {
        name: "navigate",
        aliases: &["goto", "open_url", "open", "open_app"],
        plan_type: Some("Navigate"),
        plan_aliases: &["Goto", "OpenUrl"],
        params: &[URL],
        description: "Open an address in this tab.",
        gloss: "open an address in this tab",
        shares_line: false,
        offered: true,
        planner: true,
        example: r#"{"url": "https://example.com"}"#,
    },
    bare("back", &["go_back"], "Back", &["GoBack"], "Go back in this tab's history.", "the tab's history"),
    bare("forward", &["go_forward"], "Forward", &["GoForward"], "Go forward in this tab's history.", ""),
    bare("reload", &["refresh"], "Reload", &[], "Load the page again.", ""),
    Action {
        name: "open_tab",
        aliases: &["new_tab"],
        plan_type: Some("OpenTab"),
        plan_aliases: &["NewTab"],
        params: &[URL],
        description: "Open an address in a new tab and go on there.",
        gloss: "open an address in a new tab and go on there",
        shares_line: false,
        offered: true,
        planner: true,
        example: r#"{"url": "https://example.com"}"#,
    },
    Action {
        name: "switch_tab",
        aliases: &[],
        plan_type: Some("SwitchTab"),
        plan_aliases: &[],
        params: &[param("tab", Kind::Integer, true, "its id in the list of open tabs", "id")],
        description: "Go on in another open tab, by its id in the list of open tabs.",
        gloss: "go on in another open tab (ids in the list of open tabs)",
        shares_line: false,
        offered: true,
        planner: true,
        example: r#"{"tab": 2}"#,
    },
    bare(
        "close_tab",
        &[],
        "CloseTab",
        &[],
        "Close this tab and go back to the one before.",
        "close this tab, back to the one before",
    ),
    Action {
        name: "remember",
        aliases: &["note"],
        plan_type: Some("Remember"),
        plan_aliases: &["Note"],
        params: &[
            param("note", Kind::Text, false, "a note", "\"...\""),
            param("data", Kind::Any, false, "data read off the page", "any JSON"),
        ],
        description: "Keep a note, or data read off the page, for later steps.",
        gloss: "keep a note or data you read for later steps",
        shares_line: false,
        offered: true,
        planner: true,
        example: r#"{"note": "the cheapest is 4.20"}"#,
    },
    Action {
        name: "finished",
        aliases: &["terminate", "done"],
        plan_type: None,
        plan_aliases: &[],
        params: &[param(
            "text",
            Kind::Text,
            true,
            "what was done, or the answer",
            "\"what was done, or the answer asked for\"",
        )],
        description: "The instruction is done; say what was done, or give the answer asked for.",
        gloss: "",
        shares_line: false,
        offered: true,
        planner: true,
        example: r#"{"text": "Added milk to the list."}"#,
    },
    Action {
        name: "ask_user",
        aliases: &["call_user"],
        plan_type: Some("AskUser"),
        plan_aliases: &["Ask"],
        params: &[param("question", Kind::Text, true, "the question", "\"...\"")],
        description: "Only when the person alone can decide: ask them.",
        gloss: "only when the person alone can decide (a choice, a password); put it last",
        shares_line: false,
        offered: true,
        planner: true,
        example: r#"{"question": "Which size?"}"#,
    },
];

/// The action a call names (its name or an alias, any case).
pub fn by_call_name(name: &str) -> Option<&'static Action> {
    ACTIONS.iter().find(|a| a.name.eq_ignore_ascii_case(name) || a.aliases.iter().any(|x| x.eq_ignore_ascii_case(name)))
}

/// The action a JSON plan's `type` names (its type or an alias, exactly).
pub fn by_plan_type(kind: &str) -> Option<&'static Action> {
    ACTIONS.iter().find(|a| a.plan_type == Some(kind) || a.plan_aliases.contains(&kind))
}

/// The JSON plan types offered, as a sentence lists them ("Tap, …, Remember or AskUser").
pub fn plan_types() -> String {
    let types: Vec<&str> = ACTIONS.iter().filter(|a| a.offered).filter_map(|a| a.plan_type).collect();
    either(&types)
}

/// Words as a sentence offers them: `a, b or c`.
pub fn either(words: &[&str]) -> String {
    match words.split_last() {
        Some((last, rest)) if !rest.is_empty() => format!("{} or {last}", rest.join(", ")),
        _ => words.join(""),
    }
}

/// Whose action list a prompt shows.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum ListFor {
    /// The generic family's JSON plan.
    JsonPlan,
    /// The planning model's JSON plan.
    Planner,
    /// The function-calling family's tools.
    Tools,
}

impl Action {
    /// Whether this list offers the action.
    pub fn listed_for(&self, list: ListFor) -> bool {
        match list {
            ListFor::JsonPlan => self.offered && self.plan_type.is_some(),
            ListFor::Planner => self.planner && self.plan_type.is_some(),
            ListFor::Tools => self.offered,
        }
    }
}

/// The offered actions in runs that share a prompt line.
fn lines(list: ListFor) -> Vec<Vec<&'static Action>> {
    let mut out: Vec<Vec<&'static Action>> = Vec::new();
    for a in ACTIONS.iter().filter(|a| a.listed_for(list)) {
        match out.last_mut() {
            Some(run) if a.shares_line => run.push(a),
            _ => out.push(vec![a]),
        }
    }
    out
}

fn arguments(params: &[Param]) -> Vec<String> {
    params.iter().map(|p| format!("\"{}\": {}", p.name, p.sketch)).collect()
}

/// A line of an action list: the call's sketch, padded to `column`, then its gloss.
fn line(sketch: String, gloss: &str, column: usize) -> String {
    match gloss {
        "" => format!("  {sketch}"),
        _ => format!("  {sketch:<column$}  {gloss}"),
    }
}

/// A JSON plan's action list, as the generic prompt (`ListFor::JsonPlan`) or the planner's
/// (`ListFor::Planner`) shows it.
pub fn plan_grammar(list: ListFor) -> String {
    let rendered: Vec<String> = lines(list)
        .iter()
        .map(|run| {
            let types: Vec<&str> = run.iter().filter_map(|a| a.plan_type).collect();
            let fields = [vec![format!("\"type\": \"{}\"", types.join("\"|\""))], arguments(run[0].params)].concat();
            line(format!("{{{}}}", fields.join(", ")), run[0].gloss, 47)
        })
        .collect();
    rendered.join("\n")
}

/// The function-calling action list, as the element-tools prompt shows it.
pub fn tools_grammar() -> String {
    let rendered: Vec<String> = lines(ListFor::Tools)
        .iter()
        .map(|run| {
            let names: Vec<&str> = run.iter().map(|a| a.name).collect();
            line(format!("{} {{{}}}", names.join(", "), arguments(run[0].params).join(", ")), run[0].gloss, 41)
        })
        .collect();
    rendered.join("\n")
}
