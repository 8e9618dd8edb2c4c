//! Key names (as a person or model writes them) to CDP key events.

use super::{ActionError, InputCommand};
use serde_json::json;

/// (name, DOM key, DOM code, Windows virtual key code, text typed)
const NAMED_KEYS: [(&str, &str, &str, u32, &str); 17] = [
    ("enter", "Enter", "Enter", 13, "\r"),
    ("tab", "Tab", "Tab", 9, ""),
    ("escape", "Escape", "Escape", 27, ""),
    ("esc", "Escape", "Escape", 27, ""),
    ("backspace", "Backspace", "Backspace", 8, ""),
    ("delete", "Delete", "Delete", 46, ""),
    ("space", " ", "Space", 32, " "),
    ("arrowup", "ArrowUp", "ArrowUp", 38, ""),
    ("arrowdown", "ArrowDown", "ArrowDown", 40, ""),
    ("arrowleft", "ArrowLeft", "ArrowLeft", 37, ""),
    ("arrowright", "ArrowRight", "ArrowRight", 39, ""),
    ("home", "Home", "Home", 36, ""),
    ("end", "End", "End", 35, ""),
    ("pageup", "PageUp", "PageUp", 33, ""),
    ("pagedown", "PageDown", "PageDown", 34, ""),
    ("return", "Enter", "Enter", 13, "\r"),
    ("insert", "Insert", "Insert", 45, ""),
];

/// CDP modifier bits.
const MODIFIERS: [(&str, &str, &str, u32, u32); 8] = [
    ("alt", "Alt", "AltLeft", 18, 1),
    ("control", "Control", "ControlLeft", 17, 2),
    ("ctrl", "Control", "ControlLeft", 17, 2),
    ("meta", "Meta", "MetaLeft", 91, 4),
    ("cmd", "Meta", "MetaLeft", 91, 4),
    ("command", "Meta", "MetaLeft", 91, 4),
    ("shift", "Shift", "ShiftLeft", 16, 8),
    ("option", "Alt", "AltLeft", 18, 1),
];

/// Key-down/up events for `Enter`, `a`, `Control+A`, `Shift+Tab`…
/// `Control+A` also carries the editing command `selectAll`, which Chrome needs to act on it.
pub fn key_events(spec: &str) -> Result<Vec<InputCommand>, ActionError> {
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
    let mut modifier_bits = 0;
    let mut cmds = Vec::new();
    let mut held = Vec::new();
    for m in mods {
        let (_, k, code, vk, bit) = MODIFIERS.iter().find(|(n, ..)| n.eq_ignore_ascii_case(m)).ok_or_else(unknown)?;
        modifier_bits |= bit;
        cmds.push(raw("rawKeyDown", k, code, *vk, "", modifier_bits, None));
        held.push((k, code, vk));
    }
    let (k, code, vk, text) =
        if let Some((_, k, code, vk, text)) = NAMED_KEYS.iter().find(|(n, ..)| n.eq_ignore_ascii_case(key)) {
            (k.to_string(), code.to_string(), *vk, text.to_string())
        } else if key.chars().count() == 1 {
            let c = key.chars().next().unwrap_or(' ');
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
        } else {
            return Err(unknown());
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
    }
}
