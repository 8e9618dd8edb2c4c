// The model bridge in real Chromium against the mock server: Anthropic's own API, API tool
// calls, retries honouring Retry-After, a streamed answer shown live and stopped mid-way,
// usage estimated and priced, and the key kept out of pages, records and errors.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { todoPlanReply } from '../support/mock-model.mjs';
import { modelSuite } from '../support/suite.mjs';

let browser, mock, site;
const API_KEY = 'sk-test-bridge-0123456789abcdef';

modelSuite((env) => ({ browser, mock, site } = env));

async function configure(model = {}, extra = {}) {
  await browser.sw.evaluate(
    // The model path is under test: no replays from the cache.
    ([m, e]) => self.sightline.setSettings({ model: m, run: { useCache: false }, ...e }),
    [{ provider: 'custom', baseUrl: mock.baseUrl, model: 'mock-model', apiKey: API_KEY, family: 'generic', stream: false, maxRetries: 3, ...model }, extra],
  );
}

async function openTodo(tag) {
  const page = await browser.context.newPage();
  await page.goto(site.url(`/todo.html?bridge=${tag}`));
  await page.waitForSelector('.new-todo');
  return { page, tabId: await browser.tabIdOf(page) };
}

const act = (tabId, text) => browser.sw.evaluate(([id, t]) => self.sightline.act(id, t), [tabId, text]);
const titles = (page) => page.evaluate(() => window.todoApp.items().map((i) => i.title));

for (const stream of [false, true]) {
  test(`Anthropic Messages API natively (${stream ? 'streamed' : 'JSON'})`, async () => {
    await configure({ provider: 'anthropic', stream });
    const { page, tabId } = await openTodo(`anthropic-${stream}`);
    mock.script(todoPlanReply());
    const run = await act(tabId, "add a todo 'buy milk'");
    assert.equal(run.status, 'succeeded', run.error);
    assert.deepEqual(await titles(page), ['buy milk']);
    const [req] = mock.requests;
    assert.equal(req.path, '/v1/messages');
    assert.equal(req.headers['x-api-key'], API_KEY);
    assert.equal(req.headers['anthropic-version'], '2023-06-01');
    assert.equal(req.headers.authorization, undefined);
    assert.match(req.body.system, /You operate a web page/);
    assert.ok(req.body.messages.every((m) => m.role !== 'system'));
    const image = req.body.messages[0].content.find((b) => b.type === 'image');
    assert.equal(image.source.type, 'base64');
    assert.equal(image.source.media_type, 'image/png');
    assert.ok(run.usage.promptTokens > 0 && !run.usage.estimated);
    await page.close();
  });
}

for (const stream of [false, true]) {
  test(`function calling through the API's tools field (${stream ? 'streamed' : 'JSON'})`, async () => {
    await configure({ family: 'function-calling', stream });
    const { page, tabId } = await openTodo(`tools-${stream}`);
    const { elements } = await browser.sw.evaluate((id) => self.sightline.extract(id), tabId);
    const input = elements.find((e) => e.tag === 'input' && e.attributes.some(([k, v]) => k === 'placeholder' && /What needs/.test(v)));
    mock.script(
      { content: 'I will type into the input.', toolCalls: [{ name: 'input', arguments: { target: input.index, value: 'buy milk' } }, { name: 'key', arguments: { key: 'Enter' } }] },
      { toolCalls: [{ name: 'finished', arguments: { text: 'added' } }] },
    );
    const run = await act(tabId, "add a todo 'buy milk'");
    assert.equal(run.status, 'succeeded', run.error);
    assert.deepEqual(await titles(page), ['buy milk']);
    const tools = mock.requests[0].body.tools;
    assert.deepEqual(tools.map((t) => t.function.name), [
      'tap', 'double_click', 'right_click', 'hover', 'input', 'select_option', 'key', 'scroll', 'scroll_to', 'drag', 'upload', 'wait',
      'navigate', 'back', 'forward', 'reload', 'open_tab', 'switch_tab', 'close_tab', 'remember', 'finished', 'ask_user',
    ], 'the whole action set, in the tools field');
    assert.equal(run.steps[0].thought, 'I will type into the input.');
    await page.close();
  });
}

test('429 and 503 are retried, honouring Retry-After, and the plan step says so', async () => {
  await configure();
  const { page, tabId } = await openTodo('retry');
  mock.script(
    { status: 429, error: 'rate limited', headers: { 'Retry-After': '1' } },
    { status: 503, error: 'overloaded' },
    todoPlanReply(),
  );
  const run = await act(tabId, "add a todo 'buy milk'");
  assert.equal(run.status, 'succeeded', run.error);
  assert.deepEqual(await titles(page), ['buy milk']);
  const [a, b, c] = mock.requests.map((r) => r.receivedAt);
  assert.ok(b - a >= 950, `waited ${b - a} ms for Retry-After: 1`);
  assert.ok(c - b >= 1900, `waited ${c - b} ms: the second backoff`);
  assert.match(run.steps[0].note, /HTTP 429: rate limited; tried again after 1\.0 s.*HTTP 503: overloaded/);
  await page.close();
});

test('errors that retrying cannot fix fail at once, readably, without the key', async () => {
  await configure({ maxRetries: 3 });
  const { page, tabId } = await openTodo('bad-key');
  mock.script((body, req) => ({ status: 401, error: `Incorrect API key provided: ${req.headers.authorization.replace('Bearer ', '')}` }));
  const run = await act(tabId, "add a todo 'buy milk'");
  assert.equal(run.status, 'failed');
  assert.equal(mock.requests.length, 1, 'no retry after 401');
  assert.match(run.error.message, /HTTP 401: Incorrect API key provided: \[API key\]/);
  const stored = await browser.sw.evaluate(async (id) => [await self.sightline.runs(), await self.sightline.run(id)], run.id);
  assert.ok(!JSON.stringify(stored).includes(API_KEY), 'no record holds the key');
  assert.ok(!JSON.stringify(run).includes(API_KEY));
  await page.close();
});

