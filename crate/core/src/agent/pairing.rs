//! Pairing the extension with `sightline-mcp` over the loopback bridge, without the token
//! ever crossing the socket. Anything on the machine may listen on the bridge's port, and
//! anything may connect to it: so each side proves it knows the pairing token over nonces
//! the other side just made, and neither takes a call, nor sends one, before that.
//!
//! ```text
//! extension → server   {"type":"pair","nonce":Ne}
//! server → extension   {"type":"pairProof","nonce":Ns,"proof":HMAC(token, "sightline-server" 0 Ne Ns)}
//!                      the extension checks it: a server that does not know the token stops here
//! extension → server   {"type":"pairConfirm","proof":HMAC(token, "sightline-extension" 0 Ns Ne)}
//!                      the server checks it, and only then sends its welcome and calls
//! ```
//!
//! HMAC-SHA256 keyed with the token's UTF-8 bytes; nonces and proofs are 32 bytes, written as
//! lowercase hex. Each proof names its direction (the label) and puts the other side's nonce
//! first, so a proof one side makes is never one the other side accepts (no reflection), and
//! each side's fresh nonce makes an old transcript worthless (no replay). Proofs are compared
//! in constant time. The extension's side is two plain functions ([`hello`], [`confirm`]) its
//! glue calls with the nonce it keeps; the server's is a small state machine ([`ServerPairing`]).

use hmac::{Hmac, KeyInit, Mac};
use serde::{Deserialize, Serialize};
use sha2::Sha256;

/// Bytes in a nonce and in a proof.
pub const NONCE_LEN: usize = 32;
const PROOF_LEN: usize = 32;
const SERVER_LABEL: &[u8] = b"sightline-server";
const EXTENSION_LABEL: &[u8] = b"sightline-extension";

/// A side's fresh random bytes for one connection (the caller's randomness: the browser's
/// `crypto.getRandomValues`, the server's operating system).
#[derive(Clone, Copy, PartialEq, Eq)]
pub struct Nonce([u8; NONCE_LEN]);

impl Nonce {
    pub fn from_bytes(bytes: &[u8]) -> Result<Self, PairingError> {
        bytes.try_into().map(Nonce).map_err(|_| PairingError::Malformed("a nonce is 32 bytes"))
    }
}

impl std::fmt::Debug for Nonce {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Nonce({})", to_hex(&self.0))
    }
}

/// The pairing messages, as they cross the socket (JSON, `type` naming each).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "camelCase")]
pub enum PairMessage {
    /// The extension's first message: its nonce.
    Pair { nonce: String },
    /// The server's answer: its nonce and its proof over both.
    PairProof { nonce: String, proof: String },
    /// The extension's proof, once it has checked the server's.
    PairConfirm { proof: String },
}

/// Why pairing failed; the connection is closed and nothing else is done on it.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum PairingError {
    #[error(
        "the other side does not know the pairing token: its proof does not match (another program on the \
         port, or a token that was revoked: save the panel's current one with sightline-mcp --save-token)"
    )]
    ProofWrong,
    #[error("a message came before pairing was done, or out of its order: {0}")]
    OutOfOrder(String),
    #[error("a pairing message is not in its form: {0}")]
    Malformed(&'static str),
}

impl PairingError {
    /// The stable code the glue and the panel key on.
    pub fn code(&self) -> &'static str {
        match self {
            PairingError::ProofWrong => "pairing_proof_wrong",
            PairingError::OutOfOrder(_) => "pairing_out_of_order",
            PairingError::Malformed(_) => "pairing_malformed",
        }
    }
}

type HmacSha256 = Hmac<Sha256>;

fn keyed(token: &str, label: &[u8], first: &Nonce, second: &Nonce) -> HmacSha256 {
    // HMAC takes a key of any length (a long one is hashed first): this cannot fail.
    let mut mac = HmacSha256::new_from_slice(token.as_bytes()).expect("HMAC takes any key length");
    mac.update(label);
    mac.update(&[0]);
    mac.update(&first.0);
    mac.update(&second.0);
    mac
}

/// The server's proof: it knows `token`, answering the extension's nonce with its own.
fn server_proof(token: &str, extension: &Nonce, server: &Nonce) -> HmacSha256 {
    keyed(token, SERVER_LABEL, extension, server)
}

