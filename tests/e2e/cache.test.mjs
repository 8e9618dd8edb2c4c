// The cache's storage: one IndexedDB record per entry, bounded, and an earlier version's
// array in chrome.storage.local moved there once (by the next worker, as after an update).
// What the cache does for a run is tested in tasks.test.mjs.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { userMessage } from '../support/browser.mjs';
import { modelSuite, until } from '../support/suite.mjs';

let browser, mock, site;
modelSuite((env) => ({ browser, mock, site } = env), {
  model: (m) => ({ provider: 'custom', baseUrl: m.baseUrl, model: 'mock-model', apiKey: 'sk-test-cache', family: 'generic', stream: false }),
});

/** A located element as the core keeps it: `prompt` on https://x.test/a, `updatedMs` as given. */
const entry = (prompt, updatedMs) => ({
  kind: 'locate', page: 'https://x.test/a', prompt, element: { xpath: '/html/body', tag: 'body', summary: 'body' }, updatedMs,
});

test('the cache keeps 2000 entries: an import past that drops the oldest', { timeout: 60_000 }, async () => {
  const { sw } = browser;
  assert.equal(await sw.evaluate(() => self.sightline.clearCache()), 0);
  const entries = Array.from({ length: 2003 }, (_, i) => entry(`element ${i}`, 1000 + i));
  assert.equal(await sw.evaluate((j) => self.sightline.importCache(j), JSON.stringify(entries)), 2000);
  const kept = JSON.parse(await sw.evaluate(() => self.sightline.exportCache())).map((e) => e.prompt);
  assert.equal(kept.length, 2000);
  assert.ok(!kept.includes('element 0') && !kept.includes('element 2') && kept.includes('element 3') && kept.includes('element 2002'));
  // The same key again replaces its entry; the count stays.
  assert.equal(await sw.evaluate((j) => self.sightline.importCache(j), JSON.stringify([entry('element 2002', 5000)])), 2000);
  assert.equal(await sw.evaluate(() => self.sightline.clearCache()), 0);
});

test('an earlier version\'s cache array in chrome.storage.local moves to IndexedDB once and is used', { timeout: 120_000 }, async () => {
  // A real entry, found by the model on the fixture page, as the earlier version stored it.
  await browser.sw.evaluate(() => self.sightline.setSettings({ run: { useCache: true } }));
  const page = await browser.context.newPage();
  await page.goto(site.url('/actions.html?cache=1'));
  await page.waitForFunction(() => window.fixture);
  const tabId = await browser.tabIdOf(page);
  mock.script((body) => {
    const line = userMessage(body).text.split('\n').find((l) => /^\s*\[\d+\]/.test(l) && /Count taps/.test(l));
    return JSON.stringify({ thought: 'found it', element: Number(line.match(/\[(\d+)\]/)[1]) });
  });
  await browser.sw.evaluate((id) => self.sightline.aiTap(id, 'the Count taps button'), tabId);
  assert.equal(mock.requests.length, 1);
  const [found] = JSON.parse(await browser.sw.evaluate(() => self.sightline.exportCache()));
  assert.equal(found.kind, 'locate');
  // The old layout: one array under "cache", with an entry no version could read among them.
  const old = [found, { kind: 'nonsense' }, entry('another element', 2)];
  await browser.sw.evaluate(async (array) => {
    await self.sightline.clearCache();
    await chrome.storage.local.set({ cache: array });
  }, old);

  // A new worker (stopped as Chrome stops idle ones, woken by the panel): its first cache use
  // moves the array.
  await browser.sw.evaluate(() => { self.oldWorker = true; });
  const cdp = await browser.context.newCDPSession(page);
  await cdp.send('ServiceWorker.enable');
  await cdp.send('ServiceWorker.stopAllWorkers');
  const panel = await browser.openPanel(tabId);
  const sw = await until('the new worker', async () => {
    for (const w of browser.context.serviceWorkers()) {
      // A stopped worker's handle answers only once something wakes it: each probe is bounded.
      const ready = w.evaluate(() => self.sightline.ready().then((r) => r && !self.oldWorker)).catch(() => false);
      if (await Promise.race([ready, new Promise((r) => setTimeout(() => r(false), 3000))])) return w;
    }
    return null;
  }, 20_000);
  const moved = JSON.parse(await sw.evaluate(() => self.sightline.exportCache()));
  assert.deepEqual(moved.map((e) => e.prompt).sort(), ['another element', found.prompt].sort(), 'the readable entries moved; the unreadable one was dropped');
  assert.deepEqual(await sw.evaluate(() => chrome.storage.local.get('cache')), {}, 'nothing is left in chrome.storage.local');

  // The moved entry is used: the tap needs no model.
  await sw.evaluate((id) => self.sightline.aiTap(id, 'the Count taps button'), tabId);
  assert.equal(mock.requests.length, 1, 'the second tap came from the moved cache');
  assert.equal(await page.evaluate(() => window.fixture.state().taps), '2');
  await sw.evaluate(() => self.sightline.setSettings({ run: { useCache: false } }));
  await panel.close();
  await page.close();
});
