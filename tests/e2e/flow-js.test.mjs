// A flow's javascript steps (Midscene's `javascript:`): scripts/run runs them in the page (the
// person's own file on their own machine) and writes the named results to the flow's
// `output:`; the panel shows the code and runs it only after Allow, remembered by the file's
// hash (a changed file asks again); a caller the person did not allow is refused.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { cp, mkdir, mkdtemp, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { ROOT } from '../support/browser.mjs';
import { modelSuite, until } from '../support/suite.mjs';

let browser, mock, site;
modelSuite((env) => ({ browser, mock, site } = env), {
  model: (m) => ({ baseUrl: m.baseUrl, model: 'mock-model', apiKey: 'sk-flow-js', family: 'generic' }),
});

const WORK = path.join(ROOT, 'out', 'flow-js-check');

/** scripts/run without its setup and build (the suite has built dist/): exit code and output. */
async function runner(args) {
  const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('SIGHTLINE_') && !k.startsWith('MIDSCENE_') && !k.startsWith('OPENAI_')));
  try {
    const { stdout, stderr } = await promisify(execFile)(process.execPath, [path.join(ROOT, 'scripts/lib/run.mjs'), ...args], { cwd: ROOT, env, timeout: 90_000 });
    return { code: 0, stdout, stderr };
  } catch (e) {
    if (e.code == null || typeof e.code === 'string') throw e;
    return { code: e.code, stdout: e.stdout, stderr: e.stderr };
  }
}

/** A copy of the fixtures (a flow serves only its own folder) with the flow file `name` in it. */
async function flowInSite(name, text) {
  const site = path.join(WORK, 'site');
  await rm(site, { recursive: true, force: true });
  await cp(path.join(ROOT, 'tests', 'fixtures'), site, { recursive: true });
  const file = path.join(site, name);
  await writeFile(file, text);
  return { site, file };
}

const SCRIPTS = `      - javascript: document.title
        name: title
      - javascript: localStorage.setItem('sightline-js', 'set by the flow')
      - javascript: |
          const stored = localStorage.getItem('sightline-js');
          return { stored, items: document.querySelectorAll('.todo-list li').length };
        name: stored
      - javascript: await new Promise((resolve) => setTimeout(() => resolve(6 * 7), 50))
        name: answer
`;

