// Exports proven by their real consumers: Midscene's own YAML parser and flow compiler,
// Playwright Test running the exported spec against the fixture page, and @puppeteer/replay
// replaying the Recorder flow. None of them calls a model.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdir, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import { ROOT } from '../support/browser.mjs';
import { todoPlanReply } from '../support/mock-model.mjs';
import { modelSuite } from '../support/suite.mjs';

let browser, mock, site;
modelSuite((env) => ({ browser, mock, site } = env), {
  model: (m) => ({ baseUrl: m.baseUrl, model: 'mock-model', apiKey: 'sk-export', family: 'generic' }),
});

const CHROMIUM = process.env.CHROMIUM_PATH || '/usr/bin/chromium';
const WORK = path.join(ROOT, 'out', 'export-check');
const END_STATE_MARK = '// End state: add your checks here.';

/** A todo run recorded through the extension, and its three exports. */
async function recordTodoRun(query) {
  const page = await browser.context.newPage();
  await page.goto(site.url(`/todo.html?${query}`));
  await page.waitForSelector('.new-todo');
  mock.script(todoPlanReply());
  const run = await browser.sw.evaluate((id) => self.sightline.act(id, 'add a todo ‘buy milk’'), await browser.tabIdOf(page));
  assert.equal(run.status, 'succeeded', run.error);
  await page.close();
  const exported = {};
  for (const format of ['midscene-yaml', 'playwright', 'recorder']) {
    exported[format] = await browser.sw.evaluate(([id, f]) => self.sightline.exportRun(id, f, { viewport: { width: 1280, height: 800 } }), [run.id, format]);
  }
  return { run, exported };
}

/** Midscene's web action space, built with its own definitions (no device behind them). */
async function midsceneActionSpace() {
  const device = await import('@midscene/core/device');
  const noop = async () => {};
  return Object.entries(device)
    .filter(([name, fn]) => /^defineAction[A-Z]/.test(name) && typeof fn === 'function')
    .flatMap(([, define]) => {
      try {
        return [define(noop)];
      } catch {
        return [];
      }
    });
}

/** Parses with Midscene's parser and compiles every flow item as its runner does. */
async function midsceneCompile(yaml) {
  const { parseYamlScript } = await import('@midscene/core/yaml');
  const compat = await import(path.join(ROOT, 'node_modules/@midscene/core/dist/es/yaml/test-runner-compat.mjs'));
  const script = parseYamlScript(yaml, 'export.yaml');
  const document = compat.collectLegacyYamlDocument(script, 'export.yaml', await midsceneActionSpace());
  const steps = document.cases.flatMap((c) => c.definition.steps);
  return { script, steps };
}

test('Midscene YAML: parsed and compiled by @midscene/core, every flow item understood', async () => {
  const { run, exported } = await recordTodoRun('export=yaml');
  const yaml = exported['midscene-yaml'];
  const { script, steps } = await midsceneCompile(yaml);
  assert.equal(script.web.url, run.url);
  assert.equal(script.web.viewportWidth, 1280);
  assert.equal(script.tasks[0].name, 'add a todo ‘buy milk’');
  const bad = steps.filter((s) => s.node === 'legacyValidationError' || s.node === 'legacyAction');
  assert.deepEqual(bad, [], 'every item maps to a Midscene step');
  assert.deepEqual(steps.map((s) => [s.node, s.input.name]), [['action', 'Input'], ['action', 'KeyboardPress']]);
  assert.equal(steps[0].input.params.value, 'buy milk');
  assert.match(steps[0].input.params.locate.prompt, /input/);
  assert.match(steps[0].input.params.locate.xpath, /input/, 'Midscene gets our XPath');
  assert.equal(steps[1].input.params.keyName, 'Enter');
  await mkdir(WORK, { recursive: true });
  await writeFile(path.join(WORK, 'todo.yaml'), yaml);

  // Task runs export as their task: a query, with its name, and a tap.
  const page = await browser.context.newPage();
  await page.goto(site.url('/todo.html?export=tasks'));
  await page.waitForSelector('.new-todo');
  const tabId = await browser.tabIdOf(page);
  mock.script('{"data": ["nothing yet"]}', '{"element": 2}');
  const query = await browser.sw.evaluate((id) => self.sightline.ai(id, { type: 'aiQuery', demand: 'the todo titles as string[]' }), tabId);
  const tap = await browser.sw.evaluate((id) => self.sightline.ai(id, { type: 'aiDoubleClick', locate: 'the new todo box' }), tabId);
  for (const [r, node] of [[query, 'aiQuery'], [tap, 'action']]) {
    assert.equal(r.status, 'succeeded', r.error);
    const text = await browser.sw.evaluate((id) => self.sightline.exportRun(id, 'midscene-yaml'), r.id);
    const compiled = await midsceneCompile(text);
    assert.equal(compiled.steps.length, 1, text);
    assert.equal(compiled.steps[0].node, node, text);
  }
  await page.close();
});

