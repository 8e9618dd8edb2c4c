// "Record my steps": a person signs in by hand while the panel records; the run lists their
// steps with the password as a placeholder, and its exports replay the sign-in with no model.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdir, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import { launchWithExtension, ROOT } from '../support/browser.mjs';
import { modelSuite, until } from '../support/suite.mjs';

let browser, mock, site;
modelSuite((env) => ({ browser, mock, site } = env));

const SECRET = 'hunter2-do-not-record';
const CHROMIUM = process.env.CHROMIUM_PATH || '/usr/bin/chromium';

test('a sign-in done by hand is recorded as steps, the password as a placeholder, and replays', async () => {
  const page = await browser.context.newPage();
  await page.goto(site.url('/form.html?case=record'));
  const tabId = await browser.tabIdOf(page);
  const panel = await browser.openPanel(tabId);
  await panel.waitForFunction(() => document.getElementById('target-title').textContent.includes('Sign in'));
  await panel.click('#record');
  await panel.waitForSelector('#run-status.running');
  assert.equal(await panel.textContent('#record'), '■ Stop recording');
  assert.equal(await panel.isVisible('#recording-hint'), true);

  // A person records on the page they see (the side panel sits beside it). Behind the panel's tab
  // the page is hidden, and Chrome then brings its accessibility tree up to date late: the
  // locators' queryAXTree waited past its deadline now and then, and the step kept its XPath.
  await page.bringToFront();
  await page.click('#user');
  await page.keyboard.type('Ada');
  await page.click('#pw');
  await page.keyboard.type(SECRET);
  await page.click('#remember');
  await page.keyboard.press('Enter');
  await page.waitForSelector('#welcome:not([hidden])');
  const expected = await page.textContent('#welcome');
  assert.equal(expected, 'Welcome, Ada (password given), remembered');

  await panel.waitForFunction(() => document.querySelectorAll('#steps .step').length >= 6, null, { timeout: 15_000 });
  await panel.screenshot({ path: 'out/panel-recording.png', fullPage: true });
  await panel.click('#record');
  await panel.waitForSelector('#run-status.succeeded');
  const runId = await panel.evaluate(() => document.querySelector('#history .open-run') && null).then(async () =>
    (await browser.sw.evaluate(() => self.sightline.runs()))[0].id);
  const run = await browser.sw.evaluate((id) => self.sightline.run(id), runId);
  assert.deepEqual(run.steps.map((s) => s.action), [
    'Tap input "user"',
    'Input “Ada” into input "user"',
    'Tap input "pw"',
    'Input “<secret>pw</secret>” into input "pw"',
    'Tap checkbox "remember"',
    'Press Enter',
  ]);
  assert.ok(run.steps.filter((s) => s.screenshot).length >= 5, 'a screenshot after each step');
  assert.doesNotMatch(JSON.stringify(run), new RegExp(SECRET), 'the password is nowhere in the run');

  const exported = {};
  for (const format of ['midscene-yaml', 'playwright', 'recorder', 'report']) {
    exported[format] = await browser.sw.evaluate(([id, f]) => self.sightline.exportRun(id, f, { viewport: { width: 1280, height: 800 } }), [runId, format]);
    assert.doesNotMatch(exported[format], new RegExp(SECRET), `no password in the ${format} export`);
  }
  assert.match(exported['midscene-yaml'], /aiInput: "input \\"pw\\""\n {8}value: "<secret>pw<\/secret>"/);

  // The Playwright export signs in again, reading the password from SIGHTLINE_SECRET_PW.
  const dir = path.join(ROOT, 'out', 'export-check', 'recorded');
  await rm(dir, { recursive: true, force: true });
  await mkdir(dir, { recursive: true });
  await writeFile(path.join(dir, 'signin.spec.ts'), exported.playwright.replace('// End state: add your checks here.',
    "await expect(page.locator('#welcome')).toHaveText('Welcome, Ada (password given), remembered');"));
  await writeFile(path.join(dir, 'playwright.config.mjs'), `export default { testDir: '.', reporter: 'line', workers: 1,
  use: { headless: true, launchOptions: { executablePath: ${JSON.stringify(CHROMIUM)}, args: ['--no-sandbox', '--disable-gpu'] } } };\n`);
  const cli = path.join(ROOT, 'node_modules/@playwright/test/cli.js');
  assert.match(exported.playwright, /\.fill\(secret\("SIGHTLINE_SECRET_PW"\)\)/);
  // Each field by its label, as Playwright's codegen writes it (role and accessible name), no XPath.
  for (const line of [
    "await page.getByRole('textbox', { name: 'Name' }).fill(\"Ada\");",
    "await page.getByRole('textbox', { name: 'Password' }).fill(secret(\"SIGHTLINE_SECRET_PW\"));",
    "await page.getByRole('checkbox', { name: 'Remember me' }).check();", // ticked: check(), as codegen writes it
  ]) assert.ok(exported.playwright.includes(line), `${line}\n${exported.playwright}`);
  assert.doesNotMatch(exported.playwright, /xpath=/);
  const recorder = JSON.parse(exported.recorder);
  assert.deepEqual(recorder.steps.filter((s) => s.selectors).map((s) => s.selectors[0][0]),
    ['aria/Name[role="textbox"]', 'aria/Name[role="textbox"]', 'aria/Password[role="textbox"]', 'aria/Password[role="textbox"]', 'aria/Remember me[role="checkbox"]']);
  const env = { ...process.env, SIGHTLINE_SECRET_PW: SECRET };
  const result = await promisify(execFile)(process.execPath, [cli, 'test', '--config', path.join(dir, 'playwright.config.mjs')], { cwd: dir, env, timeout: 90_000 })
    .then(({ stdout }) => ({ code: 0, stdout }), (e) => ({ code: e.code, stdout: `${e.stdout}${e.stderr}` }));
  assert.equal(result.code, 0, result.stdout);

  // Replay in the extension, on a fresh copy of the page, with no model configured at all:
  // without the secret it stops saying so; with it set up, the password is typed again.
  await page.goto(site.url('/form.html?case=replay'));
  const without = await browser.sw.evaluate(([tab, id]) => self.sightline.replay(tab, id), [tabId, runId]);
  assert.equal(without.status, 'failed');
  assert.match(without.error.message, /no secret named “pw” is set up; add it under Secrets in Settings/);
  await page.goto(site.url('/form.html?case=replay'));
  await browser.sw.evaluate((value) => self.sightline.setSettings({ secrets: [{ name: 'pw', value, sites: ['127.0.0.1'] }] }), SECRET);
  const replay = await browser.sw.evaluate(([tab, id]) => self.sightline.replay(tab, id), [tabId, runId]);
  await browser.sw.evaluate(() => self.sightline.setSettings({ secrets: [] }));
  assert.equal(replay.status, 'succeeded', replay.error);
  assert.equal(replay.modelCalls, 0);
  assert.equal(await page.textContent('#welcome'), 'Welcome, Ada (password given), remembered');
  assert.equal(await page.inputValue('#pw'), SECRET);
  await Promise.all([panel.close(), page.close()]);
});

