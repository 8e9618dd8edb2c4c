// The panel as a new user meets it: no model yet → Settings inside the panel → test the
// connection → save → run, with the timeline filling; the run outlives the panel; pages Chrome
// keeps off limits say so; the interface follows a chosen language. Screenshots of each state
// go to out/panel-*.png for a person to look at.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { launchWithExtension, userMessage } from '../support/browser.mjs';
import { core } from '../support/core-node.mjs';
import { todoPlanReply } from '../support/mock-model.mjs';
import { modelSuite } from '../support/suite.mjs';

let browser, mock, site;
modelSuite((env) => ({ browser, mock, site } = env));

const API_KEY = 'sk-typed-in-the-panel-7f3a9c';
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
/** The todo plan, answered after `ms`: long enough to see (and photograph) a running run. */
const slowPlan = (ms) => async (body) => {
  await sleep(ms);
  return todoPlanReply()(body);
};

async function openTodo(query) {
  const page = await browser.context.newPage();
  await page.goto(site.url(`/todo.html?${query}`));
  await page.waitForSelector('.new-todo');
  return { page, tabId: await browser.tabIdOf(page) };
}

test('a new user configures the model inside the panel, tests it, saves, and runs', async () => {
  await browser.sw.evaluate(() => self.sightline.setSettings({ model: { baseUrl: '', model: '', apiKey: '' }, run: { useCache: false } }));
  const { page, tabId } = await openTodo('case=configure');
  const panel = await browser.openPanel(tabId);
  await panel.waitForSelector('#notice:not([hidden])');
  assert.match(await panel.textContent('#notice'), /No model is configured yet/);
  await panel.screenshot({ path: 'out/panel-1-no-model.png', fullPage: true });

  await panel.click('#notice-settings');
  await panel.waitForSelector('#settings-view:not([hidden])');
  assert.equal(await panel.isHidden('#work-view'), true);
  assert.equal(await panel.textContent('#open-settings'), '← Back');
  const form = panel.frameLocator('#settings-frame');
  await form.locator('#provider option[value="custom"]').waitFor({ state: 'attached' });
  await form.locator('#provider').selectOption('custom');
  await form.locator('#baseUrl').fill(mock.baseUrl);
  await form.locator('#model').fill('mock-model');
  await form.locator('#apiKey').fill(API_KEY);
  await form.locator('#family').selectOption('generic');

  mock.script('OK');
  await form.locator('#check').click();
  await form.locator('#checkResult.ok').waitFor();
  assert.match(await form.locator('#checkResult').textContent(), /^Connected in \d+(\.\d)? m?s.*The model said: “OK”/);
  assert.equal(mock.requests[0].headers.authorization, `Bearer ${API_KEY}`, 'the test used the typed key');
  await panel.screenshot({ path: 'out/panel-2-settings-tested.png' });

  await form.locator('button[type=submit]').click();
  await form.locator('#status', { hasText: 'Saved.' }).waitFor();
  const stored = await browser.sw.evaluate(async () => (await self.sightline.getSettings()).model);
  assert.equal(stored.apiKey, API_KEY);
  assert.equal(stored.apiKeyFor, mock.baseUrl, 'the key is bound to the URL it was typed with');
  assert.equal(stored.baseUrl, mock.baseUrl);
  assert.equal(await form.locator('#apiKey').inputValue(), '', 'the saved key is not shown again');
  assert.equal(await form.locator('#apiKey').getAttribute('placeholder'), 'saved: sk-••••3a9c — type to replace');

  await panel.click('#open-settings');
  await panel.waitForSelector('#work-view:not([hidden])');
  await panel.waitForSelector('#notice', { state: 'hidden' });

  mock.reset();
  mock.script(slowPlan(1500));
  await panel.fill('#instruction', 'add a todo ‘buy milk’');
  await panel.click('#run-button');
  await panel.waitForSelector('#run-status.running');
  assert.equal(await panel.isDisabled('#run-button'), true, 'one run at a time');
  assert.equal(await panel.isEnabled('#stop'), true);
  await panel.screenshot({ path: 'out/panel-3-running.png', fullPage: true });
  await panel.waitForSelector('#run-status.succeeded', { timeout: 30_000 });
  const steps = await panel.$$eval('#steps .step .what', (els) => els.map((e) => e.textContent));
  assert.equal(steps.length, 4, steps.join('\n'));
  assert.equal(steps.at(-1), 'Check: the goal is shown', 'the page after "done" was checked');
  assert.match(await panel.textContent('#run-totals'), /^Model calls: 2 · tokens: \d+/, 'the plan and the check');
  assert.deepEqual(await page.evaluate(() => window.todoApp.items().map((i) => i.title)), ['buy milk']);
  await panel.screenshot({ path: 'out/panel-4-succeeded.png', fullPage: true });
  await panel.emulateMedia({ colorScheme: 'dark' });
  await panel.screenshot({ path: 'out/panel-4-succeeded-dark.png', fullPage: true });
  await Promise.all([panel.close(), page.close()]);
});