/// The extension's proof: it knows `token`, answering the server's nonce.
fn extension_proof(token: &str, server: &Nonce, extension: &Nonce) -> HmacSha256 {
    keyed(token, EXTENSION_LABEL, server, extension)
}

/// Checks `proof` (hex) against what `mac` says it must be, in constant time.
fn check(mac: HmacSha256, proof: &str) -> Result<(), PairingError> {
    let bytes = from_hex::<PROOF_LEN>(proof).ok_or(PairingError::Malformed("a proof is 64 hex digits"))?;
    mac.verify_slice(&bytes).map_err(|_| PairingError::ProofWrong)
}

fn hex_of(mac: HmacSha256) -> String {
    to_hex(&mac.finalize().into_bytes())
}

fn to_hex(bytes: &[u8]) -> String {
    const DIGITS: &[u8; 16] = b"0123456789abcdef";
    let mut out = String::with_capacity(bytes.len() * 2);
    for b in bytes {
        out.push(DIGITS[usize::from(b >> 4)] as char);
        out.push(DIGITS[usize::from(b & 15)] as char);
    }
    out
}

/// Exactly `N` bytes as `2N` hex digits (either case), or nothing.
fn from_hex<const N: usize>(text: &str) -> Option<[u8; N]> {
    let text = text.as_bytes();
    if text.len() != 2 * N {
        return None;
    }
    let digit = |c: u8| char::from(c).to_digit(16).and_then(|d| u8::try_from(d).ok());
    let mut out = [0u8; N];
    for (i, pair) in text.chunks_exact(2).enumerate() {
        out[i] = (digit(pair[0])? << 4) | digit(pair[1])?;
    }
    Some(out)
}

fn nonce_of(hex: &str) -> Result<Nonce, PairingError> {
    from_hex::<NONCE_LEN>(hex).map(Nonce).ok_or(PairingError::Malformed("a nonce is 64 hex digits"))
}

fn read(text: &str) -> Result<PairMessage, PairingError> {
    serde_json::from_str(text).map_err(|_| {
        // Name the message's type when it has one (a call sent before pairing), never its contents.
        let kind = serde_json::from_str::<serde_json::Value>(text)
            .ok()
            .and_then(|v| v.get("type").and_then(|t| t.as_str()).map(str::to_owned));
        match kind {
            Some(kind) if !matches!(kind.as_str(), "pair" | "pairProof" | "pairConfirm") => {
                PairingError::OutOfOrder(format!("a {:?} message", kind.chars().take(40).collect::<String>()))
            }
            _ => PairingError::Malformed("not a pairing message"),
        }
    })
}

fn write(message: &PairMessage) -> String {
    serde_json::to_string(message).expect("a pairing message serializes")
}

/// The extension's first message on a new connection, with its fresh `nonce`.
pub fn hello(nonce: &Nonce) -> String {
    write(&PairMessage::Pair { nonce: to_hex(&nonce.0) })
}

/// The extension's answer to the server's first message (`text`), given the `nonce` it sent
/// in [`hello`]: its own proof to send, once the server has proved it knows `token`. Any
/// other message (a call, a welcome), or a proof that does not match, is an error: the
/// extension closes the connection and carries nothing out.
pub fn confirm(token: &str, nonce: &Nonce, text: &str) -> Result<String, PairingError> {
    let PairMessage::PairProof { nonce: server, proof } = read(text)? else {
        return Err(PairingError::OutOfOrder("the server's first message is not its proof".into()));
    };
    let server = nonce_of(&server)?;
    check(server_proof(token, nonce, &server), &proof)?;
    Ok(write(&PairMessage::PairConfirm { proof: hex_of(extension_proof(token, &server, nonce)) }))
}

/// What the server does after a message from the extension.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ServerStep {
    /// Send this (its proof) and wait for the extension's.
    Reply(String),
    /// The extension proved it knows the token: the connection is paired.
    Paired,
}

#[derive(Clone, Debug)]
enum ServerState {
    AwaitingPair,
    AwaitingConfirm { extension: Nonce },
    Paired,
    Failed,
}

