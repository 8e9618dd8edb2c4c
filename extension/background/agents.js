// "Allow agents": the loopback WebSocket to sightline-mcp, which coding agents (MCP clients)
// and scripts (scripts/lib/playwright/bridge.mjs) drive. Off by default. The core plans each call
// (agentPlan) and records it in the agent session's run; this file carries plans out with the
// same primitives the panel's runs use, so allowed sites and secrets apply as they do there.
// Nothing from Settings crosses the socket: the model and its key stay in the worker.
import { consoleSince, unwatchConsole, watchConsole } from './debugger.js';
import { read, shoot } from './page.js';
import { exportRun, keepRun, recordingOn, runOptions, startRecording, startRun, stopRecording, stopRun } from './runs.js';
import { getSettings } from './settings.js';
import { resolveLanguage } from '../shared/i18n.js';
import { core } from './wasm.js';

const KEY = 'agents';
const DEFAULT_PORT = 47231;
/** Chrome keeps a worker alive while WebSocket messages pass within 30 s (Chrome 116+). */
const KEEP_ALIVE_MS = 20_000;
const ALARM = 'sightline/agents';

let socket = null;
/** The server on the port proved it knows the token (calls are taken from here on). */
let paired = false;
/** The server accepted the extension's proof too (its welcome came). */
let connected = false;
/** The code of the last pairing that failed (`pairing_proof_wrong`, …), shown in the panel; '' once paired. */
let refused = '';
let agentName = '';
let keepAlive = null;
let retry = null;
let selectedTab = null;
/** Agent name → the open run of its session on this connection. */
const sessions = new Map();
/** Call id → the run id a cancel stops. */
const running = new Map();
/** The session run the call being answered is on (one call at a time), or null. */
let calling = null;
/** Session runs the person stopped while a call of theirs was in flight: they end when it returns. */
const stopping = new Set();
let queue = Promise.resolve(); // one call at a time: they act on one tab
/**
 * The connection calls come on, bumped when the socket closes: a call queued on a connection
 * that has gone is not carried out, and nothing of a call reaches a later connection.
 */
let connection = 0;
/** Tab id → where the agent's console_messages reads from next; watched until the socket closes. */
const watched = new Map();
const OWNER = 'agents';

/**
 * An error of this glue with its stable code (as the core's errors carry theirs): the agent
 * gets the code with the message, and the panel words it from _locales by the code.
 */
function fault(code, message) {
  return Object.assign(new Error(message), { code });
}

/** The code a call stops with when its connection closed under it: nobody is there to answer. */
const CLOSED = 'agents_connection_closed';

/** Stops call work begun on connection `from` if that has closed since: nothing more is done for nobody. */
function stillOn(from) {
  if (from !== connection) throw fault(CLOSED, 'the agents\' connection closed: the call was not carried out');
}

/**
 * Keeps the tab's console for the agent from now until the socket closes. A socket that closed
 * while this attached (`closed` has let go of the watched tabs already) is undone here: else
 * the tab would stay attached to the debugger, with Chrome's bar, until the next close.
 */
async function watch(from, tabId) {
  if (watched.has(tabId)) return;
  const next = await watchConsole(tabId, OWNER);
  if (from !== connection) {
    await unwatchConsole(tabId, OWNER).catch(() => {});
    stillOn(from);
  }
  watched.set(tabId, next);
}

