// scripts/bench step: what one step costs. The wall time of one aiAssert from the service worker
// (read + capture + markers + request + parse + record) against a model that answers at once,
// beside a bare CDP Page.captureScreenshot of the same tab, and beside Midscene's step (its
// published extractor and description in the page, the result handed out, plus that same bare
// screenshot); a whole-page read (first and again) against a bare walk of the page (the
// floor); and one aiLocate by a model reading the element list. Chromium at 1280×800. A
// benchmark, not a test: it prints figures and writes out/bench-step.json.
import { writeFileSync, mkdirSync, existsSync } from 'node:fs';
import { loadavg } from 'node:os';
import http from 'node:http';
import path from 'node:path';
import { launchWithExtension } from './playwright/lib/browser.mjs';
import { ROOT } from './root.mjs';
import { startStaticServer } from './static-server.mjs';
import { PAGES_DIR, PY_DOCS, bareWalk, formTable, median, midsceneBundle } from './bench-dom.mjs';

const RUNS = Number(process.env.BENCH_RUNS ?? 5);
// Playwright inspects the network of every service worker it sees (CDP Network domain on the
// worker), which makes Chrome copy each request body into DevTools on the worker's thread: a
// 475 KB model request took 33–55 ms with it and 7–12 ms without. No user's worker has
// DevTools attached; the step is measured as they run it.
process.env.PLAYWRIGHT_DISABLE_SERVICE_WORKER_NETWORK ??= '1';
// Another build of the extension to measure (a "before"), instead of dist/.
const EXTENSION_DIR = process.env.BENCH_DIST ? path.resolve(process.env.BENCH_DIST) : undefined;
const OUT = path.join(ROOT, 'out');

/**
 * A long single-page API reference: `sections` of a heading, a paragraph and a definition list
 * of seven entries (41 elements each), most of it far below the view.
 */
function apiReference(sections) {
  const entry = (s, k) => `<dt><code>f${s}_${k}(a, b)</code></dt><dd><p>Returns <em>a</em> combined with b, entry ${k}.</p></dd>`;
  const section = (s) => `<section id="s${s}"><h2>Module ${s}<a class="headerlink" href="#s${s}">¶</a></h2>` +
    `<p>Functions of module ${s}; see <code>m${s}</code> and <a href="#s${s + 1}">the next one</a>.</p>` +
    `<dl>${Array.from({ length: 7 }, (_, k) => entry(s, k)).join('')}</dl></section>`;
  return `<!doctype html><title>API reference ${sections}</title><body>${Array.from({ length: sections }, (_, s) => section(s)).join('')}</body>`;
}

function writePages() {
  mkdirSync(PAGES_DIR, { recursive: true });
  const pages = {
    'form-140.html': formTable(140),
    'form-5000.html': formTable(5000),
    'api-2900.html': apiReference(2900),
    'api-4900.html': apiReference(4900),
  };
  for (const [name, html] of Object.entries(pages)) writeFileSync(path.join(PAGES_DIR, name), html);
}

/** The instruction of a bench task: `rounds` planning rounds, each keeping a note (no input, no settle), then done. */
export const benchTask = (id, rounds) => `bench task ${id}: keep a note ${rounds} times, then finish`;
const BENCH_TASK = /bench task (\S+): keep a note (\d+) times/;

/**
 * An OpenAI-compatible endpoint that answers at once: every assertion passes, a locate (its
 * system prompt asks for `"element": N`) gets the first element the request lists, and a bench
 * task's planning rounds (`benchTask`) each keep a note until its rounds are done.
 */
