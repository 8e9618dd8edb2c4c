// The panel's history (issue 44): a search the core decides (every word or "quoted phrase", in
// a run's instruction, address, task or steps), and delete, which goes through the worker's
// store (the run and its screenshots are gone for every panel; a running run is refused); and
// the badge of a step no model found, by what found it (a flow's XPath is not the cache).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { todoPlanReply } from '../support/mock-model.mjs';
import { modelSuite, until } from '../support/suite.mjs';

let browser, mock, site;

modelSuite((env) => ({ browser, mock, site } = env), {
  model: (m) => ({ baseUrl: m.baseUrl, model: 'mock-model', apiKey: 'sk-test-panel-history', family: 'generic' }),
});

const listed = (panel) => panel.$$eval('#history .open-run', (b) => b.map((x) => x.textContent));

test('history search: the core finds runs by every word and phrase; delete removes a run and its screenshots for every panel', async () => {
  const page = await browser.context.newPage();
  await page.goto(site.url('/todo.html?case=history'));
  await page.waitForSelector('.new-todo');
  const tabId = await browser.tabIdOf(page);
  const made = [];
  for (const text of ['buy milk', 'walk the dog', 'buy bread']) {
    mock.script(todoPlanReply());
    const run = await browser.sw.evaluate(([id, t]) => self.sightline.act(id, `add a todo '${t}'`), [tabId, text]);
    assert.equal(run.status, 'succeeded', run.error?.message);
    made.push(run);
  }
  const panel = await browser.openPanel(tabId);
  await until('the three runs listed', async () => (await listed(panel)).length === 3);
  assert.deepEqual(await listed(panel), ["add a todo 'buy bread'", "add a todo 'walk the dog'", "add a todo 'buy milk'"]);

  // The worker's answer is the core's: all words, any order, case folded; a phrase whole.
  const search = async (query, expected) => {
    await panel.fill('#history-search', query);
    await until(`"${query}" lists ${JSON.stringify(expected)}`, async () => JSON.stringify(await listed(panel)) === JSON.stringify(expected));
  };
  await search('BUY', ["add a todo 'buy bread'", "add a todo 'buy milk'"]);
  await panel.locator('.history').screenshot({ path: 'out/e2e-panel-history-search.png' });
  await search('milk buy', ["add a todo 'buy milk'"]);
  await search('"milk buy"', []);
  assert.equal(await panel.textContent('#history-empty'), 'No run matches “"milk buy"”.');
  assert.equal(await panel.isVisible('#history-empty'), true);
  // The page's address and the steps' actions are searched too (each run pressed Enter).
  const host = new URL(site.url('/')).host;
  await search(`${host} dog`, ["add a todo 'walk the dog'"]);
  await search('enter', ["add a todo 'buy bread'", "add a todo 'walk the dog'", "add a todo 'buy milk'"]);
  assert.deepEqual(await browser.sw.evaluate(() => self.sightline.searchRuns('bread')), [made[2].id]);
  await search('', ["add a todo 'buy bread'", "add a todo 'walk the dog'", "add a todo 'buy milk'"]);

  // A second panel on the same tab: it hears of the delete from the worker.
  const second = await browser.openPanel(tabId);
  await until('the second panel lists the runs', async () => (await listed(second)).length === 3);
  const milk = made[0];
  const refs = [...new Set(milk.steps.map((s) => s.screenshot).filter(Boolean))];
  assert.ok(refs.length > 0, 'the run kept screenshots');
  const images = async (r) => (await second.evaluate((x) => chrome.runtime.sendMessage({ type: 'sightline/images', refs: x }), r)).images;
  const before = await images(refs.slice(0, 8));
  assert.equal(Object.keys(before).length, Math.min(refs.length, 8), `its screenshots are in the store: ${JSON.stringify(refs)} → ${JSON.stringify(Object.keys(before))}`);
  await panel.fill('#history-search', 'milk');
  await until('only milk listed', async () => (await listed(panel)).length === 1);
  const button = panel.locator('#history li .delete');
  assert.equal(await button.getAttribute('aria-label'), "Delete run: add a todo 'buy milk'");
  await button.click();
  await until('the run gone from the searched list', async () => (await listed(panel)).length === 0);
  await until('the run gone from the other panel', async () => (await listed(second)).length === 2);
  assert.equal(await browser.sw.evaluate((id) => self.sightline.run(id), milk.id), null);
  const kept = await browser.sw.evaluate(() => self.sightline.runs());
  assert.deepEqual(kept.map((r) => r.id), [made[2].id, made[1].id]);
  // Its screenshots went with it, the others' stayed (the worker's store, read as the panel reads images).
  assert.deepEqual(await images(refs.slice(0, 8)), {});
  const otherRefs = [...new Set(made[1].steps.map((s) => s.screenshot).filter(Boolean))].slice(0, 8);
  assert.equal(Object.keys(await images(otherRefs)).length, otherRefs.length);
  assert.equal(await browser.sw.evaluate((id) => self.sightline.deleteRun(id), milk.id), false, 'deleting it again: nothing to delete');
  await panel.fill('#history-search', '');
  await until('two left', async () => (await listed(panel)).length === 2);
  await panel.locator('.history').screenshot({ path: 'out/e2e-panel-history-deleted.png' });
  await Promise.all([panel.close(), second.close(), page.close()]);
});

