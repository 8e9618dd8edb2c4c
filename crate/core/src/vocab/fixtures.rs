//! The records the readers' tests read (`objects` from a `Value`, `text` from JSON text): a
//! struct that refuses unknown fields, an enum with every kind of variant, a map with number
//! keys, a tuple, a newtype, defaults and a unit.

use serde::Deserialize;
use std::collections::BTreeMap;

#[derive(Debug, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Point {
    pub x: i8,
    pub y: f64,
}

#[derive(Debug, PartialEq, Deserialize)]
pub enum Shape {
    Empty,
    Dot(Point),
    Line(Point, Point),
    Box { corner: Point, side: u32 },
}

#[derive(Debug, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Record {
    pub name: String,
    #[serde(default)]
    pub tags: Vec<String>,
    pub at: Option<Point>,
    pub by_number: BTreeMap<u32, String>,
    pub pair: (bool, char),
    pub shapes: Vec<Shape>,
    pub wrapped: Option<Wrapper>,
    #[serde(default)]
    pub unit: (),
}

#[derive(Debug, PartialEq, Deserialize)]
pub struct Wrapper(pub Point);
