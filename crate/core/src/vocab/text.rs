//! Records read from JSON text, structs from objects only (as [`super::objects`] reads them from
//! a `Value`).
//!
//! serde_json's text deserializer reads a struct from an array too (`[1, 2]` for `{"x": 1, "y": 2}`),
//! so every struct read from text compiles a reader from an array beside the one from a map,
//! which never runs: every record here is written as maps. [`Objects`] wraps serde_json's
//! deserializer and everything it hands on (values, elements, option contents, variants' contents), and
//! asks it for a map wherever a struct is read. Otherwise it is serde_json's own reading: the
//! same forms, and the same messages with their positions; a struct given an array is refused as
//! any other wrong type is ("invalid type: sequence, expected struct …"). Not covered: a struct
//! variant's fields, and structs serde reads through its own buffer (`untagged`, `tag = …`,
//! `flatten`), still take an array; none of the types read here has any of them.

use serde::de::{self, DeserializeOwned, DeserializeSeed, Deserializer, EnumAccess, MapAccess, SeqAccess};
use serde::de::{VariantAccess, Visitor};

/// Reads `T` from `text` (what `serde_json::from_str` does, structs from objects only).
pub fn from_str<T: DeserializeOwned>(text: &str) -> Result<T, serde_json::Error> {
    let mut reader = serde_json::Deserializer::from_str(text);
    let value = T::deserialize(Objects(&mut reader))?;
    reader.end()?;
    Ok(value)
}

/// A deserializer whose structs are read from maps only.
pub struct Objects<D>(pub D);

/// A visitor handed what it visits wrapped in [`Objects`].
struct Wrapped<V>(V);

/// A seed reading from a wrapped deserializer.
struct Seed<S>(S);

macro_rules! forward {
    ($($method:ident)*) => {$(
        fn $method<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, D::Error> {
            self.0.$method(Wrapped(visitor))
        }
    )*};
}

impl<'de, D: Deserializer<'de>> Deserializer<'de> for Objects<D> {
    type Error = D::Error;

    forward! {
        deserialize_any deserialize_bool deserialize_i8 deserialize_i16 deserialize_i32 deserialize_i64
        deserialize_i128 deserialize_u8 deserialize_u16 deserialize_u32 deserialize_u64 deserialize_u128
        deserialize_f32 deserialize_f64 deserialize_char deserialize_str deserialize_string deserialize_bytes
        deserialize_byte_buf deserialize_option deserialize_unit deserialize_seq deserialize_map
        deserialize_identifier deserialize_ignored_any
    }

    fn deserialize_unit_struct<V: Visitor<'de>>(self, name: &'static str, visitor: V) -> Result<V::Value, D::Error> {
        self.0.deserialize_unit_struct(name, Wrapped(visitor))
    }

    fn deserialize_newtype_struct<V: Visitor<'de>>(self, name: &'static str, visitor: V) -> Result<V::Value, D::Error> {
        self.0.deserialize_newtype_struct(name, Wrapped(visitor))
    }

    fn deserialize_tuple<V: Visitor<'de>>(self, len: usize, visitor: V) -> Result<V::Value, D::Error> {
        self.0.deserialize_tuple(len, Wrapped(visitor))
    }

    fn deserialize_tuple_struct<V: Visitor<'de>>(
        self,
        name: &'static str,
        len: usize,
        visitor: V,
    ) -> Result<V::Value, D::Error> {
        self.0.deserialize_tuple_struct(name, len, Wrapped(visitor))
    }

    /// From a map only: the one difference from the deserializer wrapped.
    fn deserialize_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        _fields: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, D::Error> {
        self.0.deserialize_map(Wrapped(visitor))
    }

    fn deserialize_enum<V: Visitor<'de>>(
        self,
        name: &'static str,
        variants: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, D::Error> {
        self.0.deserialize_enum(name, variants, Wrapped(visitor))
    }

    fn is_human_readable(&self) -> bool {
        self.0.is_human_readable()
    }
}

macro_rules! visit {
    ($($method:ident $ty:ty)*) => {$(
        fn $method<E: de::Error>(self, v: $ty) -> Result<V::Value, E> {
            self.0.$method(v)
        }
    )*};
}

