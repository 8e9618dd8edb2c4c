//! Records read from a `serde_json::Value`, structs from objects only.
//!
//! serde_json's own `Value` deserializer reads a struct from an array too (`[1, 2]` for
//! `{"x": 1, "y": 2}`), so every struct read through it compiles its reader from an array beside
//! the one from a map, and `value::de::visit_array` once per struct: about 30 KB of the worker's
//! module that never runs, since every record here is written as maps. [`Objects`] reads the same
//! forms as serde_json's `Value` deserializer, with the same error messages, except that a struct
//! (or a struct variant) given an array is refused as any other wrong type is.

use serde::de::{self, DeserializeOwned, DeserializeSeed, EnumAccess, IntoDeserializer, MapAccess, SeqAccess};
use serde::de::{Unexpected, VariantAccess, Visitor};
use serde_json::{Error, Map, Value};

/// Reads `T` from `value` (what `serde_json::from_value` does, structs from objects only).
pub fn from_value<T: DeserializeOwned>(value: Value) -> Result<T, Error> {
    T::deserialize(Objects(value))
}

/// A `Value` as a deserializer whose structs are read from objects only.
pub struct Objects(pub Value);

/// What a wrong `value` is called in an error, as serde_json calls it.
pub fn unexpected(value: &Value) -> Unexpected<'_> {
    match value {
        Value::Null => Unexpected::Unit,
        Value::Bool(b) => Unexpected::Bool(*b),
        Value::Number(n) => match (n.as_u64(), n.as_i64()) {
            (Some(u), _) => Unexpected::Unsigned(u),
            (None, Some(i)) => Unexpected::Signed(i),
            _ => Unexpected::Float(n.as_f64().unwrap_or(f64::NAN)),
        },
        Value::String(s) => Unexpected::Str(s),
        Value::Array(_) => Unexpected::Seq,
        Value::Object(_) => Unexpected::Map,
    }
}

impl Objects {
    fn refuse<'de, V: Visitor<'de>, T>(&self, visitor: &V) -> Result<T, Error> {
        Err(de::Error::invalid_type(unexpected(&self.0), visitor))
    }
}

/// The elements of an array, each read as [`Objects`]; all of them must be read.
fn visit_array<'de, V: Visitor<'de>>(array: Vec<Value>, visitor: V) -> Result<V::Value, Error> {
    let len = array.len();
    let mut elements = Elements(array.into_iter());
    let read = visitor.visit_seq(&mut elements)?;
    match elements.0.len() {
        0 => Ok(read),
        _ => Err(de::Error::invalid_length(len, &"fewer elements in array")),
    }
}

/// The entries of an object, each value read as [`Objects`]; all of them must be read.
pub fn visit_object<'de, V: Visitor<'de>>(object: Map<String, Value>, visitor: V) -> Result<V::Value, Error> {
    let len = object.len();
    let mut entries = Entries { iter: object.into_iter(), value: None };
    let read = visitor.visit_map(&mut entries)?;
    match entries.iter.len() {
        0 => Ok(read),
        _ => Err(de::Error::invalid_length(len, &"fewer elements in map")),
    }
}

macro_rules! numbers {
    ($($method:ident)*) => {$(
        fn $method<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
            match self.0 {
                Value::Number(n) => n.deserialize_any(visitor),
                _ => self.refuse(&visitor),
            }
        }
    )*};
}

