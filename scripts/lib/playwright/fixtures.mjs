// The fixtures of @sightline/playwright (index.mjs), for extending a `test` of your own:
// `base.extend(sightlineFixtures(base))`. The tests of a worker share one Chromium with the
// built extension (a persistent context: extensions need one), launched by the worker's own
// Playwright with the project's `use` settings (baseURL, viewport as the window's size, locale,
// extraHTTPHeaders, …; storageState applied per test), and launched again only for a test whose
// settings differ. Each test gets a page in it and the AI calls under Midscene's Playwright
// fixture names (ai, aiTap, aiInput, aiQuery, aiAssert, …, runYaml), each a Playwright step
// served by the extension's core (self.sightline.* in its service worker, on the test page's
// tab). At teardown every Sightline run of the test is attached as its HTML report. This file
// does not import @playwright/test: the steps are the given `test`'s, so a project's own copy of
// Playwright Test is the only one loaded.
import { readFile, writeFile } from 'node:fs/promises';
import { ITEMS, promptText } from './calls.mjs';
import { launchWithExtension, resizeWindow, tabIdOf } from './lib/browser.mjs';
import { core } from './lib/core-node.mjs';
import { modelsFromEnv, openFlow, reportFileName, runFlowIn, secretsFromEnv, writeOutput } from './lib/flow-runner.mjs';

/** A Sightline run that did not succeed: `code` is the run's stable error code (README: error codes). */
export class SightlineError extends Error {
  constructor(code, message, run) {
    super(`${code}: ${message}`);
    this.name = 'SightlineError';
    this.code = code;
    this.run = run;
  }
}

/** The error a finished run stands for, or null when it succeeded. */
export function runError(run) {
  if (run.status === 'succeeded') return null;
  if (run.error) return new SightlineError(run.error.code, run.error.message, run);
  if (run.status === 'unconfirmed') return new SightlineError('unconfirmed', `done, not confirmed: ${run.check?.reason ?? 'the page did not show the goal'}`, run);
  return new SightlineError(run.status, `the run was ${run.status}`, run);
}

const seconds = (ms) => `${(ms / 1000).toFixed(1)} s`;

/** Report file names a flow asked for (`agent: reportFileName`, `testId`), by run id: used at teardown. */
const reportNames = new Map();
const short = (text, n = 80) => (text.length > n ? `${text.slice(0, n - 1)}…` : text);

/** A Sightline step as a Playwright step title: what it did, on what, how long. */
function stepTitle(step) {
  const what = typeof step.action === 'string' ? step.action : step.action ? JSON.stringify(step.action) : step.kind;
  const on = step.target?.summary ? ` → ${step.target.summary}` : '';
  const mark = step.status === 'failed' ? '✗ ' : '';
  return short(`${mark}${what}${on} (${seconds(step.durationMs ?? 0)})`, 140);
}

/**
 * The run's own steps as nested Playwright steps (after the run: they carry its timings in
 * their titles). A failed step the run recovered from is marked, not thrown.
 */
async function showSteps(test, steps) {
  for (const step of steps) {
    await test.step(stepTitle(step), () => {});
  }
}

/**
 * A Midscene-style call as a task the extension runs: the item is read by the core's flow
 * reader, which knows Midscene's argument forms (aiInput's two orders, aiScroll's types, …).
 */
function taskOf(item) {
  const flow = core.parseFlow(JSON.stringify({ tasks: [{ name: 'call', flow: [item] }] }));
  const step = flow.tasks[0]?.steps[0];
  if (step?.kind !== 'task') throw new Error(`not a Sightline task: ${JSON.stringify(item)}`);
  return step.task;
}

/** Clears what the sites at `origins` stored in the browser, through the page's DevTools session. */
async function clearSiteData(page, origins) {
  if (!origins.size) return;
  const cdp = await page.context().newCDPSession(page);
  try {
    for (const origin of origins) await cdp.send('Storage.clearDataForOrigin', { origin, storageTypes: 'all' });
  } finally {
    await cdp.detach().catch(() => {});
  }
}

/** The runs a tab has had since `since` (ms), newest first; running ones are stopped first. */
async function runsOfTab(sw, tabId, since) {
  return sw.evaluate(async ({ tabId, since }) => {
    const mine = (await self.sightline.runs()).filter((r) => r.tabId === tabId && r.startedMs >= since);
    for (const r of mine) if (r.status === 'running') await self.sightline.stop(r.id);
    return mine.map((r) => ({ id: r.id, title: r.instruction ?? r.title ?? '', status: r.status }));
  }, { tabId, since });
}

