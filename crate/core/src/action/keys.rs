//! Key names (as a person or model writes them) to one canonical form: the names Playwright's
//! `keyboard.press`, Puppeteer's `Key` (the Recorder's) and the DOM use. Every export and the
//! replay's CDP key events read keys through [`KeyCombo::parse`] alone.

use super::{ActionError, InputCommand};
use serde_json::json;

/// (name as written, lower case; DOM key; DOM code; Windows virtual key code; text typed).
/// The DOM key is Playwright's and Puppeteer's name too, but for space (` `): see [`KeyCombo`].
const NAMED_KEYS: [(&str, &str, &str, u32, &str); 40] = [
    ("enter", "Enter", "Enter", 13, "\r"),
    ("return", "Enter", "Enter", 13, "\r"),
    ("tab", "Tab", "Tab", 9, ""),
    ("escape", "Escape", "Escape", 27, ""),
    ("esc", "Escape", "Escape", 27, ""),
    ("backspace", "Backspace", "Backspace", 8, ""),
    ("delete", "Delete", "Delete", 46, ""),
    ("del", "Delete", "Delete", 46, ""),
    ("space", " ", "Space", 32, " "),
    ("spacebar", " ", "Space", 32, " "),
    ("arrowup", "ArrowUp", "ArrowUp", 38, ""),
    ("up", "ArrowUp", "ArrowUp", 38, ""),
    ("arrowdown", "ArrowDown", "ArrowDown", 40, ""),
    ("down", "ArrowDown", "ArrowDown", 40, ""),
    ("arrowleft", "ArrowLeft", "ArrowLeft", 37, ""),
    ("left", "ArrowLeft", "ArrowLeft", 37, ""),
    ("arrowright", "ArrowRight", "ArrowRight", 39, ""),
    ("right", "ArrowRight", "ArrowRight", 39, ""),
    ("home", "Home", "Home", 36, ""),
    ("end", "End", "End", 35, ""),
    ("pageup", "PageUp", "PageUp", 33, ""),
    ("pgup", "PageUp", "PageUp", 33, ""),
    ("pagedown", "PageDown", "PageDown", 34, ""),
    ("pgdn", "PageDown", "PageDown", 34, ""),
    ("insert", "Insert", "Insert", 45, ""),
    ("ins", "Insert", "Insert", 45, ""),
    ("capslock", "CapsLock", "CapsLock", 20, ""),
    ("contextmenu", "ContextMenu", "ContextMenu", 93, ""),
    ("f1", "F1", "F1", 112, ""),
    ("f2", "F2", "F2", 113, ""),
    ("f3", "F3", "F3", 114, ""),
    ("f4", "F4", "F4", 115, ""),
    ("f5", "F5", "F5", 116, ""),
    ("f6", "F6", "F6", 117, ""),
    ("f7", "F7", "F7", 118, ""),
    ("f8", "F8", "F8", 119, ""),
    ("f9", "F9", "F9", 120, ""),
    ("f10", "F10", "F10", 121, ""),
    ("f11", "F11", "F11", 122, ""),
    ("f12", "F12", "F12", 123, ""),
];

/// Modifier names as written (lower case) and the canonical modifier each means.
const MODIFIER_NAMES: [(&str, Modifier); 12] = [
    ("alt", Modifier::Alt),
    ("option", Modifier::Alt),
    ("control", Modifier::Control),
    ("ctrl", Modifier::Control),
    ("meta", Modifier::Meta),
    ("cmd", Modifier::Meta),
    ("command", Modifier::Meta),
    ("win", Modifier::Meta),
    ("super", Modifier::Meta),
    ("shift", Modifier::Shift),
    ("controlormeta", Modifier::ControlOrMeta),
    ("mod", Modifier::ControlOrMeta),
];

/// (DOM key, DOM code, Windows virtual key code, CDP modifier bit) of each modifier held.
const MODIFIERS: [(&str, &str, u32, u32); 4] = [
    ("Alt", "AltLeft", 18, 1),
    ("Control", "ControlLeft", 17, 2),
    ("Meta", "MetaLeft", 91, 4),
    ("Shift", "ShiftLeft", 16, 8),
];

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Modifier {
    Alt,
    Control,
    Meta,
    Shift,
    /// Playwright's own: Meta on macOS, Control elsewhere. Puppeteer and CDP have no such key;
    /// they get Control ([`KeyCombo::resolved`]).
    ControlOrMeta,
}

impl Modifier {
    pub fn name(self) -> &'static str {
        match self {
            Modifier::Alt => "Alt",
            Modifier::Control => "Control",
            Modifier::Meta => "Meta",
            Modifier::Shift => "Shift",
            Modifier::ControlOrMeta => "ControlOrMeta",
        }
    }
}

/// A key with the modifiers held for it, in canonical names: `Control+a`, `Shift+Tab`,
/// `Space`, `Control++`. Its [`Display`](std::fmt::Display) is what `page.keyboard.press` takes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct KeyCombo {
    pub modifiers: Vec<Modifier>,
    /// The key's canonical name (`Enter`, `Space`, `F5`), or the character as written (`a`, `A`, `+`).
    pub key: String,
}

