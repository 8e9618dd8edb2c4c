//! Runs again without asking the model again: the cache of what earlier runs found
//! ([`cache`]), saved runs replayed as trajectories ([`trajectory`]) and flow files run item by
//! item ([`flow`]).

pub mod cache;
pub mod flow;
pub mod trajectory;
