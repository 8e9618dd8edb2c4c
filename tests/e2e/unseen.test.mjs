// A page cannot tell that Sightline is installed by fetching its files: nothing is
// web-accessible. The content script still reads pages with the core (the worker hands it the
// module), strict-CSP pages still go through CDP, and the recorder still names elements.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { cp, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { DIST, launchWithExtension } from '../support/browser.mjs';
import { pageSuite } from '../support/suite.mjs';

let browser, site;
pageSuite((env) => ({ browser, site } = env));

async function filesUnder(dir, prefix = '') {
  const out = [];
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const rel = `${prefix}${entry.name}`;
    if (entry.isDirectory()) out.push(...(await filesUnder(path.join(dir, entry.name), `${rel}/`)));
    else out.push(rel);
  }
  return out;
}

async function open(pathname) {
  const page = await browser.context.newPage();
  await page.goto(site.url(pathname));
  return { page, tabId: await browser.tabIdOf(page) };
}

test('no page can fetch any file of the extension, while it reads that page', async () => {
  const manifest = JSON.parse(await readFile(path.join(DIST, 'manifest.json'), 'utf8'));
  assert.equal(manifest.web_accessible_resources, undefined, 'nothing is web-accessible');
  const files = await filesUnder(DIST);
  assert.ok(files.includes('wasm/sightline_bg.wasm') && files.includes('content/content.js') && files.length > 15, files.join(' '));
  const { page, tabId } = await open('/todo.html?case=unseen');
  // Read first, so the content script and the core are in the page while it probes.
  const read = await browser.sw.evaluate((id) => self.sightline.extract(id), tabId);
  assert.equal(read.source, 'content-script');
  const answers = await page.evaluate(async ([id, paths]) => Promise.all(paths.map(async (p) => {
    const url = `chrome-extension://${id}/${p}`;
    const fetched = await fetch(url).then((r) => `HTTP ${r.status}`, () => 'refused');
    const imported = await import(url).then(() => 'imported', () => 'refused');
    return `${p}: ${fetched}, ${imported}`;
  })), [browser.extensionId, files]);
  assert.deepEqual(answers.filter((a) => !a.endsWith(': refused, refused')), [], 'every file refused to the page');
  await page.close();
});

test('pages are still read by the content script, strict-CSP pages through CDP', async () => {
  for (const name of ['todo', 'form', 'dense', 'visibility']) {
    const { page, tabId } = await open(`/${name}.html?case=unseen`);
    const read = await browser.sw.evaluate((id) => self.sightline.extract(id), tabId);
    assert.equal(read.source, 'content-script', name);
    assert.ok(read.elements.length > 0, name);
    await page.close();
  }
  const { page, tabId } = await open('/strict/todo.html?case=unseen');
  const strict = await browser.sw.evaluate((id) => self.sightline.extract(id), tabId);
  assert.equal(strict.source, 'cdp', 'the page\'s CSP refuses WebAssembly: read through the debugger');
  assert.ok(strict.elements.some((e) => e.attributes.some(([k, v]) => k === 'placeholder' && /What needs/.test(v))));
  await page.close();
});

test('the recorder still names elements with the core in the page', async () => {
  const { page, tabId } = await open('/form.html?case=unseen-record');
  await browser.sw.evaluate((id) => self.sightline.startRecording(id), tabId);
  const [{ result: memory }] = await browser.sw.evaluate((id) => chrome.scripting.executeScript({
    target: { tabId: id }, func: () => globalThis.__sightline.memory(),
  }), tabId);
  assert.ok(memory.wasmBytes > 0, 'the core runs in the page');
  await page.click('#user');
  await page.keyboard.type('Ada');
  await page.waitForTimeout(900); // typing is recorded after a pause
  const run = await browser.sw.evaluate((id) => self.sightline.stopRecording(id), tabId);
  assert.deepEqual(run.steps.map((s) => s.action), ['Tap input "user"', 'Input “Ada” into input "user"']);
  assert.ok(run.steps.every((s) => s.target?.xpath), 'each step carries its element');
  await page.close();
});

test('a second reader injected while the first compiles: the content script reads with its own', async () => {
  const { page, tabId } = await open('/todo.html?case=unseen-twice');
  // Two callers that find the page without Sightline at once each inject both files (a recorded
  // tab's recorder coming back after a navigation, and the step's photo): the second reader.js
  // replaces the global while the first content script compiles its reader. Here the second is a
  // stand-in that fails on any use, put in place just after the read has started compiling.
  await browser.sw.evaluate((id) => chrome.scripting.executeScript({
    target: { tabId: id }, files: ['wasm/reader.js', 'content/content.js'],
  }), tabId);
  const [{ result }] = await browser.sw.evaluate((id) => chrome.scripting.executeScript({
    target: { tabId: id },
    func: async () => {
      const reading = globalThis.__sightline.extract({});
      globalThis.sightlineReader = new Proxy({}, { get: () => { throw new Error('the second injection\'s reader, not compiled'); } });
      const reply = await reading;
      return reply.error ?? { description: JSON.parse(reply.json).description };
    },
  }), tabId);
  assert.match(result.description ?? '', /What needs/, JSON.stringify(result));
  await page.close();
});