test('a running run cannot be deleted: the button is off, and the worker refuses with run_still_running', async () => {
  const page = await browser.context.newPage();
  await page.goto(site.url('/todo.html?case=history-running'));
  await page.waitForSelector('.new-todo');
  const tabId = await browser.tabIdOf(page);
  const panel = await browser.openPanel(tabId);
  // A recording stays running until stopped: no model needed.
  const { runId } = await panel.evaluate((id) => chrome.runtime.sendMessage({ type: 'sightline/startRecording', tabId: id, title: 'held open' }), tabId);
  assert.ok(runId, 'a recording started');
  await until('the recording listed', async () => (await listed(panel)).includes('held open'));
  const row = panel.locator('#history li', { hasText: 'held open' });
  assert.equal(await row.locator('.delete').isDisabled(), true);
  assert.equal(await row.locator('.delete').getAttribute('title'), 'A running run cannot be deleted: stop it first');
  const refused = await browser.sw.evaluate((id) => self.sightline.deleteRun(id).then(() => 'deleted', (e) => e.code), runId);
  assert.equal(refused, 'run_still_running');
  const viaPanel = await panel.evaluate((id) => chrome.runtime.sendMessage({ type: 'sightline/deleteRun', runId: id }), runId);
  assert.equal(viaPanel.code, 'run_still_running');
  assert.ok(await browser.sw.evaluate((id) => self.sightline.run(id), runId), 'still kept');
  await panel.evaluate((id) => chrome.runtime.sendMessage({ type: 'sightline/stopRecording', tabId: id }), tabId);
  await until('the delete button on', async () => !(await row.locator('.delete').isDisabled()));
  await row.locator('.delete').click();
  await until('the recording deleted', async () => !(await listed(panel)).includes('held open'));
  assert.equal(await browser.sw.evaluate((id) => self.sightline.run(id), runId), null);
  await Promise.all([panel.close(), page.close()]);
});

test("a flow's XPath gets its own badge (XPath, titled so), not the cache's “an earlier run”", async () => {
  const page = await browser.context.newPage();
  const url = site.url('/todo.html?case=badges');
  await page.goto(url);
  await page.waitForSelector('.new-todo');
  const tabId = await browser.tabIdOf(page);
  const yaml = [
    'web:',
    `  url: ${url}`,
    'tasks:',
    '  - name: badges',
    '    flow:',
    '      - aiInput: the "What needs to be done?" box',
    '        value: buy milk',
    '        xpath: /html[1]/body[1]/main[1]/header[1]/div[1]/input[2]',
    '      - aiKeyboardPress: Enter',
  ].join('\n');
  const requests = mock.requests.length;
  const run = await browser.sw.evaluate(([id, y]) => self.sightline.runFlow(id, y), [tabId, yaml]);
  assert.equal(run.status, 'succeeded', run.error?.message);
  assert.equal(mock.requests.length, requests, 'no model call');
  const locate = run.steps.find((s) => s.locate);
  assert.equal(locate.foundBy, 'xpath');
  assert.ok(!locate.cached, 'the XPath is not the cache');
  const panel = await browser.openPanel(tabId);
  await panel.waitForSelector('#steps .badge.found-xpath');
  const badges = await panel.$$eval('#steps .badge', (b) => b.map((x) => [x.className, x.textContent, x.title]));
  assert.deepEqual(badges, [['badge found-xpath', 'XPath', "Found by the flow file's XPath: no model call"]]);
  assert.match(await panel.textContent('#steps .step:first-child'), /by the flow's XPath: no model call/);
  await panel.locator('#steps .step').first().screenshot({ path: 'out/e2e-panel-xpath-badge.png' });
  await Promise.all([panel.close(), page.close()]);
});
