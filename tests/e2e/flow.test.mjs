// Flow files (Midscene YAML) replayed: by the headless runner (scripts/run's node entry, its
// exit codes and output) and inside the extension from the panel. The runner runs in its own
// process with its own Chromium, as a user would run it; the model, when one is needed, is
// this file's mock.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { cp, mkdir, mkdtemp, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { ROOT, userMessage } from '../support/browser.mjs';
import { messageText, startMockModel, todoPlanReply } from '../support/mock-model.mjs';
import { startStaticServer } from '../support/static-server.mjs';
import { modelSuite } from '../support/suite.mjs';

let browser, mock, site;
modelSuite((env) => ({ browser, mock, site } = env), {
  model: (m) => ({ baseUrl: m.baseUrl, model: 'mock-model', apiKey: 'sk-flow', family: 'generic' }),
});

const WORK = path.join(ROOT, 'out', 'flow-check');
const DEMO_FLOW = path.join(ROOT, 'tests', 'fixtures', 'todo.flow.yaml');
const INPUT_XPATH = '/html[1]/body[1]/main[1]/header[1]/div[1]/input[2]';

/** scripts/run without its setup and build (the suite has built dist/): exit code and output. */
async function runner(args, env = {}) {
  const clean = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('SIGHTLINE_')));
  try {
    const { stdout, stderr } = await promisify(execFile)(process.execPath, [path.join(ROOT, 'scripts/lib/run.mjs'), ...args], {
      cwd: ROOT, env: { ...clean, ...env }, timeout: 90_000,
    });
    return { code: 0, stdout, stderr };
  } catch (e) {
    if (e.code == null || typeof e.code === 'string') throw e;
    return { code: e.code, stdout: e.stdout, stderr: e.stderr };
  }
}

// A flow serves only its own folder: the flows written here sit in a copy of the fixtures.
const SITE = path.join(WORK, 'site');
let copied = null;
/** The path of a flow file `name` in the copy of the fixtures, made once per file of tests. */
async function inSite(name) {
  copied ??= rm(SITE, { recursive: true, force: true }).then(() => cp(path.join(ROOT, 'tests', 'fixtures'), SITE, { recursive: true }));
  await copied;
  return path.join(SITE, name);
}

/** A flow file beside the fixtures (a copy of them) that serves them, starting on `url`. */
async function flowFile(name, flowItems, url = '/todo.html') {
  const file = await inSite(name);
  await writeFile(file, `web:\n  serve: .\n  url: ${url}\ntasks:\n  - name: ${name}\n    flow:\n${flowItems}`);
  return file;
}

/**
 * The panel on `tabId`, once it has found its tab: the flow button is enabled then. The tests set
 * the file input directly, which a person cannot do before that (the button stays disabled), and
 * a file chosen earlier finds no tab and is dropped.
 */
async function panelReady(tabId) {
  const panel = await browser.openPanel(tabId);
  await panel.waitForSelector('#run-flow:not([disabled])', { timeout: 15_000 });
  return panel;
}

const mockModelEnv = () => ({ SIGHTLINE_BASE_URL: mock.baseUrl, SIGHTLINE_MODEL: 'mock-model', SIGHTLINE_API_KEY: 'sk-flow' });

/** Answers a locate request with the number of the todo input in the description it was sent. */
function locateTodoInput(body) {
  const text = body.messages.map((m) => (typeof m.content === 'string' ? m.content : m.content.map((p) => p.text ?? '').join('\n'))).join('\n');
  const n = text.match(/^\s*\[(\d+)\][^\n]*What needs to be done\?/m)?.[1];
  return JSON.stringify(n ? { thought: 'the new-todo box', element: Number(n) } : { thought: 'not there', element: null, reason: 'no todo box' });
}

test('scripts/run replays the demo flow with no model: exit 0, every element by its XPath, a report', async () => {
  const { code, stdout, stderr } = await runner([DEMO_FLOW, '--report', WORK]);
  assert.equal(code, 0, stdout + stderr);
  assert.match(stdout, /model: none/);
  assert.equal(stdout.match(/^ {2}✓ \[\d\/9\]/gm)?.length, 9, stdout);
  assert.match(stdout, /✓ \[1\/9\] aiInput “buy milk” into .* by XPath\)/);
  assert.match(stdout, /passed: 9 of 9 steps in [\d.]+ s, 0 model calls/);
  const report = await readFile(path.join(WORK, 'todo.flow.report.html'), 'utf8');
  assert.match(report, /Plan the weekend/);
  assert.match(report, /call grandma/);
});

