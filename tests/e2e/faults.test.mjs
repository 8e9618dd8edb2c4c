// Model faults on the mock server, each in the middle of a run: the first round types a name,
// the second meets the fault. Each run recovers (a retry, or the model asked again with the
// problem) or ends with a readable error; either way the steps so far are kept and export.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { userMessage } from '../support/browser.mjs';
import { modelSuite } from '../support/suite.mjs';

let browser, mock, site;
const model = (m, extra = {}) => ({ provider: 'custom', baseUrl: m.baseUrl, model: 'mock-model', apiKey: 'sk-faults', family: 'generic', stream: false, maxRetries: 2, timeoutMs: 120_000, ...extra });
modelSuite((env) => ({ browser, mock, site } = env), { model });

const numberOf = (body, pattern) => Number(userMessage(body).text.split('\n').find((l) => /^\s*\[\d+\]/.test(l) && pattern.test(l))?.match(/\[(\d+)\]/)[1]);
const plan = (actions, done) => JSON.stringify({ thought: 'next', actions, done });
const typeName = (body) => plan([{ type: 'Input', target: numberOf(body, /input#name/), value: 'Grace' }], false);
const tapCount = (body) => plan([{ type: 'Tap', target: numberOf(body, /Count taps/) }], true);

/** Runs "type Grace, then count a tap" with `fault` as the second reply (then `after`). */
async function faultRun(fault, { after = [tapCount], settings = {} } = {}) {
  await browser.sw.evaluate((m) => self.sightline.setSettings({ model: m }), model(mock, settings));
  const page = await browser.context.newPage();
  await page.goto(site.url('/actions.html'));
  await page.waitForFunction(() => window.fixture);
  mock.script(typeName, ...[fault].flat(), ...after);
  const started = Date.now();
  const run = await browser.sw.evaluate((id) => self.sightline.act(id, 'type Grace as the name, then count a tap'), await browser.tabIdOf(page));
  const state = await page.evaluate(() => window.fixture.state());
  await page.close();
  // Whatever happened, the record holds the first round and exports.
  const typed = run.steps.find((s) => s.action.startsWith('Input'));
  assert.ok(typed && typed.status === 'ok', `the first round's step is kept: ${JSON.stringify(run.steps.map((s) => s.action))}`);
  const spec = await browser.sw.evaluate((id) => self.sightline.exportRun(id, 'playwright'), run.id);
  assert.match(spec, /Grace/, 'and exports');
  return { run, state, ms: Date.now() - started };
}

test('a timeout ends the run readably', async () => {
  const { run } = await faultRun({ delayMs: 5_000, content: 'late' }, { after: [], settings: { timeoutMs: 1_500 } });
  assert.equal(run.status, 'failed');
  assert.match(run.error.message, /the model did not answer within 1 s/);
});

test('a dropped connection is retried and the run goes on', async () => {
  const { run, state } = await faultRun({ reset: true });
  assert.equal(run.status, 'succeeded', run.error);
  assert.equal(state.taps, '1');
  // Asked again: by the bridge (its plan step notes it) or by Chromium itself, which resends
  // a request whose reused connection dropped.
  assert.equal(mock.requests.length, 3);
});

test('429 with Retry-After waits that long, then goes on', async () => {
  const { run, ms } = await faultRun({ status: 429, error: 'slow down', headers: { 'Retry-After': '2' } });
  assert.equal(run.status, 'succeeded', run.error);
  assert.ok(ms >= 2_000, `waited ${ms} ms`);
});

test('500 is retried; a server that keeps failing ends the run with its message', async () => {
  const once = await faultRun({ status: 500, error: 'upstream hiccup' });
  assert.equal(once.run.status, 'succeeded', once.run.error);
  const always = await faultRun(Array(3).fill({ status: 500, error: 'upstream is down' }), { after: [] });
  assert.equal(always.run.status, 'failed');
  assert.match(always.run.error.message, /HTTP 500: upstream is down \(gave up after 2 retries\)/);
});

test('a stream cut off midway is not acted on: it is asked again, and the plan step says so', async () => {
  // The broken answer taps too: had it been carried out as well, the count would be 2.
  const { run, state } = await faultRun((body) => ({ content: tapCount(body), truncateAfter: 2 }), { settings: { stream: true } });
  assert.equal(run.status, 'succeeded', run.error);
  assert.equal(state.taps, '1');
  assert.ok(run.steps.some((s) => /the answer was cut off.*tried again/.test(s.note ?? '')), JSON.stringify(run.steps.map((s) => s.note)));
});

test('a body that is not JSON ends the run with what the server said', async () => {
  const { run } = await faultRun({ rawBody: '<html><body>502 Bad Gateway</body></html>' }, { after: [] });
  assert.equal(run.status, 'failed');
  assert.match(run.error.message, /could not be read|502 Bad Gateway/);
});

test('garbage and wrong-schema replies are sent back with the problem, and the model recovers', async () => {
  const garbage = await faultRun('Sure! I would click the button now.');
  assert.equal(garbage.run.status, 'succeeded', garbage.run.error);
  assert.equal(garbage.state.taps, '1');
  const rejected = userMessage(mock.requests.at(-1).body).text;
  assert.match(rejected, /your reply was rejected/);

  const schema = await faultRun(JSON.stringify({ answer: 'tap it', confidence: 0.9 }));
  assert.equal(schema.run.status, 'succeeded', schema.run.error);
  assert.ok(schema.run.steps.some((s) => s.status === 'failed' && /could not read the model's reply/.test(s.error)), 'the bad reply is a failed step');
});

test('a made-up element id fails its step, goes back to the model, and the run recovers', async () => {
  const { run, state } = await faultRun(plan([{ type: 'Tap', target: 4242 }], true));
  assert.equal(run.status, 'succeeded', run.error);
  assert.equal(state.taps, '1');
  assert.ok(run.steps.some((s) => s.status === 'failed' && /4242/.test(s.error)));
});

test('coordinates off the screen (a grounding model) fail their step and the model is told', async () => {
  await browser.sw.evaluate((m) => self.sightline.setSettings({ model: m }), model(mock, { family: 'ui-tars-1.5' }));
  const page = await browser.context.newPage();
  await page.goto(site.url('/actions.html'));
  mock.script("Thought: the button.\nAction: click(start_box='(5000,5000)')", "Thought: nothing to do.\nAction: finished(content='ok')");
  const run = await browser.sw.evaluate((id) => self.sightline.act(id, 'count a tap'), await browser.tabIdOf(page));
  await page.close();
  const off = run.steps.find((s) => s.status === 'failed');
  assert.ok(off, JSON.stringify(run.steps.map((s) => [s.action, s.status, s.error])));
  assert.match(off.error, /5000 lies outside the image/);
  const second = JSON.stringify(mock.requests[1].body.messages.filter((m) => m.role !== 'system'));
  assert.ok(second.includes('your reply was rejected') && second.includes('lies outside the image'), 'the model hears of it');
  assert.equal(mock.requests.length, 2);
});