/**
 * Storage state (a file's path or its object) put into a context that is already open, as a new
 * context would take it: by Playwright's own setStorageState where it has one (recent releases), else
 * cookies, then each origin's local storage on a page whose requests are answered blank.
 */
export async function applyStorageState(context, state) {
  if (typeof context.setStorageState === 'function') return context.setStorageState(state);
  const { cookies = [], origins = [] } = typeof state === 'string' ? JSON.parse(await readFile(state, 'utf8')) : state;
  if (cookies.length) await context.addCookies(cookies);
  if (!origins.length) return;
  const page = await context.newPage();
  try {
    await page.route('**/*', (route) => route.fulfill({ contentType: 'text/html', body: '<html></html>' }));
    for (const { origin, localStorage = [] } of origins) {
      await page.goto(origin);
      await page.evaluate((items) => items.forEach(({ name, value }) => localStorage.setItem(name, value)), localStorage);
    }
  } finally {
    await page.close().catch(() => {});
  }
}

/**
 * The fixtures, for `base.extend(sightlineFixtures(base))` (`base`: a Playwright Test `test`,
 * whose `step` the calls use). The project's `use` settings apply to the browser: `baseURL`,
 * `locale`, `timezoneId`, `userAgent`, `extraHTTPHeaders`, `httpCredentials`,
 * `ignoreHTTPSErrors`, `colorScheme`, `geolocation`, `permissions`, `offline`,
 * `javaScriptEnabled`, `bypassCSP`, `acceptDownloads`, `proxy`, `contextOptions`; `viewport` is
 * the window's page area; `deviceScaleFactor` a real device ratio; `storageState` is put into the
 * context before each test; `headless` and `launchOptions.executablePath` choose how and which
 * Chromium runs (`isMobile`, `hasTouch`, `serviceWorkers: 'block'` and `video` are not taken). Sightline's options (test.use):
 * - `sightlineBrowser` (worker): `{executablePath, extensionPath, headless, viewport}`, over the
 *   above (default Chromium: $CHROMIUM_PATH, else Playwright's own when installed, else
 *   /usr/bin/chromium or Homebrew's; extension: $SIGHTLINE_EXTENSION_PATH, else the one in the
 *   package);
 * - `sightlineModel`: model settings for every call (default from the environment: SIGHTLINE_*
 *   or Midscene's MIDSCENE_MODEL_* / OPENAI_*; none: the calls that need one fail saying so);
 * - `sightlinePlanner`: a planning model for every call, which plans while `sightlineModel` finds
 *   what it describes (default from the environment: SIGHTLINE_PLANNER_* or Midscene's
 *   MIDSCENE_PLANNING_MODEL_*; none: the extension's own setting, off in a fresh profile);
 * - `sightlineRunOptions`: more run options (`maxRounds`, `dialogs`, `useCache`, …);
 * - `sightlineShareContext`: true to keep what a test's sites stored (cookies, storage) for
 *   the worker's next tests (a batch index file's `shareBrowserContext`; default false:
 *   cleared after each test).
 */