test('scripts/run exits 1 at a failing step, says which and why, and runs nothing after it', async () => {
  const file = await flowFile('failing.yaml', [
    `      - aiInput: the new todo box\n        value: buy milk\n        xpath: ${INPUT_XPATH}\n`,
    '      - aiKeyboardPress: Enter\n',
    '      - aiAssert: two todos are listed\n',
    '      - sleep: 10\n',
  ].join(''));
  mock.script(JSON.stringify({ pass: false, reason: 'only one todo is listed' }));
  const { code, stdout } = await runner([file], mockModelEnv());
  assert.equal(code, 1, stdout);
  assert.match(stdout, /✓ \[2\/4\] aiKeyboardPress Enter/);
  assert.match(stdout, /✗ \[3\/4\] aiAssert “two todos are listed” .*\n\s+assertion failed: only one todo is listed/);
  assert.doesNotMatch(stdout, /\[4\/4\]/);
  assert.match(stdout, /^failed: aiAssert “two todos are listed”: assertion failed: only one todo is listed \(2 of 3 steps passed, 1 model call\)$/m);
  assert.equal(mock.requests.length, 1, 'only the assertion asked the model');
});

test('scripts/run heals a stale XPath through the model and still passes', async () => {
  const file = await flowFile('stale.yaml', [
    '      - aiInput: the new todo box\n        value: buy milk\n        xpath: /html[1]/body[1]/main[1]/div[7]/input[1]\n',
    '      - aiKeyboardPress: Enter\n',
  ].join(''));
  mock.script(locateTodoInput);
  const { code, stdout } = await runner([file], mockModelEnv());
  assert.equal(code, 0, stdout);
  assert.match(stdout, /✓ \[1\/2\] aiInput .* 1 model call\)/);
  assert.match(stdout, /passed: 2 of 2 steps/);
});

test('scripts/run plans with the planning model the environment names; the model only finds what it describes', async () => {
  const planner = await startMockModel();
  try {
    const file = await flowFile('planned.yaml', '      - ai: add a todo "call grandma"\n');
    planner.script(JSON.stringify({
      thought: 'Type the todo into the new-todo box and press Enter.',
      actions: [{ type: 'Input', target: 'the "What needs to be done?" box', value: 'call grandma' }, { type: 'KeyPress', key: 'Enter' }],
      done: true,
    }));
    mock.script(locateTodoInput);
    const env = { ...mockModelEnv(), SIGHTLINE_PLANNER_BASE_URL: planner.baseUrl, SIGHTLINE_PLANNER_MODEL: 'gpt-4.1', SIGHTLINE_PLANNER_API_KEY: 'sk-plan-env' };
    const { code, stdout } = await runner([file, '--report', WORK], env);
    assert.equal(code, 0, stdout);
    assert.match(stdout, /^planner: gpt-4\.1 at http:\/\/127\.0\.0\.1:\d+/m);
    // The planner got the planning prompt with its own name and key, and judged the goal after.
    assert.equal(planner.requests.length, 1);
    const planned = planner.requests[0];
    assert.equal(planned.body.model, 'gpt-4.1');
    assert.equal(planned.headers.authorization, 'Bearer sk-plan-env');
    assert.match(messageText(planned.body.messages.find((m) => m.role === 'system')), /A second model carries your actions out/);
    assert.match(userMessage(planned.body).text, /add a todo "call grandma"/);
    assert.equal(planner.checks.length, 1, 'the planner checks the goal');
    // The acting model was asked only to locate the described box, with its own key.
    assert.equal(mock.requests.length, 1);
    assert.equal(mock.requests[0].headers.authorization, 'Bearer sk-flow');
    assert.match(userMessage(mock.requests[0].body).text, /the "What needs to be done\?" box/);
    assert.doesNotMatch(JSON.stringify(mock.requests[0].body), /A second model/);
    const report = await readFile(path.join(WORK, 'planned.report.html'), 'utf8');
    assert.match(report, /Planner gpt-4\.1: 2 model call\(s\)/);
    assert.match(report, /call grandma/);
  } finally {
    await planner.close();
  }
  // Half a planner, or a planner with no model to find its targets: refused before a browser starts.
  let r = await runner([DEMO_FLOW], { ...mockModelEnv(), SIGHTLINE_PLANNER_MODEL: 'gpt-4.1' });
  assert.equal(r.code, 1);
  assert.match(r.stderr, /SIGHTLINE_PLANNER_BASE_URL and SIGHTLINE_PLANNER_MODEL go together/);
  r = await runner([DEMO_FLOW], { SIGHTLINE_PLANNER_BASE_URL: 'http://127.0.0.1:9/v1', SIGHTLINE_PLANNER_MODEL: 'gpt-4.1' });
  assert.equal(r.code, 1);
  assert.match(r.stderr, /the planning model gpt-4\.1 needs a model to find the elements it describes/);
  r = await runner(['--help']);
  assert.match(r.stdout, /SIGHTLINE_PLANNER_BASE_URL, SIGHTLINE_PLANNER_MODEL/);
});

