//! Who may use the loopback port. Any local program can reach `127.0.0.1`, and so can a web
//! page in the person's browser (a `fetch`, or a name of its own made to point at 127.0.0.1:
//! DNS rebinding). So every request names this server as its `Host` (`127.0.0.1:PORT` or
//! `localhost:PORT`: a rebound name is refused), a browser's `Origin`, when there is one, must
//! be the extension's, and `/mcp` needs the pairing token as `Authorization: Bearer <token>`
//! on every request. `/bridge` needs the extension's Origin, then the pairing proofs
//! (`sightline::agent::pairing`).

use crate::token::Token;
use axum::extract::{Request, State};
use axum::http::{header, HeaderMap, HeaderValue, StatusCode};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use std::sync::Arc;

/// The port's rules, shared by `/mcp` and `/bridge`.
#[derive(Clone, Debug)]
pub struct Gate {
    token: Arc<Token>,
    port: u16,
    origin: String,
}

/// Why a request was refused.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Refusal {
    HostNotAllowed,
    OriginNotAllowed,
    TokenMissing,
    TokenWrong,
}

impl Refusal {
    pub fn status(self) -> StatusCode {
        match self {
            Refusal::HostNotAllowed | Refusal::OriginNotAllowed => StatusCode::FORBIDDEN,
            Refusal::TokenMissing | Refusal::TokenWrong => StatusCode::UNAUTHORIZED,
        }
    }

    /// The stable code, in the JSON-RPC error's `data`.
    pub fn code(self) -> &'static str {
        match self {
            Refusal::HostNotAllowed => "host_not_allowed",
            Refusal::OriginNotAllowed => "origin_not_allowed",
            Refusal::TokenMissing => "token_missing",
            Refusal::TokenWrong => "token_wrong",
        }
    }

    pub fn message(self) -> &'static str {
        match self {
            Refusal::HostNotAllowed => {
                "sightline-mcp answers only requests to 127.0.0.1 or localhost on its own port (the Host header)"
            }
            Refusal::OriginNotAllowed => "sightline-mcp does not answer web pages (the Origin header)",
            Refusal::TokenMissing => {
                "sightline-mcp needs the pairing token on every request: send it as `Authorization: Bearer <token>` \
                 (the token Sightline's panel shows under Allow agents)"
            }
            Refusal::TokenWrong => {
                "the pairing token does not match (`Authorization: Bearer …`): use the one Sightline's panel shows \
                 under Allow agents now (Revoke makes a new one)"
            }
        }
    }
}

impl IntoResponse for Refusal {
    /// A JSON-RPC error (no id: the request was not read) under the HTTP status.
    fn into_response(self) -> Response {
        let body = serde_json::json!({
            "jsonrpc": "2.0",
            "id": null,
            "error": { "code": -32001, "message": self.message(), "data": { "code": self.code() } },
        });
        let mut response =
            (self.status(), [(header::CONTENT_TYPE, "application/json")], body.to_string()).into_response();
        if self.status() == StatusCode::UNAUTHORIZED {
            response
                .headers_mut()
                .insert(header::WWW_AUTHENTICATE, HeaderValue::from_static("Bearer realm=\"sightline-mcp\""));
        }
        response
    }
}

impl Gate {
    pub fn new(token: Token, port: u16, extension_id: &str) -> Self {
        Gate { token: Arc::new(token), port, origin: format!("chrome-extension://{extension_id}") }
    }

    /// The extension's Origin (`chrome-extension://<id>`).
    pub fn origin(&self) -> &str {
        &self.origin
    }

    fn host(&self, headers: &HeaderMap) -> Result<(), Refusal> {
        let host = headers.get(header::HOST).and_then(|v| v.to_str().ok()).ok_or(Refusal::HostNotAllowed)?;
        let (name, port) = host.rsplit_once(':').ok_or(Refusal::HostNotAllowed)?;
        let ours = (name == "127.0.0.1" || name.eq_ignore_ascii_case("localhost")) && port == self.port.to_string();
        ours.then_some(()).ok_or(Refusal::HostNotAllowed)
    }

    /// Whether `Origin` is the extension's; `None` when there is no `Origin` header.
    fn extension_origin(&self, headers: &HeaderMap) -> Option<bool> {
        let values: Vec<_> = headers.get_all(header::ORIGIN).iter().collect();
        match values.as_slice() {
            [] => None,
            [one] => Some(one.to_str().is_ok_and(|o| o == self.origin)),
            _ => Some(false),
        }
    }

    /// A request to `/mcp`: its Host, its Origin if it has one, and the token.
    pub fn check_mcp(&self, headers: &HeaderMap) -> Result<(), Refusal> {
        self.host(headers)?;
        if self.extension_origin(headers) == Some(false) {
            return Err(Refusal::OriginNotAllowed);
        }
        let mut values = headers.get_all(header::AUTHORIZATION).iter();
        let (Some(value), None) = (values.next(), values.next()) else {
            return Err(if headers.contains_key(header::AUTHORIZATION) {
                Refusal::TokenWrong
            } else {
                Refusal::TokenMissing
            });
        };
        let value = value.to_str().map_err(|_| Refusal::TokenWrong)?;
        let (scheme, given) = value.split_once(' ').ok_or(Refusal::TokenWrong)?;
        if !scheme.eq_ignore_ascii_case("bearer") || !self.token.matches(given.trim_start_matches(' ')) {
            return Err(Refusal::TokenWrong);
        }
        Ok(())
    }

