//! `sightline-mcp`: Sightline for coding agents and scripts. Serves MCP over stdio (`--stdio`)
//! and streamable HTTP (`http://127.0.0.1:PORT/mcp`), and the WebSocket the extension connects
//! out to (`ws://127.0.0.1:PORT/bridge`) when the person turns on Allow agents in its panel.
//! Everything listens on the loopback address only.

mod bridge;
mod tools;

use bridge::{Bridge, Pairing};
use rmcp::transport::streamable_http_server::{
    session::local::LocalSessionManager, StreamableHttpServerConfig, StreamableHttpService,
};
use rmcp::ServiceExt;
use std::net::{Ipv4Addr, SocketAddr};
use std::time::Duration;
use tools::{Deadlines, Sightline};

const DEFAULT_PORT: u16 = 47231;

const USAGE: &str = "usage: sightline-mcp [--stdio] [--port N] --token TOKEN --extension-id ID
  --stdio            serve MCP on stdin/stdout too (what MCP clients that start the server use)
  --port N           the loopback port for /mcp and the extension's /bridge (default 47231)
  --token T          the pairing token Sightline's panel shows under Allow agents (or SIGHTLINE_TOKEN)
  --extension-id ID  the extension's id, shown beside the token (or SIGHTLINE_EXTENSION_ID)
  --call-timeout S   seconds a call may take (default 60); act and wait_for: --act-timeout S (default 600)";

#[derive(Debug)]
struct Config {
    stdio: bool,
    port: u16,
    pairing: Pairing,
    deadlines: Deadlines,
}

#[derive(Debug, thiserror::Error)]
enum ConfigError {
    #[error("{0}\n{usage}", usage = USAGE)]
    Usage(String),
}

fn parse_args(
    mut args: impl Iterator<Item = String>,
    env: impl Fn(&str) -> Option<String>,
) -> Result<Config, ConfigError> {
    let usage = |m: String| ConfigError::Usage(m);
    let mut stdio = false;
    let mut port = DEFAULT_PORT;
    let mut token = env("SIGHTLINE_TOKEN");
    let mut extension_id = env("SIGHTLINE_EXTENSION_ID");
    let mut call = 60u64;
    let mut act = 600u64;
    while let Some(arg) = args.next() {
        let mut value = |name: &str| args.next().ok_or_else(|| usage(format!("{name} needs a value")));
        let seconds = |v: String, name: &str| {
            v.parse::<u64>()
                .ok()
                .filter(|s| *s > 0)
                .ok_or_else(|| usage(format!("{name} takes whole seconds, not {v:?}")))
        };
        match arg.as_str() {
            "--stdio" => stdio = true,
            "--port" => {
                let v = value("--port")?;
                port = v.parse().map_err(|_| usage(format!("--port takes a port number, not {v:?}")))?;
            }
            "--token" => token = Some(value("--token")?),
            "--extension-id" => extension_id = Some(value("--extension-id")?),
            "--call-timeout" => call = seconds(value("--call-timeout")?, "--call-timeout")?,
            "--act-timeout" => act = seconds(value("--act-timeout")?, "--act-timeout")?,
            "-h" | "--help" => return Err(usage("Sightline's MCP server".into())),
            other => return Err(usage(format!("unknown argument {other:?}"))),
        }
    }
    let token = token.filter(|t| !t.trim().is_empty()).ok_or_else(|| {
        usage("the pairing token is missing: turn on Allow agents in Sightline's panel and copy it".into())
    })?;
    let extension_id = extension_id
        .filter(|id| !id.is_empty() && id.chars().all(|c| c.is_ascii_lowercase()))
        .ok_or_else(|| usage("--extension-id is missing or not an extension id (32 letters a–p)".into()))?;
    Ok(Config {
        stdio,
        port,
        pairing: Pairing { extension_id, token },
        deadlines: Deadlines { call: Duration::from_secs(call), act: Duration::from_secs(act) },
    })
}

