// Every single AI task in real Chromium on a fixture page, each proven by page state: the
// mock model names the element (found by the test in the same extraction the model sees)
// or answers the query, and the page must show the effect.
import { test, beforeEach } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { userMessage } from '../support/browser.mjs';
import { modelSuite } from '../support/suite.mjs';

let browser, mock, site, page, tabId;

// Each test proves the model path; the cache has its own test, which switches it on.
modelSuite((env) => ({ browser, mock, site } = env), {
  model: (m) => ({ provider: 'custom', baseUrl: m.baseUrl, model: 'mock-model', apiKey: 'sk-test-tasks', family: 'generic', stream: false }),
});

let opened = 0;
beforeEach(async () => {
  await page?.close();
  page = await browser.context.newPage();
  await page.goto(site.url(`/actions.html?n=${++opened}`));
  await page.waitForFunction(() => window.fixture);
  tabId = await browser.tabIdOf(page);
});

const state = () => page.evaluate(() => window.fixture.state());
const call = (name, ...args) => browser.sw.evaluate(([n, id, a]) => self.sightline[n](id, ...a), [name, tabId, args]);

/**
 * A reply function that finds the element whose content (or a attribute) matches, in the
 * element list the request carries, and names its number: the model's part, played honestly.
 */
function names(pattern) {
  return (body) => {
    const { text } = userMessage(body);
    const line = text.split('\n').find((l) => /^\s*\[\d+\]/.test(l) && pattern.test(l));
    if (!line) return JSON.stringify({ element: null, error: `no line matches ${pattern}` });
    return JSON.stringify({ thought: `found ${pattern}`, element: Number(line.match(/\[(\d+)\]/)[1]) });
  };
}

test('aiTap, aiDoubleClick, aiRightClick and aiHover each reach their element', async () => {
  mock.script(names(/Count taps/), names(/Double-click me/), names(/Right-click me/), names(/Hover me/));
  await call('aiTap', 'the Count taps button');
  await call('aiDoubleClick', 'the box saying double-click me');
  await call('aiRightClick', 'the right-click box');
  await call('aiHover', 'the hover box');
  const s = await state();
  assert.deepEqual([s.taps, s.dbls, s.ctxs, s.hovered], ['1', '1', '1', 'hovered']);
  assert.equal(mock.requests.length, 4);
  assert.match(userMessage(mock.requests[0].body).text, /<element>\nthe Count taps button\n<\/element>/);
});

test('aiInput replaces, appends and clears', async () => {
  const field = names(/input .*Ada|input .*id="name"|\binput\b/);
  mock.script(field, field, field);
  await call('aiInput', 'the name field', 'Grace');
  assert.equal((await state()).name, 'Grace');
  await call('aiInput', 'the name field', ' Hopper', { mode: 'append' });
  assert.equal((await state()).name, 'Grace Hopper');
  await call('aiInput', 'the name field', '', { mode: 'clear' });
  assert.equal((await state()).name, '');
});

test('aiKeyboardPress sends a combination to the focused element', async () => {
  mock.script(names(/\binput\b/));
  await call('aiKeyboardPress', 'Control+A', { locate: 'the name field' });
  await call('aiKeyboardPress', 'Backspace');
  assert.equal((await state()).name, '');
  assert.equal(mock.requests.length, 1, 'a key without a target needs no model');
});

test('aiUpload answers the file chooser a button opens; a click that opens none says so', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'sightline-upload-'));
  const files = [join(dir, 'a.txt'), join(dir, 'b.txt')];
  writeFileSync(files[0], 'hello');
  writeFileSync(files[1], 'world');
  mock.script(names(/Attach files/), names(/Count taps/));
  await call('aiUpload', 'the attach button', files);
  assert.equal((await state()).attached, 'a.txt (hello), b.txt (world)');
  await assert.rejects(call('aiUpload', 'the count button', files[0]), /opened no file chooser/);
  assert.equal((await state()).taps, '1', 'it was clicked, and nothing else happened');
  rmSync(dir, { recursive: true, force: true });
});

