// The Chromium the fixture, the scripts and the tests drive, when not told one: $CHROMIUM_PATH,
// else Playwright's own Chromium when it is installed (`npx playwright install chromium`), else
// where Debian's apt (Linux) or Homebrew's cask (macOS) puts it. Chromium, not branded Chrome or
// Edge: those ignore --load-extension. `node chromium-path.mjs` prints it (scripts/setup asks).
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';

const INSTALLED = { darwin: '/Applications/Chromium.app/Contents/MacOS/Chromium' };

/**
 * Where Playwright keeps its Chromium, when it is there: `browserType` is the Playwright whose
 * download is meant (the fixture passes its own, so the build matches that Playwright's version).
 */
export function playwrightChromium(browserType = chromium) {
  try {
    const file = browserType.executablePath();
    return file && existsSync(file) ? file : null;
  } catch {
    return null; // a platform Playwright has no build for
  }
}

/** The Chromium to launch: see the top of this file. */
export function chromiumPath({ env = process.env, browserType } = {}) {
  return env.CHROMIUM_PATH || playwrightChromium(browserType) || INSTALLED[process.platform] || '/usr/bin/chromium';
}

if (process.argv[1] === fileURLToPath(import.meta.url)) console.log(chromiumPath());