#[tokio::main]
async fn main() {
    let config = match parse_args(std::env::args().skip(1), |k| std::env::var(k).ok()) {
        Ok(c) => c,
        Err(e) => {
            eprintln!("sightline-mcp: {e}");
            std::process::exit(2);
        }
    };
    if let Err(e) = serve(config).await {
        eprintln!("sightline-mcp: {e}");
        std::process::exit(1);
    }
}

async fn serve(config: Config) -> Result<(), Box<dyn std::error::Error>> {
    let bridge = Bridge::new(config.pairing);
    let deadlines = config.deadlines;
    let http_bridge = bridge.clone();
    let mcp = StreamableHttpService::new(
        move || Ok(Sightline::new(http_bridge.clone(), deadlines)),
        LocalSessionManager::default().into(),
        // Loopback Host names only (the default), and no browser page: a request with any Origin is refused.
        StreamableHttpServerConfig::default().enforce_origin_validation().with_max_request_body_bytes(4 << 20),
    );
    let app = axum::Router::new()
        .nest_service("/mcp", mcp)
        .route("/bridge", axum::routing::get(bridge::route))
        .with_state(bridge.clone());
    let address = SocketAddr::from((Ipv4Addr::LOCALHOST, config.port));
    let listener = tokio::net::TcpListener::bind(address)
        .await
        .map_err(|e| format!("cannot listen on {address}: {e} (another sightline-mcp running? pick another --port and set it in the panel)"))?;
    eprintln!(
        "sightline-mcp: MCP at http://{address}/mcp; the extension connects to ws://{address}/bridge{}",
        if config.stdio { "; MCP on stdio too" } else { "" }
    );
    let http = axum::serve(listener, app);
    if !config.stdio {
        tokio::select! {
            served = http => served?,
            _ = tokio::signal::ctrl_c() => {}
        }
        return Ok(());
    }
    tokio::spawn(async move {
        if let Err(e) = http.await {
            eprintln!("sightline-mcp: the loopback listener stopped: {e}");
        }
    });
    // The client closing stdin ends the server, even before initialize (a stateless client may never send one).
    match Sightline::new(bridge, deadlines).serve(rmcp::transport::stdio()).await {
        Ok(running) => {
            running.waiting().await?;
        }
        Err(rmcp::service::ServerInitializeError::ConnectionClosed(_)) => {}
        Err(e) => return Err(e.into()),
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(args: &[&str], env: &[(&str, &str)]) -> Result<Config, ConfigError> {
        let env: Vec<(String, String)> = env.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect();
        parse_args(args.iter().map(|s| s.to_string()), move |k| {
            env.iter().find(|(n, _)| n == k).map(|(_, v)| v.clone())
        })
    }

    #[test]
    fn the_token_and_extension_id_come_from_arguments_or_the_environment() {
        let id = "abcdefghijklmnopabcdefghijklmnop";
        let c = parse(&["--stdio", "--port", "9100", "--token", "t1", "--extension-id", id], &[]).unwrap();
        assert_eq!((c.stdio, c.port, c.pairing.token.as_str()), (true, 9100, "t1"));
        let c = parse(&[], &[("SIGHTLINE_TOKEN", "t2"), ("SIGHTLINE_EXTENSION_ID", id)]).unwrap();
        assert_eq!((c.stdio, c.port, c.pairing.token.as_str()), (false, DEFAULT_PORT, "t2"));
        assert!(parse(&["--extension-id", id], &[]).unwrap_err().to_string().contains("token is missing"));
        assert!(parse(&["--token", "t"], &[]).unwrap_err().to_string().contains("extension-id"));
        assert!(parse(&["--token", "t", "--extension-id", "https://x"], &[]).is_err());
        assert!(parse(&["--port", "x"], &[]).unwrap_err().to_string().contains("port number"));
        assert!(parse(&["--bogus"], &[]).unwrap_err().to_string().contains("unknown argument"));
        assert!(parse(&["--token", "t", "--extension-id", id, "--call-timeout", "0"], &[]).is_err());
    }
}
