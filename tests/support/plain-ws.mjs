// A bare WebSocket (RFC 6455) over node:http, for tests that play a hostile program on the
// agents bridge's port: a fake sightline-mcp the extension connects to, or a fake extension
// connecting to the real server. Text messages only (plus close and ping); everything that
// arrives is kept (the upgrade request's path and headers, each text message) so a test can
// say what the other side sent. No dependencies.
import { createServer, request } from 'node:http';
import { createHash, randomBytes } from 'node:crypto';

const GUID = '258EAFA5-E914-47DA-95CA-C5AB0DC85B11';
const TEXT = 0x1;
const CLOSE = 0x8;
const PING = 0x9;
const PONG = 0xa;

/** One frame: FIN set, masked when a client sends it (RFC 6455 §5.3). */
function frame(opcode, payload, mask) {
  const length = payload.length;
  const head = length < 126 ? Buffer.from([0x80 | opcode, length])
    : length < 65536 ? Buffer.from([0x80 | opcode, 126, length >> 8, length & 255])
      : Buffer.concat([Buffer.from([0x80 | opcode, 127]), (() => { const b = Buffer.alloc(8); b.writeBigUInt64BE(BigInt(length)); return b; })()]);
  if (!mask) return Buffer.concat([head, payload]);
  head[1] |= 0x80;
  const key = randomBytes(4);
  const masked = Buffer.from(payload.map((byte, i) => byte ^ key[i % 4]));
  return Buffer.concat([head, key, masked]);
}

/** One end of a connection. `texts`: every text message received, in order. */
export class PlainSocket {
  #socket;
  #mask;
  #buffer = Buffer.alloc(0);
  #pending = [];
  #listeners = [];
  texts = [];
  closedByPeer = false;

  constructor(socket, { mask, head }) {
    this.#socket = socket;
    this.#mask = mask;
    this.closed = new Promise((resolve) => socket.on('close', resolve));
    socket.on('data', (data) => this.#read(data));
    socket.on('error', () => {});
    if (head?.length) this.#read(head);
  }

  /** Calls `listener(text)` for each text message from now on. */
  onText(listener) {
    this.#listeners.push(listener);
  }

  send(text) {
    if (!this.#socket.destroyed) this.#socket.write(frame(TEXT, Buffer.from(text), this.#mask));
  }

  close() {
    if (!this.#socket.destroyed) this.#socket.end(frame(CLOSE, Buffer.from([0x03, 0xe8]), this.#mask));
  }

  #read(data) {
    this.#buffer = Buffer.concat([this.#buffer, data]);
    for (;;) {
      const b = this.#buffer;
      if (b.length < 2) return;
      const opcode = b[0] & 0x0f;
      const masked = (b[1] & 0x80) !== 0;
      let length = b[1] & 0x7f;
      let at = 2;
      if (length === 126) {
        if (b.length < 4) return;
        length = b.readUInt16BE(2);
        at = 4;
      } else if (length === 127) {
        if (b.length < 10) return;
        length = Number(b.readBigUInt64BE(2));
        at = 10;
      }
      const key = masked ? b.subarray(at, at + 4) : null;
      if (masked) at += 4;
      if (b.length < at + length) return;
      let payload = Buffer.from(b.subarray(at, at + length));
      if (key) payload = Buffer.from(payload.map((byte, i) => byte ^ key[i % 4]));
      this.#buffer = b.subarray(at + length);
      const fin = (b[0] & 0x80) !== 0;
      if (opcode === CLOSE) {
        this.closedByPeer = true;
        if (!this.#socket.destroyed) this.#socket.end(frame(CLOSE, payload.subarray(0, 2), this.#mask));
        return;
      }
      if (opcode === PING) {
        if (!this.#socket.destroyed) this.#socket.write(frame(PONG, payload, this.#mask));
        continue;
      }
      if (opcode === PONG) continue;
      this.#pending.push(payload);
      if (!fin) continue;
      const text = Buffer.concat(this.#pending).toString('utf8');
      this.#pending = [];
      this.texts.push(text);
      for (const listener of this.#listeners) listener(text);
    }
  }
}

/**
 * Listens on 127.0.0.1:`port` and takes every WebSocket upgrade: `onSocket(socket, {path,
 * headers})` for each. Resolves to `{upgrades, close()}`; `upgrades`: each request's path and
 * headers, in order.
 */
export function plainServer(port, onSocket) {
  const upgrades = [];
  const sockets = new Set();
  const server = createServer((req, res) => res.writeHead(426).end());
  server.on('upgrade', (req, socket, head) => {
    upgrades.push({ path: req.url, headers: req.headers });
    const accept = createHash('sha1').update(`${req.headers['sec-websocket-key']}${GUID}`).digest('base64');
    socket.write(`HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Accept: ${accept}\r\n\r\n`);
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    onSocket(new PlainSocket(socket, { mask: false, head }), { path: req.url, headers: req.headers });
  });
  return new Promise((resolve, reject) => {
    server.on('error', reject);
    server.listen(port, '127.0.0.1', () => resolve({
      upgrades,
      close: () => new Promise((done) => {
        for (const s of sockets) s.destroy();
        server.close(() => done());
      }),
    }));
  });
}

/**
 * Opens a WebSocket to 127.0.0.1:`port``path` with `headers` (an Origin of the test's
 * choosing: a program is not held to a browser's rules). Resolves to the socket, or rejects
 * with the HTTP status when the server refuses the upgrade.
 */
export function plainConnect(port, path, headers = {}) {
  return new Promise((resolve, reject) => {
    const req = request({
      host: '127.0.0.1', port, path,
      headers: { Connection: 'Upgrade', Upgrade: 'websocket', 'Sec-WebSocket-Version': '13', 'Sec-WebSocket-Key': randomBytes(16).toString('base64'), ...headers },
    });
    req.on('upgrade', (res, socket, head) => {
      socket.setTimeout(0); // the request's timeout is for the upgrade only
      resolve(new PlainSocket(socket, { mask: true, head }));
    });
    req.on('response', (res) => {
      res.resume();
      reject(Object.assign(new Error(`the upgrade was refused: HTTP ${res.statusCode}`), { status: res.statusCode }));
    });
    req.on('error', reject);
    req.setTimeout(10_000, () => req.destroy(new Error('no answer')));
    req.end();
  });
}
