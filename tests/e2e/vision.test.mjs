// Screenshots for models in real Chromium: the image the mock model receives carries marker
// labels whose numbers are exactly the description's element numbers, next to their
// elements; dense pages get labels that never overlap; DPR 2 and full-page captures map back.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { launchWithExtension, userMessage } from '../support/browser.mjs';
import { readMarkerLabels } from '../support/markers.mjs';
import { modelSuite } from '../support/suite.mjs';

let browser, mock, site;

modelSuite((env) => ({ browser, mock, site } = env), {
  model: (m) => ({ baseUrl: m.baseUrl, model: 'mock-model', apiKey: 'sk-test-vision', family: 'generic' }),
});

async function open(pathname) {
  const page = await browser.context.newPage();
  await page.goto(site.url(pathname), { waitUntil: 'load' });
  return { page, tabId: await browser.tabIdOf(page) };
}

const listedNumbers = (description) => [...description.matchAll(/^\[(\d+)\]/gm)].map((m) => Number(m[1])).sort((a, b) => a - b);

function overlaps(a, b) {
  return a.x < b.x + b.width && b.x < a.x + a.width && a.y < b.y + b.height && b.y < a.y + a.height;
}

/** Pixels between two rectangles (0 when they touch or overlap). */
function gap(a, b) {
  const dx = Math.max(0, b.x - (a.x + a.width), a.x - (b.x + b.width));
  const dy = Math.max(0, b.y - (a.y + a.height), a.y - (b.y + b.height));
  return Math.max(dx, dy);
}

test('the image sent to the model is labelled with the description\'s numbers, beside their elements', async () => {
  const { page, tabId } = await open('/todo.html?case=vision');
  await page.fill('.new-todo', 'draft');
  mock.script('{"thought":"nothing to do","actions":[],"done":true}');
  const run = await browser.sw.evaluate((id) => self.sightline.act(id, 'look at the page'), tabId);
  assert.equal(run.status, 'succeeded', run.error);
  const { text, images } = userMessage(mock.requests[0].body);
  assert.equal(images.length, 1);
  const expected = listedNumbers(text);
  assert.ok(expected.length >= 3, `the todo page lists several elements: ${expected}`);

  const labels = await readMarkerLabels(page, images[0], 2);
  assert.deepEqual(labels.map((l) => l.number).sort((a, b) => a - b), expected, 'one label per listed element, same numbers');

  // Each label touches its own element's box (the page is unchanged since the run read it).
  const { elements } = await browser.sw.evaluate((id) => self.sightline.extract(id), tabId);
  for (const label of labels) {
    const el = elements.find((e) => e.index === label.number);
    const box = el.visibleRect ?? el.rect;
    assert.ok(gap(label, box) <= 1, `label ${label.number} at ${JSON.stringify(label)} is beside ${JSON.stringify(box)}`);
  }
  await page.close();
});

test('a dense page gets one readable, non-overlapping label per element', async () => {
  const { page, tabId } = await open('/dense.html');
  const shot = await browser.sw.evaluate((id) => self.sightline.screenshot(id), tabId);
  assert.equal(shot.mapping.width, 1280);
  assert.ok(shot.labels.length >= 150, `${shot.labels.length} labels`);
  for (let i = 0; i < shot.labels.length; i++) {
    const a = shot.labels[i];
    assert.ok(a.x >= 0 && a.y >= 0 && a.x + a.width <= shot.mapping.width && a.y + a.height <= shot.mapping.height);
    for (const b of shot.labels.slice(i + 1)) assert.ok(!overlaps(a, b), `labels ${a.number} and ${b.number} overlap`);
  }
  const read = await readMarkerLabels(page, shot.dataUrl, 2);
  assert.deepEqual(read.map((l) => l.number).sort((a, b) => a - b), shot.labels.map((l) => l.number).sort((a, b) => a - b),
    'every label is legible in the image');
  await page.close();
});