test('modelsFromEnv: one reader for both models, SIGHTLINE_* over Midscene’s names', async () => {
  const { modelsFromEnv } = await import('../../scripts/lib/playwright/lib/flow-runner.mjs');
  const midscene = {
    MIDSCENE_MODEL_BASE_URL: 'https://ark.example/api/v3', MIDSCENE_MODEL_NAME: 'doubao-1.5-ui-tars', MIDSCENE_MODEL_FAMILY: 'vlm-ui-tars-doubao-1.5',
    MIDSCENE_PLANNING_MODEL_BASE_URL: 'https://dash.example/v1', MIDSCENE_PLANNING_MODEL_NAME: 'qwen3-max', MIDSCENE_PLANNING_MODEL_API_KEY: 'sk-p',
  };
  assert.deepEqual(modelsFromEnv(midscene).planner, { baseUrl: 'https://dash.example/v1', model: 'qwen3-max', apiKey: 'sk-p', family: 'generic', provider: 'custom' });
  assert.equal(modelsFromEnv(midscene).model.family, 'doubao-ui-tars');
  // Our model with Midscene's planner; unrelated Midscene variables beside our model are not read.
  const ours = { SIGHTLINE_BASE_URL: 'http://a/v1', SIGHTLINE_MODEL: 'm' };
  assert.equal(modelsFromEnv({ ...ours, ...midscene }).model.model, 'm');
  assert.equal(modelsFromEnv({ ...ours, ...midscene }).planner.model, 'qwen3-max');
  assert.deepEqual(modelsFromEnv({ ...ours, MIDSCENE_DEBUG: '1' }), { model: modelsFromEnv(ours).model, planner: null });
  const planner = modelsFromEnv({ ...ours, ...midscene, SIGHTLINE_PLANNER_BASE_URL: 'http://p/v1', SIGHTLINE_PLANNER_MODEL: 'claude', SIGHTLINE_PLANNER_PROVIDER: 'anthropic' }).planner;
  assert.deepEqual([planner.model, planner.provider, planner.apiKey], ['claude', 'anthropic', '']);
  assert.throws(() => modelsFromEnv({ ...ours, MIDSCENE_PLANNING_MODEL_NAME: 'qwen3-max' }), /MIDSCENE_PLANNING_MODEL_BASE_URL and MIDSCENE_PLANNING_MODEL_NAME go together/);
  assert.throws(() => modelsFromEnv({ ...ours, MIDSCENE_PLANNING_MODEL_FAMILY: 'gpt-5', MIDSCENE_PLANNING_MODEL_NAME: 'x' }), /does not know/);
  assert.deepEqual(modelsFromEnv({}), { model: null, planner: null });
});

test('scripts/run refuses a broken flow file before opening a browser, naming the place', async () => {
  const file = path.join(WORK, 'broken.yaml');
  await mkdir(WORK, { recursive: true });
  await writeFile(file, 'web:\n  url: http://127.0.0.1/\ntasks:\n  - name: x\n    flow:\n      - aiTapp: Save\n');
  let r = await runner([file]);
  assert.equal(r.code, 1);
  assert.match(r.stderr, /broken\.yaml: task 1 \(“x”\), step 1: no step Sightline knows \(keys: aiTapp\)/);
  await writeFile(file, 'tasks:\n  - name: [unclosed\n');
  r = await runner([file]);
  assert.equal(r.code, 1);
  assert.match(r.stderr, /not valid YAML: .*\(line \d+, column \d+\)/);
  r = await runner([path.join(WORK, 'missing.yaml')]);
  assert.equal(r.code, 1);
  assert.match(r.stderr, /cannot read .*missing\.yaml: no such file/);
  r = await runner([]);
  assert.equal(r.code, 1);
  assert.match(r.stderr, /no flow file given\nusage: scripts\/run FLOW\.yaml/);
});

