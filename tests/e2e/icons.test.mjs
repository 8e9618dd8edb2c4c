// The extension's icons: the manifest Chrome loaded names one for the toolbar and the store at
// each size, and every file it names is in dist/ and decodes to an image of that size.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { pageSuite } from '../support/suite.mjs';

let browser;
pageSuite((env) => ({ browser } = env));

const SIZES = ['16', '32', '48', '128'];

test('the manifest names an icon per size, for the extension and its toolbar button, and each loads', async () => {
  const manifest = await browser.sw.evaluate(() => chrome.runtime.getManifest());
  assert.deepEqual(Object.keys(manifest.icons ?? {}).sort(), [...SIZES].sort());
  assert.deepEqual(manifest.action?.default_icon, manifest.icons, 'the toolbar button shows the same icon');
  const page = await browser.context.newPage();
  try {
    await page.goto(`chrome-extension://${browser.extensionId}/options/options.html`);
    for (const size of SIZES) {
      const url = `chrome-extension://${browser.extensionId}/${manifest.icons[size]}`;
      const drawn = await page.evaluate(async (src) => {
        const img = new Image();
        img.src = src;
        await img.decode();
        const canvas = new OffscreenCanvas(img.naturalWidth, img.naturalHeight);
        const ctx = canvas.getContext('2d');
        ctx.drawImage(img, 0, 0);
        const { data } = ctx.getImageData(0, 0, img.naturalWidth, img.naturalHeight);
        // A mark, not a flat square: opaque blue, white and near-black pixels, transparent corners.
        const colours = new Set();
        for (let i = 0; i < data.length; i += 4) if (data[i + 3] === 255) colours.add(`${data[i] >> 6},${data[i + 1] >> 6},${data[i + 2] >> 6}`);
        return { width: img.naturalWidth, height: img.naturalHeight, corner: data[3], colours: colours.size };
      }, url);
      assert.deepEqual([drawn.width, drawn.height], [Number(size), Number(size)], url);
      assert.equal(drawn.corner, 0, `${url}: rounded, its corner transparent`);
      assert.ok(drawn.colours >= 3, `${url}: ${drawn.colours} colours`);
    }
  } finally {
    await page.close();
  }
});