test('addresses the person opens are recorded; a navigation their click caused is the click', async () => {
  const page = await browser.context.newPage();
  await page.goto(site.url('/index.html?case=nav'));
  const tabId = await browser.tabIdOf(page);
  const runId = await browser.sw.evaluate((tab) => self.sightline.startRecording(tab), tabId);
  await page.goto(site.url('/actions.html?case=nav')); // typed into the address bar, as CDP navigates
  await page.waitForTimeout(400);
  await page.click('#same-tab'); // a link: the click is the step, not the page it opens
  await page.waitForURL(/todo\.html\?same=1/);
  await page.waitForTimeout(400);
  await page.goBack();
  await page.waitForURL(/actions\.html/);
  // Each step's screenshot is taken once the page has settled after it: wait for the third (bounded), then stop.
  await until('three photographed steps', async () => {
    const held = await browser.sw.evaluate((id) => self.sightline.run(id), runId);
    return held?.steps.length === 3 && held.steps.every((s) => s.screenshot);
  }, 10_000);
  const run = await browser.sw.evaluate((tab) => self.sightline.stopRecording(tab), tabId);
  assert.equal(run.id, runId);
  assert.deepEqual(run.steps.map((s) => s.action), [
    `Go to ${site.url('/actions.html?case=nav')}`,
    'Tap a "Go to the todo list"',
    `Go to ${site.url('/actions.html?case=nav')}`,
  ]);
  assert.deepEqual(run.steps.filter((s) => !s.screenshot).map((s) => s.action), [], 'a screenshot after each step');

  // Replayed from a fresh page: the steps open the same addresses, with no model call.
  await page.goto(site.url('/index.html?case=nav'));
  const replay = await browser.sw.evaluate(([tab, id]) => self.sightline.replay(tab, id, { useCache: false }), [tabId, runId]);
  assert.equal(replay.status, 'succeeded', replay.error);
  assert.equal(replay.modelCalls, 0);
  assert.match(page.url(), /actions\.html\?case=nav/);
  const yaml = await browser.sw.evaluate((id) => self.sightline.exportRun(id, 'midscene-yaml'), runId);
  assert.match(yaml, /- javascript: "location\.href = \\"http:\/\/127\.0\.0\.1:\d+\/actions\.html\?case=nav\\""/);
  await page.close();
});

