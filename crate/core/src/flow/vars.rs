//! `${NAME}` in a flow file, as Midscene's runner fills them from the environment and a `.env`
//! file. A flow file is shared and hostile: a `${GITHUB_TOKEN}` typed into its site's form
//! would hand the person's token over. So a name is filled, in this order, by
//! - one of the person's secrets of that name: its placeholder (`<secret>name</secret>`), typed
//!   only at dispatch and only on the secret's sites, as every secret is;
//! - the `.env` file beside the flow, or an environment variable the person listed for flows
//!   (`SIGHTLINE_FLOW_ENV`): its value, unless its name says it is a credential (then it has to be
//!   made a secret, bound to its sites);
//!
//! and anything else is an error naming the line, before any step runs.

use serde::Deserialize;
use std::collections::BTreeMap;

/// What `${NAME}` may stand for in one flow run.
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct FlowVars {
    /// The `.env` file beside the flow, as text.
    pub dotenv: Option<String>,
    /// The environment variables the person listed for flows, with their values.
    pub env: BTreeMap<String, String>,
    /// The names of the person's secrets.
    pub secrets: Vec<String>,
}

/// Parts of a name that say it holds a credential.
const CREDENTIAL_WORDS: [&str; 9] =
    ["KEY", "TOKEN", "SECRET", "PASSWORD", "PASSWD", "PWD", "AUTH", "CREDENTIAL", "COOKIE"];

fn is_credential(name: &str) -> bool {
    let upper = name.to_ascii_uppercase();
    CREDENTIAL_WORDS.iter().any(|w| upper.split('_').any(|part| part == *w || part.ends_with(w)))
}

/// The values `vars` gives, by name, or why it cannot be read.
pub struct Resolver {
    values: BTreeMap<String, String>,
    secrets: Vec<String>,
}

impl Resolver {
    pub fn new(vars: &FlowVars) -> Result<Resolver, String> {
        let mut values = BTreeMap::new();
        if let Some(text) = &vars.dotenv {
            let pairs =
                crate::model::env_block::read_block(text).map_err(|e| format!("the .env file beside the flow: {e}"))?;
            values.extend(pairs);
        }
        // The person's own listed variables win over the file's.
        values.extend(vars.env.iter().map(|(k, v)| (k.clone(), v.clone())));
        Ok(Resolver { values, secrets: vars.secrets.clone() })
    }

    /// What `${name}` becomes.
    fn value(&self, name: &str) -> Result<String, String> {
        if let Some(secret) = self.secrets.iter().find(|s| s.eq_ignore_ascii_case(name)) {
            return Ok(format!("<secret>{secret}</secret>"));
        }
        match self.values.get(name) {
            Some(_) if is_credential(name) => Err(format!(
                "`${{{name}}}` looks like a credential, so it is not typed from the environment or a .env file: make it a secret bound to its sites (Settings → Secrets; headless: SIGHTLINE_SECRET_{0}=… and SIGHTLINE_SECRET_{0}_SITES=…)",
                name.to_ascii_uppercase()
            )),
            Some(v) => Ok(v.clone()),
            None => Err(format!(
                "`${{{name}}}` is not set: put it in a .env file beside the flow, or list it in SIGHTLINE_FLOW_ENV to take it from the environment"
            )),
        }
    }

    /// `text` with every `${NAME}` filled in; `$` elsewhere stays as written.
    pub fn fill(&self, text: &str) -> Result<String, String> {
        let mut out = String::with_capacity(text.len());
        let mut rest = text;
        while let Some(start) = rest.find("${") {
            out.push_str(&rest[..start]);
            let after = &rest[start + 2..];
            let end = after.find('}').filter(|&end| {
                let name = &after[..end];
                !name.is_empty()
                    && !name.starts_with(|c: char| c.is_ascii_digit())
                    && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
            });
            match end {
                Some(end) => {
                    out.push_str(&self.value(&after[..end])?);
                    rest = &after[end + 1..];
                }
                None => {
                    out.push_str("${");
                    rest = after;
                }
            }
        }
        out.push_str(rest);
        Ok(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn resolver(dotenv: &str, env: &[(&str, &str)], secrets: &[&str]) -> Resolver {
        Resolver::new(&FlowVars {
            dotenv: Some(dotenv.into()),
            env: env.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect(),
            secrets: secrets.iter().map(|s| s.to_string()).collect(),
        })
        .unwrap()
    }

    #[test]
    fn names_are_filled_from_secrets_then_the_env_file_and_the_listed_environment() {
        let r = resolver("USER_NAME=ada\nSITE=shop.test\n", &[("SITE", "127.0.0.1:8080")], &["site_password"]);
        assert_eq!(r.fill("${USER_NAME} at ${SITE}").unwrap(), "ada at 127.0.0.1:8080");
        assert_eq!(r.fill("${SITE_PASSWORD}").unwrap(), "<secret>site_password</secret>");
        assert_eq!(r.fill("costs $5 and ${ not a name}").unwrap(), "costs $5 and ${ not a name}");
    }

    #[test]
    fn a_credential_or_an_unset_name_is_refused_saying_what_to_do() {
        let r = resolver("GITHUB_TOKEN=ghp_x\nAPI_KEY=k\n", &[], &[]);
        for name in ["GITHUB_TOKEN", "API_KEY"] {
            let why = r.fill(&format!("${{{name}}}")).unwrap_err();
            assert!(
                why.contains("looks like a credential") && why.contains(&format!("SIGHTLINE_SECRET_{name}_SITES")),
                "{why}"
            );
        }
        assert!(r.fill("${HOME}").unwrap_err().contains("is not set"), "the environment is not read unless listed");
        assert!(!is_credential("KEYBOARD_LAYOUT") && is_credential("DB_PASSWD") && is_credential("APIKEY"));
    }
}
