// Allow agents end to end: sightline-mcp (built by cargo) with a REAL MCP client (Python's
// `mcp` 2.3.0, from the venv scripts/setup makes), the extension in Chromium connecting out to
// it, and the mock model behind `act`. Proven by page state, the panel and the run records:
// refusal before the toggle and with a wrong token or origin, /mcp refused without the Bearer
// token, a program on the port that does not know the token getting nothing carried out (and
// never the token), the panel's token and agent name, a whole session over streamable HTTP
// (snapshot, input, key, tap by element number, act with progress, a marked screenshot,
// console messages, bad requests), its run in the timeline, the panel's Stop on a session's
// run, revoking, and stdio (which serves no HTTP /mcp). The token reaches the server through
// SIGHTLINE_TOKEN or a 0600 file, never its command line.
import { test, beforeEach, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chmodSync, existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { createServer } from 'node:net';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';
import { SightlineBridge } from '../../scripts/lib/playwright/bridge.mjs';
import { plainConnect, plainServer } from '../support/plain-ws.mjs';
import { ROOT } from '../support/browser.mjs';
import { todoPlanReply } from '../support/mock-model.mjs';
import { modelSuite, until } from '../support/suite.mjs';

const BIN = join(ROOT, 'target/debug/sightline-mcp');
const PYTHON = join(process.env.SIGHTLINE_MCP_VENV ?? join(homedir(), '.cache/sightline/mcp-venv-2.3.0'), 'bin/python');
const CLIENT = join(ROOT, 'tests/e2e/mcp_session.py');

let browser, mock, site, page, panel, port;
const servers = new Set();

modelSuite((env) => ({ browser, mock, site } = env), {
  model: (m) => ({ provider: 'custom', baseUrl: m.baseUrl, model: 'mock-model', apiKey: 'sk-test-agents-0123456789', family: 'generic', stream: false }),
});

// Once, after the suite's own set-up (its `before` has launched the browser by the first test).
beforeEach(async () => {
  if (panel) return;
  assert.ok(existsSync(BIN), `${BIN} is missing: run cargo build -p sightline-mcp`);
  assert.ok(existsSync(PYTHON), `${PYTHON} is missing: run scripts/setup (it makes the venv with Python's mcp)`);
  port = await freePort();
  await browser.sw.evaluate((p) => chrome.storage.local.set({ agents: { port: p } }), port);
  page = await browser.context.newPage();
  await page.goto(site.url('/todo.html?agents=1'));
  await page.waitForSelector('.new-todo');
  panel = await browser.openPanel(await browser.tabIdOf(page));
});

after(() => {
  for (const s of servers) s.kill('SIGKILL');
});

function freePort() {
  return new Promise((resolve, reject) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const { port: p } = s.address();
      s.close(() => resolve(p));
    });
    s.on('error', reject);
  });
}

/** The token the server running now was started with: what the test's clients send as the Bearer. */
let serverToken = '';

/**
 * Starts sightline-mcp on the test's port with `token` in SIGHTLINE_TOKEN (not on its command
 * line); resolves once it listens. `args`: more arguments (`--stdio`: stdin is then a pipe kept open).
 */
async function startServer(token, { extensionId = browser.extensionId, args = [] } = {}) {
  const stdio = args.includes('--stdio');
  const child = spawn(BIN, [...args, '--port', String(port), '--extension-id', extensionId, '--call-timeout', '60', '--act-timeout', '90'], {
    stdio: [stdio ? 'pipe' : 'ignore', 'ignore', 'pipe'], env: { ...process.env, SIGHTLINE_TOKEN: token },
  });
  servers.add(child);
  child.stderrText = '';
  child.stderr.on('data', (d) => { child.stderrText += d; });
  await until('sightline-mcp to listen', () => child.stderrText.includes('listening on') || child.exitCode != null, 30_000);
  assert.equal(child.exitCode, null, `sightline-mcp exited: ${child.stderrText}`);
  assert.doesNotMatch(child.stderrText, /warning/, 'no --token warning: the token came from the environment');
  serverToken = token;
  return child;
}

async function stopServer(child) {
  child.kill('SIGTERM');
  await until('sightline-mcp to exit', () => child.exitCode != null || child.signalCode != null, 10_000);
  servers.delete(child);
}

/**
 * Runs the Python MCP client; resolves to the JSON it prints. Bounded: killed after `ms`. Over
 * HTTP it sends the running server's token as the Bearer (from SIGHTLINE_TOKEN).
 */
function client(args, ms = 240_000) {
  return new Promise((resolve, reject) => {
    const child = spawn(PYTHON, [CLIENT, ...args], { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, SIGHTLINE_TOKEN: serverToken } });
    let out = '';
    let err = '';
    child.stdout.on('data', (d) => { out += d; });
    child.stderr.on('data', (d) => { err += d; });
    const timer = setTimeout(() => child.kill('SIGKILL'), ms);
    child.on('close', (code) => {
      clearTimeout(timer);
      if (code !== 0) return reject(new Error(`the MCP client exited with ${code}:\n${err}\n${out}`));
      try {
        resolve(JSON.parse(out.trim().split('\n').at(-1)));
      } catch (e) {
        reject(new Error(`the MCP client printed no JSON: ${e.message}\n${out}\n${err}`));
      }
    });
  });
}

/** The status code of a WebSocket upgrade request to /bridge with these headers. */
function upgradeStatus(path, headers) {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path, headers: { Connection: 'Upgrade', Upgrade: 'websocket', 'Sec-WebSocket-Version': '13', 'Sec-WebSocket-Key': 'dGhlIHNhbXBsZSBub25jZQ==', ...headers } });
    req.on('response', (res) => { res.resume(); resolve(res.statusCode); });
    req.on('upgrade', (res, socket) => { socket.destroy(); resolve(res.statusCode); });
    req.on('error', reject);
    req.setTimeout(10_000, () => req.destroy(new Error('no answer')));
    req.end();
  });
}