export function sightlineFixtures(base) {
  /**
   * One call as a step: the run, its steps nested, its typed error thrown. `failMessage`:
   * aiAssert's own words for a failed assertion (Midscene's second argument).
   */
  const call = async ({ sightline, sightlineModel, sightlinePlanner, sightlineRunOptions }, title, task, failMessage) => base.step(title, async () => {
    const opts = {
      interactive: false, ...sightlineRunOptions, ...(sightlineModel ? { model: sightlineModel } : {}), ...(sightlinePlanner ? { planner: sightlinePlanner } : {}),
    };
    const secrets = secretsFromEnv();
    if (secrets.length) opts.secrets = secrets;
    const run = await sightline.sw.evaluate(
      ({ tabId, task, opts }) => (typeof task === 'string' ? self.sightline.act(tabId, task, opts) : self.sightline.ai(tabId, task, opts)),
      { tabId: await sightline.tabId(), task, opts },
    );
    await showSteps(base, run.steps ?? []);
    const error = runError(run);
    if (error && failMessage && error.code === 'assertion_failed') throw new SightlineError(error.code, `${failMessage} (${run.error.message})`, run);
    if (error) throw error;
    return run.result;
  }, { box: true });
  // A fixture that is a function of the test's Sightline (Playwright reads a fixture's
  // dependencies from its destructured first parameter, so this one is spelled out once).
  const served = (make) => async ({ sightline, sightlineModel, sightlinePlanner, sightlineRunOptions, page }, use) => use(make({ sightline, sightlineModel, sightlinePlanner, sightlineRunOptions, page }));

  const fixtures = {
    sightlineBrowser: [{}, { option: true, scope: 'worker' }],
    // Playwright reads a fixture's dependencies from its first parameter: none is `{}`.
    // eslint-disable-next-line no-empty-pattern
    sightlineModel: [async ({}, use) => use(modelsFromEnv().model), { option: true }],
    // eslint-disable-next-line no-empty-pattern
    sightlinePlanner: [async ({}, use) => use(modelsFromEnv().planner), { option: true }],
    sightlineRunOptions: [{}, { option: true }],
    // True: the tests of a worker share its browser context, in the order they run (a batch
    // index file's `shareBrowserContext`): what one test's sites stored is not cleared after it.
    sightlineShareContext: [false, { option: true }],
    /**
     * The worker's Chromium with the extension, one at a time: `open(settings)` resolves to the
     * browser launched with these settings (`{context, sw, extensionId}`), the one already open
     * when they are the same as its own, else a new one in its place.
     */
    sightlineWorker: [async ({ playwright, headless, launchOptions }, use) => {
      let open = null;
      const close = async () => {
        const was = open;
        open = null;
        await was?.browser.then((b) => b.close(), () => {}).catch(() => {});
      };
      await use({
        async open(settings) {
          const key = JSON.stringify(settings);
          if (open?.key !== key) {
            await close();
            const { extensionPath, extensionDir, ...rest } = settings;
            open = { key, browser: launchWithExtension({
              headless, chromium: playwright.chromium,
              ...(launchOptions.executablePath ? { executablePath: launchOptions.executablePath } : {}),
              ...((extensionPath ?? extensionDir) ? { extensionDir: extensionPath ?? extensionDir } : {}),
              ...rest,
            }) };
          }
          return open.browser;
        },
      });
      await close();
    }, { scope: 'worker' }],
    /** This test's browser: the worker's, launched with the test's settings (above). */
    sightlineChromium: [async ({
      sightlineWorker, sightlineBrowser, contextOptions, viewport, deviceScaleFactor, baseURL, locale, timezoneId, userAgent, extraHTTPHeaders,
      httpCredentials, ignoreHTTPSErrors, colorScheme, geolocation, permissions, offline, javaScriptEnabled, bypassCSP, acceptDownloads, proxy,
    }, use) => {
      const given = {
        baseURL, locale, timezoneId, userAgent, extraHTTPHeaders, httpCredentials, ignoreHTTPSErrors, colorScheme, geolocation, permissions, offline,
        javaScriptEnabled, bypassCSP, acceptDownloads, proxy,
      };
      const settings = {
        ...(viewport ? { viewport } : {}),
        ...(deviceScaleFactor ? { deviceScaleFactor } : {}),
        ...sightlineBrowser,
        contextOptions: { ...contextOptions, ...Object.fromEntries(Object.entries(given).filter(([, v]) => v !== undefined)) },
      };
      await use(await sightlineWorker.open(settings));
    }, { timeout: 60_000 }],
    // The worker's browser is shared by its tests (extensions need a persistent context), so what
    // a test's sites stored (cookies, local storage, IndexedDB, caches) is cleared after it.
    context: async ({ sightlineChromium, storageState, sightlineShareContext }, use) => {
      const { context } = sightlineChromium;
      const origins = new Set();
      const onNavigated = (frame) => {
        const { origin } = new URL(frame.url());
        if (origin.startsWith('http')) origins.add(origin);
      };
      const watched = [];
      const seen = (page) => {
        page.on('framenavigated', onNavigated);
        watched.push(page);
      };
      context.pages().forEach(seen);
      context.on('page', seen);
      if (storageState) {
        await applyStorageState(context, storageState);
        const state = typeof storageState === 'string' ? JSON.parse(await readFile(storageState, 'utf8')) : storageState;
        for (const { origin } of state.origins ?? []) origins.add(origin);
      }
      try {
        await use(context);
      } finally {
        context.off('page', seen);
        for (const page of watched) page.off('framenavigated', onNavigated);
        if (!sightlineShareContext) {
          await context.clearCookies().catch(() => {});
          const page = context.pages()[0] ?? (await context.newPage().catch(() => null));
          if (page) await clearSiteData(page, origins).catch(() => {});
        }
      }
    },
    page: async ({ context }, use) => {
      const page = await context.newPage();
      await use(page);
      await page.close().catch(() => {});
    },
    /**
     * The test page's Sightline: `{sw, extensionId, context, tabId()}`. At teardown every run
     * on the page's tab is stopped if still running and attached as its HTML report.
     */
    sightline: async ({ sightlineChromium, page }, use, testInfo) => {
      const { sw, extensionId, context } = sightlineChromium;
      const since = Date.now();
      let tab = null;
      const tabId = async () => (tab ??= await tabIdOf(sw, page));
      await use({ sw, extensionId, context, tabId });
      if (tab == null) return;
      const runs = await runsOfTab(sw, tab, since).catch(() => []);
      for (const [i, run] of runs.reverse().entries()) {
        const html = await sw.evaluate((id) => self.sightline.exportRun(id, 'report'), run.id).catch(() => null);
        const named = reportNames.get(run.id);
        reportNames.delete(run.id);
        if (!html) continue;
        // By path: the terminal reporters then name the file instead of printing its start.
        const file = testInfo.outputPath(named?.file ?? `sightline-report-${i + 1}.html`);
        await writeFile(file, html);
        await testInfo.attach(named?.title ?? `sightline report ${i + 1}: ${short(run.title, 60)}`, { path: file, contentType: 'text/html' });
      }
    },
    /** `ai(prompt)` / `aiAct(prompt)`: an instruction for the planning loop; resolves to the model's answer, if any. */
    ai: served((deps) => (prompt) => call(deps, `ai ${JSON.stringify(promptText(prompt))}`, promptText(prompt))),
    aiAct: served((deps) => (prompt) => call(deps, `aiAct ${JSON.stringify(promptText(prompt))}`, promptText(prompt))),
    /** `runYaml(yaml)`: a flow file's text run on the page as one run; resolves to `{result}` (the named answers). */
    runYaml: served((deps) => (yaml) => base.step('runYaml', async () => {
      const run = await runFlowOnPage(base, deps, { yaml });
      const error = runError(run);
      if (error) throw error;
      return { result: run.result ?? {} };
    }, { box: true })),
  };
  for (const [name, item] of Object.entries(ITEMS)) {
    fixtures[name] = served((deps) => (...args) => {
      const task = taskOf(item(...args));
      if (name === 'aiWaitFor' && args[1]?.checkIntervalMs) task.intervalMs = args[1].checkIntervalMs;
      const subject = task.locate ?? task.assertion ?? task.question ?? task.demand ?? task.key ?? '';
      const failMessage = name === 'aiAssert' && typeof args[1] === 'string' ? args[1] : undefined;
      return call(deps, `${name} ${short(JSON.stringify(promptText(subject)))}`, task, failMessage);
    });
  }
  return fixtures;
}