test('two reads that find a fresh page without Sightline at once inject the reader once', async () => {
  const { page, tabId } = await open('/todo.html?case=unseen-once');
  // Counts each evaluation of reader.js in the isolated world: its `var sightlineReader = …`
  // assigns through this accessor.
  await browser.sw.evaluate((id) => chrome.scripting.executeScript({
    target: { tabId: id },
    func: () => {
      let reader;
      globalThis.readerEvaluations = 0;
      Object.defineProperty(globalThis, 'sightlineReader', {
        configurable: true,
        get: () => reader,
        set: (value) => { globalThis.readerEvaluations += 1; reader = value; },
      });
    },
  }), tabId);
  const readings = await browser.sw.evaluate((id) => Promise.all([
    self.sightline.extract(id), self.sightline.extract(id),
  ]).then((both) => both.map((r) => r.description)), tabId);
  for (const description of readings) assert.match(description ?? '', /What needs/);
  const [{ result: evaluations }] = await browser.sw.evaluate((id) => chrome.scripting.executeScript({
    target: { tabId: id }, func: () => globalThis.readerEvaluations,
  }), tabId);
  assert.equal(evaluations, 1);
  await page.close();
});

// After an update, or a rebuild reloaded unpacked (the version unchanged), a tab keeps the last
// build's script: stand-ins for both, stamped as content.js stamps itself; one from before
// `retire` (it can only be asked to stop recording), one with it.
const staleScripts = [
  ['another version (an update)', () => '0.0.1', false],
  ['another build of the same version (a rebuild)', (m) => `${m.version} (build 000000000000)`, true],
];
for (const [i, [what, stamp, retires]] of staleScripts.entries()) {
  test(`a content script of ${what} left in the tab is replaced, not asked`, async () => {
    const { page, tabId } = await open(`/todo.html?case=unseen-stale-${i}`);
    const manifest = await browser.sw.evaluate(() => chrome.runtime.getManifest());
    assert.match(manifest.version_name ?? '', /\(build [0-9a-f]{12}\)$/, 'scripts/build stamps the build');
    await browser.sw.evaluate(([id, stale, retires]) => chrome.scripting.executeScript({
      target: { tabId: id },
      func: (v, retires) => {
        globalThis.__sightline = {
          version: v,
          extract: () => ({ error: { code: 'stale', message: 'the last build answered' } }),
          record: ({ on }) => { globalThis.staleRecording = on; },
        };
        if (retires) globalThis.__sightline.retire = () => { globalThis.staleRetired = true; };
      },
      args: [stale, retires],
    }), [tabId, stamp(manifest), retires]);
    const reading = await browser.sw.evaluate((id) => self.sightline.extract(id).then((r) => r.description, (e) => `failed: ${e.message}`), tabId);
    assert.match(reading ?? '', /What needs/);
    const [{ result: state }] = await browser.sw.evaluate((id) => chrome.scripting.executeScript({
      target: { tabId: id },
      func: () => ({ version: globalThis.__sightline.version, staleRecording: globalThis.staleRecording ?? null, staleRetired: globalThis.staleRetired ?? null }),
    }), tabId);
    assert.deepEqual(state, { version: manifest.version_name, staleRecording: retires ? null : false, staleRetired: retires ? true : null });
    await page.close();
  });
}

test('a retired reader lets go of the page: its kept reading is answered no more', async () => {
  const { page, tabId } = await open('/todo.html?case=unseen-retire');
  const reused = () => browser.sw.evaluate((id) => self.sightline.extract(id).then((r) => !!r.reused), tabId);
  assert.equal(await reused(), false);
  assert.equal(await reused(), true, 'the page unchanged, the kept reading answers');
  await browser.sw.evaluate((id) => chrome.scripting.executeScript({ target: { tabId: id }, func: () => globalThis.__sightline.retire() }), tabId);
  assert.equal(await reused(), false, 'retired: walked again');
  await page.close();
});

test('a module that does not load is named in the panel with what to do, and loads on the next try', async () => {
  // A copy of the extension whose codec module is not WebAssembly (a broken or half-copied build).
  const dir = await mkdtemp(path.join(tmpdir(), 'sightline-broken-'));
  await cp(DIST, dir, { recursive: true });
  const codec = path.join(dir, 'wasm/codec_bg.wasm');
  const good = await readFile(codec);
  await writeFile(codec, 'not a module');
  const other = await launchWithExtension({ extensionDir: dir, awaitReady: false });
  try {
    const panel = await other.openPanel();
    await panel.waitForFunction(() => /could not load the image codec module/.test(document.getElementById('notice').textContent));
    assert.match(await panel.textContent('#notice'), /reload Sightline on chrome:\/\/extensions/);
    // Mended on disk: the same worker's next call loads both modules.
    await writeFile(codec, good);
    await panel.reload();
    await panel.waitForFunction(() => document.getElementById('task-type').options.length > 10);
    assert.doesNotMatch(await panel.textContent('#notice'), /could not load/);
  } finally {
    await other.close();
    await rm(dir, { recursive: true, force: true });
  }
});
