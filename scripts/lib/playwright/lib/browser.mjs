// Launches Chromium (chromium-path.mjs: $CHROMIUM_PATH, Playwright's own, Debian's or Homebrew's)
// with the built extension through Playwright.
import { chromium as playwrightChromium } from 'playwright-core';
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, realpath, rename, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromiumPath } from './chromium-path.mjs';

const PACKAGE = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

/**
 * The built extension: $SIGHTLINE_EXTENSION_PATH, else the one the package carries (its
 * tarball has it in extension/, scripts/package puts it there), else a checkout's dist/
 * (scripts/build writes it; the package folder is scripts/lib/playwright in the repo).
 */
export function extensionDir(env = process.env) {
  if (env.SIGHTLINE_EXTENSION_PATH) return path.resolve(env.SIGHTLINE_EXTENSION_PATH);
  const carried = path.join(PACKAGE, 'extension');
  return existsSync(path.join(carried, 'manifest.json')) ? carried : path.resolve(PACKAGE, '../../../dist');
}

export const DIST = extensionDir();

// How much taller than its page area a window is (headless Chromium still reserves room for
// its toolbar). Measured once per process, scale factor and mode; headless, also kept in the
// temp folder per Chromium build, so each Playwright worker and test file does not start a
// second browser only to measure it.
const uiHeights = new Map();

// What the launch does not take from Playwright Test: emulation a real window cannot take (the
// extension captures what the window shows; a device ratio is a real one,
// --force-device-scale-factor), the storage state a persistent context is opened without (the
// fixture puts it in), and blocking service workers (the extension is one). Given as undefined so
// that Playwright Test, when this runs in a test, does not add the project's own (its context
// options fill absent keys).
const NOT_TAKEN = { deviceScaleFactor: undefined, isMobile: undefined, hasTouch: undefined, screen: undefined, storageState: undefined, serviceWorkers: undefined };

async function windowChromeHeight(chromium, executablePath, headless, scaleArgs) {
  const key = `${executablePath} ${headless} ${scaleArgs}`;
  if (uiHeights.has(key)) return uiHeights.get(key);
  const file = headless ? await keptMeasureFile(executablePath, scaleArgs) : null;
  const kept = file ? Number.parseInt(await readFile(file, 'utf8').catch(() => ''), 10) : NaN;
  if (kept >= 0 && kept < 400) {
    uiHeights.set(key, kept);
    return kept;
  }
  const args = ['--no-sandbox', '--disable-gpu', '--window-size=1280,800', ...scaleArgs];
  const probe = await chromium.launch({ executablePath, headless, args });
  try {
    const page = await (await probe.newContext({ ...NOT_TAKEN, viewport: null })).newPage();
    uiHeights.set(key, await page.evaluate(() => 800 - window.innerHeight));
  } finally {
    await probe.close();
  }
  if (file) {
    // Written whole then renamed: a concurrent reader sees the old file or the new, never half.
    const partial = `${file}.${process.pid}`;
    await writeFile(partial, String(uiHeights.get(key)))
      .then(() => rename(partial, file))
      .catch(() => rm(partial, { force: true }));
  }
  return uiHeights.get(key);
}

/** Where the headless measure of this Chromium build (its path, size and time) is kept. */
async function keptMeasureFile(executablePath, scaleArgs) {
  const real = await realpath(executablePath).catch(() => null);
  const info = real && (await stat(real).catch(() => null));
  if (!info) return null;
  const tag = createHash('sha256').update(`${real} ${info.size} ${info.mtimeMs} ${scaleArgs}`).digest('hex').slice(0, 16);
  return path.join(tmpdir(), `sightline-window-ui-${tag}`);
}

/**
 * Chromium with the built extension. The page area is sized by the real window, not by
 * Playwright's viewport emulation: the extension captures through its own debugger session,
 * which sees the window, so both must agree. `deviceScaleFactor` sets a real device ratio.
 */