/// The server's side of one connection's pairing: fed the extension's messages in order
/// until [`ServerStep::Paired`]; the first error ends it for good (the server closes).
#[derive(Clone)]
pub struct ServerPairing {
    token: String,
    nonce: Nonce,
    state: ServerState,
}

impl std::fmt::Debug for ServerPairing {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ServerPairing").field("nonce", &self.nonce).field("state", &self.state).finish()
    }
}

impl ServerPairing {
    /// A new connection's pairing, with the server's fresh `nonce`.
    pub fn new(token: &str, nonce: Nonce) -> Self {
        ServerPairing { token: token.to_owned(), nonce, state: ServerState::AwaitingPair }
    }

    pub fn is_paired(&self) -> bool {
        matches!(self.state, ServerState::Paired)
    }

    /// One message from the extension.
    pub fn receive(&mut self, text: &str) -> Result<ServerStep, PairingError> {
        let state = std::mem::replace(&mut self.state, ServerState::Failed);
        let (next, step) = self.step(state, text)?;
        self.state = next;
        Ok(step)
    }

    fn step(&self, state: ServerState, text: &str) -> Result<(ServerState, ServerStep), PairingError> {
        let message = read(text)?;
        match (state, message) {
            (ServerState::AwaitingPair, PairMessage::Pair { nonce }) => {
                let extension = nonce_of(&nonce)?;
                let proof = hex_of(server_proof(&self.token, &extension, &self.nonce));
                let reply = write(&PairMessage::PairProof { nonce: to_hex(&self.nonce.0), proof });
                Ok((ServerState::AwaitingConfirm { extension }, ServerStep::Reply(reply)))
            }
            (ServerState::AwaitingConfirm { extension }, PairMessage::PairConfirm { proof }) => {
                check(extension_proof(&self.token, &self.nonce, &extension), &proof)?;
                Ok((ServerState::Paired, ServerStep::Paired))
            }
            (ServerState::Paired, _) => Err(PairingError::OutOfOrder("pairing is done already".into())),
            (ServerState::Failed, _) => Err(PairingError::OutOfOrder("pairing failed already".into())),
            (_, m) => Err(PairingError::OutOfOrder(format!("a {} message now", kind(&m)))),
        }
    }
}