impl KeyCombo {
    /// Reads a key as written, any case: `ctrl+c`, `Cmd+Shift+z`, `esc`, `Control++`.
    pub fn parse(spec: &str) -> Result<Self, ActionError> {
        let unknown = || ActionError::UnknownKey(spec.to_string());
        let parts: Vec<&str> = spec.split('+').map(str::trim).collect();
        // "Control++" means Control and the plus key.
        let (mods, key) = if spec.ends_with("++") {
            (&parts[..parts.len() - 2], "+")
        } else {
            let (k, m) = parts.split_last().ok_or_else(unknown)?;
            (m, *k)
        };
        if key.is_empty() {
            return Err(unknown());
        }
        let mut modifiers = Vec::new();
        for m in mods {
            let (_, modifier) = MODIFIER_NAMES.iter().find(|(n, _)| n.eq_ignore_ascii_case(m)).ok_or_else(unknown)?;
            if !modifiers.contains(modifier) {
                modifiers.push(*modifier);
            }
        }
        let key = if let Some((_, dom_key, code, ..)) = named(key) {
            // Playwright and Puppeteer name the space bar by its code; its DOM key is " ".
            if *dom_key == " " { code } else { dom_key }.to_string()
        } else if key.chars().count() == 1 {
            key.to_string()
        } else {
            return Err(unknown());
        };
        Ok(KeyCombo { modifiers, key })
    }

    /// The keys a Puppeteer (Recorder) replay holds, modifiers first: `ControlOrMeta` as Control.
    pub fn resolved(&self) -> Vec<String> {
        let mut keys: Vec<String> = Vec::new();
        for m in &self.modifiers {
            let name = if *m == Modifier::ControlOrMeta { "Control" } else { m.name() };
            if !keys.iter().any(|k| k == name) {
                keys.push(name.to_string());
            }
        }
        keys.push(self.key.clone());
        keys
    }

    /// [`resolved`](Self::resolved) joined with `+`: for tools that take one key string and
    /// know no `ControlOrMeta` (Midscene's `aiKeyboardPress`).
    pub fn resolved_spec(&self) -> String {
        self.resolved().join("+")
    }
}

impl std::fmt::Display for KeyCombo {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        for m in &self.modifiers {
            write!(f, "{}+", m.name())?;
        }
        f.write_str(&self.key)
    }
}

fn named(key: &str) -> Option<&'static (&'static str, &'static str, &'static str, u32, &'static str)> {
    NAMED_KEYS.iter().find(|(n, ..)| n.eq_ignore_ascii_case(key))
}

/// Key-down/up events for `Enter`, `a`, `Control+A`, `Shift+Tab`…
/// `Control+A` also carries the editing command `selectAll`, which Chrome needs to act on it.
pub fn key_events(spec: &str) -> Result<Vec<InputCommand>, ActionError> {
    let combo = KeyCombo::parse(spec)?;
    let unknown = || ActionError::UnknownKey(spec.to_string());
    let mut modifier_bits = 0;
    let mut cmds = Vec::new();
    let mut held = Vec::new();
    let resolved = combo.resolved();
    let (key, mods) = resolved.split_last().ok_or_else(unknown)?;
    for m in mods {
        let (k, code, vk, bit) = MODIFIERS.iter().find(|(n, ..)| n == m).ok_or_else(unknown)?;
        modifier_bits |= bit;
        cmds.push(raw("rawKeyDown", k, code, *vk, "", modifier_bits, None));
        held.push((k, code, vk));
    }
    // Every canonical name has its lower-case row (`Space` is `space`).
    let (k, code, vk, text) = if let Some((_, k, code, vk, text)) = named(key) {
        (k.to_string(), code.to_string(), *vk, text.to_string())
    } else {
        let c = key.chars().next().ok_or_else(unknown)?;
        let upper = c.to_ascii_uppercase();
        let code = if c.is_ascii_alphabetic() {
            format!("Key{upper}")
        } else if c.is_ascii_digit() {
            format!("Digit{c}")
        } else {
            String::new()
        };
        let vk = if c.is_ascii_alphanumeric() { upper as u32 } else { 0 };
        (c.to_string(), code, vk, c.to_string())
    };
    // With Control/Alt/Meta held, no text is typed; Shift alone still types.
    let typed = if modifier_bits & 0b111 != 0 { String::new() } else { text };
    // Editing commands Chrome needs spelled out to act on a synthetic key.
    let command = match (modifier_bits & 2 != 0, k.to_ascii_lowercase().as_str()) {
        (true, "a") => Some("selectAll"),
        (true, "end") => Some("moveToEndOfDocument"),
        (true, "home") => Some("moveToBeginningOfDocument"),
        _ => None,
    };
    let down = if typed.is_empty() { "rawKeyDown" } else { "keyDown" };
    cmds.push(raw(down, &k, &code, vk, &typed, modifier_bits, command));
    cmds.push(raw("keyUp", &k, &code, vk, "", modifier_bits, None));
    for (k, code, vk) in held.into_iter().rev() {
        cmds.push(raw("keyUp", k, code, *vk, "", 0, None));
    }
    Ok(cmds)
}

