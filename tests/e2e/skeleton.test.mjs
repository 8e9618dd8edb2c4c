// One instruction end to end in real Chromium: panel → service worker → screenshot (CDP) →
// description (content-script WASM, or CDP on strict-CSP pages) → mock model → parse →
// trusted CDP input → the page changed.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { userMessage } from '../support/browser.mjs';
import { todoPlanReply } from '../support/mock-model.mjs';
import { modelSuite } from '../support/suite.mjs';

let browser, mock, site;
const API_KEY = 'sk-test-skeleton-0123456789';

modelSuite((env) => ({ browser, mock, site } = env), {
  model: (m) => ({ baseUrl: m.baseUrl, model: 'mock-model', apiKey: API_KEY, family: 'generic' }),
});

async function openTodo(pathname) {
  const page = await browser.context.newPage();
  await page.goto(site.url(pathname));
  await page.waitForSelector('.new-todo');
  return { page, tabId: await browser.tabIdOf(page) };
}

const titles = (page) => page.evaluate(() => window.todoApp.items().map((i) => i.title));

test('a person adds a todo from the side panel', async () => {
  const { page, tabId } = await openTodo('/todo.html?case=panel');
  mock.script(todoPlanReply());
  const panel = await browser.openPanel(tabId);
  await panel.waitForFunction(() => document.getElementById('target-title').textContent.includes('todos'));
  await panel.fill('#instruction', 'add a todo ‘buy milk’');
  await panel.click('button[type=submit]');

  await panel.waitForSelector('#run-status.succeeded', { timeout: 30_000 });
  assert.deepEqual(await titles(page), ['buy milk']);

  const steps = await panel.$$eval('#steps .step .what', (els) => els.map((e) => e.textContent));
  assert.equal(steps.length, 4, steps.join('\n'));
  assert.match(steps[0], /^Plan: 2 action/);
  assert.match(steps[1], /^Input "buy milk" into \[\d+\]$/);
  assert.equal(steps[2], 'Press Enter');
  assert.equal(steps[3], 'Check: the goal is shown');
  await panel.screenshot({ path: 'out/e2e-panel-after-run.png', fullPage: true });
  const target = await panel.$eval('#steps .step:nth-child(2) .target-el', (e) => e.textContent);
  assert.match(target, /input "New todo"/);

  assert.equal(mock.requests.length, 1);
  const request = mock.requests[0];
  assert.equal(request.headers.authorization, `Bearer ${API_KEY}`);
  const { text, images } = userMessage(request.body);
  assert.match(text, /add a todo ‘buy milk’/, 'carries the instruction');
  assert.match(text, /\[\d+\] input\.new-todo [^\n]*placeholder="What needs to be done\?"/, 'carries the description');
  assert.equal(images.length, 1, 'carries one screenshot');
  assert.match(images[0], /^data:image\/png;base64,iVBOR/);
  await panel.close();
  await page.close();
});

test('the same instruction works on a strict-CSP page through the CDP path', async () => {
  const { page, tabId } = await openTodo('/strict/todo.html');
  const extraction = await browser.sw.evaluate((id) => self.sightline.extract(id), tabId);
  assert.equal(extraction.source, 'cdp', 'WebAssembly is refused in the content script here');
  assert.ok(extraction.elements.some((e) => e.attributes.some(([k, v]) => k === 'placeholder' && v === 'What needs to be done?')));

  mock.script(todoPlanReply());
  const run = await browser.sw.evaluate((id) => self.sightline.act(id, 'add a todo ‘buy milk’'), tabId);
  assert.equal(run.status, 'succeeded', run.error);
  assert.deepEqual(await titles(page), ['buy milk']);
  const { text, images } = userMessage(mock.requests[0].body);
  assert.match(text, /\[\d+\] input\.new-todo [^\n]*placeholder="What needs to be done\?"/);
  assert.equal(images.length, 1);
  await page.close();
});

