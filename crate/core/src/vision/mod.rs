//! Screenshots for models: capture (`capture`) → fit to the model (`fit`, `mapping`) → markers (`labels`,
//! `markers`, drawn with `draw` and `font`) → encoded image (`pipeline`).
//!
//! Runs in the service worker, in the same WASM module as the rest of the core: the capture
//! arrives there from CDP, no DOM or canvas is needed, and the marked image goes straight into
//! the model request without crossing to another context.

pub mod base64;
pub mod capture;
pub mod draw;
pub mod fit;
pub mod font;
pub mod labels;
pub mod mapping;
pub mod markers;
pub mod pipeline;

pub use capture::Capture;
pub use fit::{ImageFormat, ImageOptions, ImageRule};
pub use mapping::ImageMapping;
pub use markers::{Marker, Overlay};
pub use pipeline::{model_image, Frame, ModelImage};

#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum VisionError {
    #[error("the screenshot is not valid base64")]
    Base64,
    #[error("the screenshot could not be decoded: {0}")]
    Decode(String),
    #[error("the image could not be encoded: {0}")]
    Encode(String),
    #[error("the screenshot is empty")]
    Empty,
    #[error("the screenshot is {width}×{height} pixels, more than a model image may be")]
    TooLarge { width: u32, height: u32 },
    #[error("the image is {width}×{height}: vision models refuse images more elongated than 200:1")]
    TooElongated { width: u32, height: u32 },
}

#[cfg(test)]
mod tests;
