// The page's own dialogs during a run (confirm, prompt, beforeunload) are the person's to answer
// unless the run was told how: the panel asks with OK / Cancel, a flow's `web: dialogs` or a
// run option answers for them, and a run with nobody to ask dismisses and fails saying how to
// set one. Alerts stay automatic. The model is scripted to obey; the fixture's controls show
// which answer the page got (a confirm guards a delete, a prompt a rename).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { userMessage } from '../support/browser.mjs';
import { modelSuite } from '../support/suite.mjs';

let browser, mock, site;
modelSuite((env) => ({ browser, mock, site } = env), {
  model: (m) => ({ provider: 'custom', baseUrl: m.baseUrl, model: 'mock-model', apiKey: 'sk-dialogs', family: 'generic', stream: false }),
});

let opened = 0;
/** The fixture in a new tab. Playwright would dismiss dialogs itself without a listener: this one leaves them to Sightline. */
async function open() {
  const page = await browser.context.newPage();
  page.on('dialog', () => {});
  await page.goto(site.url(`/dialogs.html?n=${++opened}`));
  await page.waitForFunction(() => window.fixture);
  return { page, tabId: await browser.tabIdOf(page) };
}

const state = (page) => page.evaluate(() => window.fixture.state());
const numberOf = (body, pattern) => Number(userMessage(body).text.split('\n').find((l) => /^\s*\[\d+\]/.test(l) && pattern.test(l))?.match(/\[(\d+)\]/)?.[1]);
const plan = (actions, done) => JSON.stringify({ thought: 'doing as asked', actions, done });
/** The model taps the control whose line matches `pattern`. */
const tap = (pattern, done = true) => (body) => plan([{ type: 'Tap', target: numberOf(body, pattern) }], done);
const finished = () => plan([], true);
const notes = (run) => run.steps.map((s) => s.note ?? '').join('\n');

/** A flow tapping each control, found by the file's XPath (no model call). */
function flow(url, web, labels) {
  const steps = labels.map((l) => `      - aiTap: the ${l} button\n        xpath: '//button[normalize-space()="${l}"]'\n`).join('');
  return `web:\n  url: ${url}\n${web}tasks:\n  - name: dialogs\n    flow:\n${steps}`;
}