impl<'de, V: Visitor<'de>> Visitor<'de> for Wrapped<V> {
    type Value = V::Value;

    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        self.0.expecting(f)
    }

    visit! {
        visit_bool bool visit_i8 i8 visit_i16 i16 visit_i32 i32 visit_i64 i64 visit_i128 i128
        visit_u8 u8 visit_u16 u16 visit_u32 u32 visit_u64 u64 visit_u128 u128 visit_f32 f32 visit_f64 f64
        visit_char char visit_str &str visit_borrowed_str &'de str visit_string String
        visit_bytes &[u8] visit_borrowed_bytes &'de [u8] visit_byte_buf Vec<u8>
    }

    fn visit_none<E: de::Error>(self) -> Result<V::Value, E> {
        self.0.visit_none()
    }

    fn visit_unit<E: de::Error>(self) -> Result<V::Value, E> {
        self.0.visit_unit()
    }

    fn visit_some<D: Deserializer<'de>>(self, d: D) -> Result<V::Value, D::Error> {
        self.0.visit_some(Objects(d))
    }

    fn visit_newtype_struct<D: Deserializer<'de>>(self, d: D) -> Result<V::Value, D::Error> {
        self.0.visit_newtype_struct(Objects(d))
    }

    fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<V::Value, A::Error> {
        self.0.visit_seq(Objects(seq))
    }

    fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<V::Value, A::Error> {
        self.0.visit_map(Objects(map))
    }

    fn visit_enum<A: EnumAccess<'de>>(self, data: A) -> Result<V::Value, A::Error> {
        self.0.visit_enum(Objects(data))
    }
}

impl<'de, S: DeserializeSeed<'de>> DeserializeSeed<'de> for Seed<S> {
    type Value = S::Value;

    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<S::Value, D::Error> {
        self.0.deserialize(Objects(d))
    }
}

impl<'de, A: SeqAccess<'de>> SeqAccess<'de> for Objects<A> {
    type Error = A::Error;

    fn next_element_seed<T: DeserializeSeed<'de>>(&mut self, seed: T) -> Result<Option<T::Value>, A::Error> {
        self.0.next_element_seed(Seed(seed))
    }

    fn size_hint(&self) -> Option<usize> {
        self.0.size_hint()
    }
}

impl<'de, A: MapAccess<'de>> MapAccess<'de> for Objects<A> {
    type Error = A::Error;

    /// Keys are strings (or what they spell): read as they are.
    fn next_key_seed<K: DeserializeSeed<'de>>(&mut self, seed: K) -> Result<Option<K::Value>, A::Error> {
        self.0.next_key_seed(seed)
    }

    fn next_value_seed<T: DeserializeSeed<'de>>(&mut self, seed: T) -> Result<T::Value, A::Error> {
        self.0.next_value_seed(Seed(seed))
    }

    fn size_hint(&self) -> Option<usize> {
        self.0.size_hint()
    }
}

impl<'de, A: EnumAccess<'de>> EnumAccess<'de> for Objects<A> {
    type Error = A::Error;
    type Variant = Objects<A::Variant>;

    /// The variant's name is read as it is.
    fn variant_seed<S: DeserializeSeed<'de>>(self, seed: S) -> Result<(S::Value, Self::Variant), A::Error> {
        self.0.variant_seed(seed).map(|(name, variant)| (name, Objects(variant)))
    }
}

impl<'de, A: VariantAccess<'de>> VariantAccess<'de> for Objects<A> {
    type Error = A::Error;

    fn unit_variant(self) -> Result<(), A::Error> {
        self.0.unit_variant()
    }

    fn newtype_variant_seed<T: DeserializeSeed<'de>>(self, seed: T) -> Result<T::Value, A::Error> {
        self.0.newtype_variant_seed(Seed(seed))
    }

    fn tuple_variant<V: Visitor<'de>>(self, len: usize, visitor: V) -> Result<V::Value, A::Error> {
        self.0.tuple_variant(len, Wrapped(visitor))
    }

    /// As serde_json reads it (no record read from text has struct variants).
    fn struct_variant<V: Visitor<'de>>(
        self,
        fields: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, A::Error> {
        self.0.struct_variant(fields, Wrapped(visitor))
    }
}

#[cfg(test)]
mod tests {
    use super::super::fixtures::{Point, Record, Shape, Wrapper};
    use super::*;
    use std::collections::BTreeMap;

    /// The reader's result and serde_json's own, the same value or the same message.
    fn as_serde_json_reads<T: DeserializeOwned + PartialEq + std::fmt::Debug>(text: &str) {
        let ours = from_str::<T>(text).map_err(|e| e.to_string());
        let theirs = serde_json::from_str::<T>(text).map_err(|e| e.to_string());
        assert_eq!(ours, theirs, "{text}");
    }