fn raw(kind: &str, key: &str, code: &str, vk: u32, text: &str, modifiers: u32, command: Option<&str>) -> InputCommand {
    let mut params = json!({
        "type": kind, "key": key, "code": code, "modifiers": modifiers,
        "windowsVirtualKeyCode": vk, "nativeVirtualKeyCode": vk,
    });
    if !text.is_empty() {
        params["text"] = json!(text);
        params["unmodifiedText"] = json!(text);
    }
    if let Some(c) = command {
        params["commands"] = json!([c]);
    }
    InputCommand { method: "Input.dispatchKeyEvent".into(), params }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn enter_types_carriage_return() {
        let e = key_events("Enter").unwrap();
        assert_eq!(e.len(), 2);
        assert_eq!(e[0].params["type"], "keyDown");
        assert_eq!(e[0].params["text"], "\r");
        assert_eq!(e[0].params["windowsVirtualKeyCode"], 13);
        assert_eq!(e[1].params["type"], "keyUp");
    }

    #[test]
    fn combos_hold_modifiers() {
        let e = key_events("ctrl+a").unwrap();
        let types: Vec<_> = e.iter().map(|c| c.params["type"].as_str().unwrap().to_string()).collect();
        assert_eq!(types, ["rawKeyDown", "rawKeyDown", "keyUp", "keyUp"]);
        assert_eq!(e[1].params["modifiers"], 2);
        assert_eq!(e[1].params["commands"], json!(["selectAll"]));
        assert_eq!(key_events("Shift+Tab").unwrap()[1].params["modifiers"], 8);
        assert_eq!(key_events("Control++").unwrap()[1].params["key"], "+");
    }

    #[test]
    fn unknown_keys_are_errors() {
        assert_eq!(key_events("Hyper+X").unwrap_err(), ActionError::UnknownKey("Hyper+X".into()));
        assert!(key_events("NotAKey").is_err());
        assert!(key_events("").is_err());
        assert!(KeyCombo::parse("Control+Plus").is_err(), "a literal plus is written `Control++`");
    }

    /// What models write, and the name Playwright's `keyboard.press` accepts (research: each
    /// left-hand form but the canonical ones throws `Unknown key` there).
    #[test]
    fn written_keys_become_playwright_names() {
        for (written, canonical) in [
            ("ctrl+c", "Control+c"),
            ("control+C", "Control+C"),
            ("CTRL+SHIFT+z", "Control+Shift+z"),
            ("cmd+a", "Meta+a"),
            ("Command+a", "Meta+a"),
            ("win+d", "Meta+d"),
            ("option+left", "Alt+ArrowLeft"),
            ("enter", "Enter"),
            ("return", "Enter"),
            ("esc", "Escape"),
            ("escape", "Escape"),
            ("del", "Delete"),
            ("space", "Space"),
            ("Spacebar", "Space"),
            ("up", "ArrowUp"),
            ("arrowdown", "ArrowDown"),
            ("pgup", "PageUp"),
            ("pgdn", "PageDown"),
            ("ins", "Insert"),
            ("f5", "F5"),
            ("ControlOrMeta+A", "ControlOrMeta+A"),
            ("shift+controlormeta+z", "Shift+ControlOrMeta+z"),
            ("Control++", "Control++"),
            ("ctrl+ctrl+a", "Control+a"),
            ("a", "a"),
            ("!", "!"),
        ] {
            assert_eq!(KeyCombo::parse(written).unwrap().to_string(), canonical, "{written}");
        }
    }

    #[test]
    fn recorder_keys_have_no_control_or_meta() {
        let combo = KeyCombo::parse("ControlOrMeta+a").unwrap();
        assert_eq!(combo.resolved(), ["Control", "a"]);
        assert_eq!(KeyCombo::parse("ctrl+mod+a").unwrap().resolved(), ["Control", "a"]);
        assert_eq!(KeyCombo::parse("cmd+shift+Tab").unwrap().resolved_spec(), "Meta+Shift+Tab");
        assert_eq!(KeyCombo::parse("space").unwrap().resolved(), ["Space"]);
    }

    #[test]
    fn replay_reads_the_same_table() {
        // The canonical form replays as what it was written from.
        for written in ["ctrl+a", "esc", "space", "option+left", "ControlOrMeta+A", "f5"] {
            let canonical = KeyCombo::parse(written).unwrap().to_string();
            assert_eq!(key_events(written).unwrap(), key_events(&canonical).unwrap(), "{written}");
        }
        let space = key_events("Space").unwrap();
        assert_eq!((space[0].params["key"].as_str(), space[0].params["text"].as_str()), (Some(" "), Some(" ")));
        let select_all = key_events("ControlOrMeta+A").unwrap();
        assert_eq!(select_all[1].params["modifiers"], 2, "ControlOrMeta replays as Control");
        assert_eq!(select_all[1].params["commands"], json!(["selectAll"]));
        assert_eq!(key_events("F5").unwrap()[0].params["windowsVirtualKeyCode"], 116);
    }
}