// Each method reads only the kinds of value its type can come from, and none falls back on
// `deserialize_any`: that would instantiate the array reader for every visitor again.
impl<'de> de::Deserializer<'de> for Objects {
    type Error = Error;

    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        match self.0 {
            Value::Null => visitor.visit_unit(),
            Value::Bool(b) => visitor.visit_bool(b),
            Value::Number(n) => n.deserialize_any(visitor),
            Value::String(s) => visitor.visit_string(s),
            Value::Array(a) => visit_array(a, visitor),
            Value::Object(o) => visit_object(o, visitor),
        }
    }

    numbers! {
        deserialize_i8 deserialize_i16 deserialize_i32 deserialize_i64 deserialize_i128
        deserialize_u8 deserialize_u16 deserialize_u32 deserialize_u64 deserialize_u128
        deserialize_f32 deserialize_f64
    }

    fn deserialize_bool<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        match self.0 {
            Value::Bool(b) => visitor.visit_bool(b),
            _ => self.refuse(&visitor),
        }
    }

    fn deserialize_char<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        self.deserialize_string(visitor)
    }

    fn deserialize_str<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        self.deserialize_string(visitor)
    }

    fn deserialize_string<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        match self.0 {
            Value::String(s) => visitor.visit_string(s),
            _ => self.refuse(&visitor),
        }
    }

    fn deserialize_identifier<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        self.deserialize_string(visitor)
    }

    fn deserialize_bytes<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        self.deserialize_byte_buf(visitor)
    }

    fn deserialize_byte_buf<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        match self.0 {
            Value::String(s) => visitor.visit_string(s),
            Value::Array(a) => visit_array(a, visitor),
            _ => self.refuse(&visitor),
        }
    }

    fn deserialize_option<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        match self.0 {
            Value::Null => visitor.visit_none(),
            _ => visitor.visit_some(self),
        }
    }

    fn deserialize_unit<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        match self.0 {
            Value::Null => visitor.visit_unit(),
            _ => self.refuse(&visitor),
        }
    }

    fn deserialize_unit_struct<V: Visitor<'de>>(self, _name: &'static str, visitor: V) -> Result<V::Value, Error> {
        self.deserialize_unit(visitor)
    }

    fn deserialize_newtype_struct<V: Visitor<'de>>(self, _name: &'static str, visitor: V) -> Result<V::Value, Error> {
        visitor.visit_newtype_struct(self)
    }

    fn deserialize_seq<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        match self.0 {
            Value::Array(a) => visit_array(a, visitor),
            _ => self.refuse(&visitor),
        }
    }

    fn deserialize_tuple<V: Visitor<'de>>(self, _len: usize, visitor: V) -> Result<V::Value, Error> {
        self.deserialize_seq(visitor)
    }

    fn deserialize_tuple_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        _len: usize,
        visitor: V,
    ) -> Result<V::Value, Error> {
        self.deserialize_seq(visitor)
    }

    fn deserialize_map<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        match self.0 {
            Value::Object(o) => visit_object(o, visitor),
            _ => self.refuse(&visitor),
        }
    }

    /// From an object only: the one difference from serde_json's `Value`.
    fn deserialize_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        _fields: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, Error> {
        self.deserialize_map(visitor)
    }

    /// `"Variant"`, or `{"Variant": its content}` (externally tagged, as serde writes enums).
    fn deserialize_enum<V: Visitor<'de>>(
        self,
        _name: &'static str,
        _variants: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, Error> {
        match self.0 {
            Value::String(variant) => visitor.visit_enum(Variant { name: variant, content: None }),
            Value::Object(o) => {
                let mut entries = o.into_iter();
                match (entries.next(), entries.next()) {
                    (Some((name, content)), None) => visitor.visit_enum(Variant { name, content: Some(content) }),
                    _ => Err(de::Error::invalid_value(Unexpected::Map, &"map with a single key")),
                }
            }
            other => Err(de::Error::invalid_type(unexpected(&other), &"string or map")),
        }
    }

    fn deserialize_ignored_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        visitor.visit_unit()
    }
}

struct Elements(std::vec::IntoIter<Value>);

impl<'de> SeqAccess<'de> for Elements {
    type Error = Error;

    fn next_element_seed<T: DeserializeSeed<'de>>(&mut self, seed: T) -> Result<Option<T::Value>, Error> {
        self.0.next().map(|v| seed.deserialize(Objects(v))).transpose()
    }

    fn size_hint(&self) -> Option<usize> {
        Some(self.0.len())
    }
}

struct Entries {
    iter: serde_json::map::IntoIter,
    value: Option<Value>,
}

impl<'de> MapAccess<'de> for Entries {
    type Error = Error;

    fn next_key_seed<K: DeserializeSeed<'de>>(&mut self, seed: K) -> Result<Option<K::Value>, Error> {
        match self.iter.next() {
            Some((key, value)) => {
                self.value = Some(value);
                seed.deserialize(Key(key)).map(Some)
            }
            None => Ok(None),
        }
    }

    fn next_value_seed<T: DeserializeSeed<'de>>(&mut self, seed: T) -> Result<T::Value, Error> {
        match self.value.take() {
            Some(value) => seed.deserialize(Objects(value)),
            None => Err(de::Error::custom("value is missing")),
        }
    }

    fn size_hint(&self) -> Option<usize> {
        Some(self.iter.len())
    }
}

