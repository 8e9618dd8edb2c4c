// "Record my steps" on real apps we did not write: TodoMVC as several frameworks build it
// (npm `todomvc`, its libraries bundled, served offline). A scripted person (Playwright's
// trusted mouse and keyboard) adds three todos, ticks one, double-clicks one to retype it,
// hovers a row to reveal its delete button and deletes that row, and filters "Active". The same
// person is recorded by Sightline in the extension's Chromium and, in a plain context beside
// it, by Playwright's own recorder (the engine of `playwright codegen`). Both specs then run
// under Playwright Test against a fresh load of each app and their end state is checked.
// Sightline's must pass on every app; codegen's outcome is counted and printed beside it.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import { chromium } from 'playwright-core';
import { launchWithExtension, ROOT } from '../support/browser.mjs';
import { startStaticServer } from '../support/static-server.mjs';
import { until } from '../support/suite.mjs';

const CHROMIUM = process.env.CHROMIUM_PATH || '/usr/bin/chromium';
// Apps of the package that run offline from their bundled libraries, each a different framework
// (its jquery app ships without jQuery itself).
const APPS = ['vanillajs', 'backbone', 'react', 'emberjs', 'angularjs', 'vue', 'knockoutjs', 'mithril'];
const OUT = path.join(ROOT, 'out', 'record-apps');

let extension, plain, site;
before(async () => {
  site = await startStaticServer({ root: path.join(ROOT, 'node_modules', 'todomvc', 'examples') });
  extension = await launchWithExtension();
  plain = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: ['--no-sandbox', '--disable-gpu'] });
});
after(async () => {
  await extension?.close();
  await plain?.close();
  await site?.close();
});

const pause = (page, ms = 250) => page.waitForTimeout(ms);
/** The middle of what `locator` finds, where a person's pointer goes. */
async function middle(locator) {
  const box = await locator.boundingBox();
  assert.ok(box, 'the element the person means is on the page');
  return [box.x + box.width / 2, box.y + box.height / 2];
}

/** The person: real pointer moves and key presses only (no locator actions, which only a script has). */
async function person(page) {
  const row = (text) => page.locator('#todo-list li').filter({ hasText: text });
  for (const todo of ['buy milk', 'walk dog', 'read book']) {
    const [x, y] = await middle(page.locator('#new-todo'));
    await page.mouse.click(x, y);
    await page.keyboard.type(todo, { delay: 20 });
    await pause(page);
    await page.keyboard.press('Enter');
    await pause(page, 400);
  }
  // Tick "buy milk".
  await page.mouse.move(...(await middle(row('buy milk'))), { steps: 4 });
  await page.mouse.click(...(await middle(row('buy milk').locator('.toggle'))));
  await pause(page, 400);
  // Double-click "walk dog" to edit it, and retype it.
  const label = row('walk dog').locator('label');
  await page.mouse.move(...(await middle(label)), { steps: 4 });
  await page.mouse.dblclick(...(await middle(label)));
  await pause(page, 400);
  // A person types once the edit field is open and has the caret: some apps (mithril) redraw
  // in their own time, and under load a select-all pressed before that selects the page.
  await page.waitForFunction(() => document.activeElement?.matches?.('#todo-list li .edit, #todo-list li input:not([type=checkbox])'), null, { timeout: 10_000 });
  // And selects again when a redraw took the selection away (mithril sets the value again in
  // its own frame): as a person would, seeing the text not highlighted.
  for (let tries = 1; ; tries++) {
    await page.evaluate(() => new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(done))));
    await page.keyboard.press('Control+A');
    const selected = await page.waitForFunction(() => {
      const field = document.activeElement;
      return field?.value && field.selectionStart === 0 && field.selectionEnd === field.value.length;
    }, null, { timeout: 1000 }).then(() => true, () => false);
    if (selected || tries === 3) break;
  }
  await page.keyboard.type('walk cat', { delay: 20 });
  await pause(page);
  // A person reads what they typed before pressing Enter, and types it again over a field that
  // kept its old text (mithril's redraw can move the caret after the select-all).
  for (let tries = 1; tries <= 2; tries++) {
    if (await page.evaluate(() => document.activeElement?.value === 'walk cat')) break;
    await page.keyboard.press('Control+A');
    await page.keyboard.type('walk cat', { delay: 20 });
    await pause(page);
  }
  await page.keyboard.press('Enter');
  await pause(page, 400);
  // Hover "read book": its delete button shows; delete it.
  await page.mouse.move(...(await middle(row('read book'))), { steps: 6 });
  await pause(page, 300);
  await page.mouse.move(...(await middle(row('read book').locator('.destroy'))), { steps: 3 });
  await pause(page, 200);
  await page.mouse.down();
  await page.mouse.up();
  await pause(page, 400);
  // Filter "Active".
  const active = page.locator('#filters a').filter({ hasText: 'Active' });
  await page.mouse.move(...(await middle(active)), { steps: 4 });
  await page.mouse.click(...(await middle(active)));
  await pause(page, 600);
}