test('the key is out of reach of content scripts and pages', async () => {
  await configure();
  const { page, tabId } = await openTodo('isolation');
  // The content scripts' own world: the extension's isolated world on the page.
  const [{ result }] = await browser.sw.evaluate((id) => chrome.scripting.executeScript({
    target: { tabId: id },
    func: () => chrome.storage.local.get('settings').then((s) => JSON.stringify(s), (e) => `refused: ${e.message}`),
  }), tabId);
  assert.ok(!result.includes(API_KEY), 'content-script world cannot read the key');
  assert.match(result, /refused|undefined|^\{\}$/);
  const html = await page.content();
  assert.ok(!html.includes(API_KEY));
  // The panel's settings view shows only a mask.
  const panel = await browser.openPanel(tabId);
  const shown = await panel.evaluate(() => chrome.runtime.sendMessage({ type: 'sightline/settings' }));
  assert.equal(shown.settings.model.apiKey, '');
  assert.equal(shown.settings.model.apiKeyMask, 'sk-••••cdef');
  await Promise.all([panel.close(), page.close()]);
});

test('a streamed answer shows in the panel as it arrives, and Stop aborts it', async () => {
  await configure({ stream: true });
  const { page, tabId } = await openTodo('stream-stop');
  const panel = await browser.openPanel(tabId);
  mock.script({ content: '{"thought": "I am thinking slowly about this page", "actions": [], "done": true}', chunkDelayMs: 1500 });
  await panel.fill('#instruction', "add a todo 'buy milk'");
  await panel.click('#run-button');
  await panel.waitForSelector('#live-text:not([hidden])', { timeout: 10_000 });
  const partial = await panel.textContent('#live-text');
  assert.ok(partial.startsWith('{"thought"') && partial.length < 70, `partial answer shown: ${partial}`);
  const t0 = Date.now();
  await panel.click('#stop');
  await panel.waitForSelector('#run-status.stopped', { timeout: 5_000 });
  assert.ok(Date.now() - t0 < 3000, 'Stop ends the request at once, not after the stream');
  assert.ok(await panel.isHidden('#live-text'));
  assert.deepEqual(await titles(page), []);
  await Promise.all([panel.close(), page.close()]);
});

test('usage is estimated when the server sends none, and priced from the edited table', async () => {
  await configure({}, { prices: [{ model: 'mock-*', input: 1000, output: 2000 }] });
  const { page, tabId } = await openTodo('usage');
  const plan = todoPlanReply();
  mock.script((body) => ({ content: plan(body), usage: null }));
  const run = await act(tabId, "add a todo 'buy milk'");
  assert.equal(run.status, 'succeeded', run.error);
  assert.equal(run.usage.estimated, true);
  // The screenshot alone is 1280×800: by OpenAI's tile rule 85 + 170 × 4 tokens.
  assert.ok(run.usage.promptTokens > 765, `${run.usage.promptTokens}`);
  const expected = (run.usage.promptTokens * 1000 + run.usage.completionTokens * 2000) / 1e6;
  assert.ok(Math.abs(run.cost - expected) < 1e-9, `${run.cost} vs ${expected}`);
  const panel = await browser.openPanel(tabId);
  await panel.waitForSelector('#run-totals');
  assert.match(await panel.textContent('#run-totals'), /tokens: ≈\d+ · ≈\$\d/);
  await Promise.all([panel.close(), page.close()]);
});

test('Test connection in Settings: the reply, or what is wrong', async () => {
  await configure({ provider: 'openai', baseUrl: mock.baseUrl });
  mock.script('OK');
  const ok = await browser.sw.evaluate(() => self.sightline.checkModel());
  assert.equal(ok.reply, 'OK');
  assert.equal(mock.requests[0].body.max_tokens, 16);
  const options = await browser.context.newPage();
  await options.goto(`chrome-extension://${browser.extensionId}/options/options.html`);
  await options.waitForFunction(() => document.querySelector('#provider').options.length > 5);
  await options.locator('#apiKey[placeholder]:not([placeholder=""])').waitFor(); // filled from the settings
  // Picking a preset fills its base URL and family.
  await options.selectOption('#provider', 'dashscope');
  assert.equal(await options.inputValue('#baseUrl'), 'https://dashscope.aliyuncs.com/compatible-mode/v1');
  assert.equal(await options.inputValue('#family'), 'qwen3-vl');
  // A dead endpoint: a readable error in the page.
  await options.selectOption('#provider', 'custom');
  await options.fill('#baseUrl', 'http://127.0.0.1:9/v1');
  await options.fill('#apiKey', 'sk-typed-for-the-dead-one'); // the saved key is for the mock's address only
  await options.click('details:has(#maxRetries) > summary'); // the request limits are folded away
  await options.fill('#maxRetries', '0');
  await options.click('#check');
  await options.waitForSelector('#checkResult.bad', { timeout: 15_000 });
  assert.match(await options.textContent('#checkResult'), /could not reach the model endpoint/);
  // A broken price table is not saved, and the line is named.
  await options.fill('#prices', 'mock-model 1 2\nbroken-line 3\n');
  await options.click('button[type=submit]');
  await options.waitForFunction(() => document.querySelector('#pricesError').textContent !== '');
  assert.match(await options.textContent('#pricesError'), /line 2/);
  await options.close();
});