/**
 * A flow's text run on the test page through runFlow, each flow item a Playwright step with
 * the Sightline steps it took nested in it. `file`: the flow file (its `web.serve` folder is
 * served, its upload folder is `uploadDir`; `batch`: the index file it runs from, as openFlow
 * takes it); else `yaml` runs on the page where it is. `base`: the Playwright Test `test` whose
 * steps these are.
 */
export async function runFlowOnPage(base, { sightline, sightlineModel, sightlinePlanner, sightlineRunOptions = {}, page }, { yaml, file, uploadDir, live = false, batch }) {
  const opened = file ? await openFlow(file, { uploadDir, batch }) : { yaml, flow: core.parseFlow(yaml), url: null, close: async () => {} };
  try {
    // The window the flow asks for (`web: viewportWidth/Height`), on this test's page only.
    if (opened.flow.viewport) await resizeWindow(page, opened.flow.viewport);
    const browser = { context: sightline.context, sw: sightline.sw, tabIdOf: () => sightline.tabId() };
    const url = opened.url ?? page.url();
    const { run } = await runFlowIn(browser, {
      ...opened, url, page, model: sightlineModel ?? undefined, planner: sightlinePlanner ?? undefined, live, dialogs: sightlineRunOptions.dialogs ?? opened.flow.dialogs ?? undefined, log: () => {},
    });
    // The flow's names for its report (`agent: reportFileName`, `groupName`, `testId`).
    const { fileName, groupName, testId } = opened.flow.report ?? {};
    if (fileName || groupName || testId) {
      reportNames.set(run.id, {
        file: fileName ? reportFileName('flow.yaml', opened.flow) : undefined,
        title: `sightline report: ${[groupName, testId].filter(Boolean).join(' · ') || short(run.title ?? '', 60)}`,
      });
    }
    // Its named results, beside a flow file that names an `output:` (a text run has no folder).
    if (file) await writeOutput(file, opened.flow, run);
    for (const item of run.flow?.items ?? []) {
      await base.step(`${item.status === 'succeeded' ? '' : '✗ '}${item.title} (${seconds(item.durationMs ?? 0)})`, async () => {
        await showSteps(base, run.steps.slice(item.firstStep, item.firstStep + item.steps));
      });
    }
    return run;
  } finally {
    await opened.close();
  }
}

