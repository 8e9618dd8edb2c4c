// Trajectories in real Chromium: a run keeps its screenshots by reference and its model calls;
// saved as a file, loaded again and replayed on a fresh page with no model request; a
// damaged file is refused saying why; the panel saves, loads and replays.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { todoPlanReply } from '../support/mock-model.mjs';
import { modelSuite } from '../support/suite.mjs';

let browser, mock, site;

modelSuite((env) => ({ browser, mock, site } = env), {
  model: (m) => ({ baseUrl: m.baseUrl, model: 'mock-model', apiKey: 'sk-test-trajectory', family: 'generic' }),
});

async function openTodo(query) {
  const page = await browser.context.newPage();
  await page.goto(site.url(`/todo.html?${query}`));
  await page.waitForSelector('.new-todo');
  return { page, tabId: await browser.tabIdOf(page) };
}

const titles = (page) => page.evaluate(() => window.todoApp.items().map((i) => i.title));
const sw = (fn, arg) => browser.sw.evaluate(fn, arg);

test('a run saved as a file replays on a fresh page with no model call', async () => {
  const first = await openTodo('t=record');
  mock.script(todoPlanReply());
  const run = await sw(([id]) => self.sightline.act(id, "add a todo 'buy milk'"), [first.tabId]);
  assert.equal(run.status, 'succeeded', run.error);
  assert.equal(mock.requests.length, 1);

  // The record names screenshots; the full run has the model call with them by reference.
  const full = await sw((id) => self.sightline.run(id), run.id);
  const [plan, input, enter] = full.steps;
  assert.match(plan.screenshot, new RegExp(`^${run.id}/\\d+$`));
  assert.match(enter.screenshot, new RegExp(`^${run.id}/\\d+$`), 'the page after the round');
  assert.notEqual(enter.screenshot, plan.screenshot);
  assert.equal(plan.exchange.request.at(-1).content.find((p) => p.image_url).image_url.url, `sightline-image:${plan.screenshot}`);
  assert.match(plan.exchange.reply, /"actions"/);
  assert.equal(input.planned.type, 'Input');
  const listed = (await sw(() => self.sightline.runs())).find((r) => r.id === run.id);
  assert.equal(listed.steps[0].exchange, undefined, 'the run list leaves the prompts out');

  const json = await sw((id) => self.sightline.saveTrajectory(id), run.id);
  const file = JSON.parse(json);
  assert.equal(file.format, 1);
  assert.deepEqual(Object.keys(file.images).sort(), [plan.screenshot, enter.screenshot].sort());
  assert.ok(Object.values(file.images).every((u) => u.startsWith('data:image/png;base64,')));

  // Loaded (as if on another machine: its runs cleared) and replayed on a fresh page.
  const fresh = await openTodo('t=replay');
  mock.reset();
  const replay = await sw(([id, text]) => self.sightline.replay(id, text), [fresh.tabId, json]);
  assert.equal(replay.status, 'succeeded', replay.error);
  assert.equal(mock.requests.length, 0, 'every step came from the file');
  assert.equal(replay.modelCalls, 0);
  assert.deepEqual(await titles(fresh.page), ['buy milk']);
  assert.match(replay.steps[0].note, /from the cache/);
  await Promise.all([first.page.close(), fresh.page.close()]);
});

test('a replay on another page goes to the run\'s page first, and falls back to the model where a step no longer matches', async () => {
  const start = await openTodo('t=record2');
  mock.script(addTodo('walk the dog'));
  const run = await sw(([id]) => self.sightline.act(id, 'add a todo about the dog'), [start.tabId]);
  assert.equal(run.status, 'succeeded', run.error);

  // The tab is elsewhere; the todo input has a new label and placeholder, so neither its
  // fingerprint nor its locators (role and name, placeholder) match: only a model can tell.
  const elsewhere = await browser.context.newPage();
  await elsewhere.goto(site.url('/actions.html'));
  const tabId = await browser.tabIdOf(elsewhere);
  await elsewhere.addInitScript(() => {
    addEventListener('DOMContentLoaded', () => {
      const i = document.querySelector('.new-todo');
      i?.setAttribute('aria-label', 'Something to do');
      i?.setAttribute('placeholder', 'Type a task');
    });
  });
  mock.reset();
  mock.script(addTodo('walk the dog'));
  const replay = await sw(([id, runId]) => self.sightline.replay(id, runId), [tabId, run.id]);
  assert.equal(replay.status, 'succeeded', replay.error);
  assert.match(elsewhere.url(), /todo\.html/);
  assert.equal(mock.requests.length, 1, 'the changed field sent the replay to the model');
  assert.deepEqual(await titles(elsewhere), ['walk the dog']);
  await Promise.all([start.page.close(), elsewhere.close()]);
});