test('content-script and CDP paths describe the same elements', async () => {
  const { page, tabId } = await openTodo('/todo.html?case=paths');
  await page.fill('.new-todo', 'first');
  await page.press('.new-todo', 'Enter');
  await page.fill('.new-todo', 'second');
  await page.press('.new-todo', 'Enter');
  const [live, cdp] = await browser.sw.evaluate(
    async (id) => [await self.sightline.extract(id), await self.sightline.extractViaCdp(id)],
    tabId,
  );
  assert.equal(live.source, 'content-script');
  assert.equal(cdp.source, 'cdp');
  const shape = (x) => x.elements.map((e) => `${e.index} ${e.kind} ${e.tag} ${e.content} ${Math.round(e.rect.x)},${Math.round(e.rect.y)} ${Math.round(e.rect.width)}x${Math.round(e.rect.height)}`);
  assert.deepEqual(shape(cdp), shape(live));
  assert.deepEqual(cdp.elements.map((e) => e.id), live.elements.map((e) => e.id), 'stable ids agree');
  await page.close();
});

test('a streamed (SSE) answer drives the run too', async () => {
  const { page, tabId } = await openTodo('/todo.html?case=sse');
  mock.script(todoPlanReply());
  const run = await browser.sw.evaluate(
    ([id, model]) => self.sightline.act(id, 'add a todo ‘stream it’', { model }),
    [tabId, { stream: true }],
  );
  assert.equal(run.status, 'succeeded', run.error);
  assert.equal(mock.requests[0].body.stream, true);
  assert.deepEqual(await titles(page), ['stream it']);
  await page.close();
});

test('a dead endpoint ends the run with a readable error and keeps the record', async () => {
  const { page, tabId } = await openTodo('/todo.html?case=dead');
  const run = await browser.sw.evaluate(
    // With its own key: the stored one goes only to the address it was entered for.
    (id) => self.sightline.act(id, 'add a todo ‘x’', { model: { baseUrl: 'http://127.0.0.1:9/v1', apiKey: 'sk-dead' } }),
    tabId,
  );
  assert.equal(run.status, 'failed');
  assert.match(run.error.message, /could not reach the model endpoint/);
  const stored = await browser.sw.evaluate(() => self.sightline.runs());
  assert.ok(stored.some((r) => r.id === run.id && r.status === 'failed'));
  await page.close();
});

test('pages Chrome keeps off limits get a plain message', async () => {
  const page = await browser.context.newPage();
  await page.goto('chrome://version');
  const tabId = await browser.sw.evaluate(async () => (await chrome.tabs.query({})).find((t) => t.url.startsWith('chrome://version'))?.id);
  const error = await browser.sw.evaluate((id) => self.sightline.act(id, 'click').then(() => null, (e) => e.message), tabId);
  assert.match(error, /cannot work on chrome:\/\/version.*Chrome does not let extensions act on its own pages/);
  await page.close();
});

test('Stop in the panel aborts the model request and ends the run as stopped', async () => {
  const { page, tabId } = await openTodo('/todo.html?case=stop');
  mock.script({ delayMs: 10_000, content: '{"actions":[{"type":"KeyPress","key":"Enter"}],"done":true}' });
  const panel = await browser.openPanel(tabId);
  await panel.fill('#instruction', 'add a todo ‘never’');
  await panel.click('#run-button');
  await panel.waitForSelector('#run-status.running');
  await panel.waitForFunction(() => !document.getElementById('stop').disabled);
  const started = Date.now();
  await panel.click('#stop');
  await panel.waitForSelector('#run-status.stopped', { timeout: 5_000 });
  await panel.screenshot({ path: 'out/panel-stopped.png', fullPage: true });
  assert.ok(Date.now() - started < 5_000, 'the pending request did not hold the run');
  assert.deepEqual(await titles(page), []);
  const [run] = await browser.sw.evaluate(() => self.sightline.runs());
  assert.equal(run.status, 'stopped');
  await panel.close();
  await page.close();
});
