// The suite runner (scripts/suite → Playwright Test with scripts/lib/playwright) and the
// Playwright fixture, each run as a user runs them: in processes of their own, each worker with
// its own Chromium and the extension. The flows (tests/fixtures/suite-*.yaml, beside the pages
// they serve: a flow serves only its own folder) find their elements by
// XPath; the model steps (an aiAssert in a flow, the fixture spec's calls) go to this file's
// mock, given through the environment, which answers from what the request shows of the page.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { readdir, readFile, rm, stat } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { loadavg } from 'node:os';
import path from 'node:path';
import { ROOT, userMessage } from '../support/browser.mjs';
import { messageText, startMockModel, todoPlanReply } from '../support/mock-model.mjs';

const OUT = path.join(ROOT, 'out', 'suite-check');
const SUITE = 'tests/fixtures/suite-*.yaml';
const FAILING = 'tests/fixtures/failing-wrong-user.yaml';
const CLI = createRequire(import.meta.url).resolve('@playwright/test/cli');

let mock;
before(async () => {
  await rm(OUT, { recursive: true, force: true });
  mock = await startMockModel();
  mock.setFallback(answer);
});
after(() => mock?.close());

/** The element lines of the page description a request carries (`[n] …`). */
const elementLines = (text) => text.split('\n').filter((l) => /^\s*\[\d+\]/.test(l));
const numberOf = (line) => Number(line.match(/\[(\d+)\]/)[1]);
/** The todo titles the description shows (each todo's label). */
const todoTitles = (text) => elementLines(text).map((l) => l.match(/^\s*\[\d+\]\s+label\b[^\n]*?"([^"]+)"/)?.[1]).filter((t) => t && t !== 'Mark all as complete');

/**
 * The model's part, played from what each request shows (workers ask in any order): an
 * assertion about who signed in or which todos show, a query of the todo titles, or the number
 * of the element a locate request describes.
 */
function answer(body) {
  const { text } = userMessage(body);
  const asked = text.match(/the page says "Signed in as (\w+)"/)?.[1];
  if (asked) {
    const shown = text.match(/Signed in as (\w+) \(password/)?.[1];
    return JSON.stringify({ pass: shown === asked, reason: shown ? `the page says "Signed in as ${shown}"` : 'nobody is signed in' });
  }
  if (/one todo is shown/.test(text)) {
    const titles = todoTitles(text);
    return JSON.stringify({ pass: titles.length === 1, reason: `${titles.length} todos are shown: ${titles.join(', ')}` });
  }
  if (/a todo "fly a kite" is shown/.test(text)) {
    const titles = todoTitles(text);
    return JSON.stringify({ pass: titles.includes('fly a kite'), reason: `the todos shown are: ${titles.join(', ') || 'none'}` });
  }
  if (/add a todo "call grandma"/.test(text)) return todoPlanReply()(body);
  if (/the titles of the todos shown/.test(text)) return JSON.stringify({ thought: 'the labels of the list', data: todoTitles(text) });
  const wanted = text.match(/<element>\n([^\n]*)\n<\/element>/)?.[1] ?? '';
  const pattern = /What needs to be done/.test(wanted) ? /What needs to be done\?/ : /"Active" filter/.test(wanted) ? /^\s*\[\d+\]\s+a\b[^\n]*"Active"/ : null;
  const line = pattern && elementLines(text).find((l) => pattern.test(l));
  return JSON.stringify(line ? { thought: `found ${wanted}`, element: numberOf(line) } : { thought: 'not there', element: null, error: `nothing matches ${wanted}` });
}

/**
 * The environment a user's shell would have: no Sightline or Midscene variables but the mock's,
 * under Sightline's names or (`midscene`) under Midscene's.
 */
function env(extra = {}, midscene = false) {
  const clean = Object.fromEntries(Object.entries(process.env).filter(([k]) => !/^(SIGHTLINE_|MIDSCENE_|OPENAI_|PLAYWRIGHT_)/.test(k)));
  const model = midscene
    ? { MIDSCENE_MODEL_BASE_URL: mock.baseUrl, MIDSCENE_MODEL_NAME: 'mock-model', MIDSCENE_MODEL_API_KEY: 'sk-midscene' }
    : { SIGHTLINE_BASE_URL: mock.baseUrl, SIGHTLINE_MODEL: 'mock-model', SIGHTLINE_API_KEY: 'sk-suite' };
  return { ...clean, ...model, ...extra };
}

/**
 * A command in a process group of its own (Node, from the repo root): exit code, output and
 * wall time. Past `boundMs` the group is killed (TERM, then KILL) and the promise rejects.
 */
function run(args, { boundMs, extraEnv, midscene } = {}) {
  return new Promise((resolve, reject) => {
    const started = Date.now();
    const child = spawn(process.execPath, args, { cwd: ROOT, env: env(extraEnv, midscene), detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => { stdout += d; });
    child.stderr.on('data', (d) => { stderr += d; });
    const kill = (signal) => { try { process.kill(-child.pid, signal); } catch { /* gone */ } };
    const timer = setTimeout(() => {
      kill('SIGTERM');
      setTimeout(() => kill('SIGKILL'), 5_000).unref();
      reject(new Error(`${args.join(' ')} took over ${boundMs / 1000} s:\n${stdout}\n${stderr}`));
    }, boundMs);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr, ms: Date.now() - started });
    });
  });
}

