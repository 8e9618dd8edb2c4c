//! `sightline-mcp`: Sightline for coding agents and scripts. Serves MCP over stdio (`--stdio`)
//! and streamable HTTP (`http://127.0.0.1:PORT/mcp`), and the WebSocket the extension connects
//! out to (`ws://127.0.0.1:PORT/bridge`) when the person turns on Allow agents in its panel.
//! Everything listens on the loopback address only.

mod bridge;
mod gate;
mod token;
mod tools;

use bridge::{Bridge, BridgeRoute};
use gate::Gate;
use rmcp::transport::streamable_http_server::{
    session::local::LocalSessionManager, StreamableHttpServerConfig, StreamableHttpService,
};
use rmcp::ServiceExt;
use std::io::{BufRead, IsTerminal};
use std::net::{Ipv4Addr, SocketAddr};
use std::path::PathBuf;
use std::time::Duration;
use token::{Source, Token};
use tools::{Deadlines, Sightline};

const DEFAULT_PORT: u16 = 47231;

/// How the pairing token reaches the server: after the options in `--help`.
const TOKEN_HELP: &str =
    "The pairing token the panel shows: save it once with --save-token (it asks for it on stdin and keeps it in
~/.config/sightline/token, readable by you only), or set SIGHTLINE_TOKEN. HTTP clients send it on every
request as `Authorization: Bearer <token>`. The extension id may also come from SIGHTLINE_EXTENSION_ID.";

/// Sightline's MCP server: drives the person's Chrome through the Sightline extension (Allow agents in its panel).
#[derive(Debug, clap::Parser)]
#[command(name = "sightline-mcp", version, after_help = TOKEN_HELP)]
struct Cli {
    /// Serve MCP on stdin/stdout (what MCP clients that start the server use); the loopback port then serves
    /// only the extension's /bridge
    #[arg(long)]
    stdio: bool,
    /// With --stdio, serve MCP over HTTP at /mcp as well
    #[arg(long, requires = "stdio")]
    http_too: bool,
    /// The loopback port for /mcp and the extension's /bridge
    #[arg(long, value_name = "N", default_value_t = DEFAULT_PORT)]
    port: u16,
    /// The extension's id, shown in Sightline's panel under Allow agents (or SIGHTLINE_EXTENSION_ID)
    #[arg(long, value_name = "ID")]
    extension_id: Option<String>,
    /// Seconds a call may take
    #[arg(long, value_name = "S", default_value_t = 60, value_parser = clap::value_parser!(u64).range(1..))]
    call_timeout: u64,
    /// Seconds act and wait_for may take
    #[arg(long, value_name = "S", default_value_t = 600, value_parser = clap::value_parser!(u64).range(1..))]
    act_timeout: u64,
    /// Read the token from stdin, save it in the token file (mode 0600) and exit
    #[arg(long, conflicts_with = "token")]
    save_token: bool,
    /// The token file (default $XDG_CONFIG_HOME/sightline/token or ~/.config/sightline/token); refused if other
    /// users can read it
    #[arg(long, value_name = "PATH")]
    token_file: Option<PathBuf>,
    /// The token itself: works, but every user of this computer can read it (ps)
    #[arg(long, value_name = "T")]
    token: Option<String>,
}

/// What to do.
#[derive(Debug)]
enum Command {
    Serve(Config, Source),
    /// Read the token from stdin and save it here.
    SaveToken(PathBuf),
}

#[derive(Debug)]
struct Config {
    stdio: bool,
    /// Whether the port serves MCP at /mcp (always without --stdio; with it, only with --http-too).
    http: bool,
    port: u16,
    extension_id: String,
    deadlines: Deadlines,
}