/** A new random token: 24 bytes, base64url. */
function newToken() {
  const bytes = crypto.getRandomValues(new Uint8Array(24));
  return btoa(String.fromCharCode(...bytes)).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

async function stored() {
  const { [KEY]: s } = await chrome.storage.local.get(KEY);
  const port = Number.isInteger(s?.port) && s.port > 0 && s.port < 65536 ? s.port : DEFAULT_PORT;
  return { enabled: s?.enabled === true, token: typeof s?.token === 'string' ? s.token : '', port };
}

async function store(next) {
  await chrome.storage.local.set({ [KEY]: { ...(await stored()), ...next } });
}

/**
 * What the panel shows: `{enabled, connected, agent, token, address, extensionId, port, refused}`
 * (`refused`: the code of the last pairing that failed while not connected, else '').
 */
export async function agentsStatus() {
  const { enabled, token, port } = await stored();
  return {
    enabled, connected, agent: connected ? agentName : '', token: enabled ? token : '', port,
    address: `ws://127.0.0.1:${port}/bridge`, extensionId: chrome.runtime.id, refused: connected ? '' : refused,
  };
}

async function tellPanel() {
  chrome.runtime.sendMessage({ type: 'sightline/agents-status', status: await agentsStatus() }).catch(() => {});
}

/** Turns Allow agents on (a token made the first time) or off (the socket closed). */
export async function setAgents({ enabled, port }) {
  const current = await stored();
  const next = { enabled: enabled === true };
  if (next.enabled && !current.token) next.token = newToken();
  if (port !== undefined) {
    const p = Number(port);
    if (!Number.isInteger(p) || p < 1024 || p > 65535) throw fault('agents_port_invalid', `the port must be a whole number from 1024 to 65535, not ${port}`);
    next.port = p;
  }
  await store(next);
  disconnect();
  if (next.enabled) {
    await chrome.alarms.create(ALARM, { periodInMinutes: 0.5 });
    reconnect();
  } else {
    await chrome.alarms.clear(ALARM);
  }
  await tellPanel();
  return agentsStatus();
}

/** A new token: the old one stops working at once (the socket closes; the agent's server needs the new one). */
export async function revokeAgents() {
  await store({ token: newToken() });
  disconnect();
  if ((await stored()).enabled) reconnect();
  await tellPanel();
  return agentsStatus();
}

function disconnect() {
  clearTimeout(retry);
  retry = null;
  if (socket) {
    const s = socket;
    socket = null;
    s.onclose = null;
    s.close(1000, 'Allow agents changed');
    closed();
  }
}

/** The socket is gone: every open session's run ends, the keep-alive stops. */
function closed() {
  connection += 1;
  paired = false;
  connected = false;
  agentName = '';
  clearInterval(keepAlive);
  keepAlive = null;
  for (const runId of running.values()) stopRun(runId);
  running.clear();
  for (const t of watched.keys()) unwatchConsole(t, OWNER).catch(() => {});
  watched.clear();
  // After the calls already queued: a call in flight holds its session's run (it reports it and
  // hands it back to the core when it returns), so ending the session under it left the run
  // reported and held as running. A call the person's Stop cut short ends its session stopped
  // as it returns; the others end with the agent's goodbye.
  queue = queue.then(endSessions).catch((e) => console.error('ending the agent sessions failed', e));
  tellPanel();
}

async function endSessions() {
  const wasm = await core();
  const ids = [...sessions.values()];
  sessions.clear();
  for (const run of wasm.endAgentSessions(ids)) keepRun(run);
}

/**
 * Connects when Allow agents is on and no socket is open (worker start, toggle, alarm). The
 * token is not sent: whatever answers on the port must first prove it knows it (the core's
 * pairing, `pairingHello`/`pairingConfirm`), and nothing it sends before that is carried out.
 */
export async function connect() {
  const wasm = await core();
  const { enabled, token, port } = await stored();
  if (!enabled || !token || socket) return;
  let ws;
  try {
    ws = new WebSocket(`ws://127.0.0.1:${port}/bridge`);
  } catch (e) {
    console.warn(`cannot open the agents bridge: ${e.message}`);
    return;
  }
  socket = ws;
  paired = false;
  const nonce = crypto.getRandomValues(new Uint8Array(32));
  ws.onopen = () => ws.send(wasm.pairingHello(nonce));
  ws.onmessage = (event) => {
    if (socket !== ws) return;
    if (paired) return received(event.data);
    // The server's first message must be its proof; else (a call, a wrong proof) the socket closes.
    const confirmed = wasm.pairingConfirm(token, nonce, String(event.data));
    if (!confirmed.ok) {
      refused = confirmed.code;
      console.warn(`the program on port ${port} is not the paired sightline-mcp: ${confirmed.error}`);
      ws.close(1000, 'not paired');
      tellPanel();
      return;
    }
    ws.send(confirmed.message);
    paired = true;
  };
  // No server yet, refused, or not paired: tried again shortly, and on the alarm.
  ws.onclose = () => {
    if (socket !== ws) return;
    socket = null;
    if (paired) closed();
    paired = false;
    clearTimeout(retry);
    retry = setTimeout(reconnect, 3_000);
  };
}

/** `connect`, its failure (the core module did not load) logged: tried again on the alarm. */
function reconnect() {
  connect().catch((e) => console.error('connecting the agents bridge failed', e));
}

function send(message) {
  if (socket?.readyState === WebSocket.OPEN) socket.send(JSON.stringify(message));
}

/** Sends a call's message on the connection `from` it came on, if that is still the open one. */
function reply(from, message) {
  if (from === connection) send(message);
}

function received(text) {
  let message;
  try {
    message = JSON.parse(text);
  } catch {
    return;
  }
  if (message.type === 'welcome') {
    // Both sides have proved themselves: connected.
    connected = true;
    refused = '';
    clearInterval(keepAlive);
    keepAlive = setInterval(() => send({ type: 'ping' }), KEEP_ALIVE_MS);
    tellPanel();
  } else if (message.type === 'agent') {
    agentName = String(message.agent?.name ?? '');
    tellPanel();
  } else if (message.type === 'call') {
    const { id, tool, args, agent } = message;
    const from = connection;
    if (agent?.name && agent.name !== agentName) {
      agentName = String(agent.name);
      tellPanel();
    }
    queue = queue.then(() => answer(from, id, String(tool ?? ''), args ?? {}, String(agent?.name ?? 'an agent')))
      .catch((e) => reply(from, { type: 'result', id, error: { kind: 'failed', code: e?.code ?? 'internal', message: String(e?.message ?? e) } }));
  } else if (message.type === 'cancel') {
    const runId = running.get(message.id);
    if (runId) stopRun(runId);
  }
}

/**
 * Runs call `id`, which came on connection `from`, and sends its answer there: content, or
 * `{error: {kind, code, message}}`. A call whose connection closed before its turn (the agent's
 * server gone, Allow agents turned off, the token revoked) is not carried out: nobody is there
 * to answer. One in flight as it closes is answered nothing (a page task is stopped by `closed`).
 */
async function answer(from, id, tool, args, agent) {
  if (from !== connection) return;
  const wasm = await core();
  const settings = await getSettings();
  // The session's run is written in the person's language, as the panel's runs are.
  const language = resolveLanguage(settings.ui.language);
  const planned = wasm.agentPlan({ tool, args }, language);
  if (!planned.ok) return reply(from, { type: 'result', id, error: { kind: 'invalidParams', code: planned.code, message: planned.error } });
  const { plan } = planned;
  const started = Date.now();
  let runId = null;
  try {
    const tabId = await currentTab(from);
    stillOn(from);
    runId = await sessionFor(from, wasm, agent, tabId, language);
    stillOn(from); // a session it made is ended with the others, after this call (`closed`)
    const content = await carryOut(wasm, { from, id, call: { tool, args }, plan, tabId, runId, settings });
    if (!ON_THE_TAB.has(plan.kind)) keepRun(wasm.agentStep(runId, plan.label, null, await tabFacts(selectedTab), started));
    reply(from, { type: 'result', id, content: content.blocks });
  } catch (e) {
    if (e?.code === CLOSED) return; // the socket closed under the call: nothing done, nobody to answer
    const message = String(e?.message ?? e);
    if (runId && !ON_THE_TAB.has(plan.kind)) {
      try {
        keepRun(wasm.agentStep(runId, plan.label, message, await tabFacts(selectedTab), started));
      } catch (err) {
        console.error('recording an agent step failed', err);
      }
    }
    reply(from, { type: 'result', id, error: { kind: 'failed', code: e?.code ?? 'internal', message } });
  } finally {
    running.delete(id);
    calling = null;
    if (runId && stopping.delete(runId)) endStopped(wasm, runId);
  }
}

/**
 * The panel's Stop on an agent session's run: a call in flight is aborted and the session
 * ends stopped once it has returned (the core's record: every step kept). The agent is told
 * once (`session_stopped`): by the aborted call, else by its next call; the one after opens a
 * new session. True when the session is stopped, by this Stop or by an earlier one the panel
 * had not seen end yet (a quick second press); false when `runId` is no session's.
 */
export async function stopAgentSession(runId) {
  if (![...sessions.values()].includes(runId)) return false;
  const wasm = await core();
  if (calling === runId && wasm.holdsRun(runId)) {
    stopping.add(runId);
    stopRun(runId); // a page task's run; other calls are short and end on their own
    return true;
  }
  return endStopped(wasm, runId);
}

/** Ends session `runId` stopped, storing its record; whether it is stopped (now or already). */
function endStopped(wasm, runId) {
  try {
    const run = wasm.stopAgentSession(runId); // null: stopped already, nothing new to store
    if (run) keepRun(run);
    return true;
  } catch (e) {
    console.error('stopping an agent session failed', e);
    return false;
  }
}

/** Calls the core carries out on the tab through a run's host and guard, recording their own steps. */
const ON_THE_TAB = new Set(['task', 'instruction', 'choose', 'tabs', 'navigate']);

/**
 * The tab calls act on: the one the agent selected, else the active tab of the last focused
 * window (selected from then on, unless the call's connection `from` closed meanwhile).
 */
async function currentTab(from) {
  if (selectedTab != null && (await chrome.tabs.get(selectedTab).catch(() => null))) return selectedTab;
  const [tab] = await chrome.tabs.query({ active: true, lastFocusedWindow: true });
  stillOn(from);
  if (!tab) throw fault('tab_none', 'there is no tab to act on: open one (tabs with action "open")');
  selectedTab = tab.id;
  return selectedTab;
}

/** The tab as a run names it (`{id, title, url}`), or null when there is none (any more). */
async function tabFacts(tabId) {
  const tab = tabId != null ? await chrome.tabs.get(tabId).catch(() => null) : null;
  return tab ? { id: tab.id, title: tab.title ?? '', url: tab.url ?? '' } : null;
}

/**
 * The open run of this agent's session, made on its first call (written in `language`). Once
 * after the person stopped the session this throws the core's `session_stopped`. None is made
 * once the call's connection `from` has closed: the call will not run.
 */
async function sessionFor(from, wasm, agent, tabId, language) {
  const known = sessions.get(agent);
  if (known) {
    let session;
    try {
      session = wasm.agentSessionOpen(known, crypto.randomUUID());
    } catch (e) {
      sessions.delete(agent);
      throw e;
    }
    if (session.state === 'open') {
      calling = known;
      return known;
    }
    if (session.state === 'continued') {
      // It was full: it ended, and the session goes on in the run the core opened in its place.
      keepRun(session.ended);
      keepRun(session.opened);
      sessions.set(agent, session.opened.head.id);
      calling = session.opened.head.id;
      return calling;
    }
  }
  const tab = await tabFacts(tabId);
  stillOn(from);
  const run = keepRun(wasm.agentSession(crypto.randomUUID(), agent, tab, language));
  sessions.set(agent, run.id);
  calling = run.id;
  return run.id;
}

const text = (t) => ({ blocks: [{ type: 'text', text: t }] });

async function carryOut(wasm, { from, id, call, plan, tabId, runId, settings }) {
  switch (plan.kind) {
    case 'task':
    case 'instruction':
    case 'choose':
      return pageTask(wasm, { from, id, call, plan, tabId, runId });
    case 'navigate':
    case 'tabs':
      return text((await onTheTab(wasm, from, id, tabId, { runId, call, anyPage: true })).text);
    case 'snapshot':
    case 'screenshot': {
      await watch(from, tabId);
      const options = await runOptions(settings, { useCache: false });
      // A full page is captured for the image its options fit it to (`shoot`).
      const shot = plan.kind === 'screenshot' ? await shoot(tabId, { fullPage: plan.fullPage, image: options.image ?? {} }) : null;
      // The whole page described (what lies beyond the view counted), the view's elements crossing.
      const page = await read(tabId, { viewportOnly: false, elsewhere: true });
      const seen = wasm.agentObserve({ page, shot }, options, shot != null);
      const blocks = [{ type: 'text', text: seen.text }];
      if (seen.image) blocks.push({ type: 'image', data: seen.image, mimeType: seen.mimeType });
      return { blocks };
    }
    case 'console': {
      await watch(from, tabId);
      const { entries, next } = consoleSince(tabId, watched.get(tabId));
      watched.set(tabId, next);
      const tab = await chrome.tabs.get(tabId);
      return text(wasm.consoleText(entries, tab.url || tab.pendingUrl || '', await runOptions(settings, { useCache: false })));
    }
    case 'record':
      return record(wasm, { plan, tabId, runId, settings });
    case 'export':
      // Only the session's run or a recording its agent started; the file is page text to the agent.
      return text(wasm.agentFenced((await exportRun(wasm.agentMayUse(runId, plan.run ?? undefined), plan.format)).text));
    default:
      throw fault('internal', `unknown plan ${plan.kind}`);
  }
}

/** A task, an instruction or a choice in the session's run (the core carries each out); progress goes to the agent step by step. */
async function pageTask(wasm, { from, id, call, tabId, runId }) {
  await watch(from, tabId);
  let first = null;
  let told = 0;
  const onReport = (run) => {
    first ??= run.steps.length;
    const progress = run.steps.length - first + 1;
    if (progress <= told) return; // progress only grows: one notification per new step
    told = progress;
    reply(from, { type: 'progress', id, progress, message: run.steps.at(-1)?.action ?? '' });
  };
  return text((await onTheTab(wasm, from, id, tabId, { runId, call }, onReport)).text);
}

/**
 * Carries call `id` out on `tabId` through a run's host, so the core's guard holds it as it
 * holds runs (`session`: `{runId, call, anyPage?}`); the calls go on from the tab it ended on.
 * Resolves to the core's answer when it succeeded; throws its code and text when it did not.
 */
async function onTheTab(wasm, from, id, tabId, session, onReport) {
  // Upload paths an agent names are not the person's: outside the upload folder they need an Allow in the panel.
  const { done } = await startRun(tabId, null, { session, onReport, typedUploads: false });
  running.set(id, session.runId);
  if (from !== connection) stopRun(session.runId); // closed while it started: `closed` did not see it running
  const answer = await done;
  if (answer.tab?.id != null) selectedTab = answer.tab.id;
  // The person's Stop cut this call short: the session ends now, and this call, not the next,
  // is the one the agent is told by (the core's session_stopped, given once).
  if (!answer.ok && stopping.delete(session.runId)) {
    const { run, error } = wasm.stopAgentCall(session.runId);
    if (run) keepRun(run);
    throw fault(error.code, error.message);
  }
  if (!answer.ok) throw fault(answer.error?.code ?? 'internal', answer.text);
  return answer;
}

/**
 * The agent records the person's steps on its tab (on the allowed sites only), or stops a
 * recording it started; a recording the person started is not the agent's to take or stop.
 */
async function record(wasm, { plan, tabId, runId, settings }) {
  const existing = await recordingOn(tabId);
  if (existing) wasm.agentMayUse(runId, existing);
  if (plan.start) {
    if (!existing) {
      const tab = await chrome.tabs.get(tabId);
      wasm.agentTabAllowed(tab.url || tab.pendingUrl || '', await runOptions(settings, { useCache: false }));
      keepRun(wasm.agentRecorded(runId, await startRecording(tabId, plan.title ?? undefined)));
    }
    return text(`Recording the person's steps as run ${existing ?? (await recordingOn(tabId))}; call record with action "stop" to end it.`);
  }
  const run = existing && (await stopRecording(tabId));
  if (!run) throw fault('recording_none', 'nothing is being recorded on the selected tab');
  return text(`Recorded run ${run.id}: ${run.steps.length} step(s).`);
}

chrome.alarms.onAlarm.addListener((alarm) => {
  if (alarm.name === ALARM) reconnect();
});
