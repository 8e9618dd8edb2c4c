//! The loopback WebSocket the extension connects out to (`/bridge`), and the calls that cross
//! it. One extension at a time: a newer paired connection replaces the older one. A connection
//! is paired before anything else crosses it: the extension and this server each prove they
//! know the pairing token over fresh nonces (`sightline::agent::pairing`), the token itself
//! never sent; only then does the server send its welcome and calls. Every call waits with a
//! deadline and fails at once when the socket drops, so no MCP request hangs.

use crate::gate::Gate;
use crate::token::Token;
use axum::extract::ws::{CloseFrame, Message, WebSocket, WebSocketUpgrade};
use axum::extract::{FromRef, State};
use axum::http::HeaderMap;
use axum::response::{IntoResponse, Response};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use sightline::agent::pairing::{Nonce, ServerPairing, ServerStep, NONCE_LEN};
use std::collections::HashMap;
use std::future::Future;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::sync::{mpsc, oneshot};

/// How long a new connection has to pair.
const PAIRING_TIME: Duration = Duration::from_secs(10);

/// The agent a call comes from, as its MCP client names itself (`clientInfo`).
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct Agent {
    pub name: String,
    pub version: String,
}

/// What the server sends the extension.
#[derive(Debug, Serialize)]
#[serde(tag = "type", rename_all = "camelCase")]
enum Outgoing<'a> {
    Welcome { server: &'a str, version: &'a str },
    Agent { agent: &'a Agent },
    Call { id: u64, tool: &'a str, args: &'a Value, agent: &'a Agent },
    Cancel { id: u64 },
    Pong,
}

/// What the extension sends the server.
#[derive(Debug, Deserialize)]
#[serde(tag = "type", rename_all = "camelCase")]
enum Incoming {
    Ping,
    Progress {
        id: u64,
        progress: f64,
        #[serde(default)]
        total: Option<f64>,
        #[serde(default)]
        message: Option<String>,
    },
    Result {
        id: u64,
        #[serde(default)]
        content: Vec<Content>,
        #[serde(default)]
        error: Option<CallError>,
    },
}

/// One piece of a tool's answer.
#[derive(Clone, Debug, Deserialize, PartialEq)]
#[serde(tag = "type", rename_all = "camelCase")]
pub enum Content {
    Text {
        text: String,
    },
    #[serde(rename_all = "camelCase")]
    Image {
        data: String,
        mime_type: String,
    },
}

/// How a call failed on the extension's side.
#[derive(Clone, Debug, Deserialize, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct CallError {
    pub kind: ErrorKind,
    /// The stable code: the core's (`site_not_allowed`, `element_number_unknown`, …) or the
    /// bridge glue's (`tab_none`, …); what an agent or a script keys on, never the words.
    #[serde(default = "uncoded")]
    pub code: String,
    pub message: String,
}

fn uncoded() -> String {
    "internal".into()
}

#[derive(Clone, Copy, Debug, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "camelCase")]
pub enum ErrorKind {
    /// The arguments are not a call Sightline can make (a JSON-RPC invalid-params error).
    InvalidParams,
    /// The call ran and failed, or was refused (allowed sites, a secret): a tool error the agent reads.
    Failed,
}

/// A progress report on a running call.
#[derive(Clone, Debug, PartialEq)]
pub struct Progress {
    pub progress: f64,
    pub total: Option<f64>,
    pub message: Option<String>,
}

/// Why a call got no answer from the extension.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum BridgeError {
    #[error(
        "Sightline's extension is not connected: open the Sightline side panel in Chrome, turn on \"Allow agents\", \
         save the token it shows once (sightline-mcp --save-token), and start this server with the extension id \
         the panel shows (--extension-id)"
    )]
    NotConnected,
    #[error(
        "the extension disconnected before answering (its service worker stopped, or Allow agents was turned off)"
    )]
    Dropped,
    #[error("the extension did not answer within {0} s; the call was cancelled")]
    TimedOut(u64),
    #[error("the call was cancelled")]
    Cancelled,
}

