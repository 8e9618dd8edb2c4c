//! The image codecs a step runs (PNG decode and encode, JPEG encode, base64), behind plain
//! functions of bytes.
//!
//! Why a crate of its own: the service worker's module is built for size (opt-level "z" with
//! fat LTO, Cargo.toml `[profile.worker]`), which leaves these loops about twice as slow; so
//! the worker loads them as a second module built for speed (`crate/codec/module`, profile
//! `release`). Built for wasm32 with the feature `imported` (crate/web turns it on), these
//! functions call that module through the worker's JS (`imported.rs`); everywhere else (host
//! tests, the page reader, the codec module itself) they are the codecs (`native.rs`).

/// Whether these functions call the codec module rather than being the codecs.
pub const IMPORTED: bool = cfg!(all(target_arch = "wasm32", feature = "imported"));

#[cfg(not(all(target_arch = "wasm32", feature = "imported")))]
mod native;
#[cfg(not(all(target_arch = "wasm32", feature = "imported")))]
pub use native::*;

#[cfg(all(target_arch = "wasm32", feature = "imported"))]
mod imported;
#[cfg(all(target_arch = "wasm32", feature = "imported"))]
pub use imported::*;