export function startInstantModel() {
  const cors = { 'Access-Control-Allow-Origin': '*', 'Access-Control-Allow-Headers': '*', 'Access-Control-Allow-Methods': 'GET, POST, OPTIONS' };
  const planned = new Map(); // bench task id → planning rounds answered
  const reply = (body) => {
    const messages = JSON.parse(body || '{}').messages ?? [];
    const said = (m) => [m?.content].flat().map((c) => (typeof c === 'string' ? c : c?.text ?? '')).join('\n');
    const task = BENCH_TASK.exec(messages.map(said).join('\n'));
    if (task && said(messages[0]).includes('"actions": [')) {
      const round = planned.get(task[1]) ?? 0;
      planned.set(task[1], round + 1);
      if (round >= Number(task[2])) return { thought: 'all noted', actions: [], done: true, answer: 'noted' };
      return { thought: 'note it', actions: [{ type: 'Remember', note: `bench note ${round}` }], done: false, answer: null };
    }
    if (!said(messages[0]).includes('"element": N')) return { thought: 'checked', pass: true, reason: 'holds' };
    const first = /^\[(\d+)\] /m.exec(said(messages.at(-1)));
    return { thought: 'the first one listed', element: first ? Number(first[1]) : null };
  };
  const server = http.createServer((req, res) => {
    if (req.method === 'OPTIONS') return res.writeHead(204, cors).end();
    const chunks = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      const content = JSON.stringify(reply(Buffer.concat(chunks).toString()));
      res.writeHead(200, { ...cors, 'Content-Type': 'application/json' }).end(JSON.stringify({
        id: 'bench', object: 'chat.completion', created: 0, model: 'bench-model',
        choices: [{ index: 0, message: { role: 'assistant', content }, finish_reason: 'stop' }],
        usage: { prompt_tokens: 1000, completion_tokens: 10, total_tokens: 1010 },
      }));
    });
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve({
    baseUrl: `http://127.0.0.1:${server.address().port}/v1`,
    close: () => new Promise((r) => server.close(r)),
  })));
}

/**
 * Installed once in the service worker: wraps the browser primitives a step calls (chrome.debugger,
 * chrome.scripting, fetch, IndexedDB transactions, runtime messages) so each step leaves a trace of
 * `{what, start, end}` (ms). What lies between them is the worker's own work (WASM and glue).
 */
function installTracer() {
  if (self.__benchTrace) return;
  self.__benchTrace = { on: false, events: [] };
  const trace = self.__benchTrace;
  /** Runs `work` traced: `{total, result, events}`, times from its start. */
  trace.traced = async (work) => {
    trace.events = [];
    trace.on = true;
    const t0 = performance.now();
    let result;
    try {
      result = await work();
    } finally {
      trace.on = false;
    }
    const total = performance.now() - t0;
    return { total, result, events: trace.events.map((e) => ({ ...e, start: e.start - t0, end: e.end == null ? null : e.end - t0 })) };
  };
  // `note(value)`: facts of the call's result to keep on its event.
  const wrap = (owner, key, name, note = () => ({})) => {
    const original = owner[key];
    owner[key] = function traced(...args) {
      if (!trace.on) return original.apply(this, args);
      const event = { what: typeof name === 'function' ? name(...args) : name, start: performance.now(), end: null };
      trace.events.push(event);
      const result = original.apply(this, args);
      const finish = (value) => { event.end = performance.now(); Object.assign(event, note(value)); };
      if (result && typeof result.then === 'function') result.then(finish, () => finish());
      else finish(result);
      return result;
    };
  };
  wrap(chrome.debugger, 'attach', 'attach');
  wrap(chrome.debugger, 'detach', 'detach');
  wrap(chrome.debugger, 'sendCommand', (_target, method) => method);
  // A reading the page's reader kept ends so (lib.rs, `kept::again`).
  const reusedReading = (value) => ({ reused: typeof value?.[0]?.result?.json === 'string' && value[0].result.json.endsWith('"reused":true}') });
  wrap(chrome.scripting, 'executeScript', 'in page', reusedReading);
  wrap(chrome.runtime, 'sendMessage', 'panel message');
  wrap(self, 'fetch', 'model request');
  const transaction = IDBDatabase.prototype.transaction;
  IDBDatabase.prototype.transaction = function traced(stores, mode, ...rest) {
    const tx = transaction.call(this, stores, mode, ...rest);
    if (trace.on && mode === 'readwrite') {
      const event = { what: `store ${[stores].flat().join('+')}`, start: performance.now(), end: null };
      trace.events.push(event);
      const finish = () => { event.end = performance.now(); };
      tx.addEventListener('complete', finish);
      tx.addEventListener('abort', finish);
    }
    return tx;
  };
}

