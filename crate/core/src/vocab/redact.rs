//! Secrets in `{:?}` output: API keys and the person's secret values show as `<redacted>`, so
//! no debug print, panic message or log line built with `Debug` can carry one.

use std::fmt;

/// A secret's text as Debug shows it: `""` when empty (so "no key" stays visible), else
/// `<redacted>`.
pub struct Redacted<'a>(pub &'a str);

impl fmt::Debug for Redacted<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.0.is_empty() {
            f.write_str("\"\"")
        } else {
            f.write_str("<redacted>")
        }
    }
}

/// Header names that carry a credential (compared ignoring case).
pub const CREDENTIAL_HEADERS: &[&str] = &["authorization", "x-api-key", "api-key", "x-goog-api-key", "cookie"];

/// Whether a header's value is a credential.
pub fn is_credential_header(name: &str) -> bool {
    CREDENTIAL_HEADERS.iter().any(|h| name.eq_ignore_ascii_case(h))
}
