//! Web addresses as the browser reads them.

/// The host (and port, when the address names one) of an address, lower-cased; `None` for
/// addresses without one (`about:blank`, `data:`). Read as the browser reads it (WHATWG URL):
/// after a web scheme, any run of slashes and backslashes (even none) leads to the host, and a
/// backslash ends it; the first `://` is not where the host begins (`http:evil.net?://site`).
pub fn host_of(url: &str) -> Option<(String, Option<u16>)> {
    // Spaces and controls around it are dropped, tabs and newlines anywhere.
    let url: String =
        url.trim_matches(|c: char| c <= ' ').chars().filter(|c| !matches!(c, '\t' | '\n' | '\r')).collect();
    let (scheme, rest) = url.split_once(':')?;
    let mut chars = scheme.chars();
    if !chars.next().is_some_and(|c| c.is_ascii_alphabetic())
        || !chars.all(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '.'))
    {
        return None;
    }
    let special = ["http", "https", "ws", "wss", "ftp", "file"].iter().any(|s| scheme.eq_ignore_ascii_case(s));
    let authority = if special {
        rest.trim_start_matches(['/', '\\']).split(['/', '\\', '?', '#']).next().unwrap_or_default()
    } else {
        rest.strip_prefix("//")?.split(['/', '?', '#']).next().unwrap_or_default()
    };
    let authority = authority.rsplit_once('@').map_or(authority, |(_, h)| h);
    let (host, port) = if let Some(v6) = authority.strip_prefix('[') {
        let (h, after) = v6.split_once(']')?;
        (h, after.strip_prefix(':'))
    } else {
        match authority.rsplit_once(':') {
            Some((h, p)) => (h, Some(p)),
            None => (authority, None),
        }
    };
    if host.is_empty() {
        return None;
    }
    let port = match port {
        Some(p) if !p.is_empty() => Some(p.parse::<u16>().ok()?),
        _ => None, // `host:` is the scheme's own port
    };
    Some((host.to_ascii_lowercase(), port))
}

/// Why Sightline cannot work on a page: Chrome keeps every extension off it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
pub struct Restriction {
    /// What the panel words in the person's language (`restricted_<code>`).
    pub code: &'static str,
    /// The same in English, for errors and scripts.
    pub reason: &'static str,
}

/// The restriction on `url`, or `None` where Sightline may work (a start page is restricted
/// too: it has no page of its own to act on; callers that allow one check `is_start_page` first).
pub fn restriction(url: &str) -> Option<Restriction> {
    let r = |code, reason| Some(Restriction { code, reason });
    let u = url.trim().to_ascii_lowercase();
    if u.is_empty() {
        return r("empty", "this tab has no page loaded");
    }
    let scheme = u.split_once(':').map(|(s, _)| s).unwrap_or_default();
    if ["chrome", "edge", "about", "devtools", "view-source", "chrome-untrusted"].contains(&scheme) {
        return r("browser", "Chrome does not let extensions act on its own pages");
    }
    if scheme == "chrome-extension" {
        return r("extension", "extension pages cannot be controlled");
    }
    if u.starts_with("https://chrome.google.com/webstore") || u.starts_with("https://chromewebstore.google.com") {
        return r("store", "Chrome does not let extensions act on the Web Store");
    }
    let path = u.split(['?', '#']).next().unwrap_or_default();
    if path.ends_with(".pdf") {
        return r("pdf", "the PDF viewer cannot be read or controlled");
    }
    None
}

/// A tab with nothing of any site in it: a blank page or the browser's new-tab page. A run may
/// start there (it has nothing to read, so its first move opens an address).
pub fn is_start_page(url: &str) -> bool {
    let u = url.trim().to_ascii_lowercase();
    let u = u.split(['?', '#']).next().unwrap_or_default().trim_end_matches('/');
    matches!(
        u,
        "" | "about:blank"
            | "about:newtab"
            | "chrome://newtab"
            | "chrome://new-tab-page"
            | "chrome://new-tab-page-third-party"
            | "chrome-search://local-ntp/local-ntp.html"
            | "edge://newtab"
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn start_pages_are_the_blank_and_new_tab_pages_only() {
        for url in [
            "about:blank",
            "chrome://newtab/",
            "chrome://new-tab-page/",
            "chrome://new-tab-page-third-party/",
            "",
            "CHROME://NEWTAB",
        ] {
            assert!(is_start_page(url), "{url}");
        }
        for url in ["chrome://settings/", "about:srcdoc", "https://newtab.example/", "chrome://newtab.evil/"] {
            assert!(!is_start_page(url), "{url}");
        }
    }
}

#[cfg(test)]
mod restriction_tests {
    use super::restriction;

    #[test]
    fn the_pages_chrome_keeps_extensions_off_are_restricted_with_their_codes() {
        let code = |url: &str| restriction(url).map(|r| r.code);
        for (url, want) in [
            ("", Some("empty")),
            ("chrome://settings/", Some("browser")),
            ("EDGE://flags", Some("browser")),
            ("about:blank", Some("browser")),
            ("view-source:https://example.com/", Some("browser")),
            ("chrome-extension://abcdefghijklmnopabcdefghijklmnop/panel.html", Some("extension")),
            ("https://chromewebstore.google.com/detail/x", Some("store")),
            ("https://chrome.google.com/webstore/category", Some("store")),
            ("https://example.com/report.PDF?x=1", Some("pdf")),
            ("https://example.com/report.pdf#page=2", Some("pdf")),
            ("https://example.com/pdf-guide", None),
            ("https://example.com/", None),
            ("http://127.0.0.1:8080/todo.html", None),
        ] {
            assert_eq!(code(url), want, "{url}");
        }
    }
}