test('with a model configured, each recorded element is named by it from the step screenshot', async () => {
  await browser.sw.evaluate((m) => self.sightline.setSettings({ model: m }), { baseUrl: mock.baseUrl, model: 'mock-model', apiKey: 'sk-rec', family: 'generic' });
  try {
    const page = await browser.context.newPage();
    await page.goto(site.url('/form.html?case=describe'));
    const tabId = await browser.tabIdOf(page);
    await browser.sw.evaluate((tab) => self.sightline.startRecording(tab), tabId);
    await page.click('#user');
    await page.keyboard.type('Ada');
    await page.waitForTimeout(900); // typing is recorded after a pause
    mock.setFallback((body) => {
      const user = body.messages.find((m) => m.role === 'user');
      const sawImage = user.content.some((p) => p.type === 'image_url');
      return JSON.stringify({ data: sawImage ? 'the User name field of the sign-in form' : 'no screenshot' });
    });
    const run = await browser.sw.evaluate((tab) => self.sightline.stopRecording(tab), tabId);
    assert.equal(mock.requests.length, 2, 'one call per recorded element');
    assert.equal(run.modelCalls, 2);
    const yaml = await browser.sw.evaluate((id) => self.sightline.exportRun(id, 'midscene-yaml'), run.id);
    assert.match(yaml, /- aiTap: "the User name field of the sign-in form"/);
    assert.match(yaml, /- aiInput: "the User name field of the sign-in form"\n {8}value: "Ada"/);
    await page.close();
  } finally {
    await browser.sw.evaluate(() => self.sightline.setSettings({ model: { baseUrl: '', model: '' } }));
  }
});