test('aiDrag moves from one element to another', async () => {
  mock.script(names(/Drag me/), names(/Drop here/));
  await call('aiDrag', 'the yellow item', 'the drop zone');
  assert.equal((await state()).dropped, 'dropped in the zone');
});

test('aiScroll: once on the page, and to the end inside an element', async () => {
  await call('aiScroll', { direction: 'down', distance: 300 });
  assert.ok(Math.abs((await state()).pageY - 300) < 2, 'page scrolled by the distance');
  await page.evaluate(() => scrollTo(0, 0));
  mock.script(names(/Number 1\b/));
  await call('aiScroll', { locate: 'the list of numbers', direction: 'down', scrollType: 'untilEdge' });
  const s = await state();
  assert.equal(s.listTop, s.listMax, 'the list is at its bottom');
});

test('an element below the fold is scrolled into view, then tapped', async () => {
  mock.script(names(/Far away button/));
  const run = await browser.sw.evaluate(([id]) => self.sightline.ai(id, { type: 'aiTap', locate: 'the far away button' }), [tabId]);
  assert.equal(run.status, 'succeeded', run.error);
  assert.equal((await state()).farTaps, '1');
  assert.match(run.steps[0].note, /scrolled into view/);
});

test('aiLocate returns the element and its box', async () => {
  mock.script(names(/Count taps/));
  const where = await call('aiLocate', 'the Count taps button');
  const box = await page.evaluate(() => JSON.parse(JSON.stringify(document.getElementById('tap').getBoundingClientRect())));
  assert.equal(where.element.summary.includes('Count taps'), true);
  assert.ok(Math.abs(where.rect.x - box.x) < 1 && Math.abs(where.rect.width - box.width) < 1);
});

test('queries: aiQuery, aiNumber, aiBoolean, aiString, aiAsk return typed answers', async () => {
  mock.script(
    (body) => {
      const { text } = userMessage(body);
      assert.match(text, /"name": "string"/);
      const fruit = [...text.matchAll(/"(Apple|Banana|Cherry) — \$([\d.]+)"/g)].map((m) => ({ name: m[1], price: Number(m[2]) }));
      return JSON.stringify({ thought: 'the fruit list', data: fruit });
    },
    '{"data": "3"}',
    '{"data": "yes"}',
    '{"data": "Cherry"}',
    '{"data": "Cherry costs the most."}',
  );
  const fruit = await call('aiQuery', [{ name: 'string', price: 'number' }]);
  assert.deepEqual(fruit, [{ name: 'Apple', price: 1.2 }, { name: 'Banana', price: 0.5 }, { name: 'Cherry', price: 4 }]);
  assert.equal(await call('aiNumber', 'how many fruits are listed?'), 3);
  assert.equal(await call('aiBoolean', 'is there a banana?'), true);
  assert.equal(await call('aiString', 'the most expensive fruit'), 'Cherry');
  assert.equal(await call('aiAsk', 'which fruit costs the most?'), 'Cherry costs the most.');
});

test('aiAssert passes, and fails with the reason', async () => {
  mock.script('{"pass": true, "reason": "three fruits are listed"}', '{"pass": false, "reason": "only three fruits"}');
  assert.deepEqual(await call('aiAssert', 'three fruits are listed'), { pass: true, reason: 'three fruits are listed' });
  await assert.rejects(call('aiAssert', 'four fruits are listed'), /assertion failed: only three fruits/);
});

