// The usual e2e file: a mock model, the fixture server and Chromium with the extension,
// started once for the file and closed after it; the mock's script is reset before each test.
// Files that read pages without a model use `pageSuite`: the same, without the mock.
import { after, before, beforeEach } from 'node:test';
import { launchWithExtension } from './browser.mjs';
import { startMockModel } from './mock-model.mjs';
import { startStaticServer } from './static-server.mjs';

/**
 * @param {(env: {browser, mock, site}) => void} bind receives the three once they are up
 * @param {{model?: (mock) => object}} [opts] `model`: model settings to store. The cache is
 *   switched off: these files test the model path (the cache test switches it on itself).
 */
export function modelSuite(bind, { model } = {}) {
  suite(bind, { model, withMock: true });
}

/** @param {(env: {browser, site}) => void} bind receives both once they are up */
export function pageSuite(bind) {
  suite(bind, { withMock: false });
}

function suite(bind, { model, withMock }) {
  let env = {};
  before(async () => {
    const [mock, site] = await Promise.all([withMock ? startMockModel() : undefined, startStaticServer()]);
    const browser = await launchWithExtension();
    env = withMock ? { browser, mock, site } : { browser, site };
    bind(env);
    if (model) {
      await browser.sw.evaluate((m) => self.sightline.setSettings({ model: m, run: { useCache: false } }), model(mock));
    }
  });
  after(async () => {
    await env.browser?.close();
    await Promise.all([env.mock?.close(), env.site?.close()]);
  });
  beforeEach(() => env.mock?.reset());
}

/** Polls `check` every 100 ms until it returns something truthy (returned), or fails after `ms`. */
export async function until(what, check, ms = 15_000) {
  const end = Date.now() + ms;
  for (;;) {
    const value = await check();
    if (value) return value;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}
