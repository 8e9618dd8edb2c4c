// Exports proven by their real consumers: Midscene's own YAML parser and flow compiler,
// Playwright Test running the exported spec against the fixture page, and @puppeteer/replay
// replaying the Recorder flow. None of them calls a model.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { access, mkdir, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import { ROOT, userMessage } from '../support/browser.mjs';
import { messageText, todoPlanReply } from '../support/mock-model.mjs';
import { modelSuite, until } from '../support/suite.mjs';

let browser, mock, site;
modelSuite((env) => ({ browser, mock, site } = env), {
  model: (m) => ({ baseUrl: m.baseUrl, model: 'mock-model', apiKey: 'sk-export', family: 'generic' }),
});

const CHROMIUM = process.env.CHROMIUM_PATH || '/usr/bin/chromium';
const WORK = path.join(ROOT, 'out', 'export-check');
const END_STATE_MARK = '// End state: add your checks here.';

/**
 * A plan with keys written as models write them: `ctrl+a` and `esc` (Playwright's
 * keyboard.press throws `Unknown key: "ctrl"` on them as written). The wrong text typed first
 * is selected with ctrl+a and deleted, so the todo is right only if the key really ran.
 */
function keysPlanReply() {
  return (body) => {
    const text = (body?.messages ?? []).filter((m) => m?.role === 'user').map(messageText).join('\n');
    const id = Number(text.match(/^\s*\[(\d+)\][^\n]*What needs to be done\?/m)?.[1]);
    if (!id) return JSON.stringify({ thought: 'no todo input', actions: [], done: true, error: 'todo input not found' });
    const actions = [
      { type: 'Input', target: id, value: 'buy bread' },
      { type: 'KeyPress', key: 'ctrl+a' },
      { type: 'KeyPress', key: 'backspace' },
      { type: 'Append', target: id, value: 'buy milk' },
      { type: 'KeyPress', key: 'enter' },
      { type: 'KeyPress', key: 'esc' },
    ];
    return JSON.stringify({ thought: 'type, select all, retype, add', actions, done: true });
  };
}