/// An object's key: a string, or the number or bool it spells for a map keyed by those (as
/// serde_json writes such maps; a number as Rust's `parse` reads it, after a digit or `-`).
struct Key(String);

macro_rules! parsed {
    ($($method:ident $visit:ident $ty:ty)*) => {$(
        fn $method<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
            match self.0.parse::<$ty>() {
                Ok(n) if matches!(self.0.as_bytes()[0], b'0'..=b'9' | b'-') => visitor.$visit(n),
                _ => Err(de::Error::custom("invalid value: expected key to be a number in quotes")),
            }
        }
    )*};
}

impl<'de> de::Deserializer<'de> for Key {
    type Error = Error;

    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        visitor.visit_string(self.0)
    }

    fn deserialize_bool<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        match self.0.as_str() {
            "true" => visitor.visit_bool(true),
            "false" => visitor.visit_bool(false),
            _ => Err(de::Error::invalid_type(Unexpected::Str(&self.0), &visitor)),
        }
    }

    parsed! {
        deserialize_i8 visit_i8 i8 deserialize_i16 visit_i16 i16 deserialize_i32 visit_i32 i32
        deserialize_i64 visit_i64 i64 deserialize_i128 visit_i128 i128
        deserialize_u8 visit_u8 u8 deserialize_u16 visit_u16 u16 deserialize_u32 visit_u32 u32
        deserialize_u64 visit_u64 u64 deserialize_u128 visit_u128 u128
        deserialize_f32 visit_f32 f32 deserialize_f64 visit_f64 f64
    }

    fn deserialize_option<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        visitor.visit_some(self)
    }

    fn deserialize_newtype_struct<V: Visitor<'de>>(self, _name: &'static str, visitor: V) -> Result<V::Value, Error> {
        visitor.visit_newtype_struct(self)
    }

    fn deserialize_enum<V: Visitor<'de>>(
        self,
        _name: &'static str,
        _variants: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, Error> {
        visitor.visit_enum(IntoDeserializer::<Error>::into_deserializer(self.0))
    }

    serde::forward_to_deserialize_any! {
        char str string bytes byte_buf unit unit_struct seq tuple tuple_struct map struct identifier ignored_any
    }
}

/// An enum's variant: its name, and what came under it (`None` for a bare `"Variant"`).
struct Variant {
    name: String,
    content: Option<Value>,
}

impl<'de> EnumAccess<'de> for Variant {
    type Error = Error;
    type Variant = Content;

    fn variant_seed<V: DeserializeSeed<'de>>(self, seed: V) -> Result<(V::Value, Content), Error> {
        let name = seed.deserialize(IntoDeserializer::<Error>::into_deserializer(self.name))?;
        Ok((name, Content(self.content)))
    }
}

struct Content(Option<Value>);

impl<'de> VariantAccess<'de> for Content {
    type Error = Error;

    fn unit_variant(self) -> Result<(), Error> {
        match self.0 {
            Some(value) => serde::Deserialize::deserialize(Objects(value)),
            None => Ok(()),
        }
    }