test('aiWaitFor polls until the page shows it', async () => {
  await page.click('#load');
  mock.setFallback((body) => {
    const ready = /Report ready/.test(userMessage(body).text);
    return JSON.stringify({ pass: ready, reason: ready ? 'the report is ready' : 'still loading' });
  });
  const started = Date.now();
  const verdict = await call('aiWaitFor', 'the report is ready', { intervalMs: 400, timeoutMs: 10_000 });
  assert.equal(verdict.pass, true);
  assert.ok(mock.requests.length >= 2, 'asked more than once');
  assert.ok(Date.now() - started >= 1000);
  mock.setFallback('{"pass": false, "reason": "never"}');
  await assert.rejects(call('aiWaitFor', 'pigs fly', { intervalMs: 300, timeoutMs: 1000 }), /still does not hold: never/);
});

test('the panel runs a task and shows its answer', async () => {
  mock.script('{"data": 3}');
  const panel = await browser.openPanel(tabId);
  await panel.selectOption('#task-type', 'aiNumber');
  await panel.fill('#instruction', 'how many fruits are listed?');
  await panel.click('#run-button');
  await panel.waitForSelector('#run-status.succeeded', { timeout: 15_000 });
  assert.equal((await panel.textContent('#run-result')).trim(), '3');
  assert.match(await panel.textContent('#run-instruction'), /aiNumber/);
  await panel.close();
});

test('ask_user: the panel shows the question and the answer continues the run', async () => {
  mock.script(
    '{"thought": "I need the name", "actions": [{"type": "AskUser", "question": "What name should I type?"}], "done": false}',
    (body) => {
      const { text } = userMessage(body);
      const answer = text.match(/they answered "([^"]*)"/)?.[1];
      const line = text.split('\n').find((l) => /^\s*\[\d+\] input/.test(l));
      const target = Number(line.match(/\[(\d+)\]/)[1]);
      return JSON.stringify({ thought: 'type it', actions: [{ type: 'Input', target, value: answer ?? 'NO ANSWER' }], done: true });
    },
  );
  const panel = await browser.openPanel(tabId);
  await panel.fill('#instruction', 'type my name into the name field');
  await panel.click('#run-button');
  await panel.waitForSelector('#question-form:not([hidden])', { timeout: 15_000 });
  assert.equal(await panel.textContent('#question-text'), 'The model asks: What name should I type?');
  await panel.fill('#answer', 'Grace');
  await panel.click('#question-form button[type=submit]');
  await panel.waitForSelector('#run-status.succeeded', { timeout: 15_000 });
  assert.equal((await state()).name, 'Grace');
  assert.ok(await panel.isHidden('#question-form'));
  await panel.close();
});

test('after an action the run waits for the network, and follows navigations and new tabs', async () => {
  mock.script(names(/Fetch prices/));
  const fetched = await browser.sw.evaluate(([id]) => self.sightline.ai(id, { type: 'aiTap', locate: 'Fetch prices' }), [tabId]);
  assert.equal(fetched.status, 'succeeded', fetched.error);
  // No DOM change for 1.2 s after the click: the DOM-quiet wait alone would have returned.
  assert.equal((await state()).fetched, 'slow answer after 1200 ms');

  mock.script(names(/Open the todo list in a new tab/));
  const opened = await browser.sw.evaluate(([id]) => self.sightline.ai(id, { type: 'aiTap', locate: 'the new-tab link' }), [tabId]);
  assert.equal(opened.status, 'succeeded', opened.error);
  assert.match(opened.steps[1].note, /followed the new tab it opened: .*todo\.html\?from=actions/);
  assert.notEqual(opened.tabId, tabId, 'the record names the tab the run moved to');

  mock.script(names(/Go to the todo list/));
  const went = await browser.sw.evaluate(([id]) => self.sightline.ai(id, { type: 'aiTap', locate: 'the todo list link' }), [tabId]);
  assert.equal(went.status, 'succeeded', went.error);
  assert.match(went.steps[1].note, /the page navigated to .*todo\.html\?same=1/);
  await page.waitForURL(/todo\.html\?same=1/);
  for (const p of browser.context.pages()) if (/from=actions/.test(p.url())) await p.close();
});