// What the person ended with, checked after each spec on the page it replayed on: under
// "Active" only the retyped todo; under "All" the ticked one (completed) and the retyped one.
const END_STATE = `
test.afterEach(async ({ page }) => {
  const shown = page.locator('#todo-list li:visible label');
  await expect(shown).toHaveText(['walk cat'], { timeout: 3000 });
  await page.locator('#filters a').filter({ hasText: 'All' }).click();
  await expect(shown).toHaveText(['buy milk', 'walk cat'], { timeout: 3000 });
  await expect(page.locator('#todo-list li:visible').first()).toHaveClass(/completed/);
  await expect(page.locator('#todo-list li:visible').nth(1)).not.toHaveClass(/completed/);
});
`;

/** Opens `app` and waits until its scripts have run (some render the list after load). */
async function opened(page, app) {
  await page.goto(site.url(`/${app}/index.html`));
  await page.waitForSelector('#new-todo');
  await page.waitForLoadState('load');
  await page.waitForTimeout(300);
}

/** Sightline's recording of the person on `app`, exported as a Playwright spec. */
async function recordWithSightline(app) {
  const page = await extension.context.newPage();
  try {
    await opened(page, app);
    const tabId = await extension.tabIdOf(page);
    const runId = await extension.sw.evaluate((tab) => self.sightline.startRecording(tab), tabId);
    await page.bringToFront();
    await person(page);
    // Each step is photographed once the page settles: wait until the steps stop coming.
    let last = '';
    await until(`${app}: the recording settles`, async () => {
      const run = await extension.sw.evaluate((id) => self.sightline.run(id), runId);
      const now = JSON.stringify(run.steps.map((s) => [s.action, Boolean(s.screenshot)]));
      // (A hover step is photographed with the click it came with.)
      const settled = now === last && Boolean(run.steps.at(-1)?.screenshot);
      last = now;
      if (!settled) await page.waitForTimeout(400);
      return settled;
    }, 20_000);
    const run = await extension.sw.evaluate((tab) => self.sightline.stopRecording(tab), tabId);
    const spec = await extension.sw.evaluate((id) => self.sightline.exportRun(id, 'playwright', { viewport: { width: 1280, height: 800 } }), run.id);
    return { steps: run.steps.map((s) => s.action), spec: `${spec}\n${END_STATE}`, replayed: await replayedWithoutModel(app, page, tabId, run.id) };
  } finally {
    await page.close();
  }
}

/**
 * Sightline's own replay of recording `runId` on a fresh start of `app` in the same tab, with no
 * model set up: each element found by its XPath, else by its locators. `null` when the end state
 * is the person's, else what went wrong.
 */
async function replayedWithoutModel(app, page, tabId, runId) {
  await page.evaluate(() => localStorage.clear()); // the apps keep their todos there
  await opened(page, app);
  const replay = await extension.sw.evaluate(([tab, id]) => self.sightline.replay(tab, id), [tabId, runId]);
  if (replay.status !== 'succeeded') return `${replay.status}: ${replay.error?.code} ${replay.error?.message}`;
  const shown = () => page.locator('#todo-list li:visible label').allTextContents();
  const rows = () => page.locator('#todo-list li:visible').evaluateAll((lis) => lis.map((r) => r.classList.contains('completed')));
  // Read as the spec's `expect` reads it: again until it holds or 3 s pass (the apps re-render
  // after a filter click in their own time).
  const settled = async (want) => {
    let state;
    for (const end = Date.now() + 3000; Date.now() < end; await page.waitForTimeout(100)) {
      state = JSON.stringify({ labels: await shown(), completed: await rows() });
      if (state === JSON.stringify(want)) return null;
    }
    return state;
  };
  const active = await settled({ labels: ['walk cat'], completed: [false] });
  if (active) return `Active: ${active}`;
  await page.locator('#filters a').filter({ hasText: 'All' }).click();
  const all = await settled({ labels: ['buy milk', 'walk cat'], completed: [true, false] });
  return all && `All: ${all}`;
}

/** Playwright's own recorder on the same person, its actions as codegen writes them. */
async function recordWithCodegen(app) {
  const context = await plain.newContext({ viewport: { width: 1280, height: 800 } });
  try {
    const actions = [];
    await context._startRecording({ language: 'playwright-test' }, {
      actionAdded: (_page, _action, code) => actions.push(code),
      actionUpdated: (_page, _action, code) => (actions.length ? (actions[actions.length - 1] = code) : actions.push(code)),
      signalAdded: (_page, _signal, code) => code && actions.length && (actions[actions.length - 1] = code),
    });
    const page = await context.newPage();
    await opened(page, app);
    await person(page);
    await context._stopRecording();
    const body = actions.filter((c) => c.trim()).map((c) => c.trim().split('\n').map((l) => `  ${l.trim()}`).join('\n'));
    if (!body.some((l) => l.includes('page.goto('))) body.unshift(`  await page.goto(${JSON.stringify(site.url(`/${app}/index.html`))});`);
    const spec = `import { test, expect } from '@playwright/test';\n\ntest.use({ viewport: { width: 1280, height: 800 } });\n\ntest('codegen', async ({ page }) => {\n${body.join('\n')}\n});\n${END_STATE}`;
    return { spec };
  } finally {
    await context.close();
  }
}

