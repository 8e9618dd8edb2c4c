//! Where a request goes and how it is signed: one preset per provider a person picks in
//! Settings. A preset fills the base URL and suggests a family; the wire format and the
//! auth header follow from the provider alone.

use super::ModelError;
use crate::vocab::family::ModelFamily;
use crate::vocab::redact::{is_credential_header, Redacted};
use serde::{Deserialize, Serialize};

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Provider {
    /// Any OpenAI-compatible endpoint the person points at.
    #[default]
    Custom,
    Openai,
    Azure,
    /// Alibaba DashScope, OpenAI-compatible mode (Qwen).
    Dashscope,
    /// Volcengine Ark (Doubao).
    Ark,
    /// Gemini's OpenAI-compatible endpoint.
    Gemini,
    Openrouter,
    /// Anthropic's own Messages API.
    Anthropic,
    Ollama,
    LmStudio,
    Vllm,
}

/// The request and reply format spoken on the wire.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Wire {
    /// `POST {base}/chat/completions`.
    OpenAiChat,
    /// `POST {base}/messages`.
    AnthropicMessages,
}

/// What Settings fills in when a provider is picked.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Preset {
    pub provider: Provider,
    pub label: &'static str,
    pub base_url: &'static str,
    /// A model name to start from; the person can type any other.
    pub model_hint: &'static str,
    pub family: ModelFamily,
    pub needs_key: bool,
    /// Shown under the base URL: what to replace or where to find it.
    pub help: &'static str,
}

/// Anthropic's API version header; the Messages format has been stable under it.
pub const ANTHROPIC_VERSION: &str = "2023-06-01";

impl Provider {
    pub const ALL: [Provider; 11] = [
        Provider::Openai,
        Provider::Anthropic,
        Provider::Gemini,
        Provider::Azure,
        Provider::Dashscope,
        Provider::Ark,
        Provider::Openrouter,
        Provider::Ollama,
        Provider::LmStudio,
        Provider::Vllm,
        Provider::Custom,
    ];

    pub fn wire(self) -> Wire {
        match self {
            Provider::Anthropic => Wire::AnthropicMessages,
            _ => Wire::OpenAiChat,
        }
    }

    pub fn preset(self) -> Preset {
        let p = |label, base_url, model_hint, family, needs_key, help| Preset {
            provider: self,
            label,
            base_url,
            model_hint,
            family,
            needs_key,
            help,
        };
        use ModelFamily as F;
        match self {
            Provider::Openai => p("OpenAI", "https://api.openai.com/v1", "gpt-4.1", F::FunctionCalling, true, "Keys at platform.openai.com."),
            Provider::Anthropic => p("Anthropic", "https://api.anthropic.com/v1", "claude-sonnet-4-5", F::Generic, true, "Messages API; keys at console.anthropic.com."),
            Provider::Gemini => p(
                "Google Gemini",
                "https://generativelanguage.googleapis.com/v1beta/openai",
                "gemini-2.5-flash",
                F::Gemini,
                true,
                "Gemini's OpenAI-compatible endpoint; keys at aistudio.google.com.",
            ),
            Provider::Azure => p(
                "Azure OpenAI",
                "https://YOUR-RESOURCE.openai.azure.com/openai/v1",
                "your deployment name",
                F::FunctionCalling,
                true,
                "Replace YOUR-RESOURCE; the model name is your deployment's name. Older deployment URLs need an API version.",
            ),
            Provider::Dashscope => p(
                "Qwen (DashScope)",
                "https://dashscope.aliyuncs.com/compatible-mode/v1",
                "qwen3-vl-plus",
                F::Qwen3Vl,
                true,
                "Outside mainland China use dashscope-intl.aliyuncs.com.",
            ),
            Provider::Ark => p(
                "Doubao (Volcengine Ark)",
                "https://ark.cn-beijing.volces.com/api/v3",
                "doubao-1-5-ui-tars-250428",
                F::DoubaoUiTars,
                true,
                "The model name may be your endpoint id (ep-…).",
            ),
            Provider::Openrouter => p("OpenRouter", "https://openrouter.ai/api/v1", "openai/gpt-4.1", F::FunctionCalling, true, "One key for many providers."),
            Provider::Ollama => p("Ollama (local)", "http://127.0.0.1:11434/v1", "qwen2.5vl:7b", F::Qwen25Vl, false, "Start Ollama with OLLAMA_ORIGINS=chrome-extension://* so it accepts the extension."),
            Provider::LmStudio => p("LM Studio (local)", "http://127.0.0.1:1234/v1", "ui-tars-1.5-7b", F::UiTars15, false, "Start the server in LM Studio's Developer tab."),
            Provider::Vllm => p("vLLM (local)", "http://127.0.0.1:8000/v1", "ByteDance-Seed/UI-TARS-1.5-7B", F::UiTars15, false, "vllm serve MODEL; the base URL ends in /v1."),
            Provider::Custom => p("Other (OpenAI-compatible)", "", "", F::Generic, false, "Any server that speaks chat completions; the base URL usually ends in /v1."),
        }
    }
}