test('a secret typed by hand is recorded as its placeholder; step screenshots paint over sensitive fields and any showing a secret', async () => {
  const CARD = 'Card-Value-5521';
  // Bound to no site (typed nowhere), and still concealed wherever it shows.
  await browser.sw.evaluate((value) => self.sightline.setSettings({ secrets: [{ name: 'card', value, sites: [] }] }), CARD);
  try {
    const page = await browser.context.newPage();
    await page.goto(site.url('/form.html?case=record-secret'));
    const tabId = await browser.tabIdOf(page);
    const runId = await browser.sw.evaluate((tab) => self.sightline.startRecording(tab), tabId);
    await page.click('#user');
    await page.keyboard.type(`Ada ${CARD}`);
    await page.click('#pw');
    await page.keyboard.type('typed-by-hand-77');
    await page.keyboard.press('Enter');
    await page.waitForSelector('#welcome:not([hidden])');
    const stepsSoFar = () => browser.sw.evaluate((id) => self.sightline.run(id).then((r) => r.steps.length), runId);
    for (let i = 0; i < 60 && (await stepsSoFar()) < 5; i++) await page.waitForTimeout(250);
    const run = await browser.sw.evaluate((tab) => self.sightline.stopRecording(tab), tabId);
    assert.deepEqual(run.steps.map((s) => s.action), [
      'Tap input "user"',
      'Input “Ada <secret>card</secret>” into input "user"',
      'Tap input "pw"',
      'Input “<secret>pw</secret>” into input "pw"',
      'Press Enter',
    ]);
    assert.doesNotMatch(JSON.stringify(run), new RegExp(CARD), 'the secret is nowhere in the run');
    assert.doesNotMatch(JSON.stringify(run), /typed-by-hand-77/);

    // The last step's screenshot: the name field and the greeting show the secret, the
    // password field is sensitive: all three painted over; the rest as it was.
    const { images } = JSON.parse(await browser.sw.evaluate((id) => self.sightline.saveTrajectory(id), runId));
    const shot = images[run.steps.at(-1).screenshot];
    assert.ok(shot, 'the step kept a screenshot');
    // The middle of a field's box, or of a paragraph's text (the text's own box).
    const centre = (selector) => page.locator(selector).evaluate((el) => {
      const range = document.createRange();
      range.selectNodeContents(el);
      const r = el.localName === 'input' ? el.getBoundingClientRect() : range.getBoundingClientRect();
      return [Math.round(r.x + r.width / 2), Math.round(r.y + r.height / 2)];
    });
    const points = { user: await centre('#user'), pw: await centre('#pw'), welcome: await centre('#welcome'), blank: [900, 40] };
    const colours = await page.evaluate(async ([url, at]) => {
      const img = new Image();
      img.src = url;
      await img.decode();
      const canvas = new OffscreenCanvas(img.width, img.height);
      const g = canvas.getContext('2d');
      g.drawImage(img, 0, 0);
      return Object.fromEntries(Object.entries(at).map(([k, [x, y]]) => [k, [...g.getImageData(x, y, 1, 1).data.slice(0, 3)]]));
    }, [shot, points]);
    const PAINTED = [96, 96, 96];
    assert.deepEqual(colours.user, PAINTED, 'the field showing the secret');
    assert.deepEqual(colours.pw, PAINTED, 'the password field');
    assert.deepEqual(colours.welcome, PAINTED, 'the greeting showing the secret');
    assert.deepEqual(colours.blank, [255, 255, 255], 'the page elsewhere');
    await page.close();
  } finally {
    await browser.sw.evaluate(() => self.sightline.setSettings({ secrets: [] }));
  }
});

