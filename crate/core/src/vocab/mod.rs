//! The bottom floor: the words every room above shares, as plain data with no logic of the
//! rooms in it. Nothing here imports anything else of the crate, so the rooms form a DAG
//! (`tests/module_dag.rs`).

pub mod actions;
pub mod address;
pub mod calls;
pub mod catalog;
pub(crate) mod escape;
pub mod family;
#[cfg(test)]
mod fixtures;
pub mod formats;
pub mod geometry;
pub mod grounding;
pub mod objects;
pub mod redact;
pub mod tasks;
pub mod text;
pub mod tools;
pub mod wire;
