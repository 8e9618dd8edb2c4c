// Launches Debian Chromium with the built extension (dist/) through playwright-core.
import { chromium } from 'playwright-core';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
export const DIST = path.join(ROOT, 'dist');

const EXECUTABLE = process.env.CHROMIUM_PATH || '/usr/bin/chromium';

// How much taller than its page area a window is (headless Chromium still reserves room for
// its toolbar). Measured once per process and scale factor.
const uiHeights = new Map();
async function windowChromeHeight(headless, scaleArgs) {
  const key = `${headless} ${scaleArgs}`;
  if (!uiHeights.has(key)) {
    const args = ['--no-sandbox', '--disable-gpu', '--window-size=1280,800', ...scaleArgs];
    const probe = await chromium.launch({ executablePath: EXECUTABLE, headless, args });
    try {
      const page = await (await probe.newContext({ viewport: null })).newPage();
      uiHeights.set(key, await page.evaluate(() => 800 - window.innerHeight));
    } finally {
      await probe.close();
    }
  }
  return uiHeights.get(key);
}

/**
 * Chromium with the built extension. The page area is sized by the real window, not by
 * Playwright's viewport emulation: the extension captures through its own debugger session,
 * which sees the window, so both must agree. `deviceScaleFactor` sets a real device ratio.
 */
/**
 * `lang`: the browser's interface language (e.g. "zh-CN"), which chrome.i18n follows.
 * `scrollbars`: headless pages show scrollbars a person could drag (Playwright hides them).
 */
export async function launchWithExtension({ headless = true, extensionDir = DIST, viewport = { width: 1280, height: 800 }, deviceScaleFactor, lang, scrollbars = false } = {}) {
  const userDataDir = await mkdtemp(path.join(tmpdir(), 'sightline-profile-'));
  const scaleArgs = deviceScaleFactor ? [`--force-device-scale-factor=${deviceScaleFactor}`] : [];
  const extra = await windowChromeHeight(headless, scaleArgs);
  const context = await chromium.launchPersistentContext(userDataDir, {
    executablePath: EXECUTABLE,
    headless,
    viewport: null,
    ...(scrollbars ? { ignoreDefaultArgs: ['--hide-scrollbars'] } : {}),
    // On Linux Chromium takes its interface language from the environment.
    ...(lang ? { env: { ...process.env, LANGUAGE: lang.replace('-', '_') }, locale: lang } : {}),
    args: [
      ...(lang ? [`--lang=${lang}`] : []),
      `--window-size=${viewport.width},${viewport.height + extra}`,
      ...scaleArgs,
      // Attaching chrome.debugger shows an infobar a moment later, which shrinks the page
      // between two reads; users see it, tests want a fixed viewport.
      '--silent-debugger-extension-api',
      `--disable-extensions-except=${extensionDir}`,
      `--load-extension=${extensionDir}`,
      '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update',
      '--disable-sync', '--no-first-run', '--disable-quic',
    ],
  });
  const sw = context.serviceWorkers()[0] ?? (await context.waitForEvent('serviceworker', { timeout: 15_000 }));
  const extensionId = new URL(sw.url()).host;
  await sw.evaluate(() => self.sightline.ready());
  return {
    context,
    sw,
    extensionId,
    /** The chrome.tabs id of a Playwright page (matched by URL; tests use distinct URLs). */
    async tabIdOf(page) {
      const url = page.url();
      const id = await sw.evaluate(async (u) => (await chrome.tabs.query({})).find((t) => t.url === u)?.id, url);
      if (id == null) throw new Error(`no tab has ${url}`);
      return id;
    },
    /** The side panel's page, opened as a tab at a side panel's size. */
    async openPanel(tabId) {
      const panel = await context.newPage();
      await panel.setViewportSize({ width: 400, height: 820 });
      await panel.goto(`chrome-extension://${extensionId}/panel/panel.html${tabId != null ? `?tab=${tabId}` : ''}`);
      return panel;
    },
    async close() {
      await context.close();
      await rm(userDataDir, { recursive: true, force: true });
    },
  };
}
