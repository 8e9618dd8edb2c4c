//! Internally tagged enums (`{"type": "Tap", "target": 3}`) read without serde's buffering.
//!
//! serde's own `#[serde(tag = …)]` reader buffers the map into its private `Content` and reads
//! each variant from that, which compiles a copy of every variant's reader for every input the
//! enum is read from (JS values, JSON text) — the largest part of the worker's module. Read
//! here, the map is read once as a `serde_json::Value` (a reader every input has already) and
//! each variant from that Value, one copy for all inputs. The JSON forms are serde's own: the
//! enum keeps its derived `Serialize` (so writes are byte-identical), and `internally_tagged!`
//! derives the variants' reader from the same definition.

use super::objects::{unexpected, visit_object, Objects};
use serde::de::{self, DeserializeSeed, Deserializer, EnumAccess, IntoDeserializer, VariantAccess, Visitor};
use serde_json::{Map, Value};

/// Declares an internally tagged enum: its derived `Serialize` (which the attributes must list)
/// gets `#[serde(tag = …)]`, writing as serde always has; its `Deserialize` reads the same forms
/// through [`read_tagged`]. The enum's name comes again as a string (serde's `remote` wants one).
macro_rules! internally_tagged {
    (
        tag = $tag:literal $(, rename_all = $rename:literal)?, name = $remote:literal;
        $(#[$attr:meta])*
        $vis:vis enum $name:ident { $($body:tt)* }
    ) => {
        $(#[$attr])*
        #[serde(tag = $tag $(, rename_all = $rename)?)]
        $vis enum $name { $($body)* }

        impl<'de> serde::Deserialize<'de> for $name {
            fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                // The same variants, read externally tagged from what `read_tagged` hands over.
                #[derive(serde::Deserialize)]
                #[serde(remote = $remote $(, rename_all = $rename)?)]
                #[allow(dead_code)]
                enum Variants { $($body)* }
                $crate::vocab::wire::read_tagged(d, $tag, Variants::deserialize)
            }
        }
    };
}
pub(crate) use internally_tagged;

/// Reads the map as a Value, then the variant `tag` names from the rest of it.
pub fn read_tagged<'de, D: Deserializer<'de>, T>(
    d: D,
    tag: &'static str,
    read: fn(Tagged) -> Result<T, serde_json::Error>,
) -> Result<T, D::Error> {
    let value = <Value as serde::Deserialize>::deserialize(d)?;
    read(Tagged { value, tag }).map_err(de::Error::custom)
}

/// A map holding its variant's name under `tag`, as an externally tagged enum's input.
pub struct Tagged {
    value: Value,
    tag: &'static str,
}

impl<'de> Deserializer<'de> for Tagged {
    type Error = serde_json::Error;

    fn deserialize_enum<V: Visitor<'de>>(
        self,
        name: &'static str,
        _variants: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, Self::Error> {
        match self.value {
            Value::Object(map) => visitor.visit_enum(Fields { map, tag: self.tag }),
            other => Err(de::Error::invalid_type(unexpected(&other), &&*format!("internally tagged enum {name}"))),
        }
    }

    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Self::Error> {
        Err(de::Error::invalid_type(unexpected(&self.value), &visitor))
    }

    serde::forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string bytes byte_buf option unit
        unit_struct newtype_struct seq tuple tuple_struct map struct identifier ignored_any
    }
}

/// The map, its tag still in it until the variant is read.
struct Fields {
    map: Map<String, Value>,
    tag: &'static str,
}

impl<'de> EnumAccess<'de> for Fields {
    type Error = serde_json::Error;
    type Variant = Rest;

    fn variant_seed<V: DeserializeSeed<'de>>(mut self, seed: V) -> Result<(V::Value, Self::Variant), Self::Error> {
        let name = self.map.remove(self.tag).ok_or_else(|| de::Error::missing_field(self.tag))?;
        let variant = match name {
            Value::String(s) => seed.deserialize(s.into_deserializer())?,
            other => return Err(de::Error::invalid_type(unexpected(&other), &"a variant name")),
        };
        Ok((variant, Rest(self.map)))
    }
}

/// The variant's fields: the map without its tag.
struct Rest(Map<String, Value>);

impl<'de> VariantAccess<'de> for Rest {
    type Error = serde_json::Error;

    /// A variant without fields: whatever else the map holds is ignored, as serde does.
    fn unit_variant(self) -> Result<(), Self::Error> {
        Ok(())
    }

    fn newtype_variant_seed<T: DeserializeSeed<'de>>(self, seed: T) -> Result<T::Value, Self::Error> {
        seed.deserialize(Objects(Value::Object(self.0)))
    }

    fn tuple_variant<V: Visitor<'de>>(self, _len: usize, visitor: V) -> Result<V::Value, Self::Error> {
        Err(de::Error::invalid_type(de::Unexpected::Map, &visitor))
    }

    fn struct_variant<V: Visitor<'de>>(
        self,
        _fields: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, Self::Error> {
        // The map itself, its values read as `Objects` (structs from objects only).
        visit_object(self.0, visitor)
    }
}