test('the panel runs an exported flow file on a fresh page with no model call', async () => {
  // A run through the model, exported as Midscene YAML…
  const first = await browser.context.newPage();
  await first.goto(site.url('/todo.html?flow-export'));
  mock.script(todoPlanReply());
  const run = await browser.sw.evaluate((id) => self.sightline.act(id, 'add a todo ‘buy milk’'), await browser.tabIdOf(first));
  assert.equal(run.status, 'succeeded', run.error);
  const yaml = await browser.sw.evaluate((id) => self.sightline.exportRun(id, 'midscene-yaml'), run.id);
  await first.close();
  mock.reset();

  // …loaded from the panel's "Run a flow file" on a fresh tab: the exported XPaths find the box.
  const page = await browser.context.newPage();
  await page.goto(site.url('/index.html'));
  const tabId = await browser.tabIdOf(page);
  const panel = await panelReady(tabId);
  // A setting of Midscene's the run cannot honour is said, with its line; the flow still runs.
  const withAgent = `agent:\n  bridgeMode: newTabWithUrl\n${yaml}`;
  await panel.setInputFiles('#run-flow-file', { name: 'todo.yaml', mimeType: 'text/yaml', buffer: Buffer.from(withAgent) });
  await panel.waitForSelector('#run-status.succeeded', { timeout: 30_000 });
  assert.match(await panel.textContent('#flow-warnings:not([hidden])'), /line 2: `agent: bridgeMode:` is not honoured here/);
  assert.equal(await page.locator('.todo-list li').count(), 1, 'the flow opened its page and added the todo');
  assert.equal(await page.locator('.todo-list label').textContent(), 'buy milk');
  assert.equal(mock.requests.length, 0, 'no model call');
  const flowRun = (await browser.sw.evaluate(() => self.sightline.runs()))[0];
  assert.deepEqual(flowRun.flow.items.map((i) => i.status), ['succeeded', 'succeeded']);
  // Found by the file's XPath, the box still had its locators read: the flow's own export
  // names it as a person sees it.
  const spec = await browser.sw.evaluate((id) => self.sightline.exportRun(id, 'playwright'), flowRun.id);
  assert.match(spec, /page\.getByRole\('textbox', \{ name: 'New todo' \}\)\.fill\("buy milk"\)/, spec);
  assert.doesNotMatch(spec, /xpath=/, spec);

  // A broken file: the panel says what is wrong, and nothing runs.
  await panel.setInputFiles('#run-flow-file', { name: 'bad.yaml', mimeType: 'text/yaml', buffer: Buffer.from('tasks:\n  - flow:\n      - sleep: soon\n') });
  await panel.waitForSelector('#notice:not([hidden])');
  assert.match(await panel.textContent('#notice'), /Could not run bad\.yaml.*sleep needs a number of milliseconds.* — edit the flow file and run it again\./s);
  assert.doesNotMatch(await panel.textContent('#notice'), /edit the instruction/, 'a flow file has no instruction to edit');
  await panel.close();
  await page.close();
});

// Shared files cannot reach local files: a flow opens only http(s) pages on the allowed sites,
// and the files it names for upload need the person's Allow, or the runner's upload folder.
const LOCAL = ['file:///etc/passwd', 'javascript:alert(document.domain)', 'chrome://settings/', 'data:text/html,<h1>hi</h1>'];
const openingFlow = (url) => `web:\n  url: "${url}"\ntasks:\n  - name: look\n    flow:\n      - sleep: 10\n`;

test('a flow whose web.url is a local file, a script or a browser page is refused: by runFlow, in the panel, by scripts/run', async () => {
  const page = await browser.context.newPage();
  await page.goto(site.url('/index.html?local-url'));
  const tabId = await browser.tabIdOf(page);
  for (const url of LOCAL) {
    const error = await browser.sw.evaluate(([id, y]) => self.sightline.runFlow(id, y).then(() => null, (e) => e.message), [tabId, openingFlow(url)]);
    assert.match(error ?? 'it ran', /is not a web address: a flow file or a saved run may only open http and https pages/, url);
  }
  assert.match(page.url(), /index\.html\?local-url$/, 'the tab went nowhere');

  const panel = await panelReady(tabId);
  await panel.setInputFiles('#run-flow-file', { name: 'passwd.yaml', mimeType: 'text/yaml', buffer: Buffer.from(openingFlow('file:///etc/passwd')) });
  await panel.waitForSelector('#notice:not([hidden])', { timeout: 10_000 });
  assert.match(await panel.textContent('#notice'), /Could not run passwd\.yaml: “file:\/\/\/etc\/passwd” is not a web address/);
  assert.match(page.url(), /index\.html\?local-url$/);
  await panel.close();
  await page.close();

  // The runner: refused before a browser starts (it used to open file: addresses).
  await mkdir(WORK, { recursive: true });
  const file = path.join(WORK, 'passwd.yaml');
  await writeFile(file, openingFlow('file:///etc/passwd'));
  const r = await runner([file]);
  assert.equal(r.code, 1);
  assert.match(r.stderr, /passwd\.yaml: “file:\/\/\/etc\/passwd” is not a web address/);
  assert.doesNotMatch(r.stdout, /model:/, 'no run started');
});