test('a confirm a model\'s tap raises is asked in the panel: Cancel keeps the file, OK deletes it', async () => {
  const { page, tabId } = await open();
  const panel = await browser.openPanel(tabId);
  // Round 2 sees what the page asked, fenced as page content, and how it was answered.
  mock.script(tap(/Delete the file/, false), finished(), tap(/Delete the file/));
  await panel.fill('#instruction', 'delete the file');
  await panel.click('#run-button');
  await panel.waitForSelector('#question-form:not([hidden])', { timeout: 30_000 });
  assert.equal(await panel.textContent('#question-text'), 'The page asks you to confirm: “Delete “Report.pdf”?”');
  assert.deepEqual([await panel.textContent('#question-yes'), await panel.textContent('#question-no')], ['OK', 'Cancel']);
  assert.ok(await panel.isHidden('#question-reply'), 'a confirm takes no text');
  await panel.screenshot({ path: 'out/e2e-panel-dialog.png', fullPage: true });
  await panel.click('#question-no');
  await panel.waitForSelector('#run-status.succeeded', { timeout: 30_000 });
  assert.deepEqual(await state(page), { files: ['Report.pdf'], status: 'kept' }, 'Cancel: the page kept the file');
  const first = (await browser.sw.evaluate(() => self.sightline.runs()))[0];
  assert.match(notes(first), /you answered the page's confirm dialog “Delete “Report\.pdf”\?” with Cancel/);
  assert.deepEqual(first.steps[1].asked.map((a) => [a.question.kind, a.answer.accept, a.by]), [['pageDialog', false, 'person']]);
  const round2 = userMessage(mock.requests[1].body).text;
  assert.match(round2, /the page opened a confirm dialog and the person answered Cancel; it said <page>Delete “Report\.pdf”\?<\/page>/);

  await panel.fill('#instruction', 'delete the file');
  await panel.click('#run-button');
  await panel.waitForSelector('#question-form:not([hidden])', { timeout: 30_000 });
  await panel.click('#question-yes');
  await panel.waitForSelector('#run-status.succeeded', { timeout: 30_000 });
  assert.deepEqual(await state(page), { files: [], status: 'deleted' }, 'OK: the page deleted it');
  await panel.close();
  await page.close();
});

test('a flow whose web: dialogs says accept answers them without asking', async () => {
  const { page, tabId } = await open();
  const started = performance.now();
  const run = await browser.sw.evaluate(([id, yaml]) => self.sightline.runFlow(id, yaml), [tabId, flow(page.url(), '  dialogs: accept\n', ['Rename the file', 'Delete the file'])]);
  assert.equal(run.status, 'succeeded', run.error);
  assert.ok(performance.now() - started < 20_000, 'nobody was waited for');
  // The prompt got its default text, the confirm OK.
  assert.deepEqual(await state(page), { files: [], status: 'deleted' });
  const asked = run.steps.flatMap((s) => s.asked ?? []);
  assert.deepEqual(asked.map((a) => [a.question.dialog.type, a.answer.accept, a.by]), [['prompt', true, 'setting'], ['confirm', true, 'setting']]);
  assert.match(notes(run), /answered the page's confirm dialog “Delete “Copy of Report\.pdf”\?” with OK/);
  assert.equal(mock.requests.length, 0);
  await page.close();
});

test('a run with nobody to ask and no answer set dismisses the dialog and fails, saying how to set one', async () => {
  const { page, tabId } = await open();
  mock.script(tap(/Delete the file/));
  const run = await browser.sw.evaluate((id) => self.sightline.act(id, 'delete the file', { interactive: false }), tabId);
  assert.equal(run.status, 'failed');
  assert.match(run.error.message, /the page opened a confirm dialog “Delete “Report\.pdf”\?” and nobody is here to answer it, so Sightline answered Cancel/);
  assert.match(run.error.message, /`dialogs:` under `web:` in a flow file, `scripts\/run --dialogs accept`, or the `dialogs` option/);
  assert.equal(run.steps.at(-1).status, 'failed');
  assert.deepEqual(await state(page), { files: ['Report.pdf'], status: 'kept' });
  // The same in a flow: its step fails with it.
  const flowRun = await browser.sw.evaluate(([id, yaml]) => self.sightline.runFlow(id, yaml, { interactive: false }), [tabId, flow(page.url(), '', ['Delete the file'])]);
  assert.equal(flowRun.status, 'failed');
  assert.match(flowRun.flow.items[0].error.message, /nobody is here to answer it/);
  assert.deepEqual((await state(page)).files, ['Report.pdf']);
  await page.close();
});

test('alerts are still answered by themselves and noted', async () => {
  const { page, tabId } = await open();
  mock.script(tap(/Show a notice/));
  const run = await browser.sw.evaluate((id) => self.sightline.act(id, 'show the notice', { interactive: false }), tabId);
  assert.equal(run.status, 'succeeded', run.error);
  assert.match(run.steps[1].note, /answered the page's alert dialog “Saved a backup” with OK/);
  assert.equal((await state(page)).status, 'noticed');
  await page.close();
});

test('an automation caller answers a prompt with text; a run told to dismiss stays on a page that asks before leaving', async () => {
  const { page, tabId } = await open();
  mock.script(tap(/Rename the file/));
  await browser.sw.evaluate((id) => { globalThis.pendingRun = self.sightline.act(id, 'rename the file'); }, tabId);
  const asking = await browser.sw.evaluate(async () => {
    for (let i = 0; i < 300; i++) {
      const run = (await self.sightline.runs()).find((r) => r.status === 'running' && r.question);
      if (run) return run;
      await new Promise((r) => setTimeout(r, 100));
    }
    return null;
  });
  assert.ok(asking, 'the run asked within 30 s');
  assert.deepEqual(asking.question.dialog, { type: 'prompt', message: 'New name?', defaultPrompt: 'Copy of Report.pdf', url: page.url() });
  const answered = await browser.sw.evaluate(([id]) => [
    self.sightline.answer(id, 'Q3.pdf'), // a text does not answer a dialog
    self.sightline.answer(id, { kind: 'upload', allow: true }),
    self.sightline.answer(id, { kind: 'dialog', accept: true, text: 'Q3.pdf' }),
  ], [asking.id]);
  assert.deepEqual(answered, [false, false, true]);
  const run = await browser.sw.evaluate(() => globalThis.pendingRun);
  assert.equal(run.status, 'succeeded', JSON.stringify([run.error, run.steps.map((s) => [s.action, s.note, s.error])]));
  assert.deepEqual((await state(page)).files, ['Q3.pdf']);
  assert.match(run.steps[1].note, /you answered the page's prompt dialog “New name\?” with OK, typing “Q3\.pdf”/);

  await page.click('#arm'); // the person's own click: pages may ask before leaving only after one
  // Staying changes nothing on the page: the tap's "done" is not accepted, and the model says done again.
  mock.script(tap(/Leave this page/), finished);
  const stay = await browser.sw.evaluate((id) => self.sightline.act(id, 'leave the page', { dialogs: 'dismiss' }), tabId);
  assert.equal(stay.status, 'succeeded', JSON.stringify(stay.error));
  assert.match(stay.steps[1].note, /not accepted/);
  assert.match(stay.steps[1].note, /answered the page's beforeunload \(leave the page\?\) dialog with Stay/);
  assert.match(page.url(), /dialogs\.html/, 'still on the page');
  assert.equal((await state(page)).status, 'editing');
  await page.close();
});

test('a confirm the page opens by itself while Sightline only reads it gets Cancel, not OK', async () => {
  const { page, tabId } = await open();
  await browser.sw.evaluate((id) => self.sightline.extract(id, {}), tabId); // attached: the dialog is reported
  const shown = page.waitForEvent('dialog', { timeout: 10_000 });
  await page.evaluate(() => setTimeout(() => document.getElementById('delete').click(), 50));
  await shown;
  const read = await browser.sw.evaluate((id) => self.sightline.extract(id, {}).then((x) => x.elements.length), tabId);
  assert.ok(read > 0, 'the read went through');
  assert.deepEqual(await state(page), { files: ['Report.pdf'], status: 'kept' });
  await page.close();
});