/**
 * One step's trace as phases (ms): the read and the capture (in parallel), the worker's work
 * between the observation and the model request (decode, describe, mark, encode, prompt), the
 * request, and what follows the reply until aiAssert resolves (parse, record, store, detach).
 */
function phases({ total, events }) {
  const of = (test) => events.filter((e) => test(e.what) && e.end != null);
  const span = (list) => (list.length ? Math.max(...list.map((e) => e.end)) - Math.min(...list.map((e) => e.start)) : 0);
  const read = of((w) => w === 'in page');
  const capture = of((w) => w === 'Page.captureScreenshot' || w === 'Page.getLayoutMetrics');
  const request = of((w) => w === 'model request');
  const observed = Math.max(0, ...read.map((e) => e.end), ...capture.map((e) => e.end));
  const firstObserve = Math.min(...[...read, ...capture].map((e) => e.start));
  const requested = request.length ? request[0].start : NaN;
  const replied = request.length ? request.at(-1).end : NaN;
  const storeWall = of((w) => w.startsWith('store '));
  return {
    beforeObserve: firstObserve,
    read: span(read),
    capture: span(capture),
    observe: observed - firstObserve,
    imageAndPrompt: requested - observed,
    request: replied - requested,
    afterReply: total - replied,
    storeWrites: storeWall.length,
    storeSum: storeWall.reduce((a, e) => a + (e.end - e.start), 0),
    detach: span(of((w) => w === 'detach')),
    attach: span(of((w) => w === 'attach')),
  };
}

/** Rounds of the bench task (`benchTask`); the per-step figure is the median of rounds 2 on. */
const TASK_ROUNDS = 6;

/**
 * The steps inside one multi-step run (a bench task's rounds: observe, request, a note kept,
 * the step recorded), which is what a person waits for per step of a task: each round from its
 * model request's start to the next one's, and the later rounds' phases (`beforeObserve`: from
 * the last reply to the observation, the step's record and the loop in between).
 */
function rounds({ events }) {
  const of = (test) => events.filter((e) => test(e.what) && e.end != null);
  const requests = of((w) => w === 'model request').sort((a, b) => a.start - b.start);
  const observing = of((w) => w === 'in page' || w === 'Page.captureScreenshot' || w === 'Page.getLayoutMetrics');
  const out = [];
  for (let k = 2; k < requests.length; k++) {
    const [before, request] = [requests[k - 1], requests[k]];
    const seen = observing.filter((e) => e.start >= before.end && e.end <= request.start);
    const first = Math.min(...seen.map((e) => e.start));
    const last = Math.max(...seen.map((e) => e.end));
    out.push({
      step: request.start - before.start,
      beforeObserve: seen.length ? first - before.end : NaN,
      observe: seen.length ? last - first : NaN,
      imageAndPrompt: seen.length ? request.start - last : NaN,
      request: request.end - request.start,
    });
  }
  return out;
}