/** A flow on the actions fixture attaching `files` through its "Attach files" button (by XPath: no model). */
const attachFlow = (url, files) => `web:\n  url: ${url}\ntasks:\n  - name: attach\n    flow:\n      - aiTap: the attach button\n        xpath: '//button[normalize-space()="Attach files"]'\n        fileChooserAccept: ${JSON.stringify(files)}\n`;

test('a flow\'s upload waits for Allow in the panel, which lists the paths: Refuse ends the step refused, Allow uploads', async () => {
  const page = await browser.context.newPage();
  await page.goto(site.url('/actions.html?upload-panel'));
  const tabId = await browser.tabIdOf(page);
  const attached = () => page.locator('#attached').textContent();
  const panel = await panelReady(tabId);
  const yaml = Buffer.from(attachFlow(page.url(), ['/etc/hostname']));
  for (const allow of [false, true]) {
    await panel.setInputFiles('#run-flow-file', { name: 'attach.yaml', mimeType: 'text/yaml', buffer: yaml });
    await panel.waitForSelector('#question-form:not([hidden])', { timeout: 30_000 });
    assert.match(await panel.textContent('#question-text'), /wants to upload these files from this computer\. A flow file or a saved run names them, not you/);
    assert.deepEqual(await panel.locator('#question-paths li').allTextContents(), ['/etc/hostname']);
    assert.deepEqual([await panel.textContent('#question-yes'), await panel.textContent('#question-no')], ['Allow', 'Refuse']);
    assert.equal(await attached(), 'no file', 'nothing is chosen while the question waits');
    await panel.click(allow ? '#question-yes' : '#question-no');
    await panel.waitForSelector(`#run-status.${allow ? 'succeeded' : 'failed'}`, { timeout: 30_000 });
    const run = (await browser.sw.evaluate(() => self.sightline.runs()))[0];
    const [decision] = run.steps;
    assert.deepEqual(decision.asked, [{ question: { kind: 'upload', paths: ['/etc/hostname'] }, answer: { kind: 'upload', allow }, by: 'person' }], 'the record says what was decided');
    if (!allow) {
      assert.deepEqual(run.flow.items[0].error, {
        code: 'upload_refused',
        message: 'you refused the upload of /etc/hostname',
        advice: 'you can edit that step in the flow file and run it again.',
      }, 'the core decides the advice, for the flow file step');
      assert.equal(decision.status, 'failed');
      assert.equal(await attached(), 'no file');
      // The advice points at the flow file's step, not at an instruction the panel never had.
      assert.match(await panel.textContent('#run-error'), /you refused the upload of \/etc\/hostname — you can edit that step in the flow file and run it again\.$/);
    }
  }
  assert.match(await attached(), /^hostname \(.+\)$/, 'Allow: the file was chosen');
  assert.equal(mock.requests.length, 0);

  // A path the person types in the panel's own upload form is theirs: no question.
  const dir = await mkdtemp(path.join(tmpdir(), 'sightline-typed-'));
  await writeFile(path.join(dir, 'typed.txt'), 'typed');
  mock.script((body) => {
    const n = userMessage(body).text.match(/^\s*\[(\d+)\][^\n]*Attach files/m)?.[1];
    return JSON.stringify({ thought: 'the attach button', element: Number(n) });
  });
  await panel.selectOption('#task-type', 'aiUpload');
  await panel.fill('#instruction', 'the attach button');
  await panel.fill('#task-value', path.join(dir, 'typed.txt'));
  await panel.click('#run-button');
  await panel.waitForFunction(() => document.getElementById('run-instruction').textContent.startsWith('aiUpload “typed.txt”')
    && document.getElementById('run-status').classList.contains('succeeded'), null, { timeout: 30_000 });
  assert.equal(await attached(), 'typed.txt (typed)');
  assert.equal((await browser.sw.evaluate(() => self.sightline.runs()))[0].steps.some((s) => s.asked?.length), false, 'nothing was asked');
  await rm(dir, { recursive: true, force: true });
  await panel.close();
  await page.close();
});

