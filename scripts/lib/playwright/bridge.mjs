// Bridge mode for scripts: a Node script drives the person's own Chrome through sightline-mcp
// (which the extension connects to when Allow agents is on), as Midscene's bridge mode does.
// It is an MCP client on the official SDK (@modelcontextprotocol/sdk: Client over streamable
// HTTP to the server's /mcp), so a script goes through the same tools, rules and run record as
// any coding agent, and sees the run's progress as it goes (`onProgress`).
// Every request carries the pairing token as `Authorization: Bearer <token>`: the `token`
// option, else SIGHTLINE_TOKEN, else the file `sightline-mcp --save-token` wrote
// (~/.config/sightline/token). Keep it out of the script itself.
//
//   import { SightlineBridge } from '@sightline/playwright/bridge';
//   const agent = new SightlineBridge({ port: 47231, name: 'checkout-check' });
//   await agent.connect();
//   await agent.aiTap('the Sign in button');                    // or agent.aiTap({ element: 12 })
//   await agent.aiInput('the search box', { value: 'milk' });   // the fixture's order (Midscene's)
//   const names = await agent.aiQuery({ names: 'string[]' });
//   await agent.aiAssert('the cart shows 2 items');
//   await agent.destroy();

import { readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { isAbsolute, join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport, StreamableHTTPError } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { McpError } from '@modelcontextprotocol/sdk/types.js';
import { ITEMS, inputOf } from './calls.mjs';

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
    super(`${tool}: ${error.message.replace(/^MCP error -?\d+: /, '')} (MCP error ${error.code})`);
    this.name = 'BridgeRequestError';
    this.rpcCode = error.code;
    this.code = error.data?.code ?? 'request_refused';
  }
}

/** An element argument: a number from `snapshot()` (`12` or `{element: 12}`), or words (a locate object's `prompt`). */
function target(locate) {
  if (typeof locate === 'number') return { element: locate };
  if (locate && typeof locate === 'object') return 'element' in locate ? { element: locate.element } : { description: String(locate.prompt ?? '') };
  return { description: String(locate ?? '') };
}
const optionalTarget = (locate) => (locate == null ? {} : target(locate));

// Midscene's scroll types: `once` (or the older `singleAction`), else to an edge, which says the direction.
const EDGES = { Bottom: 'down', Top: 'up', Left: 'left', Right: 'right' };
function scrollArgs(item) {
  const edge = /^(?:until|scrollTo)(Bottom|Top|Left|Right)$/.exec(item.scrollType ?? '')?.[1];
  return {
    direction: edge ? EDGES[edge] : item.direction ?? 'down',
    ...(item.distance ? { distance: item.distance } : {}),
    ...(edge || item.toEdge ? { to_edge: true } : {}),
    ...optionalTarget(item.aiScroll ?? item.locate),
  };
}

/** The transport's failures a script can act on, in words. */
function connectionError(e, url, token) {
  if (e instanceof StreamableHTTPError && e.code === 401) {
    return new Error(`sightline-mcp refused the pairing token (HTTP 401): ${token ? 'it is not the one the panel shows now' : 'none was given'}; pass {token}, set SIGHTLINE_TOKEN or save it with sightline-mcp --save-token`, { cause: e });
  }
  if (e instanceof StreamableHTTPError) return new Error(`sightline-mcp answered HTTP ${e.code}: ${e.message}`, { cause: e });
  if (e instanceof TypeError && /fetch failed/.test(e.message)) {
    return new Error(`sightline-mcp does not answer at ${url} (${e.cause?.code ?? e.message}): start it (its token saved with sightline-mcp --save-token)`, { cause: e });
  }
  return e;
}

export class SightlineBridge {
  /**
   * @param {{url?: string, port?: number, token?: string, name?: string, timeoutMs?: number, onProgress?: Function}} [opts]
   *   `url` (or `port` on 127.0.0.1) of sightline-mcp's /mcp; `token`: the pairing token (else
   *   SIGHTLINE_TOKEN, else the saved token file); `name`: how the panel names this script;
   *   `timeoutMs`: the longest any call may take (10 minutes); `onProgress({progress, total,
   *   message, tool})`: each progress report of a call as the run goes (a step done, …).
   */
  constructor({ url, port = 47231, token, name = 'sightline-bridge-script', timeoutMs = 600_000, onProgress } = {}) {
    this.url = url ?? `http://127.0.0.1:${port}/mcp`;
    this.token = token ?? savedToken();
    this.name = name;
    this.timeoutMs = timeoutMs;
    this.onProgress = onProgress;
    this.client = null;
    this.transport = null;
    this.inFlight = new Set();
  }