/** Width and height from a JPEG's start-of-frame segment. */
function jpegSize(dataUrl) {
  const b = Buffer.from(dataUrl.split(',')[1], 'base64');
  for (let i = 2; i < b.length;) {
    const marker = b[i + 1];
    if (marker >= 0xc0 && marker <= 0xc2) return { height: b.readUInt16BE(i + 5), width: b.readUInt16BE(i + 7) };
    i += 2 + b.readUInt16BE(i + 2);
  }
  return null;
}

test('what Settings says the model is sent is what it is sent; the history keeps N runs', async () => {
  const { page, tabId } = await openTodo('case=what-is-sent');
  const panel = await browser.openPanel(tabId);
  await panel.click('#open-settings');
  const form = panel.frameLocator('#settings-frame');
  await form.locator('#includeDescription').waitFor();
  await form.locator('#includeDescription').uncheck();
  await form.locator('#includeScreenshot').uncheck();
  await form.locator('button[type=submit]').click();
  await form.locator('#status', { hasText: 'Not saved: the model needs the description, the screenshot, or both.' }).waitFor();
  await form.locator('#includeScreenshot').check();
  await form.locator('#imageFormat').selectOption('jpeg');
  await form.locator('#jpegQuality').fill('60');
  await form.locator('#imageScale').fill('50');
  await form.locator('#historyLimit').fill('2');
  await form.locator('#checkSuccess').uncheck(); // "done" is taken as it is: no check call
  await form.locator('button[type=submit]').click();
  await form.locator('#status', { hasText: 'Saved.' }).waitFor();

  // Focusing the box changes nothing the description shows: that "done" is not accepted, the next one is.
  mock.script(
    JSON.stringify({ thought: 'tap the box', actions: [{ type: 'Tap', target: 2 }], done: true }),
    JSON.stringify({ thought: 'it has focus', actions: [], done: true }),
  );
  const checksBefore = mock.checks.length;
  const run = await browser.sw.evaluate((id) => self.sightline.act(id, 'click the new todo box'), tabId);
  assert.equal(run.status, 'succeeded', JSON.stringify(run.error));
  assert.equal(mock.checks.length, checksBefore, 'no check call with the check switched off');
  assert.equal((await browser.sw.evaluate(() => self.sightline.getSettings())).run.checkSuccess, false);
  const { text, images } = userMessage(mock.requests[0].body);
  assert.match(text, /The element list is not sent/);
  assert.doesNotMatch(text, /\[\d+\] input/);
  assert.match(images[0], /^data:image\/jpeg;base64,/);
  assert.deepEqual(jpegSize(images[0]), { width: 640, height: 400 });
  assert.ok((await browser.sw.evaluate(() => self.sightline.runs())).length <= 2, 'only the newest 2 runs are kept');

  await browser.sw.evaluate(() => self.sightline.setSettings({
    run: { includeDescription: true, checkSuccess: true, image: { format: { type: 'png' }, shrink: 1 } }, ui: { historyLimit: 50 },
  }));
  await Promise.all([panel.close(), page.close()]);
});

test('a run keeps going while the panel is closed, and reopening the panel shows it', async () => {
  await browser.sw.evaluate((baseUrl) => self.sightline.setSettings({ model: { baseUrl, model: 'mock-model', apiKey: 'sk-x', family: 'generic' } }), mock.baseUrl);
  const { page, tabId } = await openTodo('case=reopen');
  let panel = await browser.openPanel(tabId);
  mock.script(slowPlan(2500));
  await panel.fill('#instruction', 'add a todo ‘while closed’');
  await panel.click('#run-button');
  await panel.waitForSelector('#run-status.running');
  await panel.close();

  panel = await browser.openPanel(tabId);
  await panel.waitForSelector('#run-card:not([hidden])');
  assert.equal(await panel.textContent('#run-instruction'), 'add a todo ‘while closed’');
  assert.match(await panel.getAttribute('#run-status', 'class'), /running/, 'still live after reopening');
  await panel.waitForSelector('#run-status.succeeded', { timeout: 30_000 });
  assert.deepEqual(await page.evaluate(() => window.todoApp.items().map((i) => i.title)), ['while closed']);
  await panel.close();

  // Reopened after the end: the finished run, with its steps.
  panel = await browser.openPanel(tabId);
  await panel.waitForSelector('#run-status.succeeded');
  assert.equal(await panel.$$eval('#steps .step', (s) => s.length), 4, 'plan, input, key, check');
  await Promise.all([panel.close(), page.close()]);
});