/**
 * `lang`: the browser's interface language (e.g. "zh-CN"), which chrome.i18n follows.
 * `scrollbars`: headless pages show scrollbars a person could drag (Playwright hides them).
 * `executablePath`: the Chromium to run (default: chromium-path.mjs).
 * `awaitReady`: wait for the worker's core to load (false: a test of what a failed load shows).
 * `chromium`: the Playwright browser type to launch with (default playwright-core's; the fixture
 * passes its Playwright Test's, whose traces and screenshots then cover this browser too).
 * `contextOptions`: more options of the context (baseURL, locale, extraHTTPHeaders, …: what
 * launchPersistentContext takes); the window, the executable and the arguments stay this one's.
 */
export async function launchWithExtension({ headless = true, extensionDir = DIST, executablePath, viewport = { width: 1280, height: 800 }, deviceScaleFactor, lang, scrollbars = false, awaitReady = true, chromium = playwrightChromium, contextOptions = {} } = {}) {
  executablePath ??= chromiumPath({ browserType: chromium });
  const userDataDir = await mkdtemp(path.join(tmpdir(), 'sightline-profile-'));
  const scaleArgs = deviceScaleFactor ? [`--force-device-scale-factor=${deviceScaleFactor}`] : [];
  const extra = await windowChromeHeight(chromium, executablePath, headless, scaleArgs);
  const context = await chromium.launchPersistentContext(userDataDir, {
    ...contextOptions,
    ...NOT_TAKEN,
    executablePath,
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
  }).catch(async (e) => {
    await rm(userDataDir, { recursive: true, force: true });
    throw new Error(`Chromium did not start from ${executablePath} (CHROMIUM_PATH; branded Chrome will not load the extension): ${e.message}`, { cause: e });
  });
  let sw;
  try {
    sw = context.serviceWorkers()[0] ?? (await context.waitForEvent('serviceworker', { timeout: 15_000 }));
    if (awaitReady) await sw.evaluate(() => self.sightline.ready());
  } catch (e) {
    await context.close().catch(() => {});
    await rm(userDataDir, { recursive: true, force: true });
    throw new Error(`the Sightline extension in ${extensionDir} did not start (is it built? scripts/build; or set SIGHTLINE_EXTENSION_PATH): ${e.message}`, { cause: e });
  }
  const extensionId = new URL(sw.url()).host;
  return {
    context,
    sw,
    extensionId,
    tabIdOf: (page) => tabIdOf(sw, page),
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

/**
 * The chrome.tabs id of a Playwright page: its DevTools target id, as the extension's
 * chrome.debugger sees it (any page, whatever its URL; pages may share one).
 */
export async function tabIdOf(sw, page) {
  const cdp = await page.context().newCDPSession(page);
  let targetId;
  try {
    ({ targetInfo: { targetId } } = await cdp.send('Target.getTargetInfo'));
  } finally {
    await cdp.detach().catch(() => {});
  }
  const id = await sw.evaluate(async (target) => (await chrome.debugger.getTargets()).find((t) => t.id === target)?.tabId, targetId);
  if (id == null) throw new Error(`no tab shows ${page.url()}`);
  return id;
}

/**
 * Sizes the window a page shows in so that its page area is `width`×`height` CSS px (the
 * extension captures what the window shows, so emulation would not do). Bounded: throws when
 * the page does not take the size within 5 s.
 */
export async function resizeWindow(page, { width, height }) {
  const fits = () => page.evaluate(([w, h]) => innerWidth === w && innerHeight === h, [width, height]);
  if (await fits()) return;
  const cdp = await page.context().newCDPSession(page);
  try {
    const { windowId } = await cdp.send('Browser.getWindowForTarget');
    const [extraW, extraH] = await page.evaluate(() => [outerWidth - innerWidth, outerHeight - innerHeight]);
    await cdp.send('Browser.setWindowBounds', { windowId, bounds: { width: width + extraW, height: height + extraH } });
  } finally {
    await cdp.detach().catch(() => {});
  }
  for (const end = Date.now() + 5_000; !(await fits());) {
    if (Date.now() > end) throw new Error(`the window did not take the size ${width}×${height}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}
