// The service worker stopped in the middle of a run (as Chrome does to idle workers, or on a
// crash): the run ends cleanly with its steps kept and exportable, and an open panel notices,
// reconnects and shows it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { userMessage } from '../support/browser.mjs';
import { modelSuite, until } from '../support/suite.mjs';

let browser, mock, site;
modelSuite((env) => ({ browser, mock, site } = env), {
  model: (m) => ({ provider: 'custom', baseUrl: m.baseUrl, model: 'mock-model', apiKey: 'sk-restart', family: 'generic', stream: false }),
});

const numberOf = (body, pattern) => Number(userMessage(body).text.split('\n').find((l) => /^\s*\[\d+\]/.test(l) && pattern.test(l))?.match(/\[(\d+)\]/)[1]);

test('the worker stopped mid-run: the run ends with its steps, the panel reconnects and shows it', async () => {
  const page = await browser.context.newPage();
  await page.goto(site.url('/actions.html'));
  const tabId = await browser.tabIdOf(page);
  mock.script(
    (body) => JSON.stringify({ thought: 'type', actions: [{ type: 'Input', target: numberOf(body, /input#name/), value: 'Grace' }], done: false }),
    // The second call never answers in time: the worker is stopped while it waits.
    { delayMs: 60_000, content: 'too late' },
  );
  const panel = await browser.openPanel(tabId);
  await browser.sw.evaluate((id) => {
    self.sightline.act(id, 'type Grace as the name, then count a tap'); // not awaited: it will not finish
  }, tabId);
  await until('the second model call', () => mock.requests.length === 2);
  await panel.waitForFunction(() => document.body.innerText.includes('Grace'));

  // Stop every service worker, as chrome://serviceworker-internals' Stop does.
  const cdp = await browser.context.newCDPSession(page);
  await cdp.send('ServiceWorker.enable');
  await cdp.send('ServiceWorker.stopAllWorkers');

  // The panel sees its port close, reconnects (a new worker starts) and reloads the runs.
  await panel.waitForFunction(() => /restarted while this run was active/.test(document.body.innerText), null, { timeout: 20_000 });
  // Playwright may keep the handle of the stopped worker: find one that answers.
  const sw = await until('the new worker', async () => {
    for (const w of browser.context.serviceWorkers()) {
      if (await w.evaluate(() => self.sightline.ready()).catch(() => false)) return w;
    }
    return null;
  });
  const [run] = await sw.evaluate(() => self.sightline.runs());
  assert.equal(run.status, 'failed');
  assert.match(run.error.message, /the extension restarted while this run was active; the steps so far are kept/);
  assert.ok(run.steps.some((s) => s.action.startsWith('Input "Grace"') && s.status === 'ok'), JSON.stringify(run.steps.map((s) => s.action)));
  const spec = await sw.evaluate((id) => self.sightline.exportRun(id, 'playwright'), run.id);
  assert.match(spec, /Grace/, 'the kept steps export');
  // The new worker drives the next run as before.
  mock.reset();
  mock.script((body) => JSON.stringify({ thought: 'tap', actions: [{ type: 'Tap', target: numberOf(body, /Count taps/) }], done: true }));
  const next = await sw.evaluate((id) => self.sightline.act(id, 'count a tap'), tabId);
  assert.equal(next.status, 'succeeded', next.error);
  await panel.close();
  await page.close();
});

/**
 * A service worker of the extension that answers (Playwright may keep the handle of a stopped
 * one) and is not marked as one that was to be stopped.
 */
function liveWorker() {
  return until('a live worker', async () => {
    for (const w of browser.context.serviceWorkers()) {
      if (await w.evaluate(() => self.sightline.ready().then(() => !self.stopExpected)).catch(() => false)) return w;
    }
    return null;
  });
}

test('the worker stopped mid-recording: the new worker records on and the recording keeps every step', async () => {
  const page = await browser.context.newPage();
  await page.goto(site.url('/actions.html'));
  const tabId = await browser.tabIdOf(page);
  let sw = await liveWorker();
  await sw.evaluate(() => self.sightline.setSettings({ run: { describeRecorded: false } }));
  const runId = await sw.evaluate((id) => self.sightline.startRecording(id, 'taps across a restart'), tabId);
  const stepsOf = async (w) => (await w.evaluate((id) => self.sightline.run(id), runId))?.steps ?? [];
  await page.click('#tap');
  await page.click('#far-button');
  await until('two recorded steps', async () => (await stepsOf(sw)).filter((s) => s.screenshot).length === 2);

  await sw.evaluate(() => { self.stopExpected = true; });
  const cdp = await browser.context.newCDPSession(page);
  await cdp.send('ServiceWorker.enable');
  await cdp.send('ServiceWorker.stopAllWorkers');
  // The recorder's next event starts a worker, which reads the recording back once and adds to it.
  await page.click('#tap');
  sw = await liveWorker();
  await until('the step the new worker recorded', async () => (await stepsOf(sw)).filter((s) => s.screenshot).length === 3);
  const run = await sw.evaluate((id) => self.sightline.stopRecording(id), tabId);
  assert.equal(run.id, runId);
  assert.equal(run.status, 'succeeded', 'not closed as orphaned by the new worker');
  assert.deepEqual(run.steps.map((s) => s.action), ['Tap button "Count taps"', 'Tap button "Far away button"', 'Tap button "Count taps"']);
  assert.equal(new Set(run.steps.map((s) => s.screenshot)).size, 3, 'each step its own screenshot');
  assert.equal(run.tabId, tabId);
  assert.equal(run.recorded, true);
  assert.ok(run.devicePixelRatio > 0);
  const [stored] = await sw.evaluate(() => self.sightline.runs());
  assert.deepEqual(stored.steps.map((s) => s.action), run.steps.map((s) => s.action), 'the stored record is the one handed back');
  await sw.evaluate(() => self.sightline.setSettings({ run: { describeRecorded: true } }));
  await page.close();
});