test('without a person, a flow uploads only from its upload folder; scripts/run --upload-dir refuses paths outside it before the run', async () => {
  const dir = await mkdtemp(path.join(tmpdir(), 'sightline-uploads-'));
  const inside = path.join(dir, 'a.txt');
  await writeFile(inside, 'hello');
  await symlink('/etc/hostname', path.join(dir, 'link.txt'));
  const page = await browser.context.newPage();
  await page.goto(site.url('/actions.html?upload-headless'));
  const tabId = await browser.tabIdOf(page);
  const runFlow = (files, opts) => browser.sw.evaluate(([id, y, o]) => self.sightline.runFlow(id, y, o), [tabId, attachFlow(page.url(), files), opts]);
  let run = await runFlow(['/etc/hostname'], { interactive: false });
  assert.equal(run.status, 'failed');
  assert.match(run.error.message, /refused the upload of \/etc\/hostname: .*scripts\/run --upload-dir DIR/);
  run = await runFlow(['/etc/hostname'], { interactive: false, uploadDir: dir });
  assert.match(run.error.message, /refused the upload of \/etc\/hostname: it lies outside the upload folder/);
  run = await runFlow([`${dir}/../../etc/hostname`], { interactive: false, uploadDir: dir });
  assert.equal(run.status, 'failed', 'a `..` does not climb out');
  assert.equal(await page.locator('#attached').textContent(), 'no file');
  run = await runFlow([inside], { interactive: false, uploadDir: dir });
  assert.equal(run.status, 'succeeded', run.error);
  assert.equal(await page.locator('#attached').textContent(), 'a.txt (hello)');
  assert.equal(run.steps[0].asked[0].by, 'setting');
  await page.close();

  // The runner: an explicit folder; symlinks and `..` resolved before the run, every path outside named.
  const flowWith = (name, files) => flowFile(name, `      - aiTap: the attach button\n        xpath: '//button[normalize-space()="Attach files"]'\n        fileChooserAccept: ${JSON.stringify(files)}\n      - aiAssert: the page says a.txt (hello) is attached\n`, '/actions.html');
  const outside = await flowWith('upload-outside.yaml', [inside, '/etc/hostname', path.join(dir, 'link.txt'), `${dir}/../${path.basename(dir)}/a.txt`]);
  let r = await runner([outside, '--upload-dir', dir]);
  assert.equal(r.code, 1, r.stdout + r.stderr);
  assert.match(r.stderr, new RegExp(`refused before the run: /etc/hostname, ${dir}/link\\.txt, ${dir}/\\.\\./${path.basename(dir)}/a\\.txt lie outside the upload folder ${dir}`));
  assert.doesNotMatch(r.stdout, /model:/, 'no run started');
  r = await runner([outside]);
  assert.equal(r.code, 1);
  assert.match(r.stderr, /the flow uploads .*\/etc\/hostname.*: give the folder they lie in with --upload-dir DIR/);

  // A path inside: uploaded; the page (read by the mock model's check) shows it.
  mock.script((body) => JSON.stringify(userMessage(body).text.includes('a.txt (hello)') ? { pass: true, reason: 'it is attached' } : { pass: false, reason: 'no file attached' }));
  r = await runner([await flowWith('upload-inside.yaml', [inside]), '--upload-dir', dir], mockModelEnv());
  assert.equal(r.code, 0, r.stdout + r.stderr);
  assert.match(r.stdout, /✓ \[1\/2\] aiUpload “a\.txt”/);
  assert.match(r.stdout, /passed: 2 of 2 steps/);
  await rm(dir, { recursive: true, force: true });
});