impl BridgeError {
    /// The stable code an agent or a script may key on.
    pub fn code(&self) -> &'static str {
        match self {
            BridgeError::NotConnected => "extension_not_connected",
            BridgeError::Dropped => "extension_disconnected",
            BridgeError::TimedOut(_) => "call_timed_out",
            BridgeError::Cancelled => "call_cancelled",
        }
    }
}

struct Pending {
    reply: oneshot::Sender<Result<Vec<Content>, CallError>>,
    progress: Option<mpsc::UnboundedSender<Progress>>,
}

struct Connection {
    generation: u64,
    outgoing: mpsc::UnboundedSender<String>,
}

#[derive(Default)]
struct Inner {
    connection: Option<Connection>,
    pending: HashMap<u64, (u64, Pending)>,
    last_agent: Option<Agent>,
}

/// The bridge's state, shared by the WebSocket route and every MCP session.
#[derive(Clone)]
pub struct Bridge {
    token: Arc<Token>,
    inner: Arc<Mutex<Inner>>,
    next_id: Arc<AtomicU64>,
}

/// A call in flight: its progress reports, then its answer.
pub struct Call {
    pub id: u64,
    pub progress: mpsc::UnboundedReceiver<Progress>,
    reply: oneshot::Receiver<Result<Vec<Content>, CallError>>,
    bridge: Bridge,
}

impl Call {
    /// The extension's answer, within `deadline`; a dropped socket fails it at once.
    pub async fn answer(self, deadline: Duration) -> Result<Result<Vec<Content>, CallError>, BridgeError> {
        match tokio::time::timeout(deadline, self.reply).await {
            Ok(Ok(answer)) => Ok(answer),
            Ok(Err(_)) => Err(BridgeError::Dropped),
            Err(_) => {
                self.bridge.cancel(self.id);
                Err(BridgeError::TimedOut(deadline.as_secs()))
            }
        }
    }
}

