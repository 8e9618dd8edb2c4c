//! The loopback WebSocket the extension connects out to (`/bridge`), and the calls that cross
//! it. One extension at a time: a newer paired connection replaces the older one. Every call
//! waits with a deadline and fails at once when the socket drops, so no MCP request hangs.

use axum::extract::ws::{Message, WebSocket, WebSocketUpgrade};
use axum::extract::{Query, State};
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::sync::{mpsc, oneshot};

/// Who may connect: the extension's own origin, holding the token its panel shows.
#[derive(Clone, Debug)]
pub struct Pairing {
    pub extension_id: String,
    pub token: String,
}

impl Pairing {
    fn origin(&self) -> String {
        format!("chrome-extension://{}", self.extension_id)
    }

    /// Why a connection attempt is refused, or `None` when it is the paired extension.
    pub fn refusal(&self, origin: Option<&str>, token: Option<&str>) -> Option<&'static str> {
        if origin != Some(self.origin().as_str()) {
            return Some("only the paired Sightline extension may connect (wrong Origin)");
        }
        match token {
            Some(t) if constant_time_eq(t.as_bytes(), self.token.as_bytes()) => None,
            _ => Some("the pairing token does not match: copy it from the panel's Allow agents section"),
        }
    }
}

/// Equal-length comparison that does not stop at the first difference.
fn constant_time_eq(a: &[u8], b: &[u8]) -> bool {
    a.len() == b.len() && a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

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
    Hello,
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
         and start this server with the pairing token the panel shows (--token, --extension-id)"
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
    pairing: Arc<Pairing>,
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
    pub fn new(pairing: Pairing) -> Self {
        Bridge { pairing: Arc::new(pairing), inner: Arc::default(), next_id: Arc::new(AtomicU64::new(1)) }
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
            Incoming::Hello => None,
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

#[derive(Deserialize)]
pub struct BridgeQuery {
    token: Option<String>,
}

/// `GET /bridge`: the paired extension's WebSocket; anyone else gets 403 before any upgrade.
pub async fn route(
    State(bridge): State<Bridge>,
    headers: HeaderMap,
    Query(query): Query<BridgeQuery>,
    upgrade: WebSocketUpgrade,
) -> Response {
    let origin = headers.get(axum::http::header::ORIGIN).and_then(|v| v.to_str().ok());
    if let Some(why) = bridge.pairing.refusal(origin, query.token.as_deref()) {
        eprintln!("sightline-mcp: refused a bridge connection: {why}");
        return (StatusCode::FORBIDDEN, why).into_response();
    }
    upgrade.max_message_size(64 << 20).on_upgrade(move |socket| serve(bridge, socket))
}

async fn serve(bridge: Bridge, mut socket: WebSocket) {
    let (tx, mut rx) = mpsc::unbounded_channel::<String>();
    let generation = bridge.attach(tx);
    eprintln!("sightline-mcp: the extension connected");
    loop {
        tokio::select! {
            out = rx.recv() => match out {
                Some(text) => if socket.send(Message::Text(text.into())).await.is_err() { break },
                None => break,
            },
            incoming = socket.recv() => match incoming {
                Some(Ok(Message::Text(text))) => {
                    if let Some(reply) = bridge.receive(text.as_str()) {
                        if socket.send(Message::Text(reply.into())).await.is_err() { break }
                    }
                }
                Some(Ok(Message::Close(_))) | None | Some(Err(_)) => break,
                Some(Ok(_)) => {}
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

    fn pairing() -> Pairing {
        Pairing { extension_id: "abcdefghijklmnopabcdefghijklmnop".into(), token: "s3cret-token".into() }
    }

    #[test]
    fn only_the_extensions_origin_with_the_token_may_connect() {
        let p = pairing();
        let origin = "chrome-extension://abcdefghijklmnopabcdefghijklmnop";
        assert_eq!(p.refusal(Some(origin), Some("s3cret-token")), None);
        assert!(p.refusal(Some(origin), Some("s3cret-tokeN")).is_some());
        assert!(p.refusal(Some(origin), None).is_some());
        assert!(p.refusal(Some("https://evil.example"), Some("s3cret-token")).is_some());
        assert!(p.refusal(Some("chrome-extension://otherextensionid"), Some("s3cret-token")).is_some());
        assert!(p.refusal(None, Some("s3cret-token")).is_some());
    }

    #[tokio::test]
    async fn calls_fail_at_once_without_a_connection_and_when_it_drops() {
        let bridge = Bridge::new(pairing());
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
        let bridge = Bridge::new(pairing());
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
