//! Answers that are not plans: which element a description names, data read off the page,
//! and whether a statement about the page holds. Each is one JSON object (thinking, fences
//! and common breakage tolerated, as for plans), checked for the type the caller asked for.

use super::plan::element_number;
use super::repair::repair_json;
use super::{extract_json_object, ParseError};
use serde::Serialize;
use serde_json::Value;

/// What kind of value a query wants back.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Expect {
    /// Any JSON value, shaped as the person described.
    Any,
    Boolean,
    Number,
    Text,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Answer {
    pub thought: String,
    pub data: Value,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Verdict {
    pub thought: String,
    pub pass: bool,
    pub reason: String,
}

/// The element a locate answer names, or the model's reason it found none.
#[derive(Clone, Debug, PartialEq)]
pub enum Located {
    Element { thought: String, number: u32 },
    NotFound { thought: String, reason: String },
}

fn object(reply: &str) -> Result<serde_json::Map<String, Value>, ParseError> {
    if reply.trim().is_empty() {
        return Err(ParseError::Empty);
    }
    let json = extract_json_object(reply)?;
    let v: Value = serde_json::from_str(&json)
        .or_else(|e| serde_json::from_str(&repair_json(&json)).map_err(|_| ParseError::BadJson(e.to_string())))?;
    match v {
        Value::Object(o) => Ok(o),
        _ => Err(schema("(root)", "expected an object")),
    }
}

fn schema(field: &str, problem: &str) -> ParseError {
    ParseError::Schema { field: field.into(), problem: problem.into() }
}

fn text_field(o: &serde_json::Map<String, Value>, key: &str) -> String {
    match o.get(key) {
        Some(Value::String(s)) => s.trim().to_string(),
        _ => String::new(),
    }
}

/// The model's stated reason for not answering, if it gave one.
fn refusal(o: &serde_json::Map<String, Value>) -> Option<String> {
    Some(text_field(o, "error")).filter(|e| !e.is_empty())
}

pub fn parse_located(reply: &str) -> Result<Located, ParseError> {
    let o = object(reply)?;
    let thought = text_field(&o, "thought");
    match o.get("element").or_else(|| o.get("target")) {
        Some(v) if !v.is_null() => {
            let number =
                element_number(v).ok_or_else(|| schema("element", "expected an element number from the list"))?;
            Ok(Located::Element { thought, number })
        }
        _ => Ok(Located::NotFound {
            reason: refusal(&o).unwrap_or_else(|| "the model found no matching element".into()),
            thought,
        }),
    }
}

pub fn parse_answer(reply: &str, expect: Expect) -> Result<Answer, ParseError> {
    let o = object(reply)?;
    let thought = text_field(&o, "thought");
    let data = match o.get("data") {
        Some(v) if !v.is_null() => v.clone(),
        _ => {
            let why = refusal(&o).unwrap_or_else(|| "no \"data\" in the answer".into());
            return Err(ParseError::Action { text: String::new(), problem: why });
        }
    };
    let data = match expect {
        Expect::Any => data,
        Expect::Boolean => Value::Bool(boolean(&data).ok_or_else(|| schema("data", "expected true or false"))?),
        Expect::Number => {
            let n = match &data {
                Value::Number(n) => n.as_f64(),
                Value::String(s) => s.trim().replace(',', "").parse::<f64>().ok(),
                _ => None,
            }
            .filter(|n| n.is_finite())
            .ok_or_else(|| schema("data", "expected a number"))?;
            serde_json::Number::from_f64(n).map(Value::Number).ok_or_else(|| schema("data", "expected a number"))?
        }
        Expect::Text => match data {
            Value::String(s) => Value::String(s),
            other => Value::String(other.to_string()),
        },
    };
    Ok(Answer { thought, data })
}

pub fn parse_verdict(reply: &str) -> Result<Verdict, ParseError> {
    let o = object(reply)?;
    let pass = o.get("pass").and_then(boolean).ok_or_else(|| schema("pass", "expected true or false"))?;
    Ok(Verdict { thought: text_field(&o, "thought"), pass, reason: text_field(&o, "reason") })
}

fn boolean(v: &Value) -> Option<bool> {
    match v {
        Value::Bool(b) => Some(*b),
        Value::String(s) => match s.trim().to_ascii_lowercase().as_str() {
            "true" | "yes" => Some(true),
            "false" | "no" => Some(false),
            _ => None,
        },
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn locate_reads_numbers_and_refusals() {
        assert_eq!(
            parse_located(r#"{"thought":"the blue one","element":"[4]"}"#).unwrap(),
            Located::Element { thought: "the blue one".into(), number: 4 }
        );
        assert_eq!(
            parse_located("```json\n{\"element\": null, \"error\": \"no such button\"}\n```").unwrap(),
            Located::NotFound { thought: String::new(), reason: "no such button".into() }
        );
        assert!(parse_located(r#"{"element":"the blue one"}"#).unwrap_err().to_string().contains("element"));
    }

    #[test]
    fn answers_are_checked_for_the_type_asked() {
        assert_eq!(
            parse_answer(r#"{"data":{"titles":["a","b"]}}"#, Expect::Any).unwrap().data,
            json!({"titles":["a","b"]})
        );
        assert_eq!(parse_answer(r#"{"data":"Yes"}"#, Expect::Boolean).unwrap().data, json!(true));
        assert_eq!(parse_answer(r#"{"data":"1,234.5"}"#, Expect::Number).unwrap().data, json!(1234.5));
        assert_eq!(parse_answer(r#"{data: 3,}"#, Expect::Text).unwrap().data, json!("3"));
        assert!(parse_answer(r#"{"data":"maybe"}"#, Expect::Boolean)
            .unwrap_err()
            .to_string()
            .contains("true or false"));
        assert!(parse_answer(r#"{"data":null,"error":"the page shows no prices"}"#, Expect::Any)
            .unwrap_err()
            .to_string()
            .contains("no prices"));
    }

    #[test]
    fn verdicts_need_pass() {
        let v = parse_verdict(r#"<think>check</think>{"pass": false, "reason": "2 items, not 3"}"#).unwrap();
        assert!(!v.pass);
        assert_eq!(v.reason, "2 items, not 3");
        assert!(parse_verdict(r#"{"reason":"x"}"#).is_err());
    }
}