test('DPR 2: captured at device pixels, sent at CSS size by default, and both map back to CSS pixels', async () => {
  const hidpi = await launchWithExtension({ deviceScaleFactor: 2 });
  try {
    const page = await hidpi.context.newPage();
    await page.goto(site.url('/todo.html?case=dpr'));
    const tabId = await hidpi.tabIdOf(page);
    const raw = await hidpi.sw.evaluate((id) => self.sightline.capture(id), tabId);
    assert.equal(raw.devicePixelRatio, 2);
    const css = await hidpi.sw.evaluate((id) => self.sightline.screenshot(id), tabId);
    assert.deepEqual([css.mapping.width, css.mapping.height, css.mapping.scaleX, css.mapping.scaleY], [1280, 800, 1, 1]);
    const kept = await hidpi.sw.evaluate((id) => self.sightline.screenshot(id, { image: { resizeToCss: false } }), tabId);
    assert.deepEqual([kept.mapping.width, kept.mapping.height, kept.mapping.scaleX], [2560, 1600, 2]);
    // Labels drawn at scale 3 on the 2× image are as legible as at scale 2 on the 1× one.
    const read = await readMarkerLabels(page, kept.dataUrl, 3);
    assert.deepEqual(read.map((l) => l.number).sort((a, b) => a - b), kept.labels.map((l) => l.number).sort((a, b) => a - b));
    // The input's label in the 2× image sits beside the input at twice its CSS position.
    const { elements } = await hidpi.sw.evaluate((id) => self.sightline.extract(id), tabId);
    const input = elements.find((e) => e.tag === 'input' && e.attributes.some(([k]) => k === 'placeholder'));
    const label = kept.labels.find((l) => l.number === input.index);
    assert.ok(gap(label, { x: input.rect.x * 2, y: input.rect.y * 2, width: input.rect.width * 2, height: input.rect.height * 2 }) <= 2);
    const qwen = await hidpi.sw.evaluate((id) => self.sightline.screenshot(id, { image: { rule: { kind: 'qwenPad28' } } }), tabId);
    assert.deepEqual([qwen.mapping.width % 28, qwen.mapping.height % 28, qwen.mapping.contentWidth], [0, 0, 1280]);
    // A full page sent at CSS size is captured at CSS size (a quarter of the pixels to decode,
    // in memories that never shrink): the same image size, the labels where they were.
    const full = await hidpi.sw.evaluate((id) => self.sightline.screenshot(id, { fullPage: true }), tabId);
    assert.deepEqual([full.mapping.width, full.mapping.scaleX, full.mapping.devicePixelRatio], [1280, 1, 1]);
    assert.deepEqual(full.labels.slice(0, 5), css.labels.slice(0, 5));
    // Kept at device size, or as it came (tooling), it is captured at device pixels.
    const fullKept = await hidpi.sw.evaluate((id) => self.sightline.screenshot(id, { fullPage: true, markers: false, image: { resizeToCss: false } }), tabId);
    assert.deepEqual([fullKept.mapping.width, fullKept.mapping.scaleX], [2560, 2]);
    const fullRaw = await hidpi.sw.evaluate((id) => self.sightline.capture(id, { fullPage: true }), tabId);
    assert.equal(fullRaw.devicePixelRatio, 2);
  } finally {
    await hidpi.close();
  }
});

test('a full-page capture covers the document and maps back through the scroll offset', async () => {
  const { page, tabId } = await open('/long.html');
  await page.evaluate(() => window.scrollTo(0, 600));
  const height = await page.evaluate(() => document.documentElement.scrollHeight);
  const shot = await browser.sw.evaluate((id) => self.sightline.screenshot(id, { fullPage: true, markers: false }), tabId);
  assert.equal(shot.mapping.height, Math.min(height, 16384));
  assert.equal(shot.mapping.originY, -600);
  const hl = await browser.sw.evaluate((id) => self.sightline.overlay(id, [{ kind: 'highlight', rect: { x: 10, y: 10, width: 50, height: 20 } }]), tabId);
  assert.match(hl.dataUrl, /^data:image\/png;base64,/);
  await page.close();
});
