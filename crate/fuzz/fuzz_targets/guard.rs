//! The run's guard (agent::guard): addresses the model asks to open or the page is on, checked
//! against the person's allowed sites, and text from the page and the model, screened for
//! and filled with secrets. The input is NUL-separated: an address, an allowed-site pattern,
//! then text (from the page, or the model's reply to type).
//! - An address the guard lets a run open is on the allowed site as the browser reads it
//!   (WHATWG URL parsing, as Chrome's `Page.navigate` does; the `url` crate here).
//! - Screened page text holds a secret's placeholder only where the page showed that
//!   secret's value: a page cannot write a placeholder the model would have typed as a secret.
//! - Typed text with its secrets filled in holds no placeholder any more.
#![no_main]
use libfuzzer_sys::fuzz_target;
use sightline::agent::guard::{pieces, placeholder, site_matches, Limits, Piece, Secret};
use sightline::vocab::address::host_of;
use sightline::describe::{Element, ElementKind, Extraction};
use sightline::vocab::geometry::Rect;

/// Allowed-site patterns as a person writes them, for inputs whose own pattern is not a plain
/// host (a pattern is the person's setting, not the attacker's).
const PATTERNS: &[&str] = &["allowed.com", "127.0.0.1:8000", "*.example.org", "https://shop.allowed.com/cart", "[::1]:8080"];

fn plain_pattern(p: &str) -> bool {
    let (host, port) = p.split_once(':').unwrap_or((p, "0"));
    !host.is_empty()
        && host.split('.').all(|label| !label.is_empty() && label.bytes().all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-'))
        && !port.is_empty()
        && port.len() <= 5
        && port.bytes().all(|b| b.is_ascii_digit())
}

/// The pattern's host and port, as `site_matches` reads a pattern.
fn pattern_site(pattern: &str) -> Option<(String, Option<u16>)> {
    let p = pattern.trim().to_ascii_lowercase();
    let p = p.split_once("://").map_or(p.as_str(), |(_, rest)| rest);
    let p = p.split('/').next().unwrap_or_default();
    host_of(&format!("x://{}", p.strip_prefix("*.").unwrap_or(p)))
}

/// Secrets whose names and values cannot meet: values are digits, names capital letters.
fn secrets() -> Vec<Secret> {
    let secret = |name: &str, value: &str, sites: &[&str]| Secret { name: name.into(), value: value.into(), sites: sites.iter().map(|s| s.to_string()).collect() };
    vec![secret("PW", "20482048", &["allowed.com"]), secret("CARD", "4111111111111111", &[]), secret("PIN", "0000", &["127.0.0.1:8000"]), secret("OTP", "42", &[])]
}

fn element(text: &str) -> Element {
    Element {
        index: 1,
        id: "abcdef".into(),
        kind: ElementKind::Text,
        tag: "p".into(),
        attributes: vec![("title".into(), text.into())],
        content: text.into(),
        rect: Rect::new(0.0, 0.0, 10.0, 10.0),
        center: (5.0, 5.0),
        in_viewport: 1.0,
        visible_rect: None,
        occluded: false,
        xpath: "/html[1]/body[1]/p[1]".into(),
        xpath_text: None,
        node: 0,
    }
}

fuzz_target!(|data: &[u8]| {
    let Ok(input) = std::str::from_utf8(data) else { return };
    let mut parts = input.splitn(3, '\0');
    let (url, pattern, text) = (parts.next().unwrap_or_default(), parts.next().unwrap_or_default(), parts.next().unwrap_or_default());
    let pattern = if plain_pattern(pattern) { pattern } else { PATTERNS[pattern.len() % PATTERNS.len()] };

    // Addresses.
    if let Some((host, _)) = host_of(url) {
        assert!(!host.is_empty() && host == host.to_ascii_lowercase(), "{url:?} → host {host:?}");
    }
    let limits = Limits::new(&[pattern.to_string()], &secrets());
    assert_eq!(limits.check_site(url).is_ok(), site_matches(url, pattern) || url.trim() == "about:blank");
    if site_matches(url, pattern) {
        let (want, want_port) = pattern_site(pattern).expect("a pattern that matched has a host");
        // Only sites the browser reads as written: a pattern `0` or `1.2.3` is an odd IPv4
        // address to the browser (0.0.0.0, 1.2.0.3), and the person's own odd choice.
        let bracketed = if want.contains(':') { format!("[{want}]") } else { want.clone() };
        let as_written = url::Url::parse(&format!("http://{bracketed}/")).ok().is_some_and(|u| u.host_str() == Some(bracketed.as_str()));
        if let (Ok(parsed), true) = (url::Url::parse(url), as_written) {
            if let Some(host) = parsed.host_str() {
                let host = host.to_ascii_lowercase(); // other schemes' hosts keep their case
                let on_site = host == bracketed || host.strip_suffix(&bracketed).is_some_and(|rest| rest.ends_with('.'));
                assert!(on_site, "{url:?} passes as a page of {pattern:?}, but the browser opens host {host:?}");
                if let Some(p) = want_port {
                    assert_eq!(parsed.port_or_known_default(), Some(p), "{url:?} passes as {pattern:?}, but the browser uses another port");
                }
            }
        }
    }

    // Page text, screened as a run reads it.
    let mut page = Extraction { description: text.into(), title: text.into(), url: url.into(), elements: vec![element(text)], ..Default::default() };
    limits.screen(&mut page);
    let e = &page.elements[0];
    for screened in [&page.description, &page.title, &e.content, &e.attributes[0].1] {
        for piece in pieces(screened) {
            if let Piece::Secret(name) = piece {
                let shown = secrets().iter().any(|s| s.name == name && s.value.len() >= 4 && text.contains(&s.value));
                assert!(shown, "the page's {text:?} reads as {screened:?}: a placeholder for {name:?}, whose value it did not show");
            }
        }
    }

    // The model's text, typed on `url` with its secrets filled in.
    if let Ok(typed) = limits.reveal(text, url) {
        assert!(pieces(&typed).iter().all(|p| matches!(p, Piece::Text(_))), "{text:?} typed as {typed:?} still holds a placeholder");
    }
    // Splitting at placeholders, written back, splits the same way.
    let split = pieces(text);
    let written: String = split.iter().map(|p| match p {
        Piece::Text(t) => t.to_string(),
        Piece::Secret(name) => placeholder(name),
    }).collect();
    assert_eq!(pieces(&written), split, "{text:?} → {written:?}");
});
