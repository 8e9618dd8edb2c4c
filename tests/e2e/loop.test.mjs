// The planning loop in real Chromium with a scripted mock model: a failed action is reported
// back and the next round recovers; the same idle action three times is stopped as a loop.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { userMessage } from '../support/browser.mjs';
import { modelSuite } from '../support/suite.mjs';

let browser, mock, site;

modelSuite((env) => ({ browser, mock, site } = env), {
  model: (m) => ({ provider: 'custom', baseUrl: m.baseUrl, model: 'mock-model', apiKey: 'sk-test-loop', family: 'generic', stream: false }),
});

async function openActions(n) {
  const page = await browser.context.newPage();
  await page.goto(site.url(`/actions.html?loop=${n}`));
  await page.waitForFunction(() => window.fixture);
  return { page, tabId: await browser.tabIdOf(page) };
}

/** The number the request's element list gives the line matching `pattern`. */
const numberOf = (body, pattern) => Number(userMessage(body).text.split('\n').find((l) => /^\s*\[\d+\]/.test(l) && pattern.test(l))?.match(/\[(\d+)\]/)[1]);
const plan = (actions, done) => JSON.stringify({ thought: 'next', actions, done });

test('a failed action is reported to the model, and the next round recovers', async () => {
  const { page, tabId } = await openActions(1);
  mock.script(
    // Types the name, then taps an element the page does not have.
    (body) => plan([{ type: 'Input', target: numberOf(body, /\binput\b/), value: 'Grace' }, { type: 'Tap', target: 9999 }], true),
    (body) => plan([{ type: 'Tap', target: numberOf(body, /Count taps/) }], true),
  );
  const run = await browser.sw.evaluate((id) => self.sightline.act(id, 'type Grace as the name, then count a tap'), tabId);
  assert.equal(run.status, 'succeeded', run.error);
  const state = await page.evaluate(() => window.fixture.state());
  assert.deepEqual([state.name, state.taps], ['Grace', '1']);
  const failed = run.steps.find((s) => s.status === 'failed');
  assert.match(failed.error, /9999/);
  const second = userMessage(mock.requests[1].body).text;
  assert.match(second, /Tap \[9999\] failed/, 'the failure goes back to the model');
  assert.match(second, /appeared|went|changed/, 'with what the typing changed');
  await page.close();
});

test('the same action on a page it does not change is nudged once, then stopped', async () => {
  const { page, tabId } = await openActions(2);
  const tapDropZone = (body) => plan([{ type: 'Tap', target: numberOf(body, /Drop here/) }], false);
  mock.script(tapDropZone, tapDropZone, tapDropZone, tapDropZone);
  const run = await browser.sw.evaluate((id) => self.sightline.act(id, 'make something happen'), tabId);
  assert.equal(run.status, 'failed');
  assert.match(run.error.message, /stopped a loop: "Tap \[\d+\]" ran three times/);
  assert.equal(mock.requests.length, 3);
  assert.match(userMessage(mock.requests[1].body).text, /nothing on the page changed/);
  assert.match(userMessage(mock.requests[2].body).text, /you did exactly this last round too/);
  assert.match(run.steps.find((s) => s.kind === 'action').note, /nothing on the page changed/, 'the person sees it too');
  await page.close();
});