async function measure(browser, url, bundle) {
  const page = await browser.context.newPage();
  await page.goto(url, { waitUntil: 'load' });
  const tabId = await browser.tabIdOf(page);
  await page.addScriptTag({ content: bundle });
  const nodes = await page.evaluate(() => document.getElementsByTagName('*').length);
  const sw = browser.sw;

  await sw.evaluate(installTracer);
  const traces = [];
  const lastEvents = { step: [], task: [] }; // the last step's and task's traces, for out/bench-step.json
  // A step is timed after a change to the page (an attribute no style rule reads): the reading a
  // step kept from the one before answers only while nothing changed (`again`, timed apart).
  let reusedStepAgain = 0;
  const step = async ({ again = false } = {}) => {
    const { total, events } = await sw.evaluate((id) => self.__benchTrace.traced(() => self.sightline.aiAssert(id, 'the page shows a heading')), tabId);
    const reused = events.some((e) => e.what === 'in page' && e.reused);
    if (again) {
      reusedStepAgain += reused ? 1 : 0;
      return total;
    }
    if (reused) throw new Error('one step reused a kept reading: the page change did not reach the reader');
    traces.push(phases({ total, events }));
    lastEvents.step = events;
    return total;
  };
  const changePage = (what, i) => page.evaluate(([what, i]) => { document.body.dataset[what] = String(i); }, [what, i]);
  // Attached first (a run detaches when it ends), outside the timing.
  const screenshot = () => sw.evaluate(async (id) => {
    await chrome.debugger.attach({ tabId: id }, '1.3').catch((e) => {
      if (!/already attached/i.test(e.message)) throw e;
    });
    const t0 = performance.now();
    await chrome.debugger.sendCommand({ tabId: id }, 'Page.captureScreenshot', { format: 'png' });
    return performance.now() - t0;
  }, tabId);
  // Midscene's step reads the page in it and hands tree and description out (over CDP, as its
  // Playwright and Puppeteer agents do); its screenshot is counted as our bare one.
  // On the largest pages it can fail (its recursion overflows the stack): noted, not fatal.
  let midsceneError = null;
  const midscene = async () => {
    if (midsceneError) return { ms: NaN };
    const t0 = performance.now();
    try {
      const out = await page.evaluate(() => {
        const tree = window.midsceneExtractor.webExtractNodeTree(document);
        return { tree, description: window.midsceneExtractor.descriptionOfTree(tree) };
      });
      return { ms: performance.now() - t0, chars: out.description.length };
    } catch (e) {
      midsceneError = e.message.split('\n')[0];
      return { ms: NaN };
    }
  };
  const wholeRead = () => sw.evaluate(async (id) => {
    const t0 = performance.now();
    const r = await self.sightline.extract(id);
    return { wallMs: performance.now() - t0, inPageMs: r.timings.inPageMs, elements: r.elements.length, reused: !!r.reused };
  }, tabId);
  const floor = () => page.evaluate(bareWalk);
  // One run of TASK_ROUNDS steps (`benchTask`): its later steps, as `rounds` measures them.
  const taskRounds = [];
  // The task's rounds only keep notes: the page changes itself meanwhile (an attribute every
  // 5 ms), so each round reads it as a round after an action would, not the reading kept before.
  // (A round with input would wait for the page to settle, which it never would: 3 s each.)
  const task = async (i) => {
    await page.evaluate(() => {
      let n = 0;
      window.__benchTicking = setInterval(() => { document.body.dataset.benchTick = String(n++); }, 5);
    });
    const { status, error, events } = await sw.evaluate(async ([id, instruction]) => {
      const { result: run, events } = await self.__benchTrace.traced(() => self.sightline.act(id, instruction));
      return { status: run.status, error: run.error, events };
    }, [tabId, benchTask(`${i}-${url}`, TASK_ROUNDS)]).finally(() => page.evaluate(() => clearInterval(window.__benchTicking)));
    if (status !== 'succeeded') throw new Error(`the bench's task ended ${status}: ${JSON.stringify(error)}`);
    const later = rounds({ events });
    if (later.length < TASK_ROUNDS - 1) throw new Error(`the bench's task made ${later.length + 2} model requests, not ${TASK_ROUNDS + 1}`);
    taskRounds.push(...later);
    lastEvents.task = events;
  };
  // A locate by a model reading the element list: the view, then the page read for what lies
  // beyond it (`Reach::Locating`), the request, the answer. Made a first read by a page change.
  const locate = async (i) => {
    await changePage('benchLocate', i);
    return sw.evaluate(async (id) => {
      const t0 = performance.now();
      const run = await self.sightline.ai(id, { type: 'aiLocate', locate: 'the first element listed' });
      if (run.status !== 'succeeded') throw new Error(`the bench's locate ended ${run.status}: ${JSON.stringify(run.error)}`);
      return performance.now() - t0;
    }, tabId);
  };

  // Warm up (WASM compile, debugger attach, style caches), then interleave the timed runs.
  await changePage('benchStep', -1);
  await step();
  await step({ again: true });
  reusedStepAgain = 0;
  await screenshot();
  await midscene();
  await floor();
  await locate(-1);
  await task(-1);
  taskRounds.length = 0;
  const t = { step: [], stepAgain: [], shot: [], midscene: [], read: [], readAgain: [], readWall: [], floor: [], locate: [] };
  let elements = 0;
  let reusedAgain = 0;
  for (let i = 0; i < RUNS; i++) {
    await changePage('benchStep', i);
    t.step.push(await step());
    t.stepAgain.push(await step({ again: true }));
    t.shot.push(await screenshot());
    t.midscene.push((await midscene()).ms);
    // A second whole read right after the first: what a later step needing the whole page pays
    // (the page unchanged, the reader answers with the reading it kept). The first is made a
    // first by a change to the page: a reading kept from the round before would be reused.
    await changePage('benchRound', i);
    const first = await wholeRead();
    const again = await wholeRead();
    elements = first.elements;
    if (first.reused) throw new Error('the first whole read reused a kept reading: the page change did not reach the reader');
    reusedAgain += again.reused ? 1 : 0;
    t.read.push(first.inPageMs);
    t.readAgain.push(again.inPageMs);
    t.readWall.push(first.wallMs);
    t.floor.push((await floor()).ms);
    t.locate.push(await locate(i));
    await task(i);
  }
  await page.close();
  const shot = median(t.shot);
  const timed = traces.slice(1); // the warm-up's left out
  const stepPhases = Object.fromEntries(Object.keys(timed[0]).map((k) => [k, median(timed.map((p) => p[k]))]));
  const taskPhases = Object.fromEntries(Object.keys(taskRounds[0]).map((k) => [k, median(taskRounds.map((p) => p[k]))]));
  return {
    nodes,
    elements,
    stepMs: median(t.step),
    stepAgainMs: median(t.stepAgain),
    reusedStepAgain,
    screenshotMs: shot,
    midsceneStepMs: midsceneError ? null : median(t.midscene) + shot,
    midsceneError,
    readMs: median(t.read),
    readAgainMs: median(t.readAgain),
    readWallMs: median(t.readWall),
    floorMs: median(t.floor),
    locateMs: median(t.locate),
    taskStepMs: median(taskRounds.map((r) => r.step)),
    reusedAgain,
    stepPhases,
    taskPhases,
    lastEvents,
  };
}