test('on real TodoMVC apps, Sightline\'s exported spec replays the person\'s steps; Playwright codegen\'s is counted beside it', async () => {
  await rm(OUT, { recursive: true, force: true });
  await mkdir(OUT, { recursive: true });
  const recorded = {};
  const replays = {};
  for (const app of APPS) {
    const sightline = await recordWithSightline(app);
    const codegen = await recordWithCodegen(app);
    recorded[app] = sightline.steps;
    replays[app] = sightline.replayed;
    // The row is hovered before its revealed delete button is clicked; the nameless checkbox
    // is found by its row. (Ember's edit field, in a row whose label it removed, has no words
    // of its own or of its row: its XPath.)
    const hover = sightline.spec.indexOf(".filter({ hasText: 'read book' }).hover();");
    assert.ok(hover > 0 && hover < sightline.spec.indexOf(".filter({ hasText: 'read book' }).getByRole('button').click();"), `${app}:\n${sightline.spec}`);
    assert.match(sightline.spec, /getByRole\('listitem'\)\.filter\(\{ hasText: 'buy milk' \}\)\.getByRole\('checkbox'\)\.check\(\);/, app);
    await writeFile(path.join(OUT, `${app}.sightline.spec.ts`), sightline.spec);
    await writeFile(path.join(OUT, `${app}.codegen.spec.ts`), codegen.spec);
  }
  await writeFile(path.join(OUT, 'steps.json'), JSON.stringify(recorded, null, 2));
  await writeFile(path.join(OUT, 'playwright.config.mjs'), `export default { testDir: '.', workers: 1, timeout: 30_000,
  reporter: [['json', { outputFile: 'results.json' }]],
  use: { headless: true, actionTimeout: 5_000, launchOptions: { executablePath: ${JSON.stringify(CHROMIUM)}, args: ['--no-sandbox', '--disable-gpu'] } } };\n`);
  const cli = path.join(ROOT, 'node_modules/@playwright/test/cli.js');
  await promisify(execFile)(process.execPath, [cli, 'test', '--config', path.join(OUT, 'playwright.config.mjs')], { cwd: OUT, timeout: 600_000 })
    .catch((e) => { if (e.killed) throw e; }); // failing specs are the figures, not an error here
  const results = JSON.parse(await readFile(path.join(OUT, 'results.json'), 'utf8'));
  const outcome = {};
  const visit = (suite) => {
    for (const spec of suite.specs ?? []) {
      const result = spec.tests[0]?.results.at(-1);
      // eslint-disable-next-line no-control-regex
      const plain = (text) => text?.replace(/\u001b\[\d+m/g, '').split('\n')[0];
      outcome[spec.file ?? suite.file] = { ok: spec.ok, error: result?.errors?.map((e) => plain(e.message)).join('; ') };
    }
    for (const inner of suite.suites ?? []) visit({ ...inner, file: inner.file ?? suite.file });
  };
  for (const suite of results.suites) visit(suite);
  const passes = (tool) => APPS.filter((app) => outcome[`${app}.${tool}.spec.ts`]?.ok);
  const replayedOk = APPS.filter((app) => replays[app] === null);
  const figures = `sightline ${passes('sightline').length}/${APPS.length}, codegen ${passes('codegen').length}/${APPS.length}, sightline's own replay with no model ${replayedOk.length}/${APPS.length}`;
  console.log(`# record-apps: ${figures}`);
  for (const app of APPS) {
    for (const tool of ['sightline', 'codegen']) {
      const o = outcome[`${app}.${tool}.spec.ts`];
      console.log(`# ${app} ${tool}: ${o?.ok ? 'pass' : `FAIL ${o?.error ?? 'not run'}`}`);
    }
    console.log(`# ${app} replay with no model: ${replays[app] === null ? 'pass' : `FAIL ${replays[app]}`}`);
  }
  await writeFile(path.join(OUT, 'figures.txt'), `${figures}\n`);
  assert.deepEqual(APPS.filter((app) => !outcome[`${app}.sightline.spec.ts`]?.ok), [], `${figures}: Sightline's spec fails on these apps (see ${OUT})`);
  assert.deepEqual(APPS.filter((app) => replays[app] !== null), [], `${figures}: Sightline's replay with no model fails on these apps`);
});