test('a dead endpoint shows what happened and where to fix it', async () => {
  await browser.sw.evaluate(() => self.sightline.setSettings({ model: { baseUrl: 'http://127.0.0.1:9/v1', model: 'mock-model', apiKey: 'sk-x', family: 'generic', maxRetries: 0 } }));
  const { page, tabId } = await openTodo('case=dead');
  const panel = await browser.openPanel(tabId);
  await panel.fill('#instruction', 'add a todo ‘never’');
  await panel.click('#run-button');
  await panel.waitForSelector('#run-status.failed', { timeout: 30_000 });
  assert.match(await panel.textContent('#run-error'), /could not reach the model endpoint.* — check the base URL in Settings, and that the server is running\.$/);
  assert.equal(await panel.isEnabled('#run-button'), true, 'ready for the next try');
  await panel.screenshot({ path: 'out/panel-5-failed.png', fullPage: true });

  // In Chinese: the core writes the error in the run's language, and the panel's advice is
  // the one for the error's code, whatever the words.
  await browser.sw.evaluate(() => self.sightline.setSettings({ ui: { language: 'zh_CN' } }));
  await panel.waitForFunction(() => document.getElementById('run-button').textContent === '运行');
  await panel.fill('#instruction', '添加待办“永远不会”');
  await panel.click('#run-button');
  await panel.waitForFunction(() => /无法连接模型端点/.test(document.getElementById('run-error').textContent), null, { timeout: 30_000 });
  assert.match(await panel.textContent('#run-error'), /^无法连接模型端点：.* — 请在设置中检查基础 URL，并确认服务器正在运行。$/);
  const stored = await browser.sw.evaluate(async () => (await self.sightline.runs())[0]);
  assert.equal(stored.error.code, 'model_unreachable');
  assert.match(stored.error.message, /^无法连接模型端点：/);
  assert.equal(stored.language, 'zh_CN');
  assert.equal(stored.steps.length, 0, 'no step was taken');
  await panel.screenshot({ path: 'out/panel-5-failed-zh.png', fullPage: true });
  await browser.sw.evaluate(() => self.sightline.setSettings({ model: { maxRetries: 3 }, ui: { language: 'auto' } }));
  await panel.waitForFunction(() => document.getElementById('run-button').textContent === 'Run');
  await Promise.all([panel.close(), page.close()]);
});