export async function benchStep() {
  writePages();
  const bundle = await midsceneBundle();
  const model = await startInstantModel();
  const generated = await startStaticServer({ root: PAGES_DIR });
  const pyDocs = existsSync(PY_DOCS) ? await startStaticServer({ root: PY_DOCS }) : null;
  const all = [
    ['form table 140', generated.url('/form-140.html')],
    ...(pyDocs ? [['python stdtypes', pyDocs.url('/library/stdtypes.html')]] : []),
    ['form table 5000', generated.url('/form-5000.html')],
    ['api reference 2900', generated.url('/api-2900.html')],
    ['api reference 4900', generated.url('/api-4900.html')],
  ];
  // BENCH_PAGES=140,5000: only the pages whose names hold one of these.
  const only = process.env.BENCH_PAGES?.split(',');
  const targets = only ? all.filter(([name]) => only.some((o) => name.includes(o))) : all;
  if (!pyDocs) console.log(`(python docs not found at ${PY_DOCS}: scripts/bench installs python3.11-doc)`);
  const load = loadavg().map((l) => l.toFixed(2)).join(' ');
  const browser = await launchWithExtension({ extensionDir: EXTENSION_DIR });
  const rows = [];
  try {
    await browser.sw.evaluate((baseUrl) => self.sightline.setSettings({
      model: { provider: 'custom', baseUrl, model: 'bench-model', apiKey: 'sk-bench', family: 'generic', stream: false },
      run: { useCache: false },
    }), model.baseUrl);
    for (const [name, url] of targets) {
      const row = { name, ...(await measure(browser, url, bundle)) };
      rows.push(row);
      const { lastEvents, ...figures } = row;
      console.log(`measured ${name}: ${JSON.stringify(figures)}`);
    }
  } finally {
    await browser.close();
    await Promise.all([model.close(), generated.close(), pyDocs?.close()]);
  }

  const f = (x, d = 0) => (x == null ? 'failed' : x.toFixed(d));
  const ratio = (a, b, d = 1) => (a != null && b > 0 ? `${f(a / b, d)}×` : '–');
  console.log(`\nscripts/bench step${EXTENSION_DIR ? ` (${EXTENSION_DIR})` : ''} — median of ${RUNS} runs, ms, Chromium 1280x800; load average at the start ${load} (after: ${loadavg().map((l) => l.toFixed(2)).join(' ')})\n`);
  const header = ['page', 'elements', 'one step', 'bare screenshot', 'step/shot', 'step again', 'kept', 'midscene step', 'midscene/step',
    'whole read', 'again', 'read wall', 'bare walk', 'read/walk', 'one locate', 'step in a task', 'task step/shot'];
  const table = rows.map((r) => [
    r.name, r.nodes, f(r.stepMs), f(r.screenshotMs), ratio(r.stepMs, r.screenshotMs, 2), f(r.stepAgainMs), `${r.reusedStepAgain}/${RUNS}`, f(r.midsceneStepMs), ratio(r.midsceneStepMs, r.stepMs),
    f(r.readMs), f(r.readAgainMs), f(r.readWallMs), f(r.floorMs), ratio(r.readMs, r.floorMs, 2), f(r.locateMs),
    f(r.taskStepMs), ratio(r.taskStepMs, r.screenshotMs, 2),
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...table.map((row) => String(row[i]).length)));
  const line = (cells) => cells.map((c, i) => String(c).padStart(widths[i])).join('  ');
  console.log(line(header));
  for (const row of table) console.log(line(row));
  /** A table of each page's phases (`rows[i][key]`, median ms), under `title`. */
  const printPhases = (title, key) => {
    const names = Object.keys(rows[0]?.[key] ?? {});
    if (!names.length) return;
    console.log(`\n${title}\n`);
    const pw = names.map((k) => Math.max(k.length, 6));
    const nw = Math.max(4, ...rows.map((r) => r.name.length));
    console.log([''.padStart(nw), ...names.map((k, i) => k.padStart(pw[i]))].join('  '));
    for (const r of rows) console.log([r.name.padStart(nw), ...names.map((k, i) => f(r[key][k]).padStart(pw[i]))].join('  '));
  };
  printPhases('one step by phase (median ms; observe = read ‖ capture; imageAndPrompt = the worker between the observation and the request)', 'stepPhases');
  printPhases(`a step in a task by phase (median ms of rounds 2–${TASK_ROUNDS} of each run; step = one model request's start to the next one's; beforeObserve = from the reply to the observation)`, 'taskPhases');
  writeFileSync(path.join(OUT, 'bench-step.json'), JSON.stringify({ runs: RUNS, load, rows }, null, 2));
  console.log('\n"one step": self.sightline.aiAssert wall time in the service worker, the model answering at once, after a change to the page.');
  console.log('"step again": the same right after it, nothing changed: the in-view reading kept in the page answers ("kept": how many times it did).');
  console.log('"bare screenshot": Page.captureScreenshot (PNG) of the same tab through chrome.debugger.');
  console.log('"midscene step": its webExtractNodeTree + descriptionOfTree in the page, handed out over CDP, + that bare screenshot.');
  console.log('"whole read": the whole page read in the page (extract, in-page ms); "again": a second read right after;');
  console.log('"again" answers with the reading kept in the page when nothing changed since (reusedAgain in the JSON: how many times).');
  console.log('"read wall": the first, as the service worker waits for it; "bare walk": TreeWalker + getBoundingClientRect + getComputedStyle.');
  console.log('"one locate": an aiLocate by a model reading the element list (the view, then the page read for what a locate lists beyond it), after a page change.');
  console.log(`"step in a task": one round inside a run of ${TASK_ROUNDS + 1} model requests (act: each round keeps a note, then done; the page changes every 5 ms meanwhile), from one request's start to the next one's, rounds 2 on.`);
  console.log('\nwritten: out/bench-step.json');
}