  /** Opens the MCP session (initialize); resolves to the server's `{name, version}`. */
  async connect() {
    const transport = new StreamableHTTPClientTransport(new URL(this.url), {
      requestInit: { headers: { authorization: `Bearer ${this.token}` } },
      reconnectionOptions: { initialReconnectionDelay: 500, maxReconnectionDelay: 2_000, reconnectionDelayGrowFactor: 2, maxRetries: 1 },
    });
    const client = new Client({ name: this.name, version: '1.0' }, { capabilities: {} });
    // A stream that broke (the server stopped, its socket went): the calls on it fail now, not at their timeout.
    client.onerror = (e) => {
      if (!/SSE stream disconnected|reconnect/i.test(e?.message ?? '')) return;
      const gone = new Error(`sightline-mcp at ${this.url} went away: ${e.message}`, { cause: e });
      for (const abort of this.inFlight) abort.abort(gone);
    };
    try {
      await client.connect(transport, { timeout: 30_000 });
    } catch (e) {
      await transport.close().catch(() => {});
      if (e instanceof McpError) throw new BridgeRequestError('initialize', e);
      throw connectionError(e, this.url, this.token);
    }
    this.client = client;
    this.transport = transport;
    return client.getServerVersion();
  }

  /** Ends the MCP session; the extension's run for this script ends when the server's socket does. */
  async destroy() {
    if (!this.client) return;
    const { client, transport } = this;
    this.client = null;
    this.transport = null;
    await transport.terminateSession().catch(() => {});
    await client.close().catch(() => {});
  }

  /**
   * Calls a tool by name; resolves to its content (`[{type: 'text', text} | {type: 'image', data, mimeType}]`).
   * `onProgress`: this call's progress reports (besides the constructor's).
   */
  async call(tool, args = {}, { onProgress } = {}) {
    if (!this.client) throw new Error(`${tool}: not connected to sightline-mcp (call connect() first)`);
    const abort = new AbortController();
    this.inFlight.add(abort);
    const report = (p) => {
      const progress = { progress: p.progress, total: p.total, message: p.message, tool };
      this.onProgress?.(progress);
      onProgress?.(progress);
    };
    let result;
    try {
      result = await this.client.callTool({ name: tool, arguments: args }, undefined, {
        onprogress: report, timeout: this.timeoutMs, resetTimeoutOnProgress: false, signal: abort.signal,
      });
    } catch (e) {
      if (e instanceof McpError) throw new BridgeRequestError(tool, e);
      throw connectionError(e, this.url, this.token);
    } finally {
      this.inFlight.delete(abort);
    }
    const { content = [], isError, structuredContent } = result;
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

  // Midscene's names, with the fixture's argument forms (calls.mjs).
  ai(instruction) { return this.aiAct(instruction); }
  aiAct(instruction) { return this.#text('act', { instruction }); }
  aiTap(locate) { return this.#text('tap', target(locate)); }
  aiDoubleClick(locate) { return this.#text('double_click', target(locate)); }
  aiRightClick(locate) { return this.#text('right_click', target(locate)); }
  aiHover(locate) { return this.#text('hover', target(locate)); }
  /** `aiInput(locate, {value, mode})`, or Midscene's older `aiInput(value, locate)`. */
  aiInput(...args) {
    const { locate, value, mode } = inputOf(ITEMS.aiInput(...args));
    return this.#text('input', { ...target(locate), text: String(value ?? ''), ...(mode ? { mode } : {}) });
  }
  aiSelect(locate, option) { return this.#text('choose_option', { ...target(locate), option }); }
  /** `aiKeyboardPress(locate, {keyName})`, or the older `aiKeyboardPress(key, locate?)`. */
  aiKeyboardPress(...args) {
    const item = ITEMS.aiKeyboardPress(...args);
    return this.#text('key', { key: item.aiKeyboardPress, ...optionalTarget(item.locate) });
  }
  /** `aiScroll(locate, {direction, scrollType, distance})`, or `aiScroll({direction, scrollType, distance}, locate?)`. */
  aiScroll(...args) { return this.#text('scroll', scrollArgs(ITEMS.aiScroll(...args))); }
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
}