impl Bridge {
    pub fn new(token: Token) -> Self {
        Bridge { token: Arc::new(token), inner: Arc::default(), next_id: Arc::new(AtomicU64::new(1)) }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Inner> {
        // A panic while holding the lock leaves plain data behind: keep serving.
        self.inner.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Sends `tool(args)` to the extension. `progress`: whether the caller wants progress reports.
    pub fn call(&self, tool: &str, args: &Value, agent: &Agent, progress: bool) -> Result<Call, BridgeError> {
        let mut inner = self.lock();
        let Some(connection) = inner.connection.as_ref() else {
            return Err(BridgeError::NotConnected);
        };
        let id = self.next_id.fetch_add(1, Ordering::Relaxed);
        let text = serde_json::to_string(&Outgoing::Call { id, tool, args, agent }).expect("a call serializes");
        connection.outgoing.send(text).map_err(|_| BridgeError::Dropped)?;
        let generation = connection.generation;
        let (reply_tx, reply) = oneshot::channel();
        let (progress_tx, progress_rx) = mpsc::unbounded_channel();
        inner.pending.insert(id, (generation, Pending { reply: reply_tx, progress: progress.then_some(progress_tx) }));
        Ok(Call { id, progress: progress_rx, reply, bridge: self.clone() })
    }

    /// The caller gave up on call `id` (deadline, MCP cancellation): the extension stops it.
    pub fn cancel(&self, id: u64) {
        let mut inner = self.lock();
        inner.pending.remove(&id);
        if let Some(c) = &inner.connection {
            let _ = c.outgoing.send(serde_json::to_string(&Outgoing::Cancel { id }).expect("serializes"));
        }
    }

    /// Tells the extension which agent is connected (shown in the panel).
    pub fn announce(&self, agent: &Agent) {
        let mut inner = self.lock();
        if inner.last_agent.as_ref() == Some(agent) {
            return;
        }
        inner.last_agent = Some(agent.clone());
        if let Some(c) = &inner.connection {
            let _ = c.outgoing.send(serde_json::to_string(&Outgoing::Agent { agent }).expect("serializes"));
        }
    }

    fn attach(&self, outgoing: mpsc::UnboundedSender<String>) -> u64 {
        static GENERATION: AtomicU64 = AtomicU64::new(1);
        let generation = GENERATION.fetch_add(1, Ordering::Relaxed);
        let mut inner = self.lock();
        let welcome = Outgoing::Welcome { server: "sightline-mcp", version: env!("CARGO_PKG_VERSION") };
        let _ = outgoing.send(serde_json::to_string(&welcome).expect("serializes"));
        if let Some(agent) = &inner.last_agent {
            let _ = outgoing.send(serde_json::to_string(&Outgoing::Agent { agent }).expect("serializes"));
        }
        // A newer paired connection replaces the older one: its calls cannot be answered any more.
        inner.connection = Some(Connection { generation, outgoing });
        inner.pending.retain(|_, (g, _)| *g == generation);
        generation
    }

    /// The connection of `generation` closed: its calls fail now (dropping their senders).
    fn detach(&self, generation: u64) {
        let mut inner = self.lock();
        if inner.connection.as_ref().is_some_and(|c| c.generation == generation) {
            inner.connection = None;
        }
        inner.pending.retain(|_, (g, _)| *g != generation);
    }

    /// One message from the extension; a reply to send back, if any.
    fn receive(&self, text: &str) -> Option<String> {
        let message: Incoming = match serde_json::from_str(text) {
            Ok(m) => m,
            Err(e) => {
                eprintln!("sightline-mcp: ignored a message from the extension that is not in the bridge's form: {e}");
                return None;
            }
        };
        let mut inner = self.lock();
        match message {
            Incoming::Ping => Some(serde_json::to_string(&Outgoing::Pong).expect("serializes")),
            Incoming::Progress { id, progress, total, message } => {
                if let Some((_, Pending { progress: Some(tx), .. })) = inner.pending.get(&id) {
                    let _ = tx.send(Progress { progress, total, message });
                }
                None
            }
            Incoming::Result { id, content, error } => {
                if let Some((_, pending)) = inner.pending.remove(&id) {
                    let _ = pending.reply.send(match error {
                        Some(e) => Err(e),
                        None => Ok(content),
                    });
                }
                None
            }
        }
    }
}

/// What the `/bridge` route needs: the bridge, and the port's rules.
#[derive(Clone)]
pub struct BridgeRoute {
    pub bridge: Bridge,
    pub gate: Gate,
}

impl FromRef<BridgeRoute> for Bridge {
    fn from_ref(route: &BridgeRoute) -> Bridge {
        route.bridge.clone()
    }
}

impl FromRef<BridgeRoute> for Gate {
    fn from_ref(route: &BridgeRoute) -> Gate {
        route.gate.clone()
    }
}

/// `GET /bridge`: the extension's WebSocket. A request not from the extension's Origin (a web
/// page), or to a Host that is not this server, gets 403 before any upgrade; the rest must pair.
pub async fn route(
    State(bridge): State<Bridge>,
    State(gate): State<Gate>,
    headers: HeaderMap,
    upgrade: WebSocketUpgrade,
) -> Response {
    if let Err(refusal) = gate.check_bridge(&headers) {
        eprintln!("sightline-mcp: refused a bridge connection: {}", refusal.message());
        return refusal.into_response();
    }
    upgrade.max_message_size(64 << 20).on_upgrade(move |socket| serve(bridge, Ws(socket)))
}

/// What arrived on the socket.
pub(crate) enum Frame {
    Text(String),
    /// Ping, pong, binary: nothing for the bridge.
    Other,
    Closed,
}

/// The socket as the bridge uses it: text messages in and out (a WebSocket; in tests, channels).
pub(crate) trait Socket: Send {
    fn recv(&mut self) -> impl Future<Output = Frame> + Send;
    /// Whether it was sent.
    fn send(&mut self, text: String) -> impl Future<Output = bool> + Send;
    fn close(&mut self, reason: &str) -> impl Future<Output = ()> + Send;
}

struct Ws(WebSocket);

impl Socket for Ws {
    async fn recv(&mut self) -> Frame {
        match self.0.recv().await {
            Some(Ok(Message::Text(text))) => Frame::Text(text.as_str().to_owned()),
            Some(Ok(Message::Close(_))) | None | Some(Err(_)) => Frame::Closed,
            Some(Ok(_)) => Frame::Other,
        }
    }

    async fn send(&mut self, text: String) -> bool {
        self.0.send(Message::Text(text.into())).await.is_ok()
    }

    async fn close(&mut self, reason: &str) {
        // 4001: refused by the application (a code of the 4000s is the application's own).
        let frame = CloseFrame { code: 4001, reason: reason.chars().take(100).collect::<String>().into() };
        let _ = self.0.send(Message::Close(Some(frame))).await;
    }
}

/// Pairs a new connection: the extension proves it knows the token, and learns that this
/// server does, within [`PAIRING_TIME`]. Nothing else is sent on it before.
async fn pair(token: &Token, socket: &mut impl Socket) -> Result<(), String> {
    let mut bytes = [0u8; NONCE_LEN];
    getrandom::fill(&mut bytes).map_err(|e| format!("no random numbers for the pairing nonce: {e}"))?;
    let mut pairing = ServerPairing::new(token.as_str(), Nonce::from_bytes(&bytes).expect("32 bytes"));
    let handshake = async {
        loop {
            let text = match socket.recv().await {
                Frame::Text(text) => text,
                Frame::Other => continue,
                Frame::Closed => return Err("it closed before pairing".to_owned()),
            };
            match pairing.receive(&text).map_err(|e| e.to_string())? {
                ServerStep::Reply(reply) => {
                    if !socket.send(reply).await {
                        return Err("it closed before pairing".to_owned());
                    }
                }
                ServerStep::Paired => return Ok(()),
            }
        }
    };
    match tokio::time::timeout(PAIRING_TIME, handshake).await {
        Ok(result) => result,
        Err(_) => Err(format!("it did not pair within {} s", PAIRING_TIME.as_secs())),
    }
}

async fn serve(bridge: Bridge, mut socket: impl Socket) {
    if let Err(why) = pair(&bridge.token, &mut socket).await {
        eprintln!("sightline-mcp: refused a bridge connection: {why}");
        socket.close("not paired").await;
        return;
    }
    let (tx, mut rx) = mpsc::unbounded_channel::<String>();
    let generation = bridge.attach(tx);
    eprintln!("sightline-mcp: the extension connected");
    loop {
        tokio::select! {
            out = rx.recv() => match out {
                Some(text) => if !socket.send(text).await { break },
                None => break,
            },
            incoming = socket.recv() => match incoming {
                Frame::Text(text) => {
                    if let Some(reply) = bridge.receive(&text) {
                        if !socket.send(reply).await { break }
                    }
                }
                Frame::Closed => break,
                Frame::Other => {}
            },
        }
        // Replaced by a newer connection: this one ends.
        if bridge.lock().connection.as_ref().is_none_or(|c| c.generation != generation) {
            break;
        }
    }
    bridge.detach(generation);
    eprintln!("sightline-mcp: the extension disconnected");
}

#[cfg(test)]
mod tests {
    use super::*;

    use sightline::agent::pairing::{confirm, hello, PairMessage};

    const TOKEN: &str = "s3cret-token";

    fn token() -> Token {
        Token::new(TOKEN).unwrap()
    }

    /// What the server did on the test's socket.
    #[derive(Debug, PartialEq)]
    enum Out {
        Text(String),
        Close(String),
    }

    /// One end of a connection, the test playing the extension at the other.
    struct Chan {
        from_extension: mpsc::UnboundedReceiver<String>,
        to_extension: mpsc::UnboundedSender<Out>,
    }

    impl Socket for Chan {
        async fn recv(&mut self) -> Frame {
            self.from_extension.recv().await.map_or(Frame::Closed, Frame::Text)
        }
        async fn send(&mut self, text: String) -> bool {
            self.to_extension.send(Out::Text(text)).is_ok()
        }
        async fn close(&mut self, reason: &str) {
            let _ = self.to_extension.send(Out::Close(reason.to_owned()));
        }
    }

    /// A connection served by `bridge`: what the extension sends, and what it gets.
    fn connect(bridge: &Bridge) -> (mpsc::UnboundedSender<String>, mpsc::UnboundedReceiver<Out>) {
        let (send, from_extension) = mpsc::unbounded_channel();
        let (to_extension, received) = mpsc::unbounded_channel();
        tokio::spawn(serve(bridge.clone(), Chan { from_extension, to_extension }));
        (send, received)
    }

    async fn next_text(received: &mut mpsc::UnboundedReceiver<Out>) -> String {
        match tokio::time::timeout(Duration::from_secs(5), received.recv()).await {
            Ok(Some(Out::Text(t))) => t,
            other => panic!("expected a message, got {other:?}"),
        }
    }

    /// The server closes the connection: nothing was sent before the close but `sent` already saw.
    async fn closed(received: &mut mpsc::UnboundedReceiver<Out>) {
        match tokio::time::timeout(Duration::from_secs(20), received.recv()).await {
            Ok(Some(Out::Close(_))) => {}
            other => panic!("expected the server to close, got {other:?}"),
        }
        assert!(received.recv().await.is_none(), "nothing after the close");
    }

    fn nonce(seed: u8) -> Nonce {
        Nonce::from_bytes(&[seed; NONCE_LEN]).unwrap()
    }

    fn forged_confirmation() -> String {
        serde_json::to_string(&PairMessage::PairConfirm { proof: "5a".repeat(32) }).unwrap()
    }

    #[tokio::test]
    async fn the_extension_pairs_and_only_then_gets_the_welcome_and_calls() {
        let bridge = Bridge::new(token());
        let agent = Agent { name: "agent".into(), version: "1".into() };
        let (send, mut received) = connect(&bridge);
        let ne = nonce(1);
        send.send(hello(&ne)).unwrap();
        let proof = next_text(&mut received).await;
        assert_eq!(
            bridge.call("snapshot", &Value::Null, &agent, false).err(),
            Some(BridgeError::NotConnected),
            "not before the extension proved itself"
        );
        send.send(confirm(TOKEN, &ne, &proof).expect("the server proves it knows the token")).unwrap();
        let welcome = next_text(&mut received).await;
        assert!(welcome.contains("welcome"), "{welcome}");
        let _call = bridge.call("snapshot", &Value::Null, &agent, false).unwrap();
        let call = next_text(&mut received).await;
        assert!(call.contains(r#""tool":"snapshot""#), "{call}");
        for text in [&proof, &welcome, &call] {
            assert!(!text.contains(TOKEN), "the token never crosses: {text}");
        }
    }

    #[tokio::test]
    async fn a_program_that_does_not_know_the_token_is_not_paired_and_gets_no_call() {
        let bridge = Bridge::new(token());
        let agent = Agent::default();
        let (send, mut received) = connect(&bridge);
        send.send(hello(&nonce(1))).unwrap();
        let proof = next_text(&mut received).await;
        // An extension of another token cannot check the proof (so it would not answer); a forger answers anyway.
        assert_eq!(confirm("another-token", &nonce(1), &proof).unwrap_err().code(), "pairing_proof_wrong");
        send.send(forged_confirmation()).unwrap();
        closed(&mut received).await;
        assert_eq!(bridge.call("snapshot", &Value::Null, &agent, false).err(), Some(BridgeError::NotConnected));
    }

    #[tokio::test]
    async fn a_reflected_proof_or_an_old_transcript_is_refused() {
        let bridge = Bridge::new(token());
        // Reflection: the server's own proof sent back as the extension's.
        let (send, mut received) = connect(&bridge);
        send.send(hello(&nonce(1))).unwrap();
        let PairMessage::PairProof { proof, .. } = serde_json::from_str(&next_text(&mut received).await).unwrap()
        else {
            panic!("the server answers with its proof")
        };
        send.send(serde_json::to_string(&PairMessage::PairConfirm { proof }).unwrap()).unwrap();
        closed(&mut received).await;

        // Replay: a transcript of a pairing that worked, sent again on a new connection.
        let (send, mut received) = connect(&bridge);
        send.send(hello(&nonce(2))).unwrap();
        let old_confirmation = confirm(TOKEN, &nonce(2), &next_text(&mut received).await).unwrap();
        send.send(old_confirmation.clone()).unwrap();
        assert!(next_text(&mut received).await.contains("welcome"));
        let (replay, mut replayed) = connect(&bridge);
        replay.send(hello(&nonce(2))).unwrap();
        let _fresh_proof = next_text(&mut replayed).await;
        replay.send(old_confirmation).unwrap();
        closed(&mut replayed).await;
    }

    #[tokio::test]
    async fn bridge_messages_before_pairing_are_refused() {
        let bridge = Bridge::new(token());
        for early in [r#"{"type":"ping"}"#, r#"{"type":"result","id":1,"content":[]}"#, "not json"] {
            let (send, mut received) = connect(&bridge);
            send.send(early.to_owned()).unwrap();
            closed(&mut received).await;
        }
    }

    #[tokio::test(start_paused = true)]
    async fn a_connection_that_never_pairs_is_closed() {
        let bridge = Bridge::new(token());
        let (_send, mut received) = connect(&bridge);
        closed(&mut received).await;
    }

    #[tokio::test]
    async fn calls_fail_at_once_without_a_connection_and_when_it_drops() {
        let bridge = Bridge::new(token());
        let agent = Agent { name: "test".into(), version: "1".into() };
        assert_eq!(bridge.call("snapshot", &Value::Null, &agent, false).err(), Some(BridgeError::NotConnected));
        let (tx, mut rx) = mpsc::unbounded_channel();
        let generation = bridge.attach(tx);
        assert!(rx.recv().await.unwrap().contains("welcome"));
        let call = bridge.call("snapshot", &Value::Null, &agent, false).unwrap();
        let sent: Value = serde_json::from_str(&rx.recv().await.unwrap()).unwrap();
        assert_eq!((sent["type"].as_str(), sent["tool"].as_str()), (Some("call"), Some("snapshot")));
        bridge.detach(generation);
        assert_eq!(call.answer(Duration::from_secs(5)).await.err(), Some(BridgeError::Dropped));
    }

    #[tokio::test]
    async fn answers_and_progress_reach_their_call_and_a_silent_extension_times_out() {
        let bridge = Bridge::new(token());
        let agent = Agent::default();
        let (tx, mut rx) = mpsc::unbounded_channel();
        bridge.attach(tx);
        let _welcome = rx.recv().await;
        let mut call = bridge.call("act", &serde_json::json!({"instruction": "x"}), &agent, true).unwrap();
        let id = call.id;
        let sent: Value = serde_json::from_str(&rx.recv().await.unwrap()).unwrap();
        assert_eq!((sent["id"].as_u64(), &sent["args"]["instruction"]), (Some(id), &Value::from("x")));
        assert_eq!(bridge.receive(r#"{"type":"ping"}"#).as_deref(), Some(r#"{"type":"pong"}"#));
        bridge.receive(&format!(r#"{{"type":"progress","id":{id},"progress":1,"total":3,"message":"step 1"}}"#));
        assert_eq!(call.progress.recv().await.unwrap().message.as_deref(), Some("step 1"));
        bridge.receive(&format!(r#"{{"type":"result","id":{id},"content":[{{"type":"text","text":"done"}}]}}"#));
        assert_eq!(call.answer(Duration::from_secs(5)).await, Ok(Ok(vec![Content::Text { text: "done".into() }])));
        assert!(bridge.receive("not json").is_none(), "ignored, not a panic");

        // A refusal reaches its call with the code the extension gave (an older extension's without one: internal).
        let refused =
            bridge.call("navigate", &serde_json::json!({"url": "https://x.example/"}), &agent, false).unwrap();
        let id = refused.id;
        let _call = rx.recv().await;
        bridge.receive(&format!(
            r#"{{"type":"result","id":{id},"error":{{"kind":"failed","code":"site_not_allowed","message":"no"}}}}"#
        ));
        let failed = refused.answer(Duration::from_secs(5)).await.unwrap().unwrap_err();
        assert_eq!((failed.kind, failed.code.as_str()), (ErrorKind::Failed, "site_not_allowed"));
        let uncoded: CallError = serde_json::from_str(r#"{"kind":"invalidParams","message":"x"}"#).unwrap();
        assert_eq!(uncoded.code, "internal");
        assert_eq!(BridgeError::NotConnected.code(), "extension_not_connected");

        let silent = bridge.call("snapshot", &Value::Null, &agent, false).unwrap();
        let _call = rx.recv().await;
        assert_eq!(silent.answer(Duration::from_millis(50)).await, Err(BridgeError::TimedOut(0)));
        let cancel: Value = serde_json::from_str(&rx.recv().await.unwrap()).unwrap();
        assert_eq!(cancel["type"], "cancel");
    }
}