/// One endpoint of a [`Pairing`]: what Settings fills in for it.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct PairedEndpoint {
    pub provider: Provider,
    pub base_url: &'static str,
    pub model: &'static str,
    pub family: ModelFamily,
}

/// A planning model and an acting (grounding) model that work well together: Settings fills
/// in both at once. Keys stay the person's to enter, each for its own address.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Pairing {
    pub id: &'static str,
    pub label: &'static str,
    pub planner: PairedEndpoint,
    pub actor: PairedEndpoint,
    pub help: &'static str,
}

/// The planner + grounder pairings Settings offers: a text model that plans well beside a
/// model trained to point on screenshots (UI-TARS, MAI-UI, Qwen-VL).
pub fn pairings() -> Vec<Pairing> {
    let at = |provider: Provider, model, family| PairedEndpoint {
        provider,
        base_url: provider.preset().base_url,
        model,
        family,
    };
    use ModelFamily as F;
    vec![
        Pairing {
            id: "gpt-uitars-local",
            label: "GPT-4.1 plans · UI-TARS-1.5 (vLLM, local) grounds",
            planner: at(Provider::Openai, "gpt-4.1", F::Generic),
            actor: at(Provider::Vllm, "ByteDance-Seed/UI-TARS-1.5-7B", F::UiTars15),
            help: "An OpenAI key for the planner; the grounder runs on your machine (vllm serve ByteDance-Seed/UI-TARS-1.5-7B).",
        },
        Pairing {
            id: "gpt-maiui-local",
            label: "GPT-4.1 plans · MAI-UI (vLLM, local) grounds",
            planner: at(Provider::Openai, "gpt-4.1", F::Generic),
            actor: at(Provider::Vllm, "Tongyi-MAI/MAI-UI-8B", F::MaiUi),
            help: "An OpenAI key for the planner; the grounder runs on your machine (vllm serve Tongyi-MAI/MAI-UI-8B).",
        },
        Pairing {
            id: "claude-doubao",
            label: "Claude Sonnet 4.5 plans · Doubao UI-TARS (Volcengine Ark) grounds",
            planner: at(Provider::Anthropic, "claude-sonnet-4-5", F::Generic),
            actor: at(Provider::Ark, "doubao-1-5-ui-tars-250428", F::DoubaoUiTars),
            help: "Two keys: Anthropic's for the planner, Ark's for the grounder (its model name may be your endpoint id, ep-…).",
        },
        Pairing {
            id: "qwen-qwen3vl",
            label: "Qwen3-Max plans · Qwen3-VL (DashScope) grounds",
            planner: at(Provider::Dashscope, "qwen3-max", F::Generic),
            actor: at(Provider::Dashscope, "qwen3-vl-plus", F::Qwen3Vl),
            help: "One DashScope key, entered for each model; outside mainland China use dashscope-intl.aliyuncs.com for both.",
        },
    ]
}