/** POSTs an MCP initialize to /mcp with `headers` (Host among them if given): `{status, body}`. */
function initialize(headers) {
  const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw-http', version: '1' } } });
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path: '/mcp', method: 'POST', headers: {
      'content-type': 'application/json', accept: 'application/json, text/event-stream', 'content-length': Buffer.byteLength(body), ...headers,
    } });
    req.on('response', (res) => {
      let text = '';
      res.on('data', (d) => {
        text += d;
        // An SSE answer stays open: the initialize reply is enough.
        if (/"serverInfo"/.test(text)) res.destroy();
      });
      const done = () => resolve({ status: res.statusCode, body: text });
      res.on('end', done);
      res.on('close', done);
    });
    req.on('error', reject);
    req.setTimeout(10_000, () => req.destroy(new Error('no answer')));
    req.end(body);
  });
}

/** Whether any of `texts` holds `secret`. */
const holds = (texts, secret) => texts.some((t) => String(t).includes(secret));

const panelText = (id) => panel.locator(`#${id}`).textContent();

/** Turns Allow agents on or off in the panel, as a person does; resolves once the worker has it. */
async function enabled(on) {
  await panel.locator('#agents-enabled').setChecked(on);
  await until(`Allow agents ${on ? 'on' : 'off'}`, () => browser.sw.evaluate(async () => (await chrome.storage.local.get('agents')).agents.enabled).then((e) => e === on));
}

/**
 * Whether the extension's debugger is attached to tab `tabId` (Chrome's "is debugging this
 * browser" bar): a command to it is taken only then. (`getTargets` counts Playwright's own.)
 */
const debuggerOn = (tabId) => browser.sw.evaluate((id) => chrome.debugger.sendCommand({ tabId: id }, 'Runtime.evaluate', { expression: '1' })
  .then(() => true, (e) => (/not attached/i.test(e.message) ? false : Promise.reject(e))), tabId);

/**
 * Holds the worker's `chrome.debugger.attach` to tab `tabId` until `release()` is called in the
 * worker (`self.e2eHold.release`); `self.e2eHold.reached` says an attach is waiting.
 */
const holdAttach = (tabId) => browser.sw.evaluate((id) => {
  const real = chrome.debugger.attach;
  let release;
  const gate = new Promise((resolve) => { release = resolve; });
  self.e2eHold = { real, reached: false, release };
  chrome.debugger.attach = (target, ...rest) => {
    if (target?.tabId !== id) return real.call(chrome.debugger, target, ...rest);
    self.e2eHold.reached = true;
    return gate.then(() => real.call(chrome.debugger, target, ...rest));
  };
}, tabId);
const url = () => `http://127.0.0.1:${port}/mcp`;

let token = '';
let server = null;

test('off by default: the server refuses tool calls while no extension is paired', async () => {
  assert.equal(await panel.locator('#agents-enabled').isChecked(), false);
  assert.equal(await panel.locator('#agents-details').isHidden(), true);
  server = await startServer('a-token-the-extension-never-made');
  const { snapshot } = await client(['refused', url()]);
  assert.equal(snapshot.isError, true);
  assert.equal(snapshot.code, 'extension_not_connected');
  assert.match(snapshot.content[0].text, /not connected.*Allow agents/s);
});

test('turned on, the panel shows a token; a wrong token or origin is refused, the right one connects', async () => {
  await panel.locator('#agents-enabled').check();
  await until('the token in the panel', async () => (await panelText('agents-token')).length >= 20);
  token = await panelText('agents-token');
  assert.equal(await panelText('agents-extension-id'), browser.extensionId);
  assert.equal(await panelText('agents-address'), `ws://127.0.0.1:${port}/bridge`);
  // The command to start the server and the one to save the token: the token in neither (ps, .mcp.json).
  assert.equal(await panelText('agents-command'), `sightline-mcp --stdio --port ${port} --extension-id ${browser.extensionId}`);
  assert.equal(await panelText('agents-save'), 'sightline-mcp --save-token');
  assert.match(await panelText('agents-private'), /\.mcp\.json/);
  const stored = await browser.sw.evaluate(async () => (await chrome.storage.local.get('agents')).agents);
  assert.equal(stored.token, token, 'generated in the extension and kept in storage.local');
  // The server running knows another token: it cannot prove it knows this one, and the panel says so.
  await until('the panel to say the server is not paired', async () => /could not prove it knows this token/.test(await panelText('agents-state')), 20_000);
  assert.equal((await client(['refused', url()])).snapshot.isError, true);
  await stopServer(server);

  server = await startServer(token);
  const origin = `chrome-extension://${browser.extensionId}`;
  assert.equal(await upgradeStatus('/bridge', { Origin: 'https://evil.example' }), 403, 'a web page cannot connect');
  assert.equal(await upgradeStatus('/bridge', {}), 403, 'nor anything without the extension\'s Origin');
  await until('the extension to connect', async () => /Connected/.test(await panelText('agents-state')), 20_000);

  // A program that sets the extension's Origin (nothing stops a program) but does not know the
  // token: the server proves itself, refuses its made-up proof and closes; no welcome, no call.
  const fake = await plainConnect(port, '/bridge', { Origin: origin });
  fake.send(JSON.stringify({ type: 'pair', nonce: randomBytes(32).toString('hex') }));
  await until('the server\'s proof', () => fake.texts.length >= 1);
  assert.equal(JSON.parse(fake.texts[0]).type, 'pairProof');
  fake.send(JSON.stringify({ type: 'pairConfirm', proof: randomBytes(32).toString('hex') }));
  await fake.closed;
  assert.deepEqual(fake.texts.map((t) => JSON.parse(t).type), ['pairProof'], 'nothing but the proof before the close');
  assert.ok(!holds(fake.texts, token), 'the server never sent the token');
  assert.match(await panelText('agents-state'), /Connected/, 'the real extension stays connected');
});