const suite = (args, boundMs = 180_000) => run([path.join(ROOT, 'scripts/lib/suite.mjs'), ...args], { boundMs });

/**
 * JUnit totals and test cases: `{tests, failures, cases: [{name, failure}]}`. Playwright writes
 * a thrown error (not an `expect`) as `<error>`: both count as the case failing.
 */
async function junit(file) {
  const xml = await readFile(file, 'utf8');
  const head = xml.match(/<testsuites\b[^>]*>/)[0];
  const n = (k) => Number(head.match(new RegExp(`\\b${k}="(\\d+)"`))[1]);
  const cases = [...xml.matchAll(/<testcase name="([^"]*)"[^>]*?(?:\/>|>([\s\S]*?)<\/testcase>)/g)].map((m) => ({ name: m[1], failure: m[2]?.match(/<(?:failure|error)\b[^>]*message="([^"]*)"/)?.[1] ?? null }));
  return { tests: n('tests'), failures: n('failures') + n('errors'), cases };
}

/** The HTML attachments the HTML report keeps (html/data/*.html), as text. */
async function reportAttachments(htmlDir) {
  const data = path.join(htmlDir, 'data');
  const names = (await readdir(data).catch(() => [])).filter((f) => f.endsWith('.html'));
  return Promise.all(names.map((f) => readFile(path.join(data, f), 'utf8')));
}

const FLOW_NAMES = ['Add a todo', 'Tick and filter', 'Sign in', 'Sign in and check'];
const figures = {};
const load = () => loadavg().map((l) => l.toFixed(2)).join(' ');

