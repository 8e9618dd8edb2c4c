//! Tokens and what they cost. Servers usually count tokens; when one does not (some local
//! servers, streams without usage), we estimate, and say so. Prices come from a table the
//! person can edit, per million tokens, matched by model name.

use super::{ChatMessage, ContentPart, ModelConfig, Wire};
use crate::vocab::family::ModelFamily;
use serde::{Deserialize, Serialize};

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Usage {
    pub prompt_tokens: u64,
    pub completion_tokens: u64,
    /// True when we counted, not the server.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub estimated: bool,
}

impl Usage {
    pub fn add(&mut self, other: &Usage) {
        self.prompt_tokens += other.prompt_tokens;
        self.completion_tokens += other.completion_tokens;
        self.estimated |= other.estimated;
    }

    pub fn total(&self) -> u64 {
        self.prompt_tokens + self.completion_tokens
    }
}

/// Tokens in text, by the rule of thumb most BPE vocabularies follow: about four characters
/// of Latin script per token, about one token per CJK character.
pub fn text_tokens(text: &str) -> u64 {
    let (mut narrow, mut wide) = (0u64, 0u64);
    for c in text.chars() {
        if (c as u32) < 0x2E80 {
            narrow += 1;
        } else {
            wide += 1;
        }
    }
    narrow.div_ceil(4) + wide
}

/// Tokens an image costs, by the scheme of the family's (or the wire's) vendor.
pub fn image_tokens(family: ModelFamily, wire: Wire, width: u32, height: u32) -> u64 {
    let (w, h) = (width.max(1) as f64, height.max(1) as f64);
    match (wire, family) {
        // Anthropic: about one token per 750 pixels.
        (Wire::AnthropicMessages, _) => (w * h / 750.0).ceil() as u64,
        // Qwen-VL: one token per 28×28 patch.
        (_, ModelFamily::Qwen25Vl | ModelFamily::Qwen3Vl) => ((w / 28.0).ceil() * (h / 28.0).ceil()) as u64,
        // Gemini: 258 per 768×768 tile.
        (_, ModelFamily::Gemini) => 258 * ((w / 768.0).ceil() * (h / 768.0).ceil()) as u64,
        // OpenAI's high-detail rule: fit 2048, shortest side 768, then 170 per 512 tile + 85.
        _ => {
            let s = (2048.0 / w.max(h)).min(1.0);
            let (w, h) = (w * s, h * s);
            let s = (768.0 / w.min(h)).min(1.0);
            let tiles = ((w * s) / 512.0).ceil() * ((h * s) / 512.0).ceil();
            85 + 170 * tiles as u64
        }
    }
}

/// Width and height of a `data:image/…;base64,` URL, from its header bytes only.
fn data_url_size(url: &str) -> Option<(u32, u32)> {
    let b64 = url.split_once(";base64,")?.1;
    let head = crate::vision::base64::decode_prefix(b64, 64 * 1024)?;
    crate::vision::capture::image_size(&head)
}

/// Our count of a call the server did not count.
pub fn estimate(config: &ModelConfig, messages: &[ChatMessage], reply_text: &str) -> Usage {
    // A few tokens of framing per message, as chat templates add.
    let mut prompt = 0;
    for m in messages {
        prompt += 4;
        for part in &m.content {
            prompt += match part {
                ContentPart::Text { text } => text_tokens(text),
                ContentPart::ImageUrl { image_url } => match data_url_size(&image_url.url) {
                    Some((w, h)) => image_tokens(config.family, config.provider.wire(), w, h),
                    None => 765, // a 1024×1024 image by OpenAI's rule: unknown size, typical cost
                },
            };
        }
    }
    Usage { prompt_tokens: prompt, completion_tokens: text_tokens(reply_text), estimated: true }
}

/// A price per million tokens for models whose name matches `model` (exactly, or by prefix
/// when it ends in `*`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Price {
    pub model: String,
    pub input: f64,
    pub output: f64,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(transparent)]
pub struct PriceTable(pub Vec<Price>);

#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("price table line {line}: {problem}")]
pub struct PriceError {
    pub line: usize,
    pub problem: String,
}

impl Default for PriceTable {
    /// List prices in US dollars as published by the vendors in late 2025; edit them to
    /// match your contract. Unlisted models are counted but not priced.
    fn default() -> Self {
        let rows: &[(&str, f64, f64)] = &[
            ("gpt-4.1", 2.0, 8.0),
            ("gpt-4.1-mini", 0.4, 1.6),
            ("gpt-4o", 2.5, 10.0),
            ("gpt-4o-mini", 0.15, 0.6),
            ("claude-sonnet-4*", 3.0, 15.0),
            ("claude-haiku-4*", 1.0, 5.0),
            ("claude-opus-4*", 15.0, 75.0),
            ("gemini-2.5-pro*", 1.25, 10.0),
            ("gemini-2.5-flash*", 0.3, 2.5),
            ("qwen-vl-max*", 0.8, 3.2),
            ("qwen3-vl-plus*", 0.2, 1.6),
        ];
        PriceTable(rows.iter().map(|&(model, input, output)| Price { model: model.into(), input, output }).collect())
    }
}

impl PriceTable {
    /// The row for a model: an exact name first, else the longest matching `prefix*`.
    pub fn find(&self, model: &str) -> Option<&Price> {
        let model = model.trim();
        self.0.iter().find(|p| p.model.eq_ignore_ascii_case(model)).or_else(|| {
            self.0
                .iter()
                .filter_map(|p| p.model.strip_suffix('*').map(|prefix| (prefix, p)))
                .filter(|(prefix, _)| model.len() >= prefix.len() && model[..prefix.len()].eq_ignore_ascii_case(prefix))
                .max_by_key(|(prefix, _)| prefix.len())
                .map(|(_, p)| p)
        })
    }