/// One HTTP request, ready for any transport. Its Debug hides credential headers' values.
#[derive(Clone, PartialEq)]
pub struct HttpRequest {
    pub url: String,
    pub headers: Vec<(String, String)>,
    pub body: String,
}

impl std::fmt::Debug for HttpRequest {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let HttpRequest { url, headers, body } = self;
        let headers: Vec<(&str, &dyn std::fmt::Debug)> = headers
            .iter()
            .map(|(n, v)| {
                let value: &dyn std::fmt::Debug = if is_credential_header(n) { &Redacted("x") } else { v };
                (n.as_str(), value)
            })
            .collect();
        f.debug_struct("HttpRequest").field("url", url).field("headers", &headers).field("body", body).finish()
    }
}

impl HttpRequest {
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers.iter().find(|(n, _)| n.eq_ignore_ascii_case(name)).map(|(_, v)| v.as_str())
    }
}

/// The endpoint URL for the configured provider, accepting a base that already names it.
pub fn endpoint_url(config: &ModelConfig) -> String {
    let base = config.base_url.trim().trim_end_matches('/');
    let path = match config.provider.wire() {
        Wire::OpenAiChat => "/chat/completions",
        Wire::AnthropicMessages => "/messages",
    };
    let mut url = if base.ends_with(path) { base.to_string() } else { format!("{base}{path}") };
    let version = config.api_version.trim();
    if !version.is_empty() && !url.contains("api-version=") {
        url.push(if url.contains('?') { '&' } else { '?' });
        url.push_str("api-version=");
        url.push_str(version);
    }
    url
}

/// Headers for the provider: its auth scheme plus the JSON content type.
pub fn headers(config: &ModelConfig) -> Vec<(String, String)> {
    let key = config.api_key.trim();
    let mut h = vec![("Content-Type".to_string(), "application/json".to_string())];
    let mut add = |n: &str, v: &str| h.push((n.to_string(), v.to_string()));
    match config.provider {
        Provider::Anthropic => {
            if !key.is_empty() {
                add("x-api-key", key);
            }
            add("anthropic-version", ANTHROPIC_VERSION);
            // Anthropic refuses browser-origin calls without this opt-in; the key never leaves
            // the service worker, which is the risk the header is about.
            add("anthropic-dangerous-direct-browser-access", "true");
        }
        Provider::Azure if !key.is_empty() => add("api-key", key),
        _ if !key.is_empty() => add("Authorization", &format!("Bearer {key}")),
        _ => {}
    }
    if config.provider == Provider::Openrouter {
        add("X-Title", "Sightline");
    }
    h
}

/// The origin of a web address as browsers compare them: `https://host` or `http://host:port`
/// (scheme, host, and the port unless it is the scheme's default). `None` for anything but http(s).
pub fn origin_of(url: &str) -> Option<String> {
    let (host, port) = crate::vocab::address::host_of(url)?;
    let cleaned: String =
        url.trim_matches(|c: char| c <= ' ').chars().filter(|c| !matches!(c, '\t' | '\n' | '\r')).collect();
    let scheme = cleaned.split_once(':')?.0.to_ascii_lowercase();
    let default_port = match scheme.as_str() {
        "http" => 80,
        "https" => 443,
        _ => return None,
    };
    let host = if host.contains(':') { format!("[{host}]") } else { host };
    Some(match port.filter(|p| *p != default_port) {
        Some(p) => format!("{scheme}://{host}:{p}"),
        None => format!("{scheme}://{host}"),
    })
}

/// Whether a stored key (entered for the base URL `entered_for`) may go to `base_url`: only
/// to the origin it was entered for. An empty `entered_for` means the key came with the
/// configuration itself and goes with it.
pub fn check_key_origin(entered_for: &str, base_url: &str) -> Result<(), ModelError> {
    if entered_for.trim().is_empty() {
        return Ok(());
    }
    let entered = origin_of(entered_for);
    let endpoint = origin_of(base_url);
    if entered.is_some() && entered == endpoint {
        return Ok(());
    }
    Err(ModelError::KeyForAnotherOrigin {
        entered_for: entered.unwrap_or_else(|| entered_for.trim().to_string()),
        endpoint: endpoint.unwrap_or_else(|| base_url.trim().to_string()),
    })
}

