//! Model families: which protocol a model answers in and how it writes coordinates.

use super::wire::internally_tagged;
use serde::{Deserialize, Serialize};

/// Which prompt style, reply parser and image shape a model needs. The names (kebab-case on
/// the wire) are what settings and `self.sightline.parse` take.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub enum ModelFamily {
    /// Any chat model that reads a page description and a marked screenshot and answers a JSON plan.
    #[default]
    #[serde(rename = "generic")]
    Generic,
    /// Chat models with tool calling: the same element numbers, answered as `{"name", "arguments"}` calls.
    #[serde(rename = "function-calling")]
    FunctionCalling,
    /// UI-TARS 1.0: `Thought:`/`Action:` text, coordinates relative on 0–1000.
    #[serde(rename = "ui-tars-1.0", alias = "vlm-ui-tars")]
    UiTars10,
    /// UI-TARS 1.5: coordinates in pixels of the smart-resized image.
    #[serde(rename = "ui-tars-1.5")]
    UiTars15,
    /// Doubao-1.5-UI-TARS (Volcengine Ark): UI-TARS text, 0–1000.
    #[serde(rename = "doubao-ui-tars", alias = "vlm-ui-tars-doubao", alias = "vlm-ui-tars-doubao-1.5")]
    DoubaoUiTars,
    /// Qwen2.5-VL: tool calls with pixel coordinates on the image padded to multiples of 28.
    #[serde(rename = "qwen2.5-vl")]
    Qwen25Vl,
    /// Qwen3-VL, GLM-4.xV and other 0–1000 grounding models: tool calls, relative coordinates.
    #[serde(rename = "qwen3-vl", alias = "doubao-vision", alias = "glm-v")]
    Qwen3Vl,
    /// Gemini: tool calls with boxes as `[ymin, xmin, ymax, xmax]` on 0–1000.
    #[serde(rename = "gemini")]
    Gemini,
    /// MAI-UI: `<thinking>` + `<tool_call>` tagged text, 0–999.
    #[serde(rename = "mai-ui")]
    MaiUi,
}

/// Midscene's family names (`MIDSCENE_MODEL_FAMILY`) that differ from ours, and the family each
/// is here; `qwen2.5-vl`, `qwen3-vl` and `gemini` are spelled alike. Settings read them as aliases.
pub const MIDSCENE_NAMES: [(&str, ModelFamily); 5] = [
    ("vlm-ui-tars", ModelFamily::UiTars10),
    ("vlm-ui-tars-doubao", ModelFamily::DoubaoUiTars),
    ("vlm-ui-tars-doubao-1.5", ModelFamily::DoubaoUiTars),
    ("doubao-vision", ModelFamily::Qwen3Vl),
    ("glm-v", ModelFamily::Qwen3Vl),
];

impl ModelFamily {
    /// A family by our name or Midscene's.
    pub fn named(name: &str) -> Option<ModelFamily> {
        let name = name.trim().to_ascii_lowercase();
        super::objects::from_value(serde_json::Value::String(name)).ok()
    }
}

/// How a family's replies are written.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Protocol {
    /// One JSON object naming elements by number (`parse::parse_plan`).
    JsonPlan,
    /// `{"name", "arguments"}` calls (`parse::tool_calls::parse_function_calls`).
    FunctionCalls,
    /// `Thought:` / `Action:` text (`parse::ui_tars`).
    UiTars,
    /// `<thinking>` / `<tool_call>` tagged text (`parse::tool_calls::parse_mai_ui`).
    MaiUi,
}

impl ModelFamily {
    pub const ALL: [ModelFamily; 9] = [
        ModelFamily::Generic,
        ModelFamily::FunctionCalling,
        ModelFamily::UiTars10,
        ModelFamily::UiTars15,
        ModelFamily::DoubaoUiTars,
        ModelFamily::Qwen25Vl,
        ModelFamily::Qwen3Vl,
        ModelFamily::Gemini,
        ModelFamily::MaiUi,
    ];

    pub fn protocol(self) -> Protocol {
        match self {
            ModelFamily::Generic => Protocol::JsonPlan,
            ModelFamily::FunctionCalling | ModelFamily::Qwen25Vl | ModelFamily::Qwen3Vl | ModelFamily::Gemini => {
                Protocol::FunctionCalls
            }
            ModelFamily::UiTars10 | ModelFamily::UiTars15 | ModelFamily::DoubaoUiTars => Protocol::UiTars,
            ModelFamily::MaiUi => Protocol::MaiUi,
        }
    }

    /// How it writes coordinates; `None` for families that name elements by number.
    pub fn coord_space(self) -> Option<CoordSpace> {
        let relative = CoordSpace::Relative { range: 1000.0 };
        match self {
            ModelFamily::Generic | ModelFamily::FunctionCalling => None,
            ModelFamily::UiTars10 | ModelFamily::DoubaoUiTars | ModelFamily::Qwen3Vl => Some(relative),
            ModelFamily::UiTars15 | ModelFamily::Qwen25Vl => Some(CoordSpace::ImagePixels),
            ModelFamily::Gemini => Some(CoordSpace::GeminiYx),
            ModelFamily::MaiUi => Some(CoordSpace::Relative { range: MAI_RANGE }),
        }
    }

    /// Families that see only the screenshot: the element list would cost tokens they do not use.
    pub fn grounds_on_image(self) -> bool {
        self.coord_space().is_some()
    }
}

internally_tagged! {
    tag = "kind", rename_all = "camelCase", name = "CoordSpace";
    /// How a model family writes coordinates.
    #[derive(Clone, Copy, Debug, PartialEq, Serialize)]
    pub enum CoordSpace {
        /// Pixels of the image the model was sent (Qwen2.5-VL, UI-TARS 1.5 on a smart-resized image).
        ImagePixels,
        /// 0..=range on both axes across the image: 1000 for Qwen3-VL, Doubao, GLM and UI-TARS 1.0;
        /// 999 for MAI-UI.
        Relative { range: f64 },
        /// Gemini: `[ymin, xmin, ymax, xmax]` (or `[y, x]`) on 0..=1000.
        GeminiYx,
    }
}

/// MAI-UI's coordinate scale.
pub const MAI_RANGE: f64 = 999.0;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn midscene_family_names_are_aliases_of_ours() {
        for (name, family) in MIDSCENE_NAMES {
            assert_eq!(ModelFamily::named(name), Some(family), "{name}");
        }
        for family in ModelFamily::ALL {
            let ours = serde_json::to_value(family).unwrap();
            assert_eq!(ModelFamily::named(ours.as_str().unwrap()), Some(family), "our own names stay");
        }
        assert_eq!(ModelFamily::named(" Gemini "), Some(ModelFamily::Gemini));
        assert_eq!(ModelFamily::named("gpt-5"), None);
        // Settings stored under a Midscene name read as ours and are written back as ours.
        let f: ModelFamily = serde_json::from_str("\"vlm-ui-tars-doubao-1.5\"").unwrap();
        assert_eq!(serde_json::to_string(&f).unwrap(), "\"doubao-ui-tars\"");
    }
}
