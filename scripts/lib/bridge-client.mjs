// Bridge mode for scripts: a Node script drives the person's own Chrome through sightline-mcp
// (which the extension connects to when Allow agents is on), as Midscene's bridge mode does.
// It speaks MCP's streamable HTTP to the server's /mcp endpoint, so a script goes through the
// same tools, rules and run record as any coding agent. No dependencies: Node's fetch.
// Every request carries the pairing token as `Authorization: Bearer <token>`: the `token`
// option, else SIGHTLINE_TOKEN, else the file `sightline-mcp --save-token` wrote
// (~/.config/sightline/token). Keep it out of the script itself.
//
//   import { SightlineBridge } from './scripts/lib/bridge-client.mjs';
//   const agent = new SightlineBridge({ port: 47231, name: 'checkout-check' });
//   await agent.connect();
//   await agent.aiTap('the Sign in button');          // or agent.aiTap({ element: 12 })
//   await agent.aiInput('the search box', 'milk');
//   const names = await agent.aiQuery({ names: 'string[]' });
//   await agent.aiAssert('the cart shows 2 items');
//   await agent.destroy();

import { readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { isAbsolute, join } from 'node:path';

const PROTOCOL = '2025-06-18';

/**
 * The token file sightline-mcp reads by default: `$XDG_CONFIG_HOME/sightline/token`, else
 * `~/.config/sightline/token` (`%APPDATA%\sightline\token` on Windows).
 */
export function tokenFile(env = process.env) {
  const config = [env.XDG_CONFIG_HOME, env.HOME && join(env.HOME, '.config'), env.APPDATA]
    .find((d) => d && isAbsolute(d)) ?? join(homedir(), '.config');
  return join(config, 'sightline', 'token');
}

/** The pairing token: SIGHTLINE_TOKEN, else the saved file's; '' when there is neither. */
export function savedToken(env = process.env) {
  if (env.SIGHTLINE_TOKEN?.trim()) return env.SIGHTLINE_TOKEN.trim();
  try {
    return readFileSync(tokenFile(env), 'utf8').trim();
  } catch {
    return '';
  }
}

/**
 * A tool that ran and failed (element not found, an assertion that does not hold, a refused
 * site). `code`: its stable code (`site_not_allowed`, `assertion_failed`, …) to key on.
 */
export class BridgeToolError extends Error {
  constructor(tool, text, code) {
    super(`${tool}: ${text}`);
    this.name = 'BridgeToolError';
    this.tool = tool;
    this.code = code ?? 'internal';
  }
}

/**
 * A call the server rejected as a request (bad arguments, unknown tool): the JSON-RPC error.
 * `code`: Sightline's stable code where it gave one (`call_invalid`); `rpcCode`: JSON-RPC's.
 */
export class BridgeRequestError extends Error {
  constructor(tool, error) {
    super(`${tool}: ${error.message} (MCP error ${error.code})`);
    this.name = 'BridgeRequestError';
    this.rpcCode = error.code;
    this.code = error.data?.code ?? 'request_refused';
  }
}

/** An element argument: a number from `snapshot()` (`12` or `{element: 12}`), or words. */
function target(locate) {
  if (typeof locate === 'number') return { element: locate };
  if (locate && typeof locate === 'object') return locate;
  return { description: String(locate ?? '') };
}

export class SightlineBridge {
  /**
   * @param {{url?: string, port?: number, token?: string, name?: string, timeoutMs?: number}} [opts]
   *   `url` (or `port` on 127.0.0.1) of sightline-mcp's /mcp; `token`: the pairing token (else
   *   SIGHTLINE_TOKEN, else the saved token file); `name`: how the panel names this script;
   *   `timeoutMs`: the longest any call may take (10 minutes).
   */
  constructor({ url, port = 47231, token, name = 'sightline-bridge-script', timeoutMs = 600_000 } = {}) {
    this.url = url ?? `http://127.0.0.1:${port}/mcp`;
    this.token = token ?? savedToken();
    this.name = name;
    this.timeoutMs = timeoutMs;
    this.session = null;
    this.nextId = 1;
  }

  /** Opens the MCP session (initialize). */
  async connect() {
    const { message, response } = await this.#post({ jsonrpc: '2.0', id: this.nextId++, method: 'initialize', params: {
      protocolVersion: PROTOCOL, capabilities: {}, clientInfo: { name: this.name, version: '1.0' },
    } });
    if (message.error) throw new BridgeRequestError('initialize', message.error);
    this.session = response.headers.get('mcp-session-id');
    await this.#post({ jsonrpc: '2.0', method: 'notifications/initialized' });
    return message.result.serverInfo;
  }

  /** Ends the MCP session; the extension's run for this script ends when the server's socket does. */
  async destroy() {
    if (!this.session) return;
    await fetch(this.url, { method: 'DELETE', headers: this.#headers(), signal: AbortSignal.timeout(10_000) }).catch(() => {});
    this.session = null;
  }

  /** Calls a tool by name; resolves to its content (`[{type: 'text', text} | {type: 'image', data, mimeType}]`). */
  async call(tool, args = {}) {
    const { message } = await this.#post({ jsonrpc: '2.0', id: this.nextId++, method: 'tools/call', params: { name: tool, arguments: args } });
    if (message.error) throw new BridgeRequestError(tool, message.error);
    const { content = [], isError, structuredContent } = message.result;
    const text = content.filter((c) => c.type === 'text').map((c) => c.text).join('\n');
    if (isError) throw new BridgeToolError(tool, text, structuredContent?.code);
    return content;
  }

  async #text(tool, args) {
    return (await this.call(tool, args)).filter((c) => c.type === 'text').map((c) => c.text).join('\n');
  }

  /** A task's answer: the JSON after `Result: ` on the answer's last line (`sightline::agent::remote::answer`). */
  async #result(tool, args) {
    const line = (await this.#text(tool, args)).split('\n').reverse().find((l) => l.startsWith('Result: '));
    return line ? JSON.parse(line.slice(8)) : null;
  }

  // The page.
  snapshot() { return this.#text('snapshot', {}); }
  async screenshot({ fullPage = false } = {}) { return (await this.call('screenshot', { full_page: fullPage })).find((c) => c.type === 'image'); }
  tabs() { return this.#text('tabs', { action: 'list' }); }
  openTab(url) { return this.#text('tabs', { action: 'open', url }); }
  selectTab(tab) { return this.#text('tabs', { action: 'select', tab }); }
  closeTab(tab) { return this.#text('tabs', tab == null ? { action: 'close' } : { action: 'close', tab }); }
  navigate(url) { return this.#text('navigate', { url }); }
  consoleMessages() { return this.#text('console_messages', {}); }

  // Midscene's bridge-mode names.
  aiAct(instruction) { return this.#text('act', { instruction }); }
  aiTap(locate) { return this.#text('tap', target(locate)); }
  aiDoubleClick(locate) { return this.#text('double_click', target(locate)); }
  aiRightClick(locate) { return this.#text('right_click', target(locate)); }
  aiHover(locate) { return this.#text('hover', target(locate)); }
  aiInput(locate, text, { mode } = {}) { return this.#text('input', { ...target(locate), text, ...(mode ? { mode } : {}) }); }
  aiSelect(locate, option) { return this.#text('choose_option', { ...target(locate), option }); }
  aiKeyboardPress(key, locate) { return this.#text('key', { key, ...(locate == null ? {} : target(locate)) }); }
  aiScroll({ direction = 'down', distance, toEdge, locate } = {}) {
    return this.#text('scroll', { direction, ...(distance ? { distance } : {}), ...(toEdge ? { to_edge: true } : {}), ...(locate == null ? {} : target(locate)) });
  }
  aiDrag(from, to) {
    const f = target(from);
    const t = target(to);
    return this.#text('drag', { from_element: f.element, from: f.description, to_element: t.element, to: t.description });
  }
  aiUpload(locate, files) { return this.#text('upload', { ...target(locate), files: [].concat(files) }); }
  aiQuery(demand) { return this.#result('query', { demand }); }
  aiBoolean(question) { return this.#result('boolean', { question }); }
  aiNumber(question) { return this.#result('number', { question }); }
  /** Resolves to `{pass, reason}`; throws a BridgeToolError when it does not hold. */
  aiAssert(assertion) { return this.#result('assert', { assertion }); }
  aiWaitFor(assertion, { timeoutMs } = {}) { return this.#result('wait_for', { assertion, ...(timeoutMs ? { timeout_ms: timeoutMs } : {}) }); }
  exportRun(format, run) { return this.#text('export_run', { format, ...(run ? { run } : {}) }); }

  #headers() {
    return {
      authorization: `Bearer ${this.token}`,
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': PROTOCOL,
      ...(this.session ? { 'mcp-session-id': this.session } : {}),
    };
  }

  /** POSTs one JSON-RPC message; resolves to the reply with its id (read from JSON or the SSE stream). */
  async #post(body) {
    const response = await fetch(this.url, {
      method: 'POST', headers: this.#headers(), body: JSON.stringify(body), signal: AbortSignal.timeout(this.timeoutMs),
    }).catch((e) => {
      throw new Error(`sightline-mcp does not answer at ${this.url} (${e.message}): start it (its token saved with sightline-mcp --save-token)`, { cause: e });
    });
    if (body.id === undefined) {
      await response.body?.cancel();
      return { response };
    }
    if (response.status === 401) {
      throw new Error(`sightline-mcp refused the pairing token (HTTP 401): ${this.token ? 'it is not the one the panel shows now' : 'none was given'}; pass {token}, set SIGHTLINE_TOKEN or save it with sightline-mcp --save-token`);
    }
    if (!response.ok) throw new Error(`sightline-mcp answered HTTP ${response.status}: ${await response.text()}`);
    const type = response.headers.get('content-type') ?? '';
    if (type.includes('application/json')) return { message: await response.json(), response };
    // An SSE stream: progress notifications first, then the reply.
    const text = await response.text();
    for (const event of text.split(/\r?\n\r?\n/)) {
      const data = event.split(/\r?\n/).filter((l) => l.startsWith('data:')).map((l) => l.slice(5).trimStart()).join('\n');
      if (!data) continue;
      const message = JSON.parse(data);
      if (message.id === body.id) return { message, response };
    }
    throw new Error(`sightline-mcp sent no reply to ${body.method}`);
  }
}