/// Checks what the provider needs beyond [`ModelConfig::validate`].
pub fn check(config: &ModelConfig) -> Result<(), ModelError> {
    if !config.api_key.trim().is_empty() {
        check_key_origin(&config.api_key_for, &config.base_url)?;
    }
    let preset = config.provider.preset();
    if preset.needs_key && config.api_key.trim().is_empty() {
        return Err(ModelError::Config(format!("{} needs an API key: open Settings and paste one", preset.label)));
    }
    if config.base_url.contains("YOUR-RESOURCE") {
        return Err(ModelError::Config("replace YOUR-RESOURCE in the base URL with your Azure resource name".into()));
    }
    Ok(())
}

/// Its Debug shows `api_key` as `<redacted>`: run options holding it derive Debug.
#[derive(Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct ModelConfig {
    /// Which preset the endpoint came from: decides the wire format and the auth header.
    pub provider: Provider,
    /// The API root, e.g. `https://api.openai.com/v1` or `http://127.0.0.1:11434/v1`.
    pub base_url: String,
    /// Read from settings in the service worker; never serialized, so no record carries it.
    #[serde(skip_serializing)]
    pub api_key: String,
    /// The base URL the stored key was entered for: the key is sent to that origin only, so a
    /// changed endpoint (in Settings, or a caller's override) never receives it. Empty when
    /// the key came together with this configuration (the headless runner's own).
    #[serde(skip_serializing)]
    pub api_key_for: String,
    pub model: String,
    pub family: ModelFamily,
    pub temperature: Option<f64>,
    pub max_tokens: Option<u32>,
    pub stream: bool,
    pub timeout_ms: u32,
    /// Azure's `api-version` query parameter, for deployment-style URLs.
    pub api_version: String,
    /// Retries after 429, 5xx and network errors (0 turns them off).
    pub max_retries: u32,
}

impl std::fmt::Debug for ModelConfig {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // Destructured so that a new field cannot be left out of (or leak through) this impl.
        let ModelConfig {
            provider,
            base_url,
            api_key,
            api_key_for,
            model,
            family,
            temperature,
            max_tokens,
            stream,
            timeout_ms,
            api_version,
            max_retries,
        } = self;
        f.debug_struct("ModelConfig")
            .field("provider", provider)
            .field("base_url", base_url)
            .field("api_key", &Redacted(api_key))
            .field("api_key_for", api_key_for)
            .field("model", model)
            .field("family", family)
            .field("temperature", temperature)
            .field("max_tokens", max_tokens)
            .field("stream", stream)
            .field("timeout_ms", timeout_ms)
            .field("api_version", api_version)
            .field("max_retries", max_retries)
            .finish()
    }
}

impl Default for ModelConfig {
    fn default() -> Self {
        ModelConfig {
            provider: Provider::Custom,
            base_url: String::new(),
            api_key: String::new(),
            api_key_for: String::new(),
            model: String::new(),
            family: ModelFamily::Generic,
            temperature: Some(0.0),
            max_tokens: Some(2048),
            stream: false,
            timeout_ms: 120_000,
            api_version: String::new(),
            max_retries: 3,
        }
    }
}

impl ModelConfig {
    /// Checks what can be checked before any request, with a message a person can act on.
    pub fn validate(&self) -> Result<(), ModelError> {
        let url = self.base_url.trim();
        if url.is_empty() {
            return Err(ModelError::Config("no model endpoint is set: open Settings and enter a base URL".into()));
        }
        if !(url.starts_with("http://") || url.starts_with("https://")) {
            return Err(ModelError::Config(format!("the base URL \"{url}\" must start with http:// or https://")));
        }
        if self.model.trim().is_empty() {
            return Err(ModelError::Config("no model name is set: open Settings and enter one".into()));
        }
        if let Some(t) = self.temperature {
            if !(0.0..=2.0).contains(&t) {
                return Err(ModelError::Config(format!("temperature {t} is outside 0–2")));
            }
        }
        if self.max_tokens == Some(0) {
            return Err(ModelError::Config("max tokens must be at least 1".into()));
        }
        check(self)
    }

