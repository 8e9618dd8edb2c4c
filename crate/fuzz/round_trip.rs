//! JSON round trips: what a target's parser accepts, written back out with serde_json, must
//! read back as the same value. "Same" is compared as JSON, with numbers equal to within 1e-15
//! relative: serde_json's default float parsing (no `float_roundtrip` feature, as in the
//! product) may land a long mantissa one unit in the last place off, which is not a bug here.
#![allow(dead_code)] // not every target uses every helper
use serde::de::DeserializeOwned;
use serde::Serialize;
use serde_json::Value;
use std::fmt::Debug;

/// Writes `value` as JSON text, reads it back with `read`, and checks it came back the same.
pub fn check<T: Serialize + Debug, E: Debug>(value: &T, read: impl Fn(&str) -> Result<T, E>, what: &str) -> T {
    let text = serde_json::to_string(value).unwrap_or_else(|e| panic!("{what}: does not encode as JSON: {e}"));
    let back = read(&text).unwrap_or_else(|e| panic!("{what}: {text} does not read back: {e:?}"));
    let (a, b) = (serde_json::to_value(value).unwrap(), serde_json::to_value(&back).unwrap());
    assert!(same(&a, &b), "{what}: JSON round trip changed it\n before: {a}\n  after: {b}");
    back
}

/// `check` with serde_json's own reader.
pub fn check_serde<T: Serialize + DeserializeOwned + Debug>(value: &T, what: &str) -> T {
    check(value, |text| serde_json::from_str::<T>(text), what)
}

pub fn same(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => {
            if x == y {
                return true;
            }
            match (x.as_f64(), y.as_f64()) {
                (Some(x), Some(y)) => x == y || (x - y).abs() <= 1e-15 * x.abs().max(y.abs()) || (x - y).abs() < 1e-300,
                _ => false,
            }
        }
        (Value::Array(x), Value::Array(y)) => x.len() == y.len() && x.iter().zip(y).all(|(x, y)| same(x, y)),
        (Value::Object(x), Value::Object(y)) => x.len() == y.len() && x.iter().all(|(k, v)| y.get(k).is_some_and(|w| same(v, w))),
        _ => a == b,
    }
}