test('scripts/run runs javascript steps in the page and writes their named results to the flow\'s output JSON', async () => {
  const { site, file } = await flowInSite('js.yaml', `web:
  serve: .
  url: /todo.html
  output: out/results.json
agent:
  testId: js-1
  reportFileName: js-report
tasks:
  - name: read and store
    flow:
${SCRIPTS}`);
  const reports = path.join(WORK, 'reports');
  const { code, stdout, stderr } = await runner([file, '--report', reports]);
  assert.equal(code, 0, stdout + stderr);
  assert.match(stdout, /✓ \[1\/4\] javascript “document\.title” .*\n\s+→ "Sightline test · todos"/);
  assert.match(stdout, /passed: 4 of 4 steps/);
  const results = JSON.parse(await readFile(path.join(site, 'out', 'results.json'), 'utf8'));
  assert.deepEqual(results, { title: 'Sightline test · todos', stored: { stored: 'set by the flow', items: 0 }, answer: 42 });
  assert.match(stdout, new RegExp(`output: ${path.join(site, 'out', 'results.json').replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`));
  // The report takes the flow's name for it, and says its test id.
  const html = await readFile(path.join(reports, 'js-report.html'), 'utf8');
  assert.match(html, /test: js-1/);

  // A script that throws fails its step with the page's words; the output is still written.
  const failing = await flowInSite('js-fails.yaml', 'web:\n  serve: .\n  url: /todo.html\n  output: failed.json\ntasks:\n  - name: t\n    flow:\n      - javascript: nope()\n      - sleep: 1\n');
  const failed = await runner([failing.file]);
  assert.equal(failed.code, 1, failed.stdout);
  assert.match(failed.stdout, /✗ \[1\/2\] javascript “nope\(\)”.*\n\s+the javascript step failed in the page: ReferenceError: nope is not defined/);
  assert.doesNotMatch(failed.stdout, /\[2\/2\]/, 'nothing ran after it');
  assert.deepEqual(JSON.parse(await readFile(path.join(failing.site, 'failed.json'), 'utf8')), {});

  // An output folder that is a symlink out of the flow's folder is refused, and nothing is written there.
  const outside = await mkdtemp(path.join(tmpdir(), 'sightline-out-'));
  const linked = await flowInSite('js-link.yaml', `web:\n  serve: .\n  url: /todo.html\n  output: link/r.json\ntasks:\n  - name: t\n    flow:\n      - javascript: 1 + 1\n        name: two\n`);
  await symlink(outside, path.join(linked.site, 'link'));
  const refused = await runner([linked.file]);
  assert.equal(refused.code, 1, refused.stdout);
  assert.match(refused.stderr, /refused: output link\/r\.json leads to .*outside the flow file's folder/);
  await assert.rejects(readFile(path.join(outside, 'r.json')), /ENOENT/);
  await rm(outside, { recursive: true, force: true });
});

/** The panel on `tabId`, once it has found its tab (the flow button is enabled then). */
async function panelReady(tabId) {
  const panel = await browser.openPanel(tabId);
  await panel.waitForSelector('#run-flow:not([disabled])', { timeout: 15_000 });
  return panel;
}

test('the panel shows a flow\'s javascript as text and runs it only after Allow; Cancel runs nothing; a changed file asks again', async () => {
  const page = await browser.context.newPage();
  await page.goto(site.url('/todo.html?flow-js'));
  const tabId = await browser.tabIdOf(page);
  const panel = await panelReady(tabId);
  const yaml = `web:\n  url: ${page.url()}\n  output: results.json\ntasks:\n  - name: read and store\n    flow:\n${SCRIPTS}      - javascript: "'<img src=x onerror=alert(1)>'"\n`;
  const runs = () => browser.sw.evaluate(() => self.sightline.runs().then((all) => all.length));
  const stored = () => page.evaluate(() => localStorage.getItem('sightline-js'));
  const load = (text) => panel.setInputFiles('#run-flow-file', { name: 'js.yaml', mimeType: 'text/yaml', buffer: Buffer.from(text) });
  const before = await runs();

  // Asked: every script shown as text, none run yet.
  await load(yaml);
  await panel.waitForSelector('#script-consent:not([hidden])', { timeout: 15_000 });
  assert.equal(await panel.textContent('#script-consent-title'), 'js.yaml runs code in the page');
  assert.match(await panel.textContent('#script-consent-warning'), /runs 5 javascript step\(s\) in the page/);
  const codes = await panel.locator('#script-consent-list .script-code').allTextContents();
  assert.equal(codes.length, 5);
  assert.equal(codes[0], 'document.title');
  assert.equal(codes[4], "'<img src=x onerror=alert(1)>'", 'markup in the code is shown as text');
  assert.equal(await panel.locator('#script-consent-list img').count(), 0, 'and never becomes markup');
  assert.match(await panel.textContent('#script-consent-list li:first-child'), /Task “read and store”, step 1.*its value is kept as “title”/s);
  await panel.screenshot({ path: 'out/e2e-flow-js-consent.png', fullPage: true });

  // Cancel: nothing runs, nothing is remembered.
  await panel.click('#script-consent-cancel');
  assert.ok(await panel.isHidden('#script-consent'));
  await new Promise((r) => setTimeout(r, 500));
  assert.equal(await runs(), before, 'Cancel started no run');
  assert.equal(await stored(), null, 'no script ran');
  await load(yaml);
  await panel.waitForSelector('#script-consent:not([hidden])', { timeout: 15_000 });

  // Allow: the flow runs, its scripts in the page; its named results are offered as a download.
  await panel.click('#script-consent-allow');
  await panel.waitForSelector('#run-status.succeeded', { timeout: 30_000 });
  assert.equal(await stored(), 'set by the flow');
  const run = (await browser.sw.evaluate(() => self.sightline.runs()))[0];
  assert.deepEqual(run.result, { title: 'Sightline test · todos', stored: { stored: 'set by the flow', items: 0 }, answer: 42 });
  assert.equal(await panel.textContent('#download-output:not([hidden])'), 'Download results.json');
  const [download] = await Promise.all([panel.waitForEvent('download', { timeout: 10_000 }), panel.click('#download-output')]);
  assert.equal(download.suggestedFilename(), 'results.json');
  assert.deepEqual(JSON.parse(await readFile(await download.path(), 'utf8')), run.result);
  assert.equal(mock.requests.length, 0, 'no model call');

  // Replayed, the flow the person allowed runs its scripts again; a saved copy of it whose code
  // was edited (its hash kept) runs none of them.
  await page.evaluate(() => localStorage.removeItem('sightline-js'));
  const replayed = await browser.sw.evaluate(({ tabId, id }) => self.sightline.replay(tabId, id), { tabId, id: run.id });
  assert.equal(replayed.status, 'succeeded', JSON.stringify(replayed.error));
  assert.equal(await stored(), 'set by the flow');
  await page.evaluate(() => localStorage.removeItem('sightline-js'));
  const saved = await browser.sw.evaluate((id) => self.sightline.saveTrajectory(id), run.id);
  const edited = saved.replaceAll("localStorage.setItem('sightline-js', 'set by the flow')", "localStorage.setItem('sightline-js', 'edited')");
  assert.notEqual(edited, saved);
  const forged = await browser.sw.evaluate(({ tabId, json }) => self.sightline.replay(tabId, json), { tabId, json: edited });
  assert.equal(forged.error?.code, 'script_not_allowed');
  assert.equal(await stored(), null, 'the edited code did not run');

  // The same file again: remembered, it runs without asking.
  await page.evaluate(() => localStorage.removeItem('sightline-js'));
  const allowedRuns = await runs();
  await load(yaml);
  await until('the allowed flow to run again', async () => (await runs()) > allowedRuns && (await browser.sw.evaluate(() => self.sightline.runs()))[0].status === 'succeeded');
  assert.ok(await panel.isHidden('#script-consent'), 'not asked again');
  assert.equal(await stored(), 'set by the flow');

  // One character changed: asked again; a caller that was not allowed this file is refused.
  const changed = yaml.replace("'set by the flow'", "'set by the changed flow'");
  await load(changed);
  await panel.waitForSelector('#script-consent:not([hidden])', { timeout: 15_000 });
  await panel.click('#script-consent-cancel');
  await page.evaluate(() => localStorage.removeItem('sightline-js'));
  const refused = await browser.sw.evaluate(({ tabId, y }) => self.sightline.runFlow(tabId, y), { tabId, y: changed });
  assert.equal(refused.status, 'failed');
  assert.equal(refused.error.code, 'script_not_allowed');
  assert.match(refused.error.message, /run only once you allow them/);
  assert.equal(await stored(), null, 'no script of the changed file ran');
  // The file the person allowed runs for such a caller too.
  const allowed = await browser.sw.evaluate(({ tabId, y }) => self.sightline.runFlow(tabId, y), { tabId, y: yaml });
  assert.equal(allowed.status, 'succeeded', JSON.stringify(allowed.error));
  await Promise.all([panel.close(), page.close()]);
});

test('a caller the person did not allow a file for runs none of its scripts: the step fails script_not_allowed', async () => {
  // (Agents have no call that runs a flow: crate/core's agent calls are checked for that by cargo test.)
  const page = await browser.context.newPage();
  await page.goto(site.url('/todo.html?flow-js-agent'));
  const tabId = await browser.tabIdOf(page);
  const yaml = `web:\n  url: ${page.url()}\ntasks:\n  - name: t\n    flow:\n      - javascript: localStorage.setItem('agent', 'ran')\n`;
  const run = await browser.sw.evaluate(({ tabId, y }) => self.sightline.runFlow(tabId, y), { tabId, y: yaml });
  assert.equal(run.error?.code, 'script_not_allowed');
  assert.equal(await page.evaluate(() => localStorage.getItem('agent')), null);
  await page.close();
});

await mkdir(WORK, { recursive: true });