test('the cache: a repeated task and a repeated instruction reach the model zero times; export and import', async () => {
  await browser.sw.evaluate(() => self.sightline.setSettings({ run: { useCache: true } }));
  await browser.sw.evaluate(() => self.sightline.clearCache());
  mock.script(names(/Count taps/));
  await call('aiTap', 'the Count taps button');
  assert.equal(mock.requests.length, 1);
  await call('aiTap', 'the  count taps button'); // case and spacing do not matter
  assert.equal(mock.requests.length, 1, 'the second tap came from the cache');
  assert.equal((await state()).taps, '2');

  // A plan: type a name, replayed on a fresh load of the page.
  mock.script((body) => {
    const line = userMessage(body).text.split('\n').find((l) => /^\s*\[\d+\] input/.test(l));
    return JSON.stringify({ thought: 'type', actions: [{ type: 'Input', target: Number(line.match(/\[(\d+)\]/)[1]), value: 'Grace' }], done: true });
  });
  const first = await browser.sw.evaluate(([id]) => self.sightline.act(id, 'type Grace into the name field'), [tabId]);
  assert.equal(first.status, 'succeeded', first.error);
  await page.reload();
  await page.waitForFunction(() => window.fixture);
  const replay = await browser.sw.evaluate(([id]) => self.sightline.act(id, 'type Grace into the name field'), [tabId]);
  assert.equal(replay.status, 'succeeded', replay.error);
  assert.equal(replay.modelCalls, 0);
  assert.equal((await state()).name, 'Grace');
  assert.equal(mock.requests.length, 2);

  // Export, clear, import: the cache comes back whole; a bad file is refused readably.
  const json = await browser.sw.evaluate(() => self.sightline.exportCache());
  assert.equal(JSON.parse(json).length, 2);
  assert.equal(await browser.sw.evaluate(() => self.sightline.clearCache()), 0);
  assert.equal(await browser.sw.evaluate((j) => self.sightline.importCache(j), json), 2);
  await assert.rejects(browser.sw.evaluate(() => self.sightline.importCache('{"hello": 1}')), /not a Sightline cache export/);
  await call('aiTap', 'the Count taps button');
  assert.equal(mock.requests.length, 2, 'the imported entry is used');
  mock.script(names(/Count taps/));
  await call('aiTap', 'the Count taps button', { useCache: false });
  assert.equal(mock.requests.length, 3, 'useCache: false asks the model');
  await browser.sw.evaluate(() => self.sightline.setSettings({ run: { useCache: false } }));
});

test('the cache keeps elements inside frames: a repeated tap in an iframe needs no model', async () => {
  await browser.sw.evaluate(() => self.sightline.setSettings({ run: { useCache: true } }));
  await browser.sw.evaluate(() => self.sightline.clearCache());
  await page.goto(site.url('/frames.html'));
  const frame = () => page.frames().find((f) => f.url().includes('frame-inner.html'));
  await page.waitForFunction(() => document.querySelector('#same').contentDocument?.querySelector('#inner-input'));
  mock.script(names(/Inside the frame/));
  await call('aiInput', 'the input inside the frame', 'first');
  assert.equal(await frame().evaluate(() => document.querySelector('#inner-input').value), 'first');
  assert.equal(mock.requests.length, 1);
  await page.reload();
  await page.waitForFunction(() => document.querySelector('#same').contentDocument?.querySelector('#inner-input'));
  const run = await browser.sw.evaluate(([id]) => self.sightline.ai(id, { type: 'aiInput', locate: 'the input inside the frame', value: 'again' }), [tabId]);
  assert.equal(run.status, 'succeeded', run.error);
  assert.equal(mock.requests.length, 1, 'the element in the frame came from the cache');
  assert.ok(run.steps[0].cached);
  assert.match(run.steps[0].target.xpath, /iframe/i, 'its XPath goes through the frame');
  assert.equal(await frame().evaluate(() => document.querySelector('#inner-input').value), 'again');
  await browser.sw.evaluate(() => self.sightline.setSettings({ run: { useCache: false } }));
});