    fn record(field: &str, value: &str) -> String {
        let fields = [
            ("name", r#""r""#),
            ("tags", r#"["a", "b"]"#),
            ("at", r#"{"x": -3, "y": 2.5}"#),
            ("byNumber", r#"{"1": "one", "20": "twenty"}"#),
            ("pair", r#"[true, "c"]"#),
            ("unknown", r#"{"ignored": [1, {"a": null}]}"#),
            (
                "shapes",
                r#"["Empty", {"Dot": {"x": 1, "y": 0}}, {"Line": [{"x": 1, "y": 0}, {"x": 2, "y": 1}]},
                {"Box": {"corner": {"x": 0, "y": 0}, "side": 4}}]"#,
            ),
            ("wrapped", r#"{"x": 5, "y": 6}"#),
        ];
        let mut parts: Vec<String> =
            fields.iter().filter(|(k, _)| *k != field).map(|(k, v)| format!("\"{k}\": {v}")).collect();
        if !value.is_empty() {
            parts.push(format!("\"{field}\": {value}"));
        }
        format!("{{{}}}", parts.join(",\n"))
    }

    #[test]
    fn what_serde_json_reads_from_text_reads_the_same() {
        let read: Record = from_str(&record("", "")).unwrap();
        assert_eq!(read.by_number[&20], "twenty");
        assert_eq!(read.shapes[3], Shape::Box { corner: Point { x: 0, y: 0.0 }, side: 4 });
        assert_eq!(read.wrapped, Some(Wrapper(Point { x: 5, y: 6.0 })));
        as_serde_json_reads::<Record>(&record("", ""));
        as_serde_json_reads::<Option<Record>>("null");
        as_serde_json_reads::<serde_json::Value>(&record("", ""));
        as_serde_json_reads::<BTreeMap<String, Vec<Option<f64>>>>(r#"{"a": [1, null, -2.5], "b": []}"#);
    }

    #[test]
    fn malformed_text_is_refused_with_serde_json_s_messages_and_positions() {
        for (field, bad) in [
            ("name", "3"),
            ("name", ""),
            ("tags", r#""a""#),
            ("tags", "[1]"),
            ("at", r#"{"x": 300, "y": 1}"#),
            ("at", r#"{"x": 1, "y": 1, "z": 0}"#),
            ("at", r#"{"x": 1}"#),
            ("at", r#""here""#),
            ("byNumber", r#"{"one": "1"}"#),
            ("pair", "[true]"),
            ("pair", r#"[true, "c", 1]"#),
            ("shapes", r#"["Round"]"#),
            ("shapes", r#"[{"Dot": {"x": 1, "y": 0}, "Empty": null}]"#),
            ("shapes", "[3]"),
            ("shapes", r#"["Dot"]"#),
            ("shapes", r#"[{"Box": 4}]"#),
            ("wrapped", "5"),
            ("unit", "false"),
        ] {
            let text = record(field, bad);
            assert!(from_str::<Record>(&text).is_err(), "{text}");
            as_serde_json_reads::<Record>(&text);
        }
        for text in ["", "null", r#""record""#, r#"{"name": "#, "{} x"] {
            as_serde_json_reads::<Record>(text);
        }
    }

    /// The one difference: a struct is never read from an array (refused where the array
    /// starts, as serde_json refuses a map given one).
    #[test]
    fn structs_are_read_from_objects_only() {
        assert_eq!(serde_json::from_str::<Point>("[1, 2.0]").unwrap(), Point { x: 1, y: 2.0 });
        let refused = from_str::<Point>("[1, 2.0]").unwrap_err().to_string();
        assert_eq!(refused, "invalid type: sequence, expected struct Point at line 1 column 0");
        let map = serde_json::from_str::<BTreeMap<String, u8>>("[1]").unwrap_err().to_string();
        assert_eq!(map, "invalid type: sequence, expected a map at line 1 column 0");
        let refused = from_str::<Vec<Option<Point>>>(r#"[{"x": 1, "y": 2}, null, [3, 4]]"#).unwrap_err().to_string();
        assert_eq!(refused, "invalid type: sequence, expected struct Point at line 1 column 25");
        let refused = from_str::<Record>(&record("wrapped", "[5, 6]")).unwrap_err().to_string();
        assert_eq!(refused, "invalid type: sequence, expected struct Point at line 9 column 11");
        assert!(serde_json::from_str::<Record>(&record("wrapped", "[5, 6]")).is_ok());
    }
}
