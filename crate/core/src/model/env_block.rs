//! Midscene's model settings as environment variables (a pasted `.env` block, or the headless
//! runner's environment): `MIDSCENE_MODEL_{BASE_URL,API_KEY,NAME,FAMILY}`, the planning model's
//! `MIDSCENE_PLANNING_MODEL_*`, and the legacy `OPENAI_API_KEY`, `OPENAI_BASE_URL` and
//! `MIDSCENE_USE_*` switches, read into our settings' fields.

use crate::vocab::family::ModelFamily;
use serde::Serialize;

/// One model's settings as the variables gave them; what they leave out stays as it is.
/// Its Debug shows `api_key` as `<redacted>`.
#[derive(Clone, Default, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct EnvModel {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub base_url: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub api_key: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub family: Option<ModelFamily>,
}

impl std::fmt::Debug for EnvModel {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let EnvModel { base_url, api_key, model, family } = self;
        f.debug_struct("EnvModel")
            .field("base_url", base_url)
            .field("api_key", &api_key.as_deref().map(crate::vocab::redact::Redacted))
            .field("model", model)
            .field("family", family)
            .finish()
    }
}

impl EnvModel {
    fn is_empty(&self) -> bool {
        *self == EnvModel::default()
    }
}

#[derive(Clone, Debug, Default, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct EnvSettings {
    /// The acting (and grounding) model.
    pub model: EnvModel,
    /// `MIDSCENE_PLANNING_MODEL_*`: a separate planning model, when set.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub planner: Option<EnvModel>,
    /// Midscene variables we read but do not use (proxies, timeouts), named for the person.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub ignored: Vec<String>,
}

#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum EnvError {
    #[error("no model settings found: paste lines such as MIDSCENE_MODEL_BASE_URL=…, MIDSCENE_MODEL_API_KEY=…, MIDSCENE_MODEL_NAME=…")]
    NothingFound,
    #[error("line {line}: \"{text}\" is not NAME=value")]
    BadLine { line: usize, text: String },
    #[error("{variable}=\"{name}\" is a model family Sightline does not know; known: generic, function-calling, ui-tars-1.0, ui-tars-1.5, doubao-ui-tars, qwen2.5-vl, qwen3-vl, gemini, mai-ui, and Midscene's vlm-ui-tars, vlm-ui-tars-doubao(-1.5), doubao-vision, glm-v")]
    UnknownFamily { variable: String, name: String },
    #[error("only one MIDSCENE_USE_* switch may be on; these are: {0}")]
    TwoSwitches(String),
}

/// `NAME=value` pairs of a pasted block: `export` and quotes allowed, `#` comments and blank lines skipped.
pub fn read_block(text: &str) -> Result<Vec<(String, String)>, EnvError> {
    let mut pairs = Vec::new();
    for (i, raw) in text.lines().enumerate() {
        let line = raw.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let line = line.strip_prefix("export ").map_or(line, str::trim_start);
        let Some((name, value)) = line.split_once('=') else {
            return Err(EnvError::BadLine { line: i + 1, text: line.chars().take(60).collect() });
        };
        let name = name.trim();
        if name.is_empty() || !name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') {
            return Err(EnvError::BadLine { line: i + 1, text: line.chars().take(60).collect() });
        }
        let value = value.trim();
        let unquoted = ['"', '\'']
            .iter()
            .find_map(|q| value.strip_prefix(*q).and_then(|v| v.strip_suffix(*q)))
            .unwrap_or_else(|| value.split(" #").next().unwrap_or(value).trim());
        pairs.push((name.to_string(), unquoted.to_string()));
    }
    Ok(pairs)
}

/// Our settings from Midscene's variables (any order; later lines win, as in a shell).
pub fn settings_from_env(pairs: &[(String, String)]) -> Result<EnvSettings, EnvError> {
    let get = |name: &str| {
        pairs.iter().rev().find(|(k, _)| k == name).map(|(_, v)| v.trim().to_string()).filter(|v| !v.is_empty())
    };
    let family = |variable: &str| -> Result<Option<ModelFamily>, EnvError> {
        match get(variable) {
            None => Ok(None),
            Some(name) => ModelFamily::named(&name)
                .map(Some)
                .ok_or(EnvError::UnknownFamily { variable: variable.to_string(), name }),
        }
    };
    let mut model = EnvModel {
        base_url: get("MIDSCENE_MODEL_BASE_URL").or_else(|| get("OPENAI_BASE_URL")),
        api_key: get("MIDSCENE_MODEL_API_KEY").or_else(|| get("OPENAI_API_KEY")),
        model: get("MIDSCENE_MODEL_NAME"),
        family: family("MIDSCENE_MODEL_FAMILY")?,
    };
    if model.family.is_none() {
        model.family = legacy_switch(&get)?;
    }
    let planner = EnvModel {
        base_url: get("MIDSCENE_PLANNING_MODEL_BASE_URL"),
        api_key: get("MIDSCENE_PLANNING_MODEL_API_KEY"),
        model: get("MIDSCENE_PLANNING_MODEL_NAME"),
        family: family("MIDSCENE_PLANNING_MODEL_FAMILY")?,
    };
    if model.is_empty() && planner.is_empty() {
        return Err(EnvError::NothingFound);
    }
    let used = |k: &str| {
        matches!(k, "OPENAI_API_KEY" | "OPENAI_BASE_URL")
            || k.starts_with("MIDSCENE_USE_")
            || ["BASE_URL", "API_KEY", "NAME", "FAMILY"]
                .iter()
                .any(|f| k == format!("MIDSCENE_MODEL_{f}") || k == format!("MIDSCENE_PLANNING_MODEL_{f}"))
    };
    let mut ignored: Vec<String> = pairs
        .iter()
        .map(|(k, _)| k.clone())
        .filter(|k| (k.starts_with("MIDSCENE_") || k.starts_with("OPENAI_")) && !used(k))
        .collect();
    ignored.dedup();
    Ok(EnvSettings { model, planner: (!planner.is_empty()).then_some(planner), ignored })
}