// A shared flow file serves only its own folder tree (it used to serve any folder it named).
test('a flow serving an absolute path, a `..` or a symlink out of its folder is refused by scripts/run before anything runs', async () => {
  const refused = async (name, serve, pattern) => {
    const file = await inSite(name);
    await writeFile(file, `web:\n  serve: ${serve}\n  url: /passwd\ntasks:\n  - name: look\n    flow:\n      - sleep: 10\n`);
    const r = await runner([file]);
    assert.equal(r.code, 1, `${serve}: ${r.stdout}${r.stderr}`);
    assert.match(r.stderr, pattern, serve);
    assert.doesNotMatch(r.stdout, /model:/, `${serve}: no run started`);
  };
  await refused('serve-etc.yaml', '/etc', /serve-etc\.yaml: `web: serve:` “\/etc” is an absolute path: a flow serves only its own folder and the folders in it/);
  await refused('serve-up.yaml', '../..', /serve-up\.yaml: `web: serve:` “\.\.\/\.\.” climbs out of the flow file's folder \(`\.\.`\)/);
  // Only the machine can tell where a link leads: the runner resolves it.
  await symlink('/etc', path.join(SITE, 'etc-link'));
  await refused('serve-link.yaml', 'etc-link', /refused before the run: web\.serve etc-link leads to \/etc \(symlinks resolved\), outside the flow file's folder/);
  await refused('serve-none.yaml', 'no-such-folder', /web\.serve no-such-folder: no such folder next to the flow file/);
});

test('the static server does not follow a symlink out of its root: 403, while files and links inside are served', async () => {
  const root = await mkdtemp(path.join(tmpdir(), 'sightline-served-'));
  const outside = await mkdtemp(path.join(tmpdir(), 'sightline-private-'));
  await writeFile(path.join(outside, 'id_rsa'), 'PRIVATE KEY');
  await writeFile(path.join(root, 'index.html'), '<h1>site</h1>');
  await mkdir(path.join(root, 'pages'));
  await writeFile(path.join(root, 'pages', 'a.html'), '<p>a</p>');
  await symlink(path.join(outside, 'id_rsa'), path.join(root, 'key.txt'));
  await symlink(outside, path.join(root, 'private'));
  await symlink('/etc', path.join(root, 'etc'));
  await symlink(path.join(root, 'pages', 'a.html'), path.join(root, 'alias.html'));
  const server = await startStaticServer({ root });
  try {
    const get = async (p) => {
      const r = await fetch(server.url(p));
      return [r.status, await r.text()];
    };
    assert.deepEqual(await get('/'), [200, '<h1>site</h1>']);
    assert.deepEqual(await get('/pages/a.html'), [200, '<p>a</p>']);
    assert.deepEqual(await get('/alias.html'), [200, '<p>a</p>'], 'a link that stays inside is served');
    for (const p of ['/key.txt', '/private/id_rsa', '/etc/hostname', '/etc/passwd']) {
      const [status, body] = await get(p);
      assert.equal(status, 403, p);
      assert.doesNotMatch(body, /PRIVATE KEY|root:/, p);
    }
    assert.equal((await get('/nothing.html'))[0], 404);
  } finally {
    await server.close();
    await rm(root, { recursive: true, force: true });
    await rm(outside, { recursive: true, force: true });
  }
});

// A script's secret is bound to the sites its _SITES variable names (it used to be typed on any site).
const signInWithSecret = (name) => flowFile(name, [
  '      - aiInput: the User name field\n        value: ada\n        xpath: //*[@id="login"]/input[1]\n',
  '      - aiInput: the Password field\n        value: <secret>pw</secret>\n        xpath: //*[@id="login"]/input[2]\n',
  '      - aiTap: the Sign in button\n        xpath: //button[normalize-space()="Sign in"]\n',
  '      - aiAssert: the page says "Signed in as ada" with the password typed\n',
].join(''), '/login.html');

test('scripts/run types an environment secret only on the sites SIGHTLINE_SECRET_<NAME>_SITES names; without them it is refused before the run', async () => {
  const PASSWORD = 'Env-Held-Password-77';
  const file = await signInWithSecret('env-secret.yaml');
  // Without its sites: refused before a browser starts, naming the variable to set.
  let r = await runner([file], { ...mockModelEnv(), SIGHTLINE_SECRET_PW: PASSWORD });
  assert.equal(r.code, 1, r.stdout + r.stderr);
  assert.match(r.stderr, /refused before the run: SIGHTLINE_SECRET_PW is bound to no site, so Sightline would type it nowhere: set SIGHTLINE_SECRET_PW_SITES to the sites it may be typed on/);
  assert.doesNotMatch(r.stdout, /model:/, 'no run started');
  assert.equal(mock.requests.length, 0);
  // Sites given for a secret nobody set (a misspelt name): said, not ignored.
  r = await runner([file], { SIGHTLINE_SECRET_PW: PASSWORD, SIGHTLINE_SECRET_PW_SITES: '127.0.0.1', SIGHTLINE_SECRET_PIN_SITES: 'bank.example' });
  assert.equal(r.code, 1);
  assert.match(r.stderr, /SIGHTLINE_SECRET_PIN_SITES gives the sites of SIGHTLINE_SECRET_PIN, which is not set/);

  // Another site: the guard refuses it, and the password is in no output.
  r = await runner([file], { ...mockModelEnv(), SIGHTLINE_SECRET_PW: PASSWORD, SIGHTLINE_SECRET_PW_SITES: 'bank.example, shop.example' });
  assert.equal(r.code, 1, r.stdout + r.stderr);
  assert.match(r.stdout, /✗ \[2\/4\] aiInput .*\n\s+the secret “pw” is only typed on bank\.example, shop\.example, not on http:\/\/127\.0\.0\.1:\d+/);
  assert.doesNotMatch(r.stdout + r.stderr, new RegExp(PASSWORD));

  // Its site: typed (the page shows the length), the assertion passes.
  mock.script((body) => JSON.stringify(userMessage(body).text.includes(`Signed in as ada (password of ${PASSWORD.length} characters)`)
    ? { pass: true, reason: 'signed in' } : { pass: false, reason: 'not signed in with it' }));
  r = await runner([file], { ...mockModelEnv(), SIGHTLINE_SECRET_PW: PASSWORD, SIGHTLINE_SECRET_PW_SITES: '127.0.0.1' });
  assert.equal(r.code, 0, r.stdout + r.stderr);
  assert.match(r.stdout, /passed: 4 of 4 steps/);
  assert.doesNotMatch(r.stdout + r.stderr, new RegExp(PASSWORD));
  r = await runner(['--help']);
  assert.match(r.stdout, /SIGHTLINE_SECRET_<NAME>_SITES/);
});

test('secretsFromEnv: each secret with the sites of its _SITES variable, which is never a secret of its own', async () => {
  const { secretsFromEnv } = await import('../../scripts/lib/playwright/lib/flow-runner.mjs');
  assert.deepEqual(secretsFromEnv({ SIGHTLINE_SECRET_SITE_PASSWORD: 'a', SIGHTLINE_SECRET_SITE_PASSWORD_SITES: 'example.com, 127.0.0.1:8080 shop.example', PATH: '/bin' }), [
    { name: 'site_password', value: 'a', sites: ['example.com', '127.0.0.1:8080', 'shop.example'], selector: '' },
  ]);
  assert.deepEqual(secretsFromEnv({ SIGHTLINE_SECRET_SITES: 'x', SIGHTLINE_SECRET_SITES_SITES: 'a.example' }).map((s) => [s.name, s.sites]), [['sites', ['a.example']]], 'a secret named "sites" keeps its name');
  assert.deepEqual(secretsFromEnv({}), []);
  assert.throws(() => secretsFromEnv({ SIGHTLINE_SECRET_A: '1', SIGHTLINE_SECRET_B: '2', SIGHTLINE_SECRET_B_SITES: ' , ' }),
    /SIGHTLINE_SECRET_A, SIGHTLINE_SECRET_B are bound to no site.*set SIGHTLINE_SECRET_A_SITES, SIGHTLINE_SECRET_B_SITES/);
});

const name = (n) => `$${'{'}${n}}`; // `${NAME}` as a flow file writes it

test('scripts/run fills ${NAME} from a .env beside the flow and the variables SIGHTLINE_FLOW_ENV lists; an unset or credential-like name is refused with its line', async () => { // eslint-disable-line no-template-curly-in-string
  const input = (value) => `      - aiInput: ${value}\n        locate: the todo box\n        xpath: ${INPUT_XPATH}\n      - aiKeyboardPress: Enter\n`;
  const file = await flowFile('vars.yaml', input(name('ITEM')) + input(name('SECOND')));
  const dotenv = path.join(path.dirname(file), '.env');
  await writeFile(dotenv, 'ITEM=buy milk\nSECOND=from the file\nAPI_TOKEN=t0k3n\n');
  try {
    // SECOND from the environment (listed) wins over the file's.
    const r = await runner([file], { SIGHTLINE_FLOW_ENV: 'SECOND', SECOND: 'walk the dog' });
    assert.equal(r.code, 0, r.stdout + r.stderr);
    assert.match(r.stdout, /aiInput “buy milk”/, r.stdout + r.stderr);
    assert.match(r.stdout, /aiInput “walk the dog”/, r.stdout + r.stderr);

    // Set in the environment but not listed: not read.
    const unset = await runner([await flowFile('unset.yaml', input(name('HOME')))]);
    assert.equal(unset.code, 1, unset.stdout + unset.stderr);
    assert.match(unset.stderr, /line 7: `\$\{HOME\}` is not set/);

    const refused = await runner([await flowFile('token.yaml', input(name('API_TOKEN')))]);
    assert.equal(refused.code, 1, refused.stdout + refused.stderr);
    assert.match(refused.stderr, /line 7: `\$\{API_TOKEN\}` looks like a credential/);
    assert.doesNotMatch(refused.stderr + refused.stdout, /t0k3n/);
  } finally {
    await rm(dotenv, { force: true });
  }
});