#[derive(Debug, thiserror::Error)]
enum ConfigError {
    /// What clap refuses, and `--help`/`--version`, which it prints itself (to stdout, exit 0).
    #[error(transparent)]
    Arguments(#[from] clap::Error),
    /// What the arguments mean together that clap cannot tell.
    #[error("{0}\n(sightline-mcp --help lists the options)")]
    Usage(String),
}

/// The command `args` (without the program's name) ask for, with `env` for the variables.
fn parse_args(
    args: impl Iterator<Item = String>,
    env: impl Fn(&str) -> Option<String>,
) -> Result<Command, ConfigError> {
    use clap::Parser;
    let usage = |m: &str| ConfigError::Usage(m.to_owned());
    let cli = Cli::try_parse_from(std::iter::once("sightline-mcp".to_owned()).chain(args))?;
    let default_file = token::default_file(&env);
    if cli.save_token {
        return cli
            .token_file
            .or(default_file)
            .map(Command::SaveToken)
            .ok_or_else(|| usage("no home folder to save the token in: name a file with --token-file"));
    }
    let source = match (cli.token, cli.token_file, env("SIGHTLINE_TOKEN").filter(|t| !t.trim().is_empty())) {
        (Some(t), _, _) if t.trim().is_empty() => return Err(usage("--token is empty")),
        (Some(t), _, _) => Source::Argument(t),
        (None, Some(path), _) => Source::File { path, explicit: true },
        (None, None, Some(t)) => Source::Environment(t),
        (None, None, None) => default_file.map_or(Source::Nowhere, |path| Source::File { path, explicit: false }),
    };
    let extension_id = cli
        .extension_id
        .or_else(|| env("SIGHTLINE_EXTENSION_ID"))
        .filter(|id| !id.is_empty() && id.chars().all(|c| c.is_ascii_lowercase()))
        .ok_or_else(|| usage("--extension-id is missing or not an extension id (32 letters a–p)"))?;
    let config = Config {
        stdio: cli.stdio,
        http: !cli.stdio || cli.http_too,
        port: cli.port,
        extension_id,
        deadlines: Deadlines { call: Duration::from_secs(cli.call_timeout), act: Duration::from_secs(cli.act_timeout) },
    };
    Ok(Command::Serve(config, source))
}

#[tokio::main]
async fn main() {
    let command = match parse_args(std::env::args().skip(1), |k| std::env::var(k).ok()) {
        Ok(c) => c,
        // clap words its own errors and prints --help and --version to stdout with exit 0.
        Err(ConfigError::Arguments(e)) => e.exit(),
        Err(e) => {
            eprintln!("sightline-mcp: {e}");
            std::process::exit(2);
        }
    };
    let (config, source) = match command {
        Command::SaveToken(path) => std::process::exit(match save_token(&path) {
            Ok(()) => 0,
            Err(e) => {
                eprintln!("sightline-mcp: {e}");
                1
            }
        }),
        Command::Serve(config, source) => (config, source),
    };
    if matches!(source, Source::Argument(_)) {
        eprintln!("sightline-mcp: warning: {}", token::ARGUMENT_WARNING);
    }
    let token = match token::load(source) {
        Ok(t) => t,
        Err(e) => {
            eprintln!("sightline-mcp: {e}");
            std::process::exit(2);
        }
    };
    if let Err(e) = serve(config, token).await {
        eprintln!("sightline-mcp: {e}");
        std::process::exit(1);
    }
}

/// `--save-token`: the token from stdin (asked for on a terminal) into `path`, 0600.
fn save_token(path: &std::path::Path) -> Result<(), Box<dyn std::error::Error>> {
    let stdin = std::io::stdin();
    if stdin.is_terminal() {
        eprint!("Paste the pairing token Sightline's panel shows under Allow agents, then press Enter: ");
    }
    let mut line = String::new();
    stdin.lock().read_line(&mut line)?;
    let token = Token::new(&line).ok_or("no token was given on stdin")?;
    if token.as_str().chars().any(char::is_whitespace) {
        return Err("a token has no spaces in it: paste only the token".into());
    }
    token::save(path, &token)?;
    eprintln!("sightline-mcp: saved the pairing token in {} (readable by you only)", path.display());
    Ok(())
}

/// The loopback port's routes: `/bridge` always, `/mcp` (behind the gate) when `mcp` is given.
fn app(bridge: Bridge, gate: Gate, mcp: Option<StreamableHttpService<Sightline, LocalSessionManager>>) -> axum::Router {
    let mut app = axum::Router::new()
        .route("/bridge", axum::routing::get(bridge::route))
        .with_state(BridgeRoute { bridge, gate: gate.clone() });
    if let Some(mcp) = mcp {
        let guarded = axum::Router::new()
            .nest_service("/mcp", mcp)
            .layer(axum::middleware::from_fn_with_state(gate, gate::mcp_gate));
        app = app.merge(guarded);
    }
    app
}

async fn serve(config: Config, token: Token) -> Result<(), Box<dyn std::error::Error>> {
    let gate = Gate::new(token.clone(), config.port, &config.extension_id);
    let bridge = Bridge::new(token);
    let deadlines = config.deadlines;
    let mcp = config.http.then(|| {
        let http_bridge = bridge.clone();
        let port = config.port;
        StreamableHttpService::new(
            move || Ok(Sightline::new(http_bridge.clone(), deadlines)),
            LocalSessionManager::default().into(),
            // The gate checks these first (and the token); rmcp's own checks say the same.
            StreamableHttpServerConfig::default()
                .with_allowed_hosts([format!("127.0.0.1:{port}"), format!("localhost:{port}")])
                .with_allowed_origins([gate.origin().to_owned()])
                .enforce_origin_validation()
                .with_max_request_body_bytes(4 << 20),
        )
    });
    let app = app(bridge.clone(), gate, mcp);
    let address = SocketAddr::from((Ipv4Addr::LOCALHOST, config.port));
    let listener = tokio::net::TcpListener::bind(address)
        .await
        .map_err(|e| format!("cannot listen on {address}: {e} (another sightline-mcp running? pick another --port and set it in the panel)"))?;
    eprintln!(
        "sightline-mcp: listening on {address}: {}; the extension connects to ws://{address}/bridge",
        match (config.http, config.stdio) {
            (true, false) => format!("MCP at http://{address}/mcp (Authorization: Bearer <token>)"),
            (true, true) => format!("MCP on stdio, and at http://{address}/mcp (Authorization: Bearer <token>)"),
            (false, _) => "MCP on stdio (no HTTP /mcp: --http-too serves it)".to_owned(),
        }
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
    use tokio::io::{AsyncReadExt, AsyncWriteExt};

    const ID: &str = "abcdefghijklmnopabcdefghijklmnop";

    fn parse(args: &[&str], env: &[(&str, &str)]) -> Result<Command, ConfigError> {
        let env: Vec<(String, String)> = env.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect();
        parse_args(args.iter().map(|s| s.to_string()), move |k| {
            env.iter().find(|(n, _)| n == k).map(|(_, v)| v.clone())
        })
    }

    fn serving(args: &[&str], env: &[(&str, &str)]) -> (Config, Source) {
        match parse(args, env) {
            Ok(Command::Serve(c, s)) => (c, s),
            other => panic!("not a server: {other:?}"),
        }
    }

    #[test]
    fn the_token_comes_from_the_environment_or_a_file_and_the_argument_still_works() {
        let home = [("HOME", "/home/a")];
        let (c, s) = serving(&["--stdio", "--port", "9100", "--extension-id", ID], &home);
        assert_eq!((c.stdio, c.http, c.port), (true, false, 9100));
        assert_eq!(s, Source::File { path: "/home/a/.config/sightline/token".into(), explicit: false });
        let (c, s) = serving(&[], &[("SIGHTLINE_TOKEN", "t2"), ("SIGHTLINE_EXTENSION_ID", ID), home[0]]);
        assert_eq!((c.stdio, c.http, c.port, s), (false, true, DEFAULT_PORT, Source::Environment("t2".into())));
        let (_, s) = serving(&["--token-file", "/run/t", "--extension-id", ID], &[("SIGHTLINE_TOKEN", "t2")]);
        assert_eq!(s, Source::File { path: "/run/t".into(), explicit: true }, "a file named outweighs the environment");
        let (_, s) = serving(&["--token", "t1", "--extension-id", ID], &[("SIGHTLINE_TOKEN", "t2")]);
        assert_eq!(s, Source::Argument("t1".into()));
        assert!(token::ARGUMENT_WARNING.contains("ps"), "and main warns that ps shows it");
        let (_, s) = serving(&["--extension-id", ID], &[]);
        assert_eq!(s, Source::Nowhere);
        assert!(parse(&["--token", " ", "--extension-id", ID], &[]).unwrap_err().to_string().contains("empty"));
    }

    #[test]
    fn stdio_serves_http_mcp_only_when_asked() {
        let (c, _) = serving(&["--stdio", "--extension-id", ID], &[]);
        assert_eq!((c.stdio, c.http), (true, false));
        let (c, _) = serving(&["--stdio", "--http-too", "--extension-id", ID], &[]);
        assert_eq!((c.stdio, c.http), (true, true));
        assert!(parse(&["--http-too", "--extension-id", ID], &[]).unwrap_err().to_string().contains("--stdio"));
    }

    #[test]
    fn save_token_names_its_file_and_takes_no_token_argument() {
        let home = [("HOME", "/home/a")];
        assert!(
            matches!(parse(&["--save-token"], &home), Ok(Command::SaveToken(p)) if p == std::path::Path::new("/home/a/.config/sightline/token"))
        );
        assert!(
            matches!(parse(&["--save-token", "--token-file", "/x/t"], &home), Ok(Command::SaveToken(p)) if p == std::path::Path::new("/x/t"))
        );
        assert!(parse(&["--save-token", "--token", "t"], &home).is_err());
        assert!(parse(&["--save-token"], &[]).unwrap_err().to_string().contains("--token-file"));
    }

    #[test]
    fn bad_arguments_are_refused() {
        assert!(parse(&["--token", "t"], &[]).unwrap_err().to_string().contains("extension-id"));
        assert!(parse(&["--token", "t", "--extension-id", "https://x"], &[]).is_err());
        assert!(parse(&["--port", "x"], &[]).unwrap_err().to_string().contains("--port"));
        assert!(parse(&["--port", "70000"], &[]).is_err());
        assert!(parse(&["--bogus"], &[]).unwrap_err().to_string().contains("--bogus"));
        assert!(parse(&["--token", "t", "--extension-id", ID, "--call-timeout", "0"], &[]).is_err());
        assert!(parse(&["--token", "t", "--extension-id", ID, "--act-timeout", "1.5"], &[]).is_err());
    }

    #[test]
    fn options_take_their_value_after_an_equals_sign_or_a_space() {
        let (c, _) = serving(&["--port=9100", "--extension-id", ID, "--call-timeout=7"], &[]);
        assert_eq!(
            (c.port, c.deadlines.call, c.deadlines.act),
            (9100, Duration::from_secs(7), Duration::from_secs(600))
        );
        let (c, _) = serving(&["--port", "9101", &format!("--extension-id={ID}"), "--act-timeout", "9"], &[]);
        assert_eq!((c.port, c.extension_id.as_str(), c.deadlines.act), (9101, ID, Duration::from_secs(9)));
        let (c, _) =
            serving(&["--extension-id", ID], &[("SIGHTLINE_EXTENSION_ID", "pppppppppppppppppppppppppppppppp")]);
        assert_eq!(c.extension_id, ID, "the option outweighs the environment");
    }

    /// `--help` and `--version` are not failures: clap prints them to stdout and `main` exits 0.
    #[test]
    fn help_and_version_print_to_stdout_and_succeed() {
        for (flag, kind, words) in [
            ("--help", clap::error::ErrorKind::DisplayHelp, "--save-token"),
            ("-h", clap::error::ErrorKind::DisplayHelp, "--extension-id"),
            ("--version", clap::error::ErrorKind::DisplayVersion, env!("CARGO_PKG_VERSION")),
        ] {
            let Err(ConfigError::Arguments(e)) = parse(&[flag], &[]) else { panic!("{flag} is no request to clap") };
            assert_eq!((e.kind(), e.exit_code(), e.use_stderr()), (kind, 0, false), "{flag}");
            assert!(e.to_string().contains(words), "{flag}: {e}");
        }
        let Err(ConfigError::Arguments(e)) = parse(&["--bogus"], &[]) else { panic!("--bogus accepted") };
        assert_eq!((e.exit_code(), e.use_stderr()), (2, true), "an error goes to stderr with exit 2");
        <Cli as clap::CommandFactory>::command().debug_assert();
    }

    /// The app on a port of its own, as `serve` builds it: `http` false is `--stdio` without `--http-too`.
    async fn start(http: bool) -> u16 {
        let listener = tokio::net::TcpListener::bind((Ipv4Addr::LOCALHOST, 0)).await.unwrap();
        let port = listener.local_addr().unwrap().port();
        let token = Token::new("s3cret-token").unwrap();
        let gate = Gate::new(token.clone(), port, ID);
        let bridge = Bridge::new(token);
        let deadlines = Deadlines { call: Duration::from_secs(5), act: Duration::from_secs(5) };
        let mcp = http.then(|| {
            let b = bridge.clone();
            StreamableHttpService::new(
                move || Ok(Sightline::new(b.clone(), deadlines)),
                LocalSessionManager::default().into(),
                StreamableHttpServerConfig::default(),
            )
        });
        let app = app(bridge, gate, mcp);
        tokio::spawn(async move { axum::serve(listener, app).await });
        port
    }

    /// Sends one HTTP request; the status code and what came of the body by the end of the headers' packet.
    async fn post(port: u16, path: &str, headers: &[(&str, &str)]) -> (u16, String) {
        let body = r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}"#;
        let mut request = format!(
            "POST {path} HTTP/1.1\r\ncontent-type: application/json\r\naccept: application/json, text/event-stream\r\ncontent-length: {}\r\nconnection: close\r\n",
            body.len()
        );
        if !headers.iter().any(|(k, _)| k.eq_ignore_ascii_case("host")) {
            request.push_str(&format!("host: 127.0.0.1:{port}\r\n"));
        }
        for (k, v) in headers {
            request.push_str(&format!("{k}: {v}\r\n"));
        }
        request.push_str("\r\n");
        request.push_str(body);
        let mut stream = tokio::net::TcpStream::connect((Ipv4Addr::LOCALHOST, port)).await.unwrap();
        stream.write_all(request.as_bytes()).await.unwrap();
        let mut answer = Vec::new();
        let mut chunk = [0u8; 4096];
        // Until the status line and headers are in (an SSE answer may stay open).
        while !String::from_utf8_lossy(&answer).contains("\r\n\r\n") {
            let n = tokio::time::timeout(Duration::from_secs(10), stream.read(&mut chunk)).await.unwrap().unwrap();
            if n == 0 {
                break;
            }
            answer.extend_from_slice(&chunk[..n]);
        }
        // What else arrives soon (a short body).
        if let Ok(Ok(n)) = tokio::time::timeout(Duration::from_millis(300), stream.read(&mut chunk)).await {
            answer.extend_from_slice(&chunk[..n]);
        }
        let text = String::from_utf8_lossy(&answer).into_owned();
        let status = text.split(' ').nth(1).and_then(|s| s.parse().ok()).unwrap_or(0);
        (status, text)
    }

    #[tokio::test]
    async fn mcp_over_http_answers_only_with_the_bearer_to_its_own_host() {
        let port = start(true).await;
        let (status, text) = post(port, "/mcp", &[]).await;
        assert_eq!(status, 401, "{text}");
        assert!(text.contains("token_missing") && text.contains("Authorization: Bearer"), "{text}");
        let (status, text) = post(port, "/mcp", &[("authorization", "Bearer s3cret-tokeN")]).await;
        assert_eq!((status, text.contains("token_wrong")), (401, true), "{text}");
        let (status, text) = post(port, "/mcp", &[("authorization", "Bearer s3cret-token")]).await;
        assert_eq!(status, 200, "{text}");
        assert!(text.contains("sightline"), "the initialize answer: {text}");
        // A web page: its Origin, or its own name rebound to 127.0.0.1 (the Host it sends).
        let bearer = ("authorization", "Bearer s3cret-token");
        let (status, text) = post(port, "/mcp", &[bearer, ("origin", "https://evil.example")]).await;
        assert_eq!((status, text.contains("origin_not_allowed")), (403, true), "{text}");
        let (status, text) = post(port, "/mcp", &[bearer, ("host", &format!("evil.example:{port}"))]).await;
        assert_eq!((status, text.contains("host_not_allowed")), (403, true), "{text}");
        let (status, _) = post(port, "/mcp/", &[]).await;
        assert_ne!(status, 200, "no way around the gate under /mcp");
    }

    #[tokio::test]
    async fn stdio_mode_serves_no_http_mcp_only_the_bridge() {
        let port = start(false).await;
        let (status, text) = post(port, "/mcp", &[("authorization", "Bearer s3cret-token")]).await;
        assert_eq!(status, 404, "{text}");
        // The bridge is there: a plain POST is no WebSocket upgrade, but the route answers.
        let (status, _) = post(port, "/bridge", &[]).await;
        assert!(status != 404 && status != 200, "{status}");
    }
}