test('only the person\'s scrolling is recorded (wheel, scrollbar drag), not the page scrolling itself', async () => {
  const own = await launchWithExtension({ scrollbars: true }); // a scrollbar to drag
  try {
    const page = await own.context.newPage();
    await page.goto(site.url('/long.html?case=record-scroll'));
    const tabId = await own.tabIdOf(page);
    await own.sw.evaluate((tab) => self.sightline.startRecording(tab), tabId);
    const scrollTo = async (top) => {
      await page.evaluate((y) => window.scrollTo({ top: y, behavior: 'smooth' }), top);
      await page.waitForFunction((y) => Math.abs(scrollY - y) < 1, top, { timeout: 5_000 });
      await page.waitForTimeout(400);
    };
    // The page moves itself: trusted scroll events, no gesture of the person's.
    await scrollTo(400);
    await page.mouse.move(600, 400);
    await page.mouse.wheel(0, 300);
    await page.waitForTimeout(900);
    await scrollTo(1000);
    // The person drags the scrollbar's thumb up a little.
    const { x, y } = await page.evaluate(() => ({
      x: (document.documentElement.clientWidth + innerWidth) / 2,
      y: ((scrollY + innerHeight / 2) / document.documentElement.scrollHeight) * innerHeight,
    }));
    await page.mouse.move(x, y);
    await page.mouse.down();
    await page.mouse.move(x, y - 10, { steps: 5 });
    await page.mouse.up();
    await page.waitForTimeout(600);
    const dragged = 1000 - (await page.evaluate(() => scrollY));
    assert.ok(dragged > 0, 'the drag moved the page');
    const run = await own.sw.evaluate((tab) => self.sightline.stopRecording(tab), tabId);
    const steps = run.steps.map((s) => s.action);
    assert.equal(steps.length, 2, steps.join('; '));
    const [, down] = steps[0].match(/^Scroll down (\d+) px$/) ?? [];
    assert.ok(Number(down) >= 250 && Number(down) <= 350, `the wheel: ${steps[0]}`);
    assert.equal(steps[1], `Scroll up ${Math.round(dragged)} px`, 'the drag, from where the page had put itself');
    await page.close();
  } finally {
    await own.close();
  }
});