test('a glob of flows on 2 workers: one test per flow, JUnit and one HTML report with each Sightline report attached', async () => {
  const out = path.join(OUT, 'two-workers');
  const loadBefore = load();
  const { code, stdout, stderr, ms } = await suite([SUITE, '--workers', '2', '--out', out]);
  figures.twoWorkers = { ms, load: `${loadBefore} → ${load()}` };
  assert.equal(code, 0, stdout + stderr);
  assert.match(stdout, /Running 4 tests using 2 workers/);
  const { tests, failures, cases } = await junit(path.join(out, 'junit.xml'));
  assert.deepEqual([tests, failures], [4, 0]);
  assert.deepEqual(cases.map((c) => c.name).sort(), ['sign-in-check.yaml', 'sign-in.yaml', 'todo-add.yaml', 'todo-filter.yaml'].map((f) => `tests/fixtures/suite-${f}`));
  const reports = await reportAttachments(path.join(out, 'html'));
  for (const name of FLOW_NAMES) assert.ok(reports.some((r) => r.includes(name)), `a Sightline report of “${name}” is in the HTML report`);
  assert.ok((await stat(path.join(out, 'html', 'index.html'))).size > 0);
  assert.ok(mock.requests.some((r) => /Signed in as ada \(password/.test(userMessage(r.body).text)), 'the assertion went to the model from the environment');
});

test('the same suite on 1 worker (the time beside 2 workers)', async () => {
  const out = path.join(OUT, 'one-worker');
  const loadBefore = load();
  const { code, stdout, stderr, ms } = await suite([SUITE, '--workers', '1', '--out', out]);
  figures.oneWorker = { ms, load: `${loadBefore} → ${load()}` };
  assert.equal(code, 0, stdout + stderr);
  assert.match(stdout, /Running 4 tests using 1 worker/);
  assert.deepEqual((await junit(path.join(out, 'junit.xml'))).tests, 4);
});

test('two shards in two concurrent processes, merged: all flows in one JUnit and one HTML report; a failing flow is retried and fails its shard and the merge', async () => {
  const shard = (i) => suite([SUITE, FAILING, '--shard', `${i}/2`, '--retries', '1', '--out', path.join(OUT, `shard-${i}`)]);
  const asked = () => mock.requests.filter((r) => /the page says "Signed in as grace"/.test(userMessage(r.body).text)).length;
  const askedBefore = asked();
  const loadBefore = load();
  const started = Date.now();
  const results = await Promise.all([shard(1), shard(2)]);
  figures.shards = { ms: results.map((r) => r.ms), wallMs: Date.now() - started, load: `${loadBefore} → ${load()}` };
  for (const r of results) assert.match(r.stdout, /Running \d tests using 1 worker, shard \d of 2/, r.stdout + r.stderr);
  assert.deepEqual(results.map((r) => r.code).sort(), [0, 1], 'the shard with the failing flow exits 1, the other 0');
  assert.match(results.find((r) => r.code === 1).stdout, /Retry #1/);
  assert.equal(asked() - askedBefore, 2, 'the failing flow ran twice (--retries 1)');
  const blobs = await Promise.all([1, 2].map((i) => readdir(path.join(OUT, `shard-${i}`, 'blob'))));
  assert.deepEqual(blobs, [['report-1.zip'], ['report-2.zip']], 'each process kept its own blob report');

  const merged = path.join(OUT, 'merged');
  const m = await suite(['merge', path.join(OUT, 'shard-1'), path.join(OUT, 'shard-2'), '--out', merged], 60_000);
  assert.equal(m.code, 1, m.stdout + m.stderr);
  assert.match(m.stdout, /merged 2 blob reports: 5 flows, 1 failed/);
  const { tests, failures, cases } = await junit(path.join(merged, 'junit.xml'));
  assert.deepEqual([tests, failures], [5, 1]);
  assert.equal(cases.length, 5);
  const failed = cases.filter((c) => c.failure);
  assert.deepEqual(failed.map((c) => c.name), [FAILING]);
  assert.match(failed[0].failure, /^assertion_failed: aiAssert .*: assertion failed: the page says &quot;Signed in as ada&quot;$/);
  const reports = await reportAttachments(path.join(merged, 'html'));
  for (const name of [...FLOW_NAMES, 'Wrong user']) assert.ok(reports.some((r) => r.includes(name)), `the merged HTML report holds the Sightline report of “${name}”`);
});

test('the fixture: a spec calls aiInput, aiTap, aiQuery and aiAssert as Playwright steps; a failed assertion fails its test with the code; tests do not share site data', async () => {
  const json = path.join(OUT, 'fixture.json');
  const { code, stdout, stderr } = await run([CLI, 'test', '-c', 'tests/e2e/playwright/playwright.config.mjs', '--reporter=json', `--output=${path.join(OUT, 'fixture-results')}`], {
    boundMs: 90_000, extraEnv: { PLAYWRIGHT_JSON_OUTPUT_FILE: json }, midscene: true,
  });
  assert.equal(code, 0, stdout + stderr);
  const report = JSON.parse(await readFile(json, 'utf8'));
  const specs = report.suites.flatMap(function all(s) { return [...s.specs, ...(s.suites ?? []).flatMap(all)]; });
  const result = (title) => specs.find((s) => s.title.startsWith(title)).tests[0].results.at(-1);
  const passed = result('adds todos');
  assert.equal(passed.status, 'passed', JSON.stringify(passed.errors));
  const titles = passed.steps.map((s) => s.title);
  for (const t of ['aiInput "the \\"What needs to be done?\\" box"', 'aiKeyboardPress "Enter"', 'aiTap "the \\"Active\\" filter link"', 'aiQuery "the titles of the todos shown, as a list of strings"', 'aiAssert "one todo is shown"']) {
    assert.ok(titles.includes(t), `step ${t} in ${JSON.stringify(titles)}`);
  }
  const tap = passed.steps.find((s) => s.title.startsWith('aiTap'));
  assert.ok(tap.steps?.length >= 1, 'the Sightline steps of a call are nested in its step');
  const attached = passed.attachments.filter((a) => a.name.startsWith('sightline report') && a.contentType === 'text/html');
  assert.equal(attached.length, 7, 'a Sightline report per call: 2 aiInput, 2 aiKeyboardPress, aiTap, aiQuery, aiAssert');
  const fromMidsceneNames = mock.requests.filter((r) => r.headers.authorization === 'Bearer sk-midscene');
  assert.ok(fromMidsceneNames.length >= 4, 'the model came from MIDSCENE_MODEL_* (its key on every request)');
  const planned = result('ai plans');
  assert.equal(planned.status, 'passed', JSON.stringify(planned.errors));
  const flowStep = planned.steps.find((s) => s.title === 'runYaml');
  assert.deepEqual(flowStep.steps.map((s) => s.title.replace(/ \([\d.]+ s\)$/, '')).slice(0, 2), ['aiInput “buy milk” into “the "What needs to be done?" box”', 'aiKeyboardPress Enter'], 'each item of the flow is a step of runYaml');
  assert.ok(planned.steps.find((s) => s.title.startsWith('ai "add a todo')).steps.length >= 1, 'the steps of the planning loop are nested in ai');
  const failed = result('a failed assertion');
  assert.equal(failed.status, 'failed', 'test.fail(): the test failed as it should');
  assert.match(failed.errors[0].message, /assertion_failed: no kite on the list \(assertion failed: the todos shown are: none\)/);
  assert.equal(result('the next test on that site').status, 'passed', 'what a test stored is cleared before the next');
});

test('the fixture with a planning model from MIDSCENE_PLANNING_MODEL_*: ai plans with it, the model beside it', async () => {
  const planner = await startMockModel();
  planner.setFallback(answer);
  const requestsBefore = mock.requests.length;
  try {
    const json = path.join(OUT, 'fixture-planner.json');
    const { code, stdout, stderr } = await run([CLI, 'test', '-c', 'tests/e2e/playwright/playwright.config.mjs', '--grep', 'ai plans', '--reporter=json', `--output=${path.join(OUT, 'fixture-planner-results')}`], {
      boundMs: 90_000,
      midscene: true,
      extraEnv: { PLAYWRIGHT_JSON_OUTPUT_FILE: json, MIDSCENE_PLANNING_MODEL_BASE_URL: planner.baseUrl, MIDSCENE_PLANNING_MODEL_NAME: 'gpt-4.1', MIDSCENE_PLANNING_MODEL_API_KEY: 'sk-planner-env' },
    });
    assert.equal(code, 0, stdout + stderr);
    const system = (r) => messageText(r.body.messages.find((m) => m.role === 'system'));
    const planned = planner.requests.filter((r) => /A second model carries your actions out/.test(system(r)));
    assert.ok(planned.length >= 1, `the planner got the planning prompt (${planner.requests.length} requests)`);
    assert.equal(planned[0].headers.authorization, 'Bearer sk-planner-env');
    assert.equal(planned[0].body.model, 'gpt-4.1');
    assert.match(userMessage(planned[0].body).text, /add a todo "call grandma"/);
    assert.ok(!mock.requests.slice(requestsBefore).some((r) => /A second model/.test(system(r))), 'the model from MIDSCENE_MODEL_* did not plan');
  } finally {
    await planner.close();
  }
});

// A script's secret is bound to the sites its _SITES variable names (it used to be typed on any site).
test('scripts/suite and the fixture refuse a secret without its sites, naming the variable to set', async () => {
  const unsited = { SIGHTLINE_SECRET_PW: 'Suite-Held-Password-31' };
  const out = path.join(OUT, 'unsited');
  const r = await run([path.join(ROOT, 'scripts/lib/suite.mjs'), SUITE, '--out', out], { boundMs: 60_000, extraEnv: unsited });
  assert.equal(r.code, 2, r.stdout + r.stderr);
  assert.match(r.stderr, /scripts\/suite: refused before the run: SIGHTLINE_SECRET_PW is bound to no site, so Sightline would type it nowhere: set SIGHTLINE_SECRET_PW_SITES/);
  assert.doesNotMatch(r.stdout, /Running/, 'Playwright did not start');
  // The fixture, in a project's own Playwright run: the call fails before the run, saying so.
  const json = path.join(OUT, 'fixture-unsited.json');
  const f = await run([CLI, 'test', '-c', 'tests/e2e/playwright/playwright.config.mjs', '--grep', 'adds todos', '--reporter=json', `--output=${path.join(OUT, 'fixture-unsited-results')}`], {
    boundMs: 90_000, midscene: true, extraEnv: { ...unsited, PLAYWRIGHT_JSON_OUTPUT_FILE: json },
  });
  assert.equal(f.code, 1, f.stdout + f.stderr);
  const report = JSON.parse(await readFile(json, 'utf8'));
  const specs = report.suites.flatMap(function all(s) { return [...s.specs, ...(s.suites ?? []).flatMap(all)]; });
  const result = specs.find((s) => s.title.startsWith('adds todos')).tests[0].results.at(-1);
  assert.equal(result.status, 'failed');
  assert.match(result.errors[0].message, /SIGHTLINE_SECRET_PW is bound to no site.*set SIGHTLINE_SECRET_PW_SITES/);
  assert.doesNotMatch(JSON.stringify(report), /Suite-Held-Password-31/);
});

after(() => {
  const s = (ms) => `${(ms / 1000).toFixed(1)} s`;
  if (figures.oneWorker || figures.twoWorkers || figures.shards) {
    console.log(`suite of 4 flows: 1 worker ${figures.oneWorker ? `${s(figures.oneWorker.ms)} (load ${figures.oneWorker.load})` : '-'}; 2 workers ${figures.twoWorkers ? `${s(figures.twoWorkers.ms)} (load ${figures.twoWorkers.load})` : '-'}`);
    if (figures.shards) console.log(`2 shards of 5 flows, concurrent: ${figures.shards.ms.map(s).join(' and ')}, wall ${s(figures.shards.wallMs)} (load ${figures.shards.load})`);
  }
});