test('/mcp answers nobody without the pairing token as a Bearer, nor a web page', async () => {
  const refused = await initialize({});
  assert.equal(refused.status, 401, refused.body);
  assert.equal(JSON.parse(refused.body).error.data.code, 'token_missing');
  assert.match(JSON.parse(refused.body).error.message, /Authorization: Bearer/);
  const wrong = await initialize({ authorization: `Bearer ${token}x` });
  assert.equal(wrong.status, 401, wrong.body);
  assert.equal(JSON.parse(wrong.body).error.data.code, 'token_wrong');
  const ok = await initialize({ authorization: `Bearer ${token}` });
  assert.equal(ok.status, 200, ok.body);
  assert.match(ok.body, /"serverInfo":\{[^}]*"name":"sightline/);
  // A web page's fetch (its Origin), or its own name rebound to 127.0.0.1 (its Host).
  const page = await initialize({ authorization: `Bearer ${token}`, origin: 'https://evil.example' });
  assert.equal(page.status, 403, page.body);
  assert.equal(JSON.parse(page.body).error.data.code, 'origin_not_allowed');
  const rebound = await initialize({ authorization: `Bearer ${token}`, host: `evil.example:${port}` });
  assert.equal(rebound.status, 403, rebound.body);
  assert.equal(JSON.parse(rebound.body).error.data.code, 'host_not_allowed');
});

test('a program on the port that does not know the token gets no call carried out and never receives the token', async () => {
  await stopServer(server);
  await until('the extension to lose the server', async () => !/Connected/.test(await panelText('agents-state')), 20_000);
  const before = page.url();
  const elsewhere = site.url('/todo.html?agents=fake-server');
  const opened = () => browser.sw.evaluate(() => chrome.tabs.query({})).then((tabs) => tabs.filter((t) => (t.url || t.pendingUrl || '').includes('fake-server')));
  const agent = { name: 'fake-server', version: '1' };
  const welcome = JSON.stringify({ type: 'welcome', server: 'sightline-mcp', version: '0.1.0' });
  const calls = [
    JSON.stringify({ type: 'call', id: 1, tool: 'navigate', args: { url: elsewhere }, agent }),
    JSON.stringify({ type: 'call', id: 2, tool: 'tabs', args: { action: 'open', url: elsewhere }, agent }),
  ];
  const connections = [];
  // It speaks the bridge's protocol as well as it can without the token: first by sending calls
  // at once, then by answering the extension's pairing with a proof it cannot make.
  const fake = await plainServer(port, (ws) => {
    const n = connections.push(ws);
    if (n === 1) {
      for (const m of calls) ws.send(m);
      return;
    }
    ws.onText((text) => {
      if (JSON.parse(text).type !== 'pair') return;
      ws.send(JSON.stringify({ type: 'pairProof', nonce: randomBytes(32).toString('hex'), proof: randomBytes(32).toString('hex') }));
      for (const m of [welcome, ...calls]) ws.send(m);
    });
  });
  try {
    const answered = () => connections.some((c) => c.texts.some((t) => JSON.parse(t).type !== 'pair'));
    await until('the extension to hang up twice (or to answer)', () => answered() || (connections.length >= 2 && connections.slice(0, 2).every((c) => c.closedByPeer)), 30_000);
    // Had any call run, it would have taken a moment: give it one.
    await new Promise((r) => setTimeout(r, 1_500));
    const received = connections.flatMap((c) => c.texts);
    assert.deepEqual([...new Set(received.map((t) => JSON.parse(t).type))], ['pair'], `only pairing hellos, no answer, no proof from the extension: ${received}`);
    const upgrades = fake.upgrades.map((u) => `${u.path} ${JSON.stringify(u.headers)}`);
    assert.ok(!holds([...received, ...upgrades], token), `the token is in nothing the program received: ${upgrades}`);
    assert.ok(fake.upgrades.every((u) => u.path === '/bridge'), 'no token in the address');
    assert.equal(page.url(), before, 'the navigate was not carried out');
    assert.deepEqual(await opened(), [], 'no tab opened');
    const runs = await browser.sw.evaluate(() => self.sightline.runs());
    assert.ok(!runs.some((r) => r.instruction === 'Agent session: fake-server'), 'no session run for it');
    await until('the panel to say so', async () => /could not prove it knows this token/.test(await panelText('agents-state')), 10_000);
  } finally {
    await fake.close();
    server = await startServer(token);
  }
  await until('the extension to pair with the real server', async () => /Connected/.test(await panelText('agents-state')), 20_000);
});

test('a real MCP client drives the page: snapshot, input, key, tap by number, act with progress, screenshot, errors', async () => {
  mock.script(todoPlanReply());
  // The page reports an error and a failed request whenever Enter is pressed (the key call, and act's).
  await page.evaluate(() => document.addEventListener('keydown', (e) => {
    if (e.key !== 'Enter') return;
    console.error('sightline-e2e console error');
    fetch('/missing-for-agents-e2e').catch(() => {});
  }));
  // The person's page is the active tab (the side panel is no tab of its own): an agent with
  // no tab selected yet acts there.
  await page.bringToFront();
  const log = await client(['session', url()]);
  // What the real client saw, for a person to read (the transcript in a change's note).
  if (process.env.SIGHTLINE_AGENTS_TRANSCRIPT) writeFileSync(process.env.SIGHTLINE_AGENTS_TRANSCRIPT, JSON.stringify(log, null, 1));
  for (const name of ['tabs', 'navigate', 'snapshot', 'screenshot', 'act', 'tap', 'double_click', 'right_click', 'hover', 'input',
    'choose_option', 'key', 'scroll', 'drag', 'upload', 'query', 'boolean', 'number', 'assert', 'wait_for', 'console_messages', 'record', 'export_run']) {
    assert.ok(log.tools.includes(name), `tools/list has ${name}: ${log.tools}`);
  }
  const snapshot = log.snapshot.content[0].text;
  assert.match(snapshot, /^<page>\nURL: http:\/\/127\.0\.0\.1:\d+\/todo\.html\?agents=1\nTitle: Sightline test · todos\n[\s\S]*\n<\/page>$/, 'fenced as page content');
  assert.match(snapshot, /\[\d+\][^\n]*What needs to be done\?/);
  for (const step of ['select', 'input', 'key', 'tap', 'act']) assert.equal(log[step].isError, false, `${step}: ${JSON.stringify(log[step])}`);
  assert.match(log.tap.content[0].text, /by its number: no model call/);
  const items = await page.evaluate(() => window.todoApp.items());
  assert.deepEqual(items.map((i) => i.title), ['buy milk', 'walk dog']);
  assert.deepEqual(items.map((i) => i.completed), [true, false], 'the tap by element number toggled the first todo only');
  assert.equal(mock.requests.length, 1, 'only act asked the model');
  assert.ok(log.progress.length >= 2, `progress notifications: ${JSON.stringify(log.progress)}`);
  assert.deepEqual(log.screenshot.content.map((c) => c.type), ['text', 'image']);
  assert.ok(log.screenshot.content[1].bytes > 1000);
  assert.match(log.console.content[0].text, /\[error\] sightline-e2e console error/);
  assert.match(log.console.content[0].text, /\[error\] [^\n]*404[^\n]*missing-for-agents-e2e/);
  assert.match(log.key.content[0].text, /console \[error\] sightline-e2e console error/, 'each call answers its steps\' console too');
  assert.deepEqual([log.tapWithoutTarget.raised, log.tapWithoutTarget.code, log.tapWithoutTarget.reason], [true, -32602, 'call_invalid']);
  assert.match(log.tapWithoutTarget.message, /say which element/);
  assert.equal(log.tapWrongType.isError, true);
  assert.equal(log.unknownTool.raised, true);
  assert.equal(log.missingElement.isError, true);
  assert.equal(log.missingElement.code, 'element_number_unknown');
  assert.match(log.missingElement.content[0].text, /no element \[9999\]/);
  assert.equal(log.outsideSite.isError, true);
  assert.equal(log.outsideSite.code, 'not_a_web_address');
  assert.match(log.outsideSite.content[0].text, /javascript:alert/);

  // The agent is named in the panel, and its calls are steps of one run in the timeline.
  assert.match(await panelText('agents-state'), /sightline-e2e-agent/);
  const run = await until('the session run', async () => (await browser.sw.evaluate(() => self.sightline.runs())).find((r) => r.instruction === 'Agent session: sightline-e2e-agent'));
  const actions = run.steps.map((s) => s.action);
  for (const label of ['Snapshot of the page', 'Agent: aiInput \u201cbuy milk\u201d into \u201c[', 'Agent: add a todo', 'Screenshot of the page', 'Console messages']) {
    assert.ok(actions.some((a) => a.startsWith(label)), `${label} in ${JSON.stringify(actions)}`);
  }
  assert.equal(run.status, 'running');
  assert.equal(run.tabId, await browser.tabIdOf(page), 'the session is on the tab the agent selected');
  // The panel's timeline: the session is a run in the history; opened, the calls are its steps, console under them.
  await panel.locator('#history .open-run', { hasText: 'Agent session: sightline-e2e-agent' }).first().click({ timeout: 10_000 });
  await until('the session\'s steps in the panel', async () => /Snapshot of the page[\s\S]*Console messages/.test(await panel.locator('#steps').textContent()));
  assert.ok(await panel.locator('#steps .step-console').count() >= 1, 'console messages under a step in the panel');
  // Console per step: on the step that pressed Enter, in the record and in the HTML report.
  const noisy = run.steps.filter((st) => st.console?.some((e) => e.text === 'sightline-e2e console error'));
  assert.ok(noisy.length >= 2, 'the key call\'s step and act\'s');
  assert.ok(run.steps.some((st) => st.console?.some((e) => e.source === 'network' && /missing-for-agents-e2e/.test(e.url + e.text))));
  const report = await browser.sw.evaluate((id) => self.sightline.exportRun(id, 'report'), run.id);
  assert.match(report, /Console: \d+ message\(s\)[\s\S]*\[error\] sightline-e2e console error/);
  const text = JSON.stringify(run);
  assert.ok(!text.includes('sk-test-agents'), 'the API key is in no record');
});

test('every run keeps what the page reported on its steps, the panel\'s own too', async () => {
  const tabId = await browser.tabIdOf(page);
  const run = await browser.sw.evaluate((id) => self.sightline.ai(id, { type: 'aiKeyboardPress', key: 'Enter' }), tabId);
  assert.equal(run.status, 'succeeded', run.error);
  const entries = run.steps.flatMap((st) => st.console ?? []);
  assert.ok(entries.some((e) => e.level === 'error' && e.text === 'sightline-e2e console error'), JSON.stringify(entries));
  await panel.locator('#steps .step-console summary').first().waitFor({ timeout: 10_000 });
  assert.match(await panel.locator('#steps .step-console').first().textContent(), /sightline-e2e console error/);
});

test('a console message cut in the middle of a character is kept, the half character shown as \ufffd', async () => {
  const tabId = await browser.tabIdOf(page);
  // The worker keeps 2,000 UTF-16 units of a message: here the cut falls between an emoji's halves.
  await page.evaluate(() => document.addEventListener('keydown', () => console.error(`${'x'.repeat(1999)}\u{1f600} cut`), { once: true, capture: true }));
  const run = await browser.sw.evaluate((id) => self.sightline.ai(id, { type: 'aiKeyboardPress', key: 'Escape' }), tabId);
  assert.equal(run.status, 'succeeded', run.error);
  const entries = run.steps.flatMap((st) => st.console ?? []);
  assert.ok(entries.some((e) => e.text === `${'x'.repeat(1999)}\ufffd`), JSON.stringify(entries.map((e) => e.text.slice(-20))));
});

test('bridge mode: a Node script calls aiAct (its progress seen), aiInput in both of the fixture\'s orders, aiQuery, aiBoolean, aiAssert and aiTap through the same server', async () => {
  mock.script(todoPlanReply(), '{"data": ["buy milk", "walk dog"]}', '{"data": "yes"}', '{"pass": false, "reason": "two todos are listed"}');
  await assert.rejects(new SightlineBridge({ url: url(), token: 'not-the-token', name: 'wrong-token' }).connect(), /refused the pairing token \(HTTP 401\): it is not the one the panel shows now/);
  const progress = [];
  const agent = new SightlineBridge({ url: url(), token, name: 'bridge-script', timeoutMs: 120_000, onProgress: (p) => progress.push(p) });
  assert.equal((await agent.connect()).name, 'sightline');
  await page.bringToFront();
  await agent.aiAct("add a todo 'feed cat'");
  assert.ok(progress.length >= 2 && progress.every((p) => p.tool === 'act' && typeof p.progress === 'number'), `progress of the act: ${JSON.stringify(progress)}`);
  assert.ok(progress.some((p) => p.message), JSON.stringify(progress));
  // By the box's number from the snapshot (no model call): Midscene's order, then its older one.
  const box = Number((await agent.snapshot()).match(/\[(\d+)\][^\n]*What needs to be done\?/)[1]);
  await agent.aiInput(box, { value: 'water plants' });
  await agent.aiKeyboardPress('Enter');
  await agent.aiInput('call mum', { element: box });
  await agent.aiKeyboardPress('Enter');
  const titles = await page.evaluate(() => window.todoApp.items().map((i) => i.title));
  assert.deepEqual(titles.slice(-3), ['feed cat', 'water plants', 'call mum'], JSON.stringify(titles));
  assert.deepEqual(await agent.aiQuery('the todo titles'), ['buy milk', 'walk dog']);
  assert.equal(await agent.aiBoolean('is walk dog listed?'), true);
  await assert.rejects(agent.aiAssert('three todos are listed'), (e) => e.name === 'BridgeToolError' && e.code === 'assertion_failed' && /two todos are listed/.test(e.message));
  await assert.rejects(agent.aiTap(''), (e) => e.name === 'BridgeRequestError' && e.rpcCode === -32602 && e.code === 'call_invalid');
  await agent.destroy();
  const run = await until('the script\'s session run', async () => (await browser.sw.evaluate(() => self.sightline.runs())).find((r) => r.instruction === 'Agent session: bridge-script'));
  assert.ok(run.steps.some((s) => s.action === 'Read the page'), JSON.stringify(run.steps.map((s) => s.action)));
});

/**
 * The wave-3 review's attacks through the agent tools: with 127.0.0.1 allowed, the person's own
 * tab on another site (localhost stands for their webmail) is neither listed, selected, closed
 * nor gone back to; the selected tab, once the person takes it elsewhere, gives no console,
 * snapshot, reload or recording; a run the agent did not make is not exported, nor a
 * recording the person started stopped. No answer holds the other site's address or title.
 */
test('agent tools keep to the allowed sites, the session\'s own runs and recordings, and say nothing of other sites', async () => {
  const secretSite = site.url('/todo.html?mailbox=1').replace('127.0.0.1', 'localhost');
  const leaks = (text) => ['localhost', 'mailbox'].filter((w) => String(text).includes(w));
  const mail = await browser.context.newPage();
  const work = await browser.context.newPage();
  const agent = new SightlineBridge({ url: url(), token, name: 'guarded-script', timeoutMs: 120_000 });
  const refused = async (call, code) => {
    const e = await call.then(() => null, (err) => err);
    assert.equal(e?.code, code, String(e?.message ?? 'answered'));
    assert.deepEqual(leaks(e.message), [], e.message);
  };
  try {
    await browser.sw.evaluate(() => self.sightline.setSettings({ run: { allowedSites: ['127.0.0.1'] } }));
    await mail.goto(secretSite);
    // The work tab came from the webmail page: its history goes back there.
    await work.goto(secretSite);
    await work.goto(site.url('/todo.html?agents=work'));
    const [mailTab, workTab] = [await browser.tabIdOf(mail), await browser.tabIdOf(work)];
    // The person's own run, before the agent came: not the agent's to export.
    const persons = await browser.sw.evaluate((id) => self.sightline.ai(id, { type: 'aiKeyboardPress', key: 'Escape' }), workTab);
    await agent.connect();
    await agent.call('tabs', { action: 'select', tab: workTab });
    const listed = await agent.tabs();
    assert.match(listed, new RegExp(`\\n${workTab} \\(selected\\): [^\\n]*todo\\.html\\?agents=work`), listed);
    assert.ok(!listed.includes(`${mailTab}:`) && !leaks(listed).length, listed);
    assert.match(listed, /<page>\n[\s\S]*\n<\/page>$/, 'titles and addresses are fenced as page content');
    await refused(agent.call('tabs', { action: 'select', tab: mailTab }), 'tab_not_allowed');
    await refused(agent.call('tabs', { action: 'close', tab: mailTab }), 'tab_not_allowed');
    assert.ok(!mail.isClosed(), 'the other site\'s tab stays open');
    await refused(agent.navigate('back'), 'history_not_allowed');
    assert.match(work.url(), /agents=work/, 'the tab did not go back to the other site');
    await refused(agent.exportRun('playwright', persons.id), 'run_not_agents');
    assert.match(await agent.exportRun('midscene-yaml'), /^<page>\n[\s\S]*\n<\/page>$/, 'its own session exports, fenced');

    // The person takes the selected tab to the other site: the agent gets nothing of it.
    await work.goto(secretSite);
    await refused(agent.consoleMessages(), 'tab_not_allowed');
    await refused(agent.snapshot(), 'tab_not_allowed');
    await refused(agent.navigate('reload'), 'history_not_allowed');
    await refused(agent.call('record', { action: 'start' }), 'tab_not_allowed');
    const recording = await browser.sw.evaluate(async () => (await chrome.storage.session.get('recordings')).recordings ?? {});
    assert.deepEqual(recording, {}, 'no recording started');
    const now = await agent.tabs();
    assert.match(now, new RegExp(`^The tabs[^\\n]*\\n${workTab} \\(selected\\): on a site outside the allowed sites\\n`), now);
    assert.deepEqual(leaks(now), [], now);

    // A recording the person started is theirs: the agent neither takes it over nor stops it.
    await work.goto(site.url('/todo.html?agents=work'));
    await browser.sw.evaluate((id) => self.sightline.startRecording(id), workTab);
    await refused(agent.call('record', { action: 'start' }), 'run_not_agents');
    await refused(agent.call('record', { action: 'stop' }), 'run_not_agents');
    await browser.sw.evaluate((id) => self.sightline.stopRecording(id), workTab);
    // One the agent started is its own to stop and export.
    await agent.call('record', { action: 'start' });
    const stopped = await agent.call('record', { action: 'stop' });
    const recorded = /Recorded run ([\w-]+)/.exec(stopped[0].text)[1];
    assert.match(await agent.exportRun('recorder', recorded), /^<page>\n\{/);
  } finally {
    await agent.destroy();
    await browser.sw.evaluate(() => self.sightline.setSettings({ run: { allowedSites: [] } }));
    await mail.close();
    await work.close();
  }
});

/** Width and height of a PNG or JPEG from its header (base64 `data`). */
function imageSize(data) {
  const b = Buffer.from(data, 'base64');
  if (b.toString('latin1', 1, 4) === 'PNG') return [b.readUInt32BE(16), b.readUInt32BE(20)];
  for (let at = 2; at + 9 < b.length; at += 2 + b.readUInt16BE(at + 2)) {
    const marker = b[at + 1];
    if (marker >= 0xc0 && marker <= 0xcf && ![0xc4, 0xc8, 0xcc].includes(marker)) return [b.readUInt16BE(at + 7), b.readUInt16BE(at + 5)];
  }
  throw new Error('neither a PNG nor a JPEG');
}

test('a full-page screenshot of a long page comes back within the side model APIs take (2000 px), scaled whole, and says so', async () => {
  const long = await browser.context.newPage();
  const agent = new SightlineBridge({ url: url(), token, name: 'fullpage-script', timeoutMs: 120_000 });
  try {
    await long.goto(site.url('/long.html'));
    const height = await long.evaluate(() => document.documentElement.scrollHeight);
    assert.ok(height > 4000, `the page is long: ${height} px`);
    await agent.connect();
    await agent.call('tabs', { action: 'select', tab: await browser.tabIdOf(long) });
    const content = await agent.call('screenshot', { full_page: true });
    const image = content.find((c) => c.type === 'image');
    const [w, h] = imageSize(image.data);
    assert.ok(w <= 2000 && h <= 2000, `${w}x${h}`);
    assert.ok(h === 2000 && w < 400, `the whole page scaled (not cut): ${w}x${h}`);
    assert.match(content[0].text, new RegExp(`^Screenshot: scaled down to ${w}\u00d7${h} px[^\\n]*one image pixel is [\\d.]+ CSS pixels`));
  } finally {
    await agent.destroy();
    await long.close();
    await page.bringToFront();
  }
});

test('Stop in the panel ends an agent\'s session: between calls or mid-call, the run ends stopped with its steps, the agent is told once (by its next call, or by the call in flight); a quick second Stop is no failure', async () => {
  const tabId = await browser.tabIdOf(page);
  const sessionRuns = async () => (await browser.sw.evaluate(() => self.sightline.runs())).filter((r) => r.instruction === 'Agent session: stop-script');
  const stopFromPanel = async (runId) => {
    // The panel follows the session's run (on its tab): Stop is on while it runs.
    await until('the session\'s run shown as running', async () => (await panel.locator('#run-instruction').textContent()) === 'Agent session: stop-script'
      && await panel.locator('#run-status.running').count() === 1);
    assert.equal(await panel.locator('#stop').isEnabled(), true);
    // Pressed twice before the worker answers (a quick double click): both reach the worker, and
    // the second, of a session the first stopped, is not shown as a failure.
    const answers = await panel.evaluate(async () => {
      const real = chrome.runtime.sendMessage;
      const sent = [];
      chrome.runtime.sendMessage = (message, ...rest) => {
        const reply = real.call(chrome.runtime, message, ...rest);
        if (message?.type === 'sightline/stop') sent.push(reply);
        return reply;
      };
      const stop = document.getElementById('stop');
      stop.click();
      stop.click();
      chrome.runtime.sendMessage = real;
      const replies = await Promise.all(sent);
      await new Promise((r) => setTimeout(r, 0)); // the click handlers' own awaits after the replies
      return replies;
    });
    assert.deepEqual(answers, [{ stopped: true }, { stopped: true }]);
    await panel.waitForSelector('#run-status.stopped', { timeout: 10_000 });
    const stored = await until('the run stored as stopped', async () => (await sessionRuns()).find((r) => r.id === runId && r.status === 'stopped'));
    // Both Stops reported success: no "not stopped" notice.
    assert.equal(await panel.locator('#notice-failure').isHidden(), true, await panel.locator('#notice').textContent());
    return stored;
  };
  const toldOnce = async (agent) => {
    await assert.rejects(agent.call('snapshot'), (e) => e.name === 'BridgeToolError' && e.code === 'session_stopped'
      && /stopped this agent session in Sightline's panel/.test(e.message) && /Allow agents off/.test(e.message));
    assert.equal((await agent.call('snapshot'))[0].type, 'text', 'the call after it opens a new session');
  };
  const agent = new SightlineBridge({ url: url(), token, name: 'stop-script', timeoutMs: 120_000 });
  await agent.connect();
  try {
    // Between two calls: nothing is in flight, yet the session's run is running in the panel.
    await agent.call('tabs', { action: 'select', tab: tabId });
    await agent.call('snapshot');
    const [first] = await sessionRuns();
    const stopped = await stopFromPanel(first.id);
    assert.deepEqual(stopped.steps.map((s) => s.action), ['Select tab ' + tabId, 'Snapshot of the page']);
    assert.ok(stopped.endedMs && !stopped.error, JSON.stringify(stopped.error));
    await toldOnce(agent);
    const second = await until('a new session', async () => (await sessionRuns()).find((r) => r.status === 'running'));
    assert.notEqual(second.id, first.id);

    // Mid-call: the model's answer is slow; Stop aborts the call, and the run keeps its steps.
    const asked = mock.requests.length;
    mock.script({ content: '{"thought": "slow", "actions": [], "done": true}', delayMs: 60_000 });
    const pending = agent.call('act', { instruction: 'add a todo \'never\'' }).then(() => null, (e) => e);
    await until('the model asked', () => mock.requests.length > asked, 30_000);
    const t0 = Date.now();
    const ended = await stopFromPanel(second.id);
    const failed = await pending;
    assert.ok(failed?.name === 'BridgeToolError', `the call in flight fails: ${failed}`);
    // The aborted call is the one the agent is told by (not `internal`, as it was): once.
    assert.equal(failed.code, 'session_stopped', failed.message);
    assert.match(failed.message, /stopped this agent session in Sightline's panel/);
    assert.ok(Date.now() - t0 < 15_000, 'at once, not after the model\'s answer');
    assert.ok(ended.steps.some((s) => s.action === 'Agent: add a todo \'never\''), JSON.stringify(ended.steps.map((s) => s.action)));
    assert.equal((await sessionRuns()).find((r) => r.id === second.id).status, 'stopped', 'the call\'s end did not open it again');
    assert.equal((await agent.call('snapshot'))[0].type, 'text', 'told already: the next call opens a new session');
    const third = await until('a third session', async () => (await sessionRuns()).find((r) => r.status === 'running'));
    assert.ok(third.id !== first.id && third.id !== second.id);
    assert.ok(!(await page.evaluate(() => window.todoApp.items().map((i) => i.title))).includes('never'));
  } finally {
    await agent.destroy();
  }
});

test('the socket closing while a call is in flight ends the session once the call has returned: succeeded with its steps, not left running', async () => {
  const tabId = await browser.tabIdOf(page);
  const agent = new SightlineBridge({ url: url(), token, name: 'close-script', timeoutMs: 120_000 });
  await agent.connect();
  try {
    await agent.call('tabs', { action: 'select', tab: tabId });
    const asked = mock.requests.length;
    mock.script({ content: '{"thought": "slow", "actions": [], "done": true}', delayMs: 60_000 });
    const pending = agent.call('act', { instruction: 'add a todo \'unseen\'' }).then(() => null, (e) => e);
    await until('the model asked', () => mock.requests.length > asked, 30_000);
    const [session] = (await browser.sw.evaluate(() => self.sightline.runs())).filter((r) => r.instruction === 'Agent session: close-script');
    await stopServer(server);
    assert.ok(await pending, 'the call in flight fails with its server gone');
    // Ended under the call, it was reported by the call and handed back to the core as running: stored so for good.
    const ended = await until('the session stored as ended', async () => (await browser.sw.evaluate(() => self.sightline.runs())).find((r) => r.id === session.id && r.status !== 'running'), 20_000);
    assert.equal(ended.status, 'succeeded');
    assert.ok(ended.endedMs, 'ended');
    assert.ok(ended.steps.some((s) => s.action === 'Agent: add a todo \'unseen\''), JSON.stringify(ended.steps.map((s) => s.action)));
  } finally {
    await agent.destroy().catch(() => {});
  }
  server = await startServer(token);
  await until('the extension to connect again', async () => /Connected/.test(await panelText('agents-state')), 20_000);
});

test('calls queued when Allow agents is turned off are not carried out, and nothing of theirs reaches the next connection', async () => {
  const tabId = await browser.tabIdOf(page);
  const before = page.url();
  // Each socket the worker opens from here keeps what it received and sent, in the order opened.
  await browser.sw.evaluate(() => {
    const Real = self.WebSocket;
    const sockets = [];
    self.e2eBridge = { Real, sockets };
    self.WebSocket = class extends Real {
      #seen = { received: [], sent: [] };
      constructor(...args) {
        super(...args);
        sockets.push(this.#seen);
        this.addEventListener('message', (e) => this.#seen.received.push(JSON.parse(e.data)));
      }
      send(data) {
        this.#seen.sent.push(JSON.parse(data));
        super.send(data);
      }
    };
  });
  const connectedOn = async (n) => {
    await until(`connection ${n}`, async () => /Connected/.test(await panelText('agents-state'))
      && await browser.sw.evaluate(() => self.e2eBridge.sockets.length), 20_000).then((count) => assert.equal(count, n));
  };
  // The connection the calls come on is the first one watched.
  await enabled(false);
  await enabled(true);
  await connectedOn(1);
  const agent = new SightlineBridge({ url: url(), token, name: 'queue-script', timeoutMs: 120_000 });
  await agent.connect();
  try {
    await agent.call('tabs', { action: 'select', tab: tabId });
    const asked = mock.requests.length;
    mock.script({ content: '{"thought": "slow", "actions": [], "done": true}', delayMs: 60_000 });
    const acting = agent.call('act', { instruction: 'add a todo \'held\'' }).then(() => null, (e) => e);
    await until('the model asked', () => mock.requests.length > asked, 30_000);
    // A second call waits behind the act: it would take the tab elsewhere.
    const elsewhere = site.url('/todo.html?agents=queued');
    const navigating = agent.call('navigate', { url: elsewhere }).then(() => null, (e) => e);
    await until('the navigate call queued in the worker', () => browser.sw.evaluate(() => self.e2eBridge.sockets[0].received
      .some((m) => m.type === 'call' && m.tool === 'navigate')));
    const [session] = (await browser.sw.evaluate(() => self.sightline.runs())).filter((r) => r.instruction === 'Agent session: queue-script');
    // Off while the act waits on the model, and on again at once: a new connection while the queue drains.
    await enabled(false);
    await enabled(true);
    const [actFailed, navigateFailed] = await Promise.all([acting, navigating]);
    assert.equal(actFailed?.code, 'extension_disconnected', String(actFailed));
    assert.equal(navigateFailed?.code, 'extension_disconnected', String(navigateFailed));
    // The session ends after the queue (so after the navigate, had it run): succeeded with the act's step only.
    const ended = await until('the session stored as ended', async () => (await browser.sw.evaluate(() => self.sightline.runs())).find((r) => r.id === session.id && r.status !== 'running'), 20_000);
    assert.equal(ended.status, 'succeeded');
    const actions = ended.steps.map((s) => s.action);
    assert.ok(actions.includes('Agent: add a todo \'held\''), JSON.stringify(actions));
    assert.ok(!actions.some((a) => a.includes(elsewhere)), `the navigate is no step: ${JSON.stringify(actions)}`);
    assert.equal(page.url(), before, 'the queued navigate did not take the tab elsewhere');
    await connectedOn(2);
    const later = await browser.sw.evaluate(() => self.e2eBridge.sockets[1].sent);
    assert.deepEqual(later.filter((m) => !['pair', 'pairConfirm', 'ping'].includes(m.type)), [], 'nothing of the old calls on the new connection');
  } finally {
    await agent.destroy().catch(() => {});
    await browser.sw.evaluate(() => { self.WebSocket = self.e2eBridge.Real; });
  }
});

test('a console watch still attaching as the socket closes is undone: the tab is not left under the debugger, and the call stops', async () => {
  const tabId = await browser.tabIdOf(page);
  await until('the tab free of the debugger', async () => !(await debuggerOn(tabId)), 10_000);
  const agent = new SightlineBridge({ url: url(), token, name: 'watch-script', timeoutMs: 120_000 });
  await agent.connect();
  try {
    await agent.call('tabs', { action: 'select', tab: tabId });
    await holdAttach(tabId);
    const reading = agent.call('console_messages').then(() => null, (e) => e);
    await until('the console watch attaching', () => browser.sw.evaluate(() => self.e2eHold.reached), 15_000);
    const [session] = (await browser.sw.evaluate(() => self.sightline.runs())).filter((r) => r.instruction === 'Agent session: watch-script');
    // Off (the socket closes while the watch attaches) and on again: a new connection.
    await enabled(false);
    await enabled(true);
    assert.equal((await reading)?.code, 'extension_disconnected');
    await browser.sw.evaluate(() => self.e2eHold.release());
    // The session ends after the call has returned (the queue's order): then the watch is done with.
    const ended = await until('the session stored as ended', async () => (await browser.sw.evaluate(() => self.sightline.runs())).find((r) => r.id === session.id && r.status !== 'running'), 20_000);
    assert.equal(await debuggerOn(tabId), false, 'the tab is not left attached to the debugger');
    assert.deepEqual(ended.steps.map((s) => s.action), [`Select tab ${tabId}`], 'the console call stopped: no step of it');
    await until('the extension to connect again', async () => /Connected/.test(await panelText('agents-state')), 20_000);
  } finally {
    await browser.sw.evaluate(() => {
      if (!self.e2eHold) return;
      self.e2eHold.release();
      chrome.debugger.attach = self.e2eHold.real;
    });
    await agent.destroy().catch(() => {});
  }
});

test('the socket closing while a call\'s session is being opened: no run is made and the call does not act', async () => {
  const before = page.url();
  const elsewhere = site.url('/todo.html?agents=unopened');
  // The worker reads the tab for the new session's run (`sessionFor`): held there once.
  await browser.sw.evaluate(() => {
    const real = chrome.tabs.get;
    let release;
    const gate = new Promise((resolve) => { release = resolve; });
    self.e2eHold = { real, reached: false, release };
    chrome.tabs.get = (...args) => {
      if (self.e2eHold.reached || !/\bsessionFor\b/.test(new Error().stack)) return real.apply(chrome.tabs, args);
      self.e2eHold.reached = true;
      return gate.then(() => real.apply(chrome.tabs, args));
    };
  });
  const agent = new SightlineBridge({ url: url(), token, name: 'opening-script', timeoutMs: 120_000 });
  await agent.connect();
  try {
    const navigating = agent.call('navigate', { url: elsewhere }).then(() => null, (e) => e);
    await until('the session being opened', () => browser.sw.evaluate(() => self.e2eHold.reached), 15_000);
    await enabled(false);
    await enabled(true);
    assert.equal((await navigating)?.code, 'extension_disconnected');
    await browser.sw.evaluate(() => self.e2eHold.release());
    await until('the extension to connect again', async () => /Connected/.test(await panelText('agents-state')), 20_000);
    // One call at a time: once this one is answered, the held one has returned and its connection's sessions ended.
    await agent.call('tabs', { action: 'list' });
    assert.equal(page.url(), before, 'the navigate did not take the tab elsewhere');
    const sessions = (await browser.sw.evaluate(() => self.sightline.runs())).filter((r) => r.instruction === 'Agent session: opening-script');
    assert.deepEqual(sessions.map((r) => [r.status, r.steps.map((st) => st.action)]), [['running', ['List the tabs']]], 'only the later call\'s session');
  } finally {
    await browser.sw.evaluate(() => {
      self.e2eHold.release();
      chrome.tabs.get = self.e2eHold.real;
    });
    await agent.destroy().catch(() => {});
  }
});

test('revoking makes a new token and ends the session; stdio serves the same tools', async () => {
  const before = token;
  await panel.locator('#agents-revoke').click();
  await until('a new token', async () => (await panelText('agents-token')) !== before);
  token = await panelText('agents-token');
  // The server still knows the old token: the extension's next connection to it does not pair.
  await until('the old connection to close', async () => /could not prove it knows this token/.test(await panelText('agents-state')), 20_000);
  const ended = await until('the session run to end', async () => (await browser.sw.evaluate(() => self.sightline.runs())).find((r) => r.instruction === 'Agent session: sightline-e2e-agent' && r.status === 'succeeded'));
  assert.ok(ended.steps.length >= 8);
  await stopServer(server);

  // Over stdio the port serves the extension's /bridge only: no HTTP /mcp, token or not (--http-too adds it).
  const stdioServer = await startServer(token, { args: ['--stdio'] });
  assert.equal((await initialize({ authorization: `Bearer ${token}` })).status, 404, 'no /mcp beside stdio');
  stdioServer.stdin.end(); // the MCP client going away ends it
  await until('the stdio server to exit', () => stdioServer.exitCode != null, 10_000);
  servers.delete(stdioServer);
  const both = await startServer(token, { args: ['--stdio', '--http-too'] });
  assert.equal((await initialize({ authorization: `Bearer ${token}` })).status, 200, '--http-too serves it');
  await stopServer(both);

  // An MCP client that starts the server itself, over stdio (the shape of most clients' config),
  // the token in a file only its owner can read (what --save-token writes), not in the config.
  const dir = mkdtempSync(join(tmpdir(), 'sightline-token-'));
  const tokenFile = join(dir, 'token');
  writeFileSync(tokenFile, `${token}\n`, { mode: 0o600 });
  chmodSync(tokenFile, 0o600);
  const log = await client(['stdio', BIN, '--stdio', '--port', String(port), '--token-file', tokenFile, '--extension-id', browser.extensionId]).finally(() => rmSync(dir, { recursive: true, force: true }));
  assert.ok(log.tools.includes('snapshot') && log.tools.includes('act'));
  assert.equal(log.snapshot.isError, false, JSON.stringify(log.snapshot));
  assert.match(log.snapshot.content[0].text, /What needs to be done\?/);
  await panel.locator('#agents-enabled').uncheck();
  const stored = await until('Allow agents off', () => browser.sw.evaluate(async () => (await chrome.storage.local.get('agents')).agents).then((a) => a.enabled === false && a));
  assert.equal(stored.token, token, 'turning off keeps the token; only Revoke replaces it');
});