fn kind(message: &PairMessage) -> &'static str {
    match message {
        PairMessage::Pair { .. } => "pair",
        PairMessage::PairProof { .. } => "pairProof",
        PairMessage::PairConfirm { .. } => "pairConfirm",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const TOKEN: &str = "s3cret-token";

    fn nonce(seed: u8) -> Nonce {
        Nonce(std::array::from_fn(|i| seed.wrapping_add(i as u8)))
    }

    fn message(text: &str) -> PairMessage {
        serde_json::from_str(text).unwrap()
    }

    fn proof_of(text: &str) -> String {
        match message(text) {
            PairMessage::PairProof { proof, .. } | PairMessage::PairConfirm { proof } => proof,
            m => panic!("no proof in {m:?}"),
        }
    }

    /// One whole pairing: what crossed, and whether the server paired.
    fn pair(server_token: &str, extension_token: &str, ne: Nonce, ns: Nonce) -> Result<(String, String), PairingError> {
        let mut server = ServerPairing::new(server_token, ns);
        let ServerStep::Reply(proof) = server.receive(&hello(&ne))? else { panic!("the server answers a pair") };
        let confirmation = confirm(extension_token, &ne, &proof)?;
        assert_eq!(server.receive(&confirmation)?, ServerStep::Paired);
        assert!(server.is_paired());
        Ok((proof, confirmation))
    }

    #[test]
    fn both_sides_knowing_the_token_pair_and_the_token_never_crosses() {
        let (proof, confirmation) = pair(TOKEN, TOKEN, nonce(0), nonce(32)).unwrap();
        let hello = hello(&nonce(0));
        for text in [&hello, &proof, &confirmation] {
            assert!(!text.contains(TOKEN), "{text}");
        }
        assert_eq!(message(&hello), PairMessage::Pair { nonce: to_hex(&nonce(0).0) });
    }

    #[test]
    fn the_proofs_are_hmac_sha256_of_the_labelled_nonces() {
        // Worked out apart (Python's hmac): HMAC-SHA256(token, label ‖ 0 ‖ the other's nonce ‖ one's own).
        let (proof, confirmation) = pair(TOKEN, TOKEN, nonce(0), nonce(32)).unwrap();
        assert_eq!(proof_of(&proof), "198d5521c18383f8a1a828cea5fedef385ced921eb63a4b2a79b76d1cf0c8c54");
        assert_eq!(proof_of(&confirmation), "5f057cb0ca2a1b3ee9310812ad7af6bcc14b2dd8e7906a6e5f1ae8a1c18f1632");
        assert!(message(&proof) == PairMessage::PairProof { nonce: to_hex(&nonce(32).0), proof: proof_of(&proof) });
    }

    #[test]
    fn a_server_that_does_not_know_the_token_gets_no_proof_from_the_extension() {
        let err = pair("another-token", TOKEN, nonce(0), nonce(32)).unwrap_err();
        assert_eq!(err, PairingError::ProofWrong);
        assert_eq!(err.code(), "pairing_proof_wrong");
        // A made-up proof, in every case of hex, is refused just the same.
        let forged = write(&PairMessage::PairProof { nonce: to_hex(&nonce(32).0), proof: "AB".repeat(32) });
        assert_eq!(confirm(TOKEN, &nonce(0), &forged), Err(PairingError::ProofWrong));
    }

    #[test]
    fn an_extension_that_does_not_know_the_token_is_not_paired() {
        assert_eq!(pair(TOKEN, "another-token", nonce(0), nonce(32)).unwrap_err(), PairingError::ProofWrong);
        // Its confirmation with the wrong token, sent to a server that proved itself with the right one.
        let mut server = ServerPairing::new(TOKEN, nonce(32));
        let ServerStep::Reply(_) = server.receive(&hello(&nonce(0))).unwrap() else { panic!() };
        let wrong = write(&PairMessage::PairConfirm { proof: hex_of(extension_proof("x", &nonce(32), &nonce(0))) });
        assert_eq!(server.receive(&wrong), Err(PairingError::ProofWrong));
        assert!(!server.is_paired());
        // Failed for good: the right proof after it does not pair that connection.
        let right = write(&PairMessage::PairConfirm { proof: hex_of(extension_proof(TOKEN, &nonce(32), &nonce(0))) });
        assert!(matches!(server.receive(&right), Err(PairingError::OutOfOrder(_))));
        assert!(!server.is_paired());
    }

    #[test]
    fn a_reflected_proof_is_refused() {
        // A fake extension sends the server's own proof back as its confirmation.
        let mut server = ServerPairing::new(TOKEN, nonce(32));
        let ServerStep::Reply(answer) = server.receive(&hello(&nonce(0))).unwrap() else { panic!() };
        let reflected = write(&PairMessage::PairConfirm { proof: proof_of(&answer) });
        assert_eq!(server.receive(&reflected), Err(PairingError::ProofWrong));

        // It opens a second connection and sends the first's server nonce as its own, hoping
        // for the proof the first connection wants: the label differs, so it is not that proof.
        let mut first = ServerPairing::new(TOKEN, nonce(100));
        let ServerStep::Reply(first_answer) = first.receive(&hello(&nonce(0))).unwrap() else { panic!() };
        let PairMessage::PairProof { nonce: first_nonce, .. } = message(&first_answer) else { panic!() };
        let mut second = ServerPairing::new(TOKEN, nonce(200));
        let ServerStep::Reply(second_answer) =
            second.receive(&write(&PairMessage::Pair { nonce: first_nonce })).unwrap()
        else {
            panic!()
        };
        let borrowed = write(&PairMessage::PairConfirm { proof: proof_of(&second_answer) });
        assert_eq!(first.receive(&borrowed), Err(PairingError::ProofWrong));

        // A fake server sends the extension's nonce back as its own with a proof in the
        // extension's direction: it cannot make one, and the extension's check is the server's label.
        let mirrored = write(&PairMessage::PairProof {
            nonce: to_hex(&nonce(0).0),
            proof: hex_of(extension_proof("unknown", &nonce(0), &nonce(0))),
        });
        assert_eq!(confirm(TOKEN, &nonce(0), &mirrored), Err(PairingError::ProofWrong));
    }

    #[test]
    fn an_old_transcript_replayed_is_refused() {
        let (old_proof, old_confirmation) = pair(TOKEN, TOKEN, nonce(0), nonce(32)).unwrap();
        // To a server: the same hello and confirmation, but the server's nonce is new.
        let mut server = ServerPairing::new(TOKEN, nonce(64));
        let ServerStep::Reply(_) = server.receive(&hello(&nonce(0))).unwrap() else { panic!() };
        assert_eq!(server.receive(&old_confirmation), Err(PairingError::ProofWrong));
        // To the extension: the old server proof, but the extension's nonce is new.
        assert_eq!(confirm(TOKEN, &nonce(7), &old_proof), Err(PairingError::ProofWrong));
    }

    #[test]
    fn nothing_but_the_next_pairing_message_is_taken() {
        // A call (or a welcome) before the server has proved itself: the extension takes none.
        let call = r#"{"type":"call","id":1,"tool":"navigate","args":{"url":"https://x.example/"}}"#;
        let err = confirm(TOKEN, &nonce(0), call).unwrap_err();
        assert_eq!((err.code(), err.to_string().contains("\"call\"")), ("pairing_out_of_order", true));
        assert_eq!(confirm(TOKEN, &nonce(0), r#"{"type":"welcome"}"#).unwrap_err().code(), "pairing_out_of_order");
        assert_eq!(confirm(TOKEN, &nonce(0), &hello(&nonce(1))).unwrap_err().code(), "pairing_out_of_order");
        assert_eq!(confirm(TOKEN, &nonce(0), "not json").unwrap_err().code(), "pairing_malformed");
        // The server: a confirmation before a pair, a second pair, anything after pairing.
        let mut server = ServerPairing::new(TOKEN, nonce(32));
        assert_eq!(
            server.receive(r#"{"type":"pairConfirm","proof":"00"}"#).unwrap_err().code(),
            "pairing_out_of_order"
        );
        let mut server = ServerPairing::new(TOKEN, nonce(32));
        server.receive(&hello(&nonce(0))).unwrap();
        assert_eq!(server.receive(&hello(&nonce(0))).unwrap_err().code(), "pairing_out_of_order");
        let mut server = ServerPairing::new(TOKEN, nonce(32));
        assert_eq!(server.receive(r#"{"type":"ping"}"#).unwrap_err().code(), "pairing_out_of_order");
        let mut server = ServerPairing::new(TOKEN, nonce(32));
        let ServerStep::Reply(proof) = server.receive(&hello(&nonce(0))).unwrap() else { panic!() };
        server.receive(&confirm(TOKEN, &nonce(0), &proof).unwrap()).unwrap();
        assert_eq!(server.receive(&hello(&nonce(0))).unwrap_err().code(), "pairing_out_of_order");
    }

    #[test]
    fn nonces_and_proofs_must_have_their_length() {
        assert!(Nonce::from_bytes(&[0; 31]).is_err());
        assert!(Nonce::from_bytes(&[0; 33]).is_err());
        assert_eq!(Nonce::from_bytes(&[5; 32]).unwrap(), Nonce([5; 32]));
        let mut server = ServerPairing::new(TOKEN, nonce(32));
        let short = write(&PairMessage::Pair { nonce: "00".repeat(16) });
        assert_eq!(server.receive(&short).unwrap_err().code(), "pairing_malformed");
        let mut server = ServerPairing::new(TOKEN, nonce(32));
        server.receive(&hello(&nonce(0))).unwrap();
        let short = write(&PairMessage::PairConfirm { proof: "00".repeat(31) });
        assert_eq!(server.receive(&short).unwrap_err().code(), "pairing_malformed");
        let not_hex = write(&PairMessage::PairProof { nonce: "zz".repeat(32), proof: "00".repeat(32) });
        assert_eq!(confirm(TOKEN, &nonce(0), &not_hex).unwrap_err().code(), "pairing_malformed");
        assert_eq!(from_hex::<2>("0aFf"), Some([0x0a, 0xff]));
        assert_eq!(from_hex::<2>("0aF"), None);
        assert_eq!(from_hex::<1>("+1"), None);
    }
}