test('Playwright: the exported spec runs in Playwright Test against the page, no model', async () => {
  const { exported } = await recordTodoRun('export=playwright');
  const spec = exported.playwright;
  assert.ok(spec.includes(END_STATE_MARK));
  assert.doesNotMatch(spec, /sk-export/);
  const dir = path.join(WORK, 'playwright');
  await rm(dir, { recursive: true, force: true });
  await mkdir(dir, { recursive: true });
  // The end state this run must leave, where the export invites checks.
  const checked = spec.replace(END_STATE_MARK, "await expect(page.locator('.todo-list li label')).toHaveText(['buy milk']);");
  await writeFile(path.join(dir, 'todo.spec.ts'), checked);
  await writeFile(path.join(dir, 'playwright.config.mjs'), `export default {
  testDir: '.', reporter: 'line', workers: 1, timeout: 30000,
  use: { headless: true, launchOptions: { executablePath: ${JSON.stringify(CHROMIUM)}, args: ['--no-sandbox', '--disable-gpu'] } },
};\n`);
  const cli = path.join(ROOT, 'node_modules/@playwright/test/cli.js');
  const run = (file) => promisify(execFile)(process.execPath, [cli, 'test', '--config', path.join(dir, 'playwright.config.mjs'), file], { cwd: dir, timeout: 90_000 })
    .then(({ stdout }) => ({ code: 0, stdout }), (e) => ({ code: e.code, stdout: `${e.stdout}${e.stderr}` }));
  const passed = await run('todo.spec.ts');
  assert.equal(passed.code, 0, passed.stdout);
  assert.match(passed.stdout, /1 passed/);

  // And the check can fail: a different end state makes the same spec fail.
  await writeFile(path.join(dir, 'todo.spec.ts'), spec.replace(END_STATE_MARK, "await expect(page.locator('.todo-list li label')).toHaveText(['buy bread'], { timeout: 2000 });"));
  const failed = await run('todo.spec.ts');
  assert.notEqual(failed.code, 0, failed.stdout);
});

test('Chrome Recorder JSON: @puppeteer/replay replays it in Chromium, no model', async () => {
  const { exported } = await recordTodoRun('export=recorder');
  const flow = JSON.parse(exported.recorder);
  assert.deepEqual(flow.steps.map((s) => s.type), ['setViewport', 'navigate', 'change', 'keyDown', 'keyUp']);
  const { createRunner, PuppeteerRunnerExtension } = await import('@puppeteer/replay');
  const puppeteer = (await import('puppeteer-core')).default;
  const chrome = await puppeteer.launch({ executablePath: CHROMIUM, headless: true, args: ['--no-sandbox', '--disable-gpu'] });
  try {
    const page = await chrome.newPage();
    const runner = await createRunner(flow, new PuppeteerRunnerExtension(chrome, page, { timeout: 10_000 }));
    await runner.run();
    assert.deepEqual(await page.evaluate(() => window.todoApp.items().map((i) => i.title)), ['buy milk']);
  } finally {
    await chrome.close();
  }
});

test('the HTML report and the GIF open in Chromium with every screenshot', async () => {
  const { run } = await recordTodoRun('export=report');
  const html = await browser.sw.evaluate((id) => self.sightline.exportRun(id, 'report'), run.id);
  const gif = await browser.sw.evaluate((id) => self.sightline.exportRun(id, 'gif'), run.id);
  await mkdir(WORK, { recursive: true });
  await writeFile(path.join(WORK, 'report.html'), html);
  await writeFile(path.join(WORK, 'run.gif'), Buffer.from(gif.split(',')[1], 'base64'));
  assert.doesNotMatch(html, /sk-export/, 'no key in the report');
  const page = await browser.context.newPage();
  await page.goto(`file://${path.join(WORK, 'report.html')}`);
  assert.equal(await page.textContent('h1'), 'add a todo ‘buy milk’');
  const shots = await page.$$eval('figure img', (imgs) => Promise.all(imgs.map((i) => i.decode().then(() => i.naturalWidth))));
  assert.equal(shots.length, run.steps.filter((s) => s.screenshot).length);
  assert.ok(shots.length >= 2 && shots.every((w) => w === 1024), `${shots}`);
  assert.match((await page.$$eval('details pre', (p) => p.map((x) => x.textContent))).join('\n'), /add a todo ‘buy milk’/, 'the model input is shown');
  await page.screenshot({ path: 'out/export-report.png' });
  const size = await page.evaluate(async (url) => {
    const img = new Image();
    img.src = url;
    await img.decode();
    return [img.naturalWidth, img.naturalHeight];
  }, gif);
  assert.equal(size[0], 800);
  await page.close();
});