test('checks added while recording (text, value, visible) become expect() in the spec and replay with no model', async () => {
  const page = await browser.context.newPage();
  await page.goto(site.url('/todo.html?case=checks'));
  const tabId = await browser.tabIdOf(page);
  const panel = await browser.openPanel(tabId);
  await panel.waitForFunction(() => document.getElementById('target-title').textContent.includes('todos'));
  await panel.click('#record');
  await panel.waitForSelector('#run-status.running');
  assert.equal(await panel.isVisible('#record-checks'), true, 'the check buttons show while recording');
  await page.bringToFront();
  for (const title of ['buy milk', 'walk dog']) {
    await page.click('.new-todo');
    await page.keyboard.type(title);
    await page.keyboard.press('Enter');
  }
  await page.click('.new-todo');
  await page.keyboard.type('draft');
  const stepsNow = async () => (await browser.sw.evaluate(() => self.sightline.runs()))[0].steps.length;
  await until('the typing recorded', async () => (await stepsNow()) >= 7, 10_000);

  // Each check: a button in the panel, then a click on the element; the page does not get that click.
  const addCheck = async (check, selector) => {
    const before = await stepsNow();
    await panel.click(`#record-checks [data-check="${check}"]`);
    await panel.waitForSelector('#record-check-picking:not([hidden])');
    await page.bringToFront();
    await page.click(selector);
    await until(`the ${check} check recorded`, async () => (await stepsNow()) > before, 10_000);
    await panel.waitForSelector('#record-check-picking[hidden]', { state: 'attached' });
  };
  await addCheck('text', '.todo-list li:nth-child(2) label');
  await addCheck('value', '.new-todo');
  await addCheck('visible', '.todo-list li:nth-child(1) .toggle');
  assert.equal(await page.isChecked('.todo-list li:nth-child(1) .toggle'), false, 'the picking click did not tick the box');
  // Escape leaves picking with nothing recorded.
  const before = await stepsNow();
  await panel.click('#record-checks [data-check="text"]');
  await page.bringToFront();
  await page.keyboard.press('Escape');
  await page.click('.todo-list li:nth-child(1) .toggle');
  await until('the tick recorded', async () => (await stepsNow()) > before, 10_000);
  await page.click('.todo-list li:nth-child(1) .toggle'); // untick: the replay checks the page as it was
  await until('the untick recorded', async () => (await stepsNow()) > before + 1, 10_000);
  await panel.click('#record');
  await panel.waitForSelector('#run-status.succeeded');
  const runId = (await browser.sw.evaluate(() => self.sightline.runs()))[0].id;
  const run = await browser.sw.evaluate((id) => self.sightline.run(id), runId);
  const checks = run.steps.map((s) => s.action).filter((a) => a.startsWith('Check'));
  assert.deepEqual(checks, [
    'Check the text “walk dog” of label "walk dog"',
    'Check the value “draft” of input "New todo"',
    'Check that this is visible: checkbox "Toggle buy milk"',
  ], run.steps.map((s) => s.action).join('\n'));
  assert.equal(run.steps.filter((s) => s.action === 'Press Escape').length, 0, 'the Escape that ended picking is no step');

  const exported = {};
  for (const format of ['midscene-yaml', 'playwright', 'recorder']) {
    exported[format] = await browser.sw.evaluate(([id, f]) => self.sightline.exportRun(id, f, { viewport: { width: 1280, height: 800 } }), [runId, format]);
  }
  assert.match(exported.playwright, /await expect\(page\.[^\n]*\)\.(toHaveText|toContainText)\("walk dog"\);/);
  for (const line of [
    'toHaveValue("draft");',
    "await expect(page.getByRole('checkbox', { name: 'Toggle buy milk' })).toBeVisible();",
  ]) assert.ok(exported.playwright.includes(line), `${line}\n${exported.playwright}`);
  assert.match(exported['midscene-yaml'], /aiAssert: ".* holds the value “draft”"/);
  const recorder = JSON.parse(exported.recorder);
  assert.ok(recorder.steps.some((s) => s.type === 'waitForElement' && s.properties?.value === 'draft'), exported.recorder);

  // The spec replays with Playwright, its checks included.
  const dir = path.join(ROOT, 'out', 'export-check', 'checks');
  await rm(dir, { recursive: true, force: true });
  await mkdir(dir, { recursive: true });
  await writeFile(path.join(dir, 'checks.spec.ts'), exported.playwright);
  await writeFile(path.join(dir, 'playwright.config.mjs'), `export default { testDir: '.', reporter: 'line', workers: 1,
  use: { headless: true, launchOptions: { executablePath: ${JSON.stringify(CHROMIUM)}, args: ['--no-sandbox', '--disable-gpu'] } } };\n`);
  const cli = path.join(ROOT, 'node_modules/@playwright/test/cli.js');
  const result = await promisify(execFile)(process.execPath, [cli, 'test', '--config', path.join(dir, 'playwright.config.mjs')], { cwd: dir, timeout: 90_000 })
    .then(({ stdout }) => ({ code: 0, stdout }), (e) => ({ code: e.code, stdout: `${e.stdout}${e.stderr}` }));
  assert.equal(result.code, 0, result.stdout);

  // Sightline's own replay with no model checks them too: it passes on a fresh page, and fails
  // with the check's code where the page reads otherwise.
  await page.goto(site.url('/todo.html?case=checks-replay'));
  const replay = await browser.sw.evaluate(([tab, id]) => self.sightline.replay(tab, id), [tabId, runId]);
  assert.equal(replay.status, 'succeeded', JSON.stringify(replay.error));
  assert.equal(replay.modelCalls, 0);
  const edited = structuredClone(run);
  const step = edited.steps.find((s) => s.planned?.type === 'Expect' && s.planned.check === 'value');
  step.planned.expected = 'something else';
  await page.goto(site.url('/todo.html?case=checks-fail'));
  const failing = await browser.sw.evaluate(([tab, json]) => self.sightline.replay(tab, json), [tabId, JSON.stringify({ format: 1, run: edited, images: {} })]);
  assert.equal(failing.status, 'failed');
  assert.equal(failing.error.code, 'check_failed', JSON.stringify(failing.error));
  assert.match(failing.error.message, /reads “draft”, not “something else”/);
  await Promise.all([panel.close(), page.close()]);
});