    pub fn cost(&self, model: &str, usage: &Usage) -> Option<f64> {
        let p = self.find(model)?;
        Some((usage.prompt_tokens as f64 * p.input + usage.completion_tokens as f64 * p.output) / 1_000_000.0)
    }

    /// Reads the table as Settings shows it: one `model input output` line per row,
    /// `#` comments and blank lines ignored.
    pub fn parse(text: &str) -> Result<PriceTable, PriceError> {
        let mut rows = Vec::new();
        for (i, raw) in text.lines().enumerate() {
            let line = raw.split('#').next().unwrap_or("").trim();
            if line.is_empty() {
                continue;
            }
            let err = |problem: String| PriceError { line: i + 1, problem };
            let fields: Vec<&str> = line.split_whitespace().collect();
            let [model, input, output] = fields[..] else {
                return Err(err(format!("expected `model input output`, found {} field(s)", fields.len())));
            };
            let number = |s: &str, what: &str| -> Result<f64, PriceError> {
                let v: f64 = s
                    .trim_start_matches('$')
                    .parse()
                    .map_err(|_| err(format!("the {what} price \"{s}\" is not a number")))?;
                if !v.is_finite() || v < 0.0 {
                    return Err(err(format!("the {what} price must be zero or more")));
                }
                Ok(v)
            };
            rows.push(Price {
                model: model.to_string(),
                input: number(input, "input")?,
                output: number(output, "output")?,
            });
        }
        Ok(PriceTable(rows))
    }

    pub fn to_text(&self) -> String {
        let mut s = String::from("# model  input  output   (per million tokens; a trailing * matches by prefix)\n");
        for p in &self.0 {
            s.push_str(&format!("{}  {}  {}\n", p.model, p.input, p.output));
        }
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_estimates_follow_script() {
        assert_eq!(text_tokens(""), 0);
        assert_eq!(text_tokens("abcd"), 1);
        assert_eq!(text_tokens("abcde"), 2);
        assert_eq!(text_tokens("点击登录"), 4);
    }

    #[test]
    fn image_estimates_per_vendor() {
        assert_eq!(image_tokens(ModelFamily::Generic, Wire::OpenAiChat, 1024, 1024), 765);
        assert_eq!(image_tokens(ModelFamily::Generic, Wire::OpenAiChat, 512, 512), 255);
        assert_eq!(image_tokens(ModelFamily::Qwen25Vl, Wire::OpenAiChat, 1288, 812), 46 * 29);
        assert_eq!(image_tokens(ModelFamily::Generic, Wire::AnthropicMessages, 1500, 750), 1500);
        assert_eq!(image_tokens(ModelFamily::Gemini, Wire::OpenAiChat, 1280, 800), 258 * 4);
    }

    #[test]
    fn estimate_reads_image_size_from_the_data_url() {
        let img = image::RgbImage::new(512, 512);
        let bytes = crate::vision::pipeline::encode(&img, crate::vision::ImageFormat::Png).unwrap();
        let url = crate::vision::pipeline::data_url(&bytes, crate::vision::ImageFormat::Png).unwrap();
        let msg = ChatMessage {
            role: "user".into(),
            content: vec![ContentPart::ImageUrl { image_url: super::super::ImageUrl { url } }],
        };
        let u = estimate(&ModelConfig::default(), &[msg], "abcd");
        assert_eq!(u, Usage { prompt_tokens: 4 + 255, completion_tokens: 1, estimated: true });
        // A JPEG model image (Settings' JPEG format): its size from its header too.
        let jpeg = crate::vision::pipeline::encode(&img, crate::vision::ImageFormat::Jpeg { quality: 80 }).unwrap();
        let url = crate::vision::pipeline::data_url(&jpeg, crate::vision::ImageFormat::Jpeg { quality: 80 }).unwrap();
        let msg = ChatMessage {
            role: "user".into(),
            content: vec![ContentPart::ImageUrl { image_url: super::super::ImageUrl { url } }],
        };
        assert_eq!(estimate(&ModelConfig::default(), &[msg], "abcd").prompt_tokens, 4 + 255);
    }

    #[test]
    fn prices_match_exact_then_longest_prefix() {
        let t = PriceTable::default();
        assert_eq!(t.find("gpt-4o-mini").unwrap().input, 0.15);
        assert_eq!(t.find("gpt-4o").unwrap().input, 2.5);
        assert_eq!(t.find("claude-sonnet-4-5").unwrap().output, 15.0);
        assert!(t.find("gpt-4o-2024-08-06").is_none(), "no prefix row for dated names unless the person adds one");
        let u = Usage { prompt_tokens: 1_000_000, completion_tokens: 500_000, estimated: false };
        assert_eq!(t.cost("gpt-4o", &u), Some(2.5 + 5.0));
        assert_eq!(t.cost("unknown", &u), None);
    }

    #[test]
    fn table_text_round_trips_and_errors_name_the_line() {
        let t = PriceTable::default();
        assert_eq!(PriceTable::parse(&t.to_text()).unwrap(), t);
        let e = PriceTable::parse("# mine\nlocal-model 0 0\nbroken 1\n").unwrap_err();
        assert_eq!(e.line, 3);
        assert!(PriceTable::parse("m x 1").unwrap_err().to_string().contains("not a number"));
        assert!(PriceTable::parse("m -1 1").is_err());
        assert_eq!(PriceTable::parse("m $1.5 2 # note").unwrap().0[0].input, 1.5);
    }
}