    /// The endpoint this configuration posts to.
    pub fn endpoint_url(&self) -> String {
        endpoint_url(self)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn config(provider: Provider, base: &str) -> ModelConfig {
        ModelConfig {
            provider,
            base_url: base.into(),
            api_key: "k-123".into(),
            model: "m".into(),
            ..Default::default()
        }
    }

    #[test]
    fn urls_per_wire_and_azure_versions() {
        assert_eq!(
            endpoint_url(&config(Provider::Openai, "https://api.openai.com/v1/")),
            "https://api.openai.com/v1/chat/completions"
        );
        assert_eq!(
            endpoint_url(&config(Provider::Anthropic, "https://api.anthropic.com/v1")),
            "https://api.anthropic.com/v1/messages"
        );
        assert_eq!(
            endpoint_url(&config(Provider::Custom, "http://h/v1/chat/completions")),
            "http://h/v1/chat/completions"
        );
        let mut c = config(Provider::Azure, "https://r.openai.azure.com/openai/deployments/d");
        c.api_version = "2024-10-21".into();
        assert_eq!(
            endpoint_url(&c),
            "https://r.openai.azure.com/openai/deployments/d/chat/completions?api-version=2024-10-21"
        );
    }

    #[test]
    fn auth_headers_per_provider() {
        let h = headers(&config(Provider::Openai, "x"));
        assert!(h.contains(&("Authorization".into(), "Bearer k-123".into())));
        let a = HttpRequest {
            url: String::new(),
            headers: headers(&config(Provider::Anthropic, "x")),
            body: String::new(),
        };
        assert_eq!(a.header("x-api-key"), Some("k-123"));
        assert_eq!(a.header("anthropic-version"), Some(ANTHROPIC_VERSION));
        assert_eq!(a.header("authorization"), None);
        let z =
            HttpRequest { url: String::new(), headers: headers(&config(Provider::Azure, "x")), body: String::new() };
        assert_eq!(z.header("api-key"), Some("k-123"));
        let mut local = config(Provider::Ollama, "x");
        local.api_key.clear();
        assert_eq!(headers(&local).len(), 1, "no auth header without a key");
    }

    #[test]
    fn origins() {
        assert_eq!(origin_of("https://API.Example.com:443/v1").as_deref(), Some("https://api.example.com"));
        assert_eq!(origin_of("http://127.0.0.1:8080/v1").as_deref(), Some("http://127.0.0.1:8080"));
        assert_eq!(origin_of("http://[::1]:11434/v1").as_deref(), Some("http://[::1]:11434"));
        assert_eq!(origin_of("http://user:pw@h.example:80/x").as_deref(), Some("http://h.example"));
        assert_eq!(origin_of("ftp://h.example/"), None);
        assert_eq!(origin_of("not a url"), None);
        assert!(check_key_origin("not a url", "not a url").is_err(), "no origin matches nothing");
    }

    #[test]
    fn every_preset_is_usable() {
        for p in Provider::ALL {
            let preset = p.preset();
            assert!(!preset.label.is_empty());
            if p != Provider::Custom {
                assert!(preset.base_url.starts_with("http"), "{p:?}");
            }
        }
        for pair in pairings() {
            assert!(!pair.planner.family.grounds_on_image(), "{}: the planner reads the page", pair.id);
            assert!(pair.actor.family.grounds_on_image(), "{}: the actor points", pair.id);
            assert!(pair.planner.base_url.starts_with("http") && pair.actor.base_url.starts_with("http"));
            assert!(!pair.planner.model.is_empty() && !pair.actor.model.is_empty());
        }
        let mut c = config(Provider::Anthropic, "https://api.anthropic.com/v1");
        c.api_key.clear();
        assert!(check(&c).unwrap_err().to_string().contains("API key"));
        assert!(check(&config(Provider::Azure, Provider::Azure.preset().base_url)).is_err());
    }
}