test('damaged files are refused saying why; the panel saves, loads and replays', async () => {
  await assert.rejects(sw(() => self.sightline.loadTrajectory('{"format": 7, "run": {}}')), /format 7/);
  await assert.rejects(sw(() => self.sightline.loadTrajectory('not json')), /not a Sightline trajectory/);
  await assert.rejects(sw(() => self.sightline.loadTrajectory('{"format": 1, "run": {"id": 5}}')), /not a Sightline trajectory/);

  const { page, tabId } = await openTodo('t=panel');
  mock.script(todoPlanReply());
  const panel = await browser.openPanel(tabId);
  await panel.fill('#instruction', 'add a todo ‘buy milk’');
  await panel.click('#run-button');
  await panel.waitForSelector('#run-status.succeeded', { timeout: 30_000 });
  const [download] = await Promise.all([panel.waitForEvent('download'), panel.click('#save-run')]);
  const saved = JSON.parse(await streamText(await download.createReadStream()));
  assert.equal(saved.run.instruction, 'add a todo ‘buy milk’');

  // A bad file gets a readable notice; a good one shows its run, which replays with no model.
  await panel.setInputFiles('#load-run-file', { name: 'broken.json', mimeType: 'application/json', buffer: Buffer.from('{"format":2}') });
  await panel.waitForFunction(() => /Could not load broken\.json: .*format 2/.test(document.getElementById('notice').textContent));
  // The advice is about the file (trajectory_invalid), not the instruction a file has none of.
  assert.match(await panel.textContent('#notice'), /format 2.* — choose a file saved with Save run: this one is not a Sightline run file, or it is damaged\./s);
  assert.doesNotMatch(await panel.textContent('#notice'), /edit the instruction/);
  try {
    // Worded again in Chinese, the advice still the file's.
    await sw(() => self.sightline.setSettings({ ui: { language: 'zh_CN' } }));
    await panel.waitForFunction(() => document.getElementById('run-button').textContent === '运行');
    assert.match(await panel.textContent('#notice'), /无法载入 broken\.json: .*format 2.* — 请选择用“保存运行”保存的文件：此文件不是 Sightline 的运行文件，或已损坏。/s);
  } finally {
    await sw(() => self.sightline.setSettings({ ui: { language: 'auto' } }));
  }
  await panel.waitForFunction(() => document.getElementById('run-button').textContent === 'Run');
  await page.reload(); // the fixture keeps its todos in memory: empty again
  await page.waitForSelector('.new-todo');
  mock.reset();
  await panel.click('#replay');
  await panel.waitForFunction(() => document.getElementById('run-status').textContent === 'succeeded' && document.querySelector('#steps .step .badge.cached'), null, { timeout: 30_000 });
  assert.equal(mock.requests.length, 0);
  assert.deepEqual(await titles(page), ['buy milk']);
  await panel.screenshot({ path: 'out/e2e-panel-replayed.png', fullPage: true });
  await Promise.all([panel.close(), page.close()]);
});

/** Plays the model: types `text` into the todo input, whatever its placeholder says, and submits. */
function addTodo(text) {
  return (body) => {
    const user = JSON.stringify(body.messages);
    const n = user.match(/\[(\d+)\] input\.new-todo/)?.[1];
    if (!n) return JSON.stringify({ thought: 'no input', actions: [], done: true, error: 'no todo input' });
    return JSON.stringify({ thought: 'type and submit', actions: [{ type: 'Input', target: Number(n), value: text }, { type: 'KeyPress', key: 'Enter' }], done: true });
  };
}

async function streamText(stream) {
  const chunks = [];
  for await (const c of stream) chunks.push(c);
  return Buffer.concat(chunks).toString('utf8');
}

test('a trajectory whose page is a local file is refused at load and at replay; a saved run\'s upload needs an Allow', async () => {
  const { page, tabId } = await openTodo('t=local');
  const run = { instruction: 'add a todo', url: '', status: 'succeeded', steps: [], error: null, startedMs: 1, endedMs: 2, modelCalls: 0, usage: { promptTokens: 0, completionTokens: 0 } };
  let n = 0;
  const crafted = (over) => JSON.stringify({ format: 1, run: { ...run, id: `crafted-${++n}`, ...over }, images: {} });
  for (const url of ['file:///etc/passwd', 'javascript:alert(1)', 'chrome://settings/']) {
    const replayed = await sw(([id, json]) => self.sightline.replay(id, json).then(() => null, (e) => e.message), [tabId, crafted({ url })]);
    assert.match(replayed ?? 'it replayed', new RegExp(`this run's page cannot be opened: “${url.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}” is not a web address`));
    await assert.rejects(sw((json) => self.sightline.loadTrajectory(json), crafted({ url })), /not a web address/);
  }
  assert.match(page.url(), /todo\.html\?t=local$/, 'the tab went nowhere');
  const panel = await browser.openPanel(tabId);
  await panel.setInputFiles('#load-run-file', { name: 'local.json', mimeType: 'application/json', buffer: Buffer.from(crafted({ url: 'file:///etc/passwd' })) });
  await panel.waitForFunction(() => /Could not load local\.json: .*file:\/\/\/etc\/passwd” is not a web address/.test(document.getElementById('notice').textContent), null, { timeout: 10_000 });
  assert.match(await panel.textContent('#notice'), /is not a web address: .* — choose a file saved with Save run: this one is not a Sightline run file, or it is damaged\./);
  await panel.close();

  // An upload task inside a saved run: replayed, it asks first; with nobody to ask it is refused.
  const actions = await browser.context.newPage();
  await actions.goto(site.url('/actions.html?replay-upload'));
  const actionsTab = await browser.tabIdOf(actions);
  const task = { type: 'aiUpload', locate: 'the attach button', files: ['/etc/hostname'] };
  const upload = crafted({ url: actions.url(), instruction: 'aiUpload', task, steps: [] });
  const replay = await sw(([id, json]) => self.sightline.replay(id, json, { interactive: false }), [actionsTab, upload]);
  assert.equal(replay.status, 'failed');
  assert.match(replay.error.message, /refused the upload of \/etc\/hostname/);
  assert.deepEqual(replay.steps[0].asked[0].question, { kind: 'upload', paths: ['/etc/hostname'] });
  assert.equal(await actions.locator('#attached').textContent(), 'no file');
  assert.equal(mock.requests.length, 0, 'refused before the page was read or the model asked');
  await Promise.all([page.close(), actions.close()]);
});