/// Midscene's older way of naming the family: one `MIDSCENE_USE_*` switch.
fn legacy_switch(get: &dyn Fn(&str) -> Option<String>) -> Result<Option<ModelFamily>, EnvError> {
    let on = |name: &str| get(name).filter(|v| !matches!(v.to_ascii_lowercase().as_str(), "0" | "false"));
    let ui_tars = on("MIDSCENE_USE_VLM_UI_TARS").map(|v| match v.to_ascii_uppercase().as_str() {
        "1" | "TRUE" => ModelFamily::UiTars10,
        _ => ModelFamily::DoubaoUiTars,
    });
    let switches = [
        ("MIDSCENE_USE_QWEN3_VL", on("MIDSCENE_USE_QWEN3_VL").map(|_| ModelFamily::Qwen3Vl)),
        ("MIDSCENE_USE_QWEN_VL", on("MIDSCENE_USE_QWEN_VL").map(|_| ModelFamily::Qwen25Vl)),
        ("MIDSCENE_USE_DOUBAO_VISION", on("MIDSCENE_USE_DOUBAO_VISION").map(|_| ModelFamily::Qwen3Vl)),
        ("MIDSCENE_USE_GEMINI", on("MIDSCENE_USE_GEMINI").map(|_| ModelFamily::Gemini)),
        ("MIDSCENE_USE_VLM_UI_TARS", ui_tars),
    ];
    let set: Vec<_> = switches.iter().filter(|(_, f)| f.is_some()).collect();
    match set.as_slice() {
        [] => Ok(None),
        [(_, family)] => Ok(*family),
        many => Err(EnvError::TwoSwitches(many.iter().map(|(n, _)| *n).collect::<Vec<_>>().join(", "))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(text: &str) -> Result<EnvSettings, EnvError> {
        settings_from_env(&read_block(text)?)
    }

    #[test]
    fn a_pasted_midscene_block_fills_the_model_and_the_planner() {
        let s = read(
            "# Midscene\nexport MIDSCENE_MODEL_BASE_URL=\"https://ark.example/api/v3\"\nMIDSCENE_MODEL_API_KEY='sk-1'\nMIDSCENE_MODEL_NAME=doubao-1.5-ui-tars # the grounder\nMIDSCENE_MODEL_FAMILY=vlm-ui-tars-doubao-1.5\nMIDSCENE_MODEL_TIMEOUT=60000\n\nMIDSCENE_PLANNING_MODEL_NAME=qwen3-vl-plus\nMIDSCENE_PLANNING_MODEL_FAMILY=qwen3-vl\n",
        )
        .unwrap();
        assert_eq!(
            s.model,
            EnvModel {
                base_url: Some("https://ark.example/api/v3".into()),
                api_key: Some("sk-1".into()),
                model: Some("doubao-1.5-ui-tars".into()),
                family: Some(ModelFamily::DoubaoUiTars),
            }
        );
        let planner = s.planner.unwrap();
        assert_eq!((planner.model.as_deref(), planner.family), (Some("qwen3-vl-plus"), Some(ModelFamily::Qwen3Vl)));
        assert_eq!(s.ignored, ["MIDSCENE_MODEL_TIMEOUT"]);
    }

    #[test]
    fn the_legacy_openai_names_and_switches_are_read() {
        let s =
            read("OPENAI_API_KEY=sk-2\nOPENAI_BASE_URL=https://dashscope.example/v1\nMIDSCENE_USE_QWEN_VL=1").unwrap();
        assert_eq!(s.model.family, Some(ModelFamily::Qwen25Vl));
        assert_eq!(s.model.api_key.as_deref(), Some("sk-2"));
        assert_eq!(
            read("OPENAI_API_KEY=x\nMIDSCENE_USE_VLM_UI_TARS=1").unwrap().model.family,
            Some(ModelFamily::UiTars10)
        );
        assert_eq!(
            read("OPENAI_API_KEY=x\nMIDSCENE_USE_VLM_UI_TARS=DOUBAO").unwrap().model.family,
            Some(ModelFamily::DoubaoUiTars)
        );
        // The new names win over the legacy ones.
        let s = read("OPENAI_API_KEY=old\nMIDSCENE_MODEL_API_KEY=new").unwrap();
        assert_eq!(s.model.api_key.as_deref(), Some("new"));
    }

    #[test]
    fn what_cannot_be_read_says_so() {
        assert_eq!(read("# nothing\n\n"), Err(EnvError::NothingFound));
        assert!(matches!(read("MIDSCENE_MODEL_NAME x"), Err(EnvError::BadLine { line: 1, .. })));
        assert!(matches!(read("MIDSCENE_MODEL_FAMILY=gpt-5"), Err(EnvError::UnknownFamily { .. })));
        assert!(matches!(read("MIDSCENE_USE_GEMINI=1\nMIDSCENE_USE_QWEN_VL=1"), Err(EnvError::TwoSwitches(_))));
        assert_eq!(read("MIDSCENE_USE_GEMINI=0\nOPENAI_API_KEY=k").unwrap().model.family, None);
    }
}