test('a page Chrome keeps off limits gets a plain message in the panel', async () => {
  const page = await browser.context.newPage();
  await page.goto('chrome://version');
  const tabId = await browser.sw.evaluate(async () => (await chrome.tabs.query({})).find((t) => t.url.startsWith('chrome://version'))?.id);
  const panel = await browser.openPanel(tabId);
  await panel.waitForSelector('#notice:not([hidden])');
  assert.match(await panel.textContent('#notice'), /Sightline can't work on this page: Chrome does not let extensions act on its own pages\. Switch to a normal web page\./);
  await panel.screenshot({ path: 'out/panel-6-restricted.png', fullPage: true });
  await Promise.all([panel.close(), page.close()]);
});

test('choosing 简体中文 in Settings turns the panel and settings Chinese at once', async () => {
  const { page, tabId } = await openTodo('case=language');
  const panel = await browser.openPanel(tabId);
  await panel.waitForFunction(() => document.getElementById('run-button').textContent === 'Run');
  await panel.click('#open-settings');
  const form = panel.frameLocator('#settings-frame');
  // Once the form is filled from the settings (the key field's hint comes last), or the
  // filling would undo the choice.
  await form.locator('#apiKey[placeholder]:not([placeholder=""])').waitFor();
  await form.locator('#language').selectOption('zh_CN');
  await form.locator('button[type=submit]').click();
  await form.locator('button[type=submit]', { hasText: '保存' }).waitFor();
  await form.locator('#status', { hasText: '已保存。' }).waitFor(); // once the saved form is shown again
  assert.equal(await form.locator('#status').textContent(), '已保存。');
  await panel.waitForFunction(() => document.getElementById('open-settings').textContent === '← 返回');
  await panel.screenshot({ path: 'out/panel-7-settings-zh.png' });
  await panel.click('#open-settings');
  assert.equal(await panel.textContent('#run-button'), '运行');
  assert.equal(await panel.getAttribute('#instruction', 'placeholder'), '希望在此页面上做什么？例如：添加待办“买牛奶”');
  assert.equal(await panel.getAttribute('html', 'lang'), 'zh-CN');
  await browser.sw.evaluate(() => self.sightline.setSettings({ ui: { language: 'auto' } }));
  await panel.waitForFunction(() => document.getElementById('run-button').textContent === 'Run');
  await Promise.all([panel.close(), page.close()]);
});

test('in a Chinese browser the panel and settings are Chinese without any setting', async () => {
  const zhBrowser = await launchWithExtension({ lang: 'zh-CN' });
  try {
    const page = await zhBrowser.context.newPage();
    await page.goto('chrome://version');
    const tabId = await zhBrowser.sw.evaluate(async () => (await chrome.tabs.query({})).find((t) => t.url.startsWith('chrome://version'))?.id);
    const panel = await zhBrowser.openPanel(tabId);
    await panel.waitForSelector('#notice:not([hidden])');
    assert.equal(await panel.textContent('#run-button'), '运行');
    assert.equal(await panel.textContent('#history-title'), '最近的运行');
    assert.match(await panel.textContent('#notice'), /Sightline 无法操作此页面：Chrome 不允许扩展操作浏览器自身的页面。/);
    assert.match(await panel.textContent('#notice'), /尚未配置模型。/);
    await panel.screenshot({ path: 'out/panel-8-zh-browser.png', fullPage: true });
    await panel.click('#open-settings');
    const form = panel.frameLocator('#settings-frame');
    await form.locator('legend', { hasText: '发送给模型的内容' }).waitFor();
    assert.equal(await form.locator('#language option:checked').textContent(), '跟随浏览器');
    await panel.screenshot({ path: 'out/panel-9-zh-settings.png' });
  } finally {
    await zhBrowser.close();
  }
});

test('both languages have every message the pages use, with the same placeholders', () => {
  const read = (p) => readFileSync(new URL(`../../${p}`, import.meta.url), 'utf8');
  const en = JSON.parse(read('extension/_locales/en/messages.json'));
  const zh = JSON.parse(read('extension/_locales/zh_CN/messages.json'));
  assert.deepEqual(Object.keys(zh).sort(), Object.keys(en).sort());
  for (const [key, entry] of Object.entries(en)) {
    assert.deepEqual(Object.keys(zh[key].placeholders ?? {}).sort(), Object.keys(entry.placeholders ?? {}).sort(), key);
    for (const name of Object.keys(entry.placeholders ?? {})) assert.ok(zh[key].message.includes(`$${name}$`), `${key} zh uses $${name}$`);
  }
  // Every key the pages name: data-i18n attributes, t('…') calls, and the generated families.
  const used = new Set();
  for (const file of ['extension/panel/panel.html', 'extension/options/options.html', 'extension/panel/panel.js', 'extension/options/options.js']) {
    const text = read(file);
    for (const [, key] of text.matchAll(/data-i18n="([^"]+)"/g)) used.add(key);
    for (const [, pairs] of text.matchAll(/data-i18n-attr="([^"]+)"/g)) for (const p of pairs.split(';')) used.add(p.split(':')[1].trim());
    for (const [, key] of text.matchAll(/\bt\('([A-Za-z0-9_]+)'/g)) used.add(key);
  }
  for (const status of ['running', 'succeeded', 'failed', 'stopped']) used.add(`status_${status}`);
  for (const code of ['browser', 'extension', 'store', 'pdf', 'empty']) used.add(`restricted_${code}`);
  // The task menu and form, built from the core's task schema: each kind's name and prompt, the
  // second box's prompt where the task has a second written field, and each group's label.
  const panelJs = read('extension/panel/panel.js');
  const groupLabels = Object.fromEntries([...panelJs.match(/const GROUP_LABELS = \{([^}]*)\}/)[1].matchAll(/(\w+): '(\w+)'/g)].map(([, g, key]) => [g, key]));
  const written = new Set(['description', 'text', 'key', 'paths', 'data']);
  const schema = core.taskSchema();
  assert.ok(schema.length >= 17, 'read the task schema');
  used.add('hint_plan');
  for (const kind of schema) {
    used.add(`task_${kind.type}`);
    used.add(`hint_${kind.type}`);
    if (kind.fields.filter((f) => written.has(f.kind)).length > 1) used.add(`hintValue_${kind.type}`);
    assert.ok(groupLabels[kind.group], `the panel names the group ${kind.group}`);
    used.add(groupLabels[kind.group]);
  }
  // The one advice the panel words itself: where the core could not load to give its own.
  used.add('advice_module_load');
  const manifest = read('manifest.json');
  for (const [, key] of manifest.matchAll(/__MSG_(\w+)__/g)) used.add(key);
  const missing = [...used].filter((k) => !(k in en));
  assert.deepEqual(missing, [], 'messages the pages use but en lacks');
});