    fn newtype_variant_seed<T: DeserializeSeed<'de>>(self, seed: T) -> Result<T::Value, Error> {
        match self.0 {
            Some(value) => seed.deserialize(Objects(value)),
            None => Err(de::Error::invalid_type(Unexpected::UnitVariant, &"newtype variant")),
        }
    }

    fn tuple_variant<V: Visitor<'de>>(self, _len: usize, visitor: V) -> Result<V::Value, Error> {
        match self.0 {
            Some(Value::Array(a)) if a.is_empty() => visitor.visit_unit(),
            Some(Value::Array(a)) => visit_array(a, visitor),
            Some(other) => Err(de::Error::invalid_type(unexpected(&other), &"tuple variant")),
            None => Err(de::Error::invalid_type(Unexpected::UnitVariant, &"tuple variant")),
        }
    }

    /// From an object only, as a struct.
    fn struct_variant<V: Visitor<'de>>(self, _fields: &'static [&'static str], visitor: V) -> Result<V::Value, Error> {
        match self.0 {
            Some(Value::Object(o)) => visit_object(o, visitor),
            Some(other) => Err(de::Error::invalid_type(unexpected(&other), &"struct variant")),
            None => Err(de::Error::invalid_type(Unexpected::UnitVariant, &"struct variant")),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::fixtures::{Point, Record, Shape};
    use super::*;
    use serde_json::json;
    use std::collections::BTreeMap;

    /// The reader's result and serde_json's own, the same value or the same message.
    fn as_serde_json_reads<T: DeserializeOwned + PartialEq + std::fmt::Debug>(value: Value) {
        let ours = from_value::<T>(value.clone()).map_err(|e| e.to_string());
        let theirs = serde_json::from_value::<T>(value.clone()).map_err(|e| e.to_string());
        assert_eq!(ours, theirs, "{value}");
    }

    fn record() -> Value {
        json!({
            "name": "r", "tags": ["a", "b"], "at": {"x": -3, "y": 2.5}, "byNumber": {"1": "one", "20": "twenty"},
            "pair": [true, "c"], "unknown": {"ignored": [1, 2]},
            "shapes": ["Empty", {"Empty": null}, {"Dot": {"x": 1, "y": 0}}, {"Line": [{"x": 1, "y": 0}, {"x": 2, "y": 1}]},
                {"Box": {"corner": {"x": 0, "y": 0}, "side": 4}}],
        })
    }

    #[test]
    fn what_serde_json_reads_from_a_value_reads_the_same() {
        let read: Record = from_value(record()).unwrap();
        assert_eq!(read.by_number[&20], "twenty");
        assert_eq!(read.shapes[4], Shape::Box { corner: Point { x: 0, y: 0.0 }, side: 4 });
        as_serde_json_reads::<Record>(record());
        as_serde_json_reads::<Option<Record>>(Value::Null);
        as_serde_json_reads::<Value>(record());
        as_serde_json_reads::<BTreeMap<String, Vec<Option<f64>>>>(json!({"a": [1, null, -2.5], "b": []}));
    }

    #[test]
    fn malformed_values_are_refused_with_serde_json_s_messages() {
        let with = |field: &str, v: Value| {
            let mut r = record();
            r[field] = v;
            r
        };
        for bad in [
            with("name", json!(3)),
            with("tags", json!("a")),
            with("tags", json!([1])),
            with("at", json!({"x": 300, "y": 1})),
            with("at", json!({"x": 1.5, "y": 1})),
            with("at", json!({"x": 1, "y": 1, "z": 0})),
            with("at", json!({"x": 1})),
            with("at", json!("here")),
            with("byNumber", json!({"one": "1"})),
            with("byNumber", json!([])),
            with("pair", json!([true])),
            with("pair", json!([true, "c", 1])),
            with("pair", json!([true, "cc"])),
            with("shapes", json!(["Round"])),
            with("shapes", json!([{"Dot": {"x": 1, "y": 0}, "Empty": null}])),
            with("shapes", json!([{}])),
            with("shapes", json!([3])),
            with("shapes", json!([{"Empty": 1}])),
            with("shapes", json!(["Dot"])),
            with("shapes", json!([{"Line": {"x": 1}}])),
            with("shapes", json!([{"Box": 4}])),
            with("unit", json!(false)),
            json!(null),
            json!("record"),
        ] {
            assert!(from_value::<Record>(bad.clone()).is_err(), "{bad}");
            as_serde_json_reads::<Record>(bad);
        }
    }

    /// The one difference: a struct (or a struct variant) is never read from an array.
    #[test]
    fn structs_are_read_from_objects_only() {
        let array = json!([1, 2.0]);
        assert_eq!(serde_json::from_value::<Point>(array.clone()).unwrap(), Point { x: 1, y: 2.0 });
        let refused = from_value::<Point>(array).unwrap_err().to_string();
        assert_eq!(refused, "invalid type: sequence, expected struct Point");
        let refused = from_value::<Shape>(json!({"Box": [{"x": 0, "y": 0}, 4]})).unwrap_err().to_string();
        assert_eq!(refused, "invalid type: sequence, expected struct variant");
    }
}