/** A todo run recorded through the extension, and its three exports. */
async function recordTodoRun(query, reply = todoPlanReply()) {
  const page = await browser.context.newPage();
  await page.goto(site.url(`/todo.html?${query}`));
  await page.waitForSelector('.new-todo');
  mock.script(reply);
  const run = await browser.sw.evaluate((id) => self.sightline.act(id, 'add a todo ‘buy milk’'), await browser.tabIdOf(page));
  assert.equal(run.status, 'succeeded', run.error);
  assert.deepEqual(await page.evaluate(() => window.todoApp.items().map((i) => i.title)), ['buy milk'], 'the run itself added it');
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

/** An image's natural size (a data URL) as the page decodes it: [width, height]. */
const imageSize = (page, url) => page.evaluate(async (src) => {
  const img = new Image();
  img.src = src;
  await img.decode();
  return [img.naturalWidth, img.naturalHeight];
}, url);

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

// Our export used to write a choice and back/forward/reload as `javascript:` steps our reader
// refused. Now each is read back as Sightline's own step, and the file replays with no model.
test('Midscene YAML round trip: a run that opens a page, goes back, forward, back, reloads and chooses an option is exported, read back by parseFlow and replayed by runFlow to the same end state, with no model', async () => {
  const page = await browser.context.newPage();
  const start = site.url('/choices.html?export=round-trip');
  await page.goto(start);
  await page.waitForSelector('#size');
  const tabId = await browser.tabIdOf(page);
  const plan = (actions, done = false) => JSON.stringify({ thought: 'next', actions, done, answer: null });
  const sizeOf = (body) => Number(userMessage(body).text.split('\n').find((l) => /^\s*\[\d+\]/.test(l) && /select#size/.test(l)).match(/\[(\d+)\]/)[1]);
  mock.script(
    () => plan([{ type: 'Navigate', url: site.url('/todo.html?export=round-trip') }]),
    () => plan([{ type: 'Back' }]),
    () => plan([{ type: 'Forward' }]),
    () => plan([{ type: 'Back' }]),
    () => plan([{ type: 'Reload' }]),
    (body) => plan([{ type: 'Select', target: sizeOf(body), option: 'Large' }], true),
    () => plan([], true),
  );
  const run = await browser.sw.evaluate((id) => self.sightline.act(id, 'visit the todo page, come back, and choose Large'), tabId);
  assert.equal(run.status, 'succeeded', JSON.stringify(run.error) + JSON.stringify(run.steps.map((s) => [s.action, s.status, s.error])));
  const endState = () => page.evaluate(() => ({ url: location.href, size: document.getElementById('size').value, events: document.getElementById('size-events').textContent }));
  const recorded = await endState();
  assert.deepEqual(recorded, { url: start, size: 'l', events: 'input,change' });

  const yaml = await browser.sw.evaluate((id) => self.sightline.exportRun(id, 'midscene-yaml'), run.id);
  assert.match(yaml, /^# Midscene's YAML script format \(web: and tasks: of flow: items\)/m);
  for (const script of ['history.back()', 'history.forward()', 'location.reload()', 'document.evaluate(']) assert.ok(yaml.includes(script), `${script} in\n${yaml}`);
  const flow = await browser.sw.evaluate((y) => self.sightline.parseFlow(y), yaml);
  assert.deepEqual(flow.warnings ?? [], []);
  assert.deepEqual(flow.tasks[0].steps.map((s) => [s.kind, s.go ?? s.option ?? s.url ?? '']), [
    ['navigate', site.url('/todo.html?export=round-trip')], ['history', 'back'], ['history', 'forward'], ['history', 'back'], ['history', 'reload'], ['select', 'Large'],
  ]);
  // Midscene's own parser and compiler take every item too.
  const { steps } = await midsceneCompile(yaml);
  assert.deepEqual(steps.filter((x) => x.node === 'legacyValidationError'), []);

  // The replay, on a fresh page: the flow's own start, no model call.
  await page.goto(site.url('/todo.html?export=elsewhere'));
  await page.goto(start);
  await page.waitForSelector('#size');
  const asked = mock.requests.length;
  const replay = await browser.sw.evaluate(([id, y]) => self.sightline.runFlow(id, y, { interactive: false }), [tabId, yaml]);
  assert.equal(replay.status, 'succeeded', JSON.stringify(replay.error) + JSON.stringify(replay.flow?.items?.map((i) => [i.title, i.status, i.error])));
  assert.equal(mock.requests.length, asked, 'no model call');
  assert.deepEqual(await endState(), recorded, 'the same end state');
  await page.close();
});

/** Writes `files` with a Playwright Test config into `dir` and runs `npx playwright test` there (90 s at most). */
async function playwrightTest(dir, files, env = process.env) {
  await rm(dir, { recursive: true, force: true });
  await mkdir(dir, { recursive: true });
  for (const [name, text] of Object.entries(files)) await writeFile(path.join(dir, name), text);
  await writeFile(path.join(dir, 'playwright.config.mjs'), `export default {
  testDir: '.', reporter: 'line', workers: 1, timeout: 30000,
  use: { headless: true, launchOptions: { executablePath: ${JSON.stringify(CHROMIUM)}, args: ['--no-sandbox', '--disable-gpu'] } },
};\n`);
  const cli = path.join(ROOT, 'node_modules/@playwright/test/cli.js');
  return promisify(execFile)(process.execPath, [cli, 'test', '--config', path.join(dir, 'playwright.config.mjs')], { cwd: dir, env, timeout: 90_000 })
    .then(({ stdout }) => ({ code: 0, stdout }), (e) => ({ code: e.code, stdout: `${e.stdout}${e.stderr}` }));
}

test('Playwright: the exported spec finds the todo box as codegen would (by role and name) and runs, no model', async () => {
  const { exported } = await recordTodoRun('export=playwright');
  const spec = exported.playwright;
  assert.ok(spec.includes(END_STATE_MARK));
  assert.doesNotMatch(spec, /sk-export/);
  // The box is labelled "New todo" (aria-label; its placeholder is the question): codegen's locator.
  assert.match(spec, /await page\.getByRole\('textbox', \{ name: 'New todo' \}\)\.fill\("buy milk"\);/, spec);
  assert.doesNotMatch(spec, /xpath=/, 'no XPath where role and name find the element');
  const dir = path.join(WORK, 'playwright');
  // The end state this run must leave, where the export invites checks.
  const checked = spec.replace(END_STATE_MARK, "await expect(page.locator('.todo-list li label')).toHaveText(['buy milk']);");
  const passed = await playwrightTest(dir, { 'todo.spec.ts': checked });
  assert.equal(passed.code, 0, passed.stdout);
  assert.match(passed.stdout, /1 passed/);

  // And the check can fail: a different end state makes the same spec fail.
  const other = spec.replace(END_STATE_MARK, "await expect(page.locator('.todo-list li label')).toHaveText(['buy bread'], { timeout: 2000 });");
  const failed = await playwrightTest(dir, { 'todo.spec.ts': other });
  assert.notEqual(failed.code, 0, failed.stdout);
});

test('keys a model writes (ctrl+a, esc) are exported in names Playwright and Puppeteer accept, and replay', async () => {
  const { exported } = await recordTodoRun('export=keys', keysPlanReply());
  const spec = exported.playwright;
  for (const key of ['Control+a', 'Backspace', 'Enter', 'Escape']) assert.ok(spec.includes(`page.keyboard.press("${key}")`), `${key}\n${spec}`);
  assert.doesNotMatch(spec, /press\("(ctrl|esc|enter|backspace)/);
  const end = "await expect(page.locator('.todo-list li label')).toHaveText(['buy milk']);";
  const result = await playwrightTest(path.join(WORK, 'keys'), { 'keys.spec.ts': spec.replace(END_STATE_MARK, end) });
  assert.equal(result.code, 0, `${result.stdout}\n${spec}`);
  assert.match(result.stdout, /1 passed/);

  const flow = JSON.parse(exported.recorder);
  const keys = flow.steps.filter((s) => s.type === 'keyDown').map((s) => s.key);
  assert.deepEqual(keys, ['Control', 'a', 'Backspace', 'Enter', 'Escape']);
  // The Recorder has no step that appends (left out, said in the title): what its replay shows
  // is that Control+a selected all of "buy bread" for Backspace, where "ctrl" would have thrown.
  assert.match(flow.title, /left out/);
  assert.deepEqual(await replayRecorder(flow), { titles: [], input: '' });
  assert.match(exported['midscene-yaml'], /aiKeyboardPress: "Control\+a"/);
});

/** Replays a Recorder flow with @puppeteer/replay in Chromium: the todo titles and the new-todo box's text it leaves. */
async function replayRecorder(flow) {
  const { createRunner, PuppeteerRunnerExtension } = await import('@puppeteer/replay');
  const puppeteer = (await import('puppeteer-core')).default;
  const chrome = await puppeteer.launch({ executablePath: CHROMIUM, headless: true, args: ['--no-sandbox', '--disable-gpu'] });
  try {
    const page = await chrome.newPage();
    const runner = await createRunner(flow, new PuppeteerRunnerExtension(chrome, page, { timeout: 10_000 }));
    await runner.run();
    return await page.evaluate(() => ({ titles: window.todoApp.items().map((i) => i.title), input: document.querySelector('.new-todo').value }));
  } finally {
    await chrome.close();
  }
}

test('Chrome Recorder JSON: @puppeteer/replay replays it in Chromium, no model', async () => {
  const { exported } = await recordTodoRun('export=recorder');
  const flow = JSON.parse(exported.recorder);
  assert.deepEqual(flow.steps.map((s) => s.type), ['setViewport', 'navigate', 'change', 'keyDown', 'keyUp']);
  // The Recorder's own first choice, then the XPath as the last alternative.
  assert.deepEqual(flow.steps[2].selectors[0], ['aria/New todo[role="textbox"]']);
  assert.match(flow.steps[2].selectors.at(-1)[0], /^xpath\//);
  assert.deepEqual(await replayRecorder(flow), { titles: ['buy milk'], input: '' });
  // aria/ alone finds it: the XPaths taken away, the replay still adds the todo.
  flow.steps[2].selectors = flow.steps[2].selectors.filter(([s]) => s.startsWith('aria/'));
  assert.deepEqual(await replayRecorder(flow), { titles: ['buy milk'], input: '' });
});

/** A plan that taps, in order, the listed elements whose description line shows each text. */
function tapPlanReply(...texts) {
  return (body) => {
    const text = (body?.messages ?? []).filter((m) => m?.role === 'user').map(messageText).join('\n');
    const lines = text.split('\n');
    const ids = texts.map((t) => Number(lines.find((l) => /^\s*\[\d+\]/.test(l) && l.includes(t))?.match(/\[(\d+)\]/)[1]));
    if (ids.some((id) => !id)) return JSON.stringify({ thought: 'not listed', actions: [], done: true, error: `not all of ${texts} listed` });
    return JSON.stringify({ thought: 'tap them', actions: ids.map((target) => ({ type: 'Tap', target })), done: true });
  };
}

test('a frame and an open shadow root: Playwright goes through contentFrame() and pierces the shadow root by role; the Recorder gets a frame path', async () => {
  const page = await browser.context.newPage();
  await page.goto(site.url('/frames.html?export=frames'));
  await page.waitForFunction(() => document.getElementById('same').contentDocument?.getElementById('inner-button'));
  mock.script(tapPlanReply('Same-origin frame button', 'Open shadow button'));
  const run = await browser.sw.evaluate((id) => self.sightline.act(id, 'press the frame button, then the open card\'s button'), await browser.tabIdOf(page));
  assert.equal(run.status, 'succeeded', JSON.stringify(run.error));
  await page.close();
  const exportAs = (format) => browser.sw.evaluate(([id, f]) => self.sightline.exportRun(id, f, { viewport: { width: 1280, height: 800 } }), [run.id, format]);
  const spec = await exportAs('playwright');
  for (const line of [
    "await page.locator('iframe[title=\"same-origin frame\"]').contentFrame().getByRole('button', { name: 'Same-origin frame button' }).click();",
    "await page.getByRole('button', { name: 'Open shadow button' }).click();",
  ]) assert.ok(spec.includes(line), `${line}\n${spec}`);
  assert.doesNotMatch(spec, /xpath=|mouse\.click/);
  const end = "expect(await page.frame({ url: /frame-inner/ }).title()).toBe('inner clicked');\n  await expect(page).toHaveTitle('Open shadow button clicked');";
  const result = await playwrightTest(path.join(WORK, 'frames'), { 'frames.spec.ts': spec.replace(END_STATE_MARK, end) });
  assert.equal(result.code, 0, `${result.stdout}\n${spec}`);

  const flow = JSON.parse(await exportAs('recorder'));
  const clicks = flow.steps.filter((s) => s.type === 'click');
  assert.equal(clicks.length, 2, JSON.stringify(flow, null, 1));
  assert.deepEqual(clicks[0].frame, [0]);
  assert.deepEqual(clicks[0].selectors[0], ['aria/Same-origin frame button[role="button"]']);
  assert.deepEqual(clicks[1].selectors[0], ['aria/Open shadow button[role="button"]']);
  assert.ok(clicks[1].selectors.some((s) => s.length === 2), 'a path through the shadow root');
  const { createRunner, PuppeteerRunnerExtension } = await import('@puppeteer/replay');
  const puppeteer = (await import('puppeteer-core')).default;
  const chrome = await puppeteer.launch({ executablePath: CHROMIUM, headless: true, args: ['--no-sandbox', '--disable-gpu'] });
  try {
    const replayed = await chrome.newPage();
    await (await createRunner(flow, new PuppeteerRunnerExtension(chrome, replayed, { timeout: 10_000 }))).run();
    assert.equal(await replayed.title(), 'Open shadow button clicked');
    assert.equal(await replayed.frames().find((f) => f.url().includes('frame-inner')).title(), 'inner clicked');
    // The shadow path alone finds the button too.
    await replayed.goto(flow.steps[1].url);
    const shadowOnly = { ...flow, steps: flow.steps.filter((s) => s !== clicks[0]).map((s) => (s === clicks[1] ? { ...s, selectors: s.selectors.filter((x) => x.length === 2) } : s)) };
    await (await createRunner(shadowOnly, new PuppeteerRunnerExtension(chrome, replayed, { timeout: 10_000 }))).run();
    assert.equal(await replayed.title(), 'Open shadow button clicked');
  } finally {
    await chrome.close();
  }
});

test('a step on a long page keeps the text path the page confirms names its element alone, none where a twin lies beyond the view; the spec replays by it and clicks a text where it is', async () => {
  const page = await browser.context.newPage();
  await page.goto(site.url('/text-paths.html?export=text-paths'));
  const tabId = await browser.tabIdOf(page);
  // The step's reading of this page is partial: it cannot judge a text unique by itself.
  const inView = await browser.sw.evaluate((id) => self.sightline.extract(id, { viewportOnly: true }), tabId);
  assert.equal(inView.elements.find((e) => e.content === 'Archive')?.xpathText, undefined, 'the in-view reading offers no text path');
  mock.script(tapPlanReply('Archive', 'Edit', 'Words only here', 'Twice', 'apply only here'));
  const run = await browser.sw.evaluate((id) => self.sightline.act(id, 'archive, edit, then tap the words, twice and the terms text'), tabId);
  assert.equal(run.status, 'succeeded', JSON.stringify(run.steps.map((s) => [s.action, s.status, s.note]), null, 1));
  const tapped = 'Archive,Edit,Words only here,Twice,terms text';
  assert.equal(await page.locator('output').textContent(), tapped);
  await page.close();
  const targets = run.steps.map((s) => s.target).filter(Boolean);
  assert.deepEqual(targets.map((t) => t.xpathText ?? null), [
    '//button[normalize-space()="Archive"]',
    null, // another "Edit" waits at the end of the page
    '//p[normalize-space()="Words only here"]/text()[normalize-space()]',
    null, // a paragraph far below reads "Twice" too (its text in a span): the script's path would name two
    null, // the paragraph reads "Terms … apply only here": no path by this text
  ]);
  // Texts have no role or label: the spec acts on the element holding each (a locator for a
  // text node never resolves), found by its position or, moved, by its text; it clicks where
  // the text is in it, not on the link beside it.
  const spec = await browser.sw.evaluate(([id]) => self.sightline.exportRun(id, 'playwright', { viewport: { width: 1280, height: 800 } }), [run.id]);
  assert.ok(spec.includes('.or(page.locator("xpath=//p[normalize-space()=\\"Words only here\\"]")).first().click({ position: {'), spec);
  assert.match(spec, /page\.locator\("xpath=\/html\[1\]\/body\[1\]\/footer\[1\]\/p\[1\]"\)\.click\(\{ position: \{ x: \d+, y: \d+ \} \}\);/, spec);
  // Replayed with the words wrapped in a new block: only their text path finds them.
  // The terms text is clicked where it is: the middle of its paragraph is on the link.
  const moved = spec.replace(END_STATE_MARK, `await expect(page.locator('output')).toHaveText('${tapped}');`)
    .replace(/(await page\.goto\([^\n]*\);)/, "$1\n  await page.evaluate(() => { const p = document.querySelector('body > p'); p.replaceWith(document.createElement('div')); document.querySelector('body > div').append(p); });");
  assert.notEqual(moved, spec);
  const result = await playwrightTest(path.join(WORK, 'text-paths'), { 'text-paths.spec.ts': moved });
  assert.equal(result.code, 0, `${result.stdout}\n${moved}`);
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
  const size = await imageSize(page, gif);
  assert.equal(size[0], 800);
  await page.close();
});

test('with JPEG model images (Settings) the report and the GIF still show every screenshot: the browser decodes them', async () => {
  const image = (await browser.sw.evaluate(() => self.sightline.getSettings())).run.image;
  await browser.sw.evaluate((i) => self.sightline.setSettings({ run: { image: { ...i, format: { type: 'jpeg', quality: 70 } } } }), image);
  try {
    const { run } = await recordTodoRun('export=jpeg');
    assert.match(JSON.stringify(mock.requests.at(-1).body), /data:image\/jpeg;base64,/, 'the run kept JPEGs');
    const html = await browser.sw.evaluate((id) => self.sightline.exportRun(id, 'report'), run.id);
    const gif = await browser.sw.evaluate((id) => self.sightline.exportRun(id, 'gif'), run.id);
    const page = await browser.context.newPage();
    await page.setContent(html);
    const shots = await page.$$eval('figure img', (imgs) => Promise.all(imgs.map((i) => i.decode().then(() => i.naturalWidth))));
    assert.ok(shots.length >= 2 && shots.length === run.steps.filter((s) => s.screenshot).length, `${shots}`);
    assert.ok(shots.every((w) => w === 1024), `${shots}`);
    const size = await imageSize(page, gif);
    // A GIF with no readable screenshot is one 200-pixel card; with them, 800×500 pages under a title.
    assert.ok(size[0] === 800 && size[1] > 500, `${size}`);
    await page.close();
  } finally {
    await browser.sw.evaluate((i) => self.sightline.setSettings({ run: { image: i } }), image);
  }
});

test('an option in a shadow root whose text ends a // comment at U+2028 stays text: the Playwright spec runs none of it, and Midscene gets a step, not document.evaluate("")', async () => {
  const page = await browser.context.newPage();
  await page.goto(site.url('/shadow-choice.html?export=u2028'));
  await page.waitForFunction(() => window.fixture);
  const payload = await page.evaluate(() => window.fixture.PAYLOAD);
  assert.ok(payload.includes('\u2028') && payload.includes("import('child_process')"));
  const tabId = await browser.tabIdOf(page);
  // Recorded with a model configured: it names the element from the step's screenshot.
  mock.setFallback(JSON.stringify({ data: 'the plan select' }));
  const runId = await browser.sw.evaluate((id) => self.sightline.startRecording(id, 'choose the standard plan'), tabId);
  // A person's choice: the select focused (inside the shadow root), then the keyboard.
  await page.bringToFront();
  await page.focus('plan-picker select');
  await page.keyboard.press('ArrowDown');
  await until('the choice', async () => (await page.evaluate(() => window.fixture.state())) === 'std', 5000);
  await until('the recorded step', async () => {
    const r = await browser.sw.evaluate((id) => self.sightline.run(id), runId);
    return r?.steps.some((s) => s.planned?.type === 'Select');
  }, 10_000);
  const run = await browser.sw.evaluate((id) => self.sightline.stopRecording(id), tabId);
  await page.close();
  const step = run.steps.find((s) => s.planned?.type === 'Select');
  assert.equal(step.planned.option, payload, 'the text reached the record as the page wrote it');
  assert.match(step.target.xpath, / >>> /, 'inside the shadow root');
  const exportAs = (format) => browser.sw.evaluate(([id, f]) => self.sightline.exportRun(id, f, { viewport: { width: 1280, height: 800 } }), [run.id, format]);

  const spec = await exportAs('playwright');
  assert.doesNotMatch(spec, /[\u2028\u2029]/, `no raw line or paragraph separator anywhere in the spec\n${spec}`);
  // The option is named in comments of one line (the step's caption, the choice); no line holds
  // its code outside one.
  const lines = spec.split(/\r\n|[\n\r\u2028\u2029]/);
  const named = lines.filter((l) => l.includes('child_process'));
  assert.ok(named.length >= 1 && named.every((l) => l.trim().startsWith('// ')), spec);
  assert.ok(named.some((l) => l.trim().startsWith('// choose \u201cStandard import(')), spec);
  assert.deepEqual(lines.filter((l) => /execSync|\.then\(c =>/.test(l) && !l.trim().startsWith('//')), [], spec);
  // And run: the spec passes with the page's code left unrun (it would write pwned.txt).
  const dir = path.join(WORK, 'shadow-choice');
  const result = await playwrightTest(dir, { 'choice.spec.ts': spec });
  assert.equal(result.code, 0, `${result.stdout}\n${spec}`);
  assert.match(result.stdout, /1 passed/);
  await assert.rejects(access(path.join(dir, 'pwned.txt')), 'the command the page wrote did not run');

  const yaml = await exportAs('midscene-yaml');
  assert.ok(!yaml.includes('document.evaluate("")') && !yaml.includes('document.evaluate(\\"\\"'), yaml);
  assert.doesNotMatch(yaml, /javascript:|[\u2028\u2029]/, yaml);
  // Midscene's own reader (js-yaml) gets the option's text back exactly, in a step its runner knows.
  const { script, steps } = await midsceneCompile(yaml);
  assert.deepEqual(script.tasks[0].flow.map((item) => Object.keys(item)[0]), ['aiAct']);
  assert.ok(script.tasks[0].flow[0].aiAct.startsWith(`choose the option \u201c${payload}\u201d in `), script.tasks[0].flow[0].aiAct);
  assert.deepEqual(steps.filter((s) => s.node === 'legacyValidationError' || s.node === 'legacyAction'), [], JSON.stringify(steps));
});
