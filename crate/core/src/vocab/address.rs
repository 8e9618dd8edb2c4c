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