    /// A connection to `/bridge`: its Host, and the extension's Origin (required; the token is
    /// proved over the socket, never sent).
    pub fn check_bridge(&self, headers: &HeaderMap) -> Result<(), Refusal> {
        self.host(headers)?;
        match self.extension_origin(headers) {
            Some(true) => Ok(()),
            _ => Err(Refusal::OriginNotAllowed),
        }
    }
}

/// The middleware in front of `/mcp`: nothing reaches MCP without passing [`Gate::check_mcp`].
pub async fn mcp_gate(State(gate): State<Gate>, request: Request, next: Next) -> Response {
    match gate.check_mcp(request.headers()) {
        Ok(()) => next.run(request).await,
        Err(refusal) => {
            eprintln!("sightline-mcp: refused an MCP request: {}", refusal.code());
            refusal.into_response()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const ID: &str = "abcdefghijklmnopabcdefghijklmnop";

    fn gate() -> Gate {
        Gate::new(Token::new("s3cret-token").unwrap(), 9100, ID)
    }

    fn headers(pairs: &[(&str, &str)]) -> HeaderMap {
        let mut h = HeaderMap::new();
        for (k, v) in pairs {
            h.append(axum::http::HeaderName::from_bytes(k.as_bytes()).unwrap(), HeaderValue::from_str(v).unwrap());
        }
        h
    }

    #[test]
    fn mcp_needs_the_token_as_a_bearer_on_every_request() {
        let g = gate();
        let host = ("host", "127.0.0.1:9100");
        assert_eq!(g.check_mcp(&headers(&[host, ("authorization", "Bearer s3cret-token")])), Ok(()));
        assert_eq!(g.check_mcp(&headers(&[host, ("authorization", "bearer s3cret-token")])), Ok(()));
        assert_eq!(g.check_mcp(&headers(&[host])), Err(Refusal::TokenMissing));
        for wrong in
            ["Bearer s3cret-tokeN", "Bearer ", "Bearer", "s3cret-token", "Basic s3cret-token", "Bearer s3cret-token x"]
        {
            assert_eq!(g.check_mcp(&headers(&[host, ("authorization", wrong)])), Err(Refusal::TokenWrong), "{wrong}");
        }
        // Two Authorization headers: which one counts is not left to chance.
        let twice = headers(&[host, ("authorization", "Bearer s3cret-token"), ("authorization", "Bearer x")]);
        assert_eq!(g.check_mcp(&twice), Err(Refusal::TokenWrong));
        assert_eq!(Refusal::TokenMissing.status(), StatusCode::UNAUTHORIZED);
    }

    #[test]
    fn a_rebound_host_or_a_web_pages_origin_is_refused() {
        let g = gate();
        let bearer = ("authorization", "Bearer s3cret-token");
        for host in ["localhost:9100", "LOCALHOST:9100"] {
            assert_eq!(g.check_mcp(&headers(&[("host", host), bearer])), Ok(()), "{host}");
        }
        for host in
            ["evil.example:9100", "127.0.0.1", "127.0.0.1:9101", "localhost.evil.example:9100", "127.0.0.2:9100"]
        {
            assert_eq!(g.check_mcp(&headers(&[("host", host), bearer])), Err(Refusal::HostNotAllowed), "{host}");
        }
        assert_eq!(g.check_mcp(&headers(&[bearer])), Err(Refusal::HostNotAllowed), "no Host at all");
        let host = ("host", "127.0.0.1:9100");
        for origin in ["https://evil.example", "null", "http://127.0.0.1:9100", "chrome-extension://otherextension"] {
            assert_eq!(
                g.check_mcp(&headers(&[host, ("origin", origin), bearer])),
                Err(Refusal::OriginNotAllowed),
                "{origin}"
            );
        }
        let ours = format!("chrome-extension://{ID}");
        assert_eq!(g.check_mcp(&headers(&[host, ("origin", &ours), bearer])), Ok(()));
        assert_eq!(Refusal::OriginNotAllowed.status(), StatusCode::FORBIDDEN);
    }

    #[test]
    fn the_bridge_needs_the_extensions_origin_and_no_token() {
        let g = gate();
        let ours = format!("chrome-extension://{ID}");
        let host = ("host", "127.0.0.1:9100");
        assert_eq!(g.check_bridge(&headers(&[host, ("origin", &ours)])), Ok(()));
        assert_eq!(g.check_bridge(&headers(&[host])), Err(Refusal::OriginNotAllowed));
        assert_eq!(
            g.check_bridge(&headers(&[host, ("origin", "https://evil.example")])),
            Err(Refusal::OriginNotAllowed)
        );
        assert_eq!(
            g.check_bridge(&headers(&[("host", "evil.example:9100"), ("origin", &ours)])),
            Err(Refusal::HostNotAllowed)
        );
    }

    #[tokio::test]
    async fn a_refusal_is_a_json_rpc_error_with_its_code() {
        let response = Refusal::TokenMissing.into_response();
        assert_eq!(response.status(), StatusCode::UNAUTHORIZED);
        assert!(response.headers()[header::WWW_AUTHENTICATE].to_str().unwrap().starts_with("Bearer"));
        let body = axum::body::to_bytes(response.into_body(), 1 << 16).await.unwrap();
        let body: serde_json::Value = serde_json::from_slice(&body).unwrap();
        assert_eq!(body["error"]["data"]["code"], "token_missing");
        assert!(body["error"]["message"].as_str().unwrap().contains("Authorization: Bearer"));
    }
}
