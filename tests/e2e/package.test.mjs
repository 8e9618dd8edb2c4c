// The release zip (scripts/package → scripts/lib/package.mjs): made from the built dist/, read
// back by another zip reader (Python's zipfile), loaded from where it was unpacked in Chromium, and
// the demo flow run on it; and the store checker refusing what the Chrome Web Store would refuse.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { DIST, ROOT, launchWithExtension } from '../support/browser.mjs';
import { filesUnder, packageExtension, storeProblems } from '../../scripts/lib/package.mjs';
import { openFlow, runFlowIn } from '../../scripts/lib/playwright/lib/flow-runner.mjs';

const work = mkdtempSync(path.join(tmpdir(), 'sightline-package-'));
after(() => rmSync(work, { recursive: true, force: true }));
const DECISIONS = readFileSync(path.join(ROOT, 'docs/DECISIONS.md'), 'utf8');
const manifest = JSON.parse(readFileSync(path.join(DIST, 'manifest.json'), 'utf8'));

/** A copy of the built extension, changed by `change(dir)`, and what the store checker says of it. */
function problemsAfter(change, decisions = DECISIONS) {
  const dir = mkdtempSync(path.join(work, 'changed-'));
  cpSync(DIST, dir, { recursive: true });
  change(dir);
  return storeProblems(dir, decisions);
}
const editManifest = (dir, edit) => {
  const file = path.join(dir, 'manifest.json');
  writeFileSync(file, JSON.stringify(edit(JSON.parse(readFileSync(file, 'utf8')))));
};

let unpacked;

test('the zip holds the built extension, manifest at its root, and nothing for developers', () => {
  const { file, entries } = packageExtension({ out: path.join(work, 'out') });
  assert.equal(path.basename(file), `sightline-${manifest.version}.zip`);
  unpacked = path.join(work, 'unpacked');
  // Another implementation reads it: CRCs tested, then extracted.
  execFileSync('python3', ['-m', 'zipfile', '-t', file]);
  execFileSync('python3', ['-m', 'zipfile', '-e', file, unpacked]);
  assert.deepEqual(filesUnder(unpacked), filesUnder(DIST), 'every file of dist/, no more');
  assert.deepEqual(entries, filesUnder(DIST));
  assert.ok(entries.includes('manifest.json') && entries.includes('wasm/sightline_bg.wasm'), entries.join(' '));
  for (const name of entries) {
    assert.doesNotMatch(name, /(^|\/)\.|\.map$|\.md$|\.rs$|(^|\/)tests?\//, `${name} is a developer's file`);
    assert.deepEqual(readFileSync(path.join(unpacked, name)), readFileSync(path.join(DIST, name)), name);
  }
  assert.deepEqual(storeProblems(unpacked, DECISIONS), [], 'what was zipped passes the store checks');
});

test('the store checker refuses what the Chrome Web Store refuses', () => {
  assert.deepEqual(problemsAfter(() => {}), []);
  const withoutAlarms = DECISIONS.replace(/^\| `alarms` \|.*\n/m, '');
  assert.notEqual(withoutAlarms, DECISIONS, 'the table has an alarms row');
  assert.deepEqual(problemsAfter(() => {}, withoutAlarms), ["permission alarms is not justified in docs/DECISIONS.md's permissions table"]);
  assert.deepEqual(problemsAfter((d) => editManifest(d, (m) => ({ ...m, permissions: [...m.permissions, 'cookies'] }))),
    ["permission cookies is not justified in docs/DECISIONS.md's permissions table"]);
  assert.deepEqual(problemsAfter((d) => editManifest(d, (m) => ({ ...m, permissions: m.permissions.filter((p) => p !== 'tabs') }))),
    ['docs/DECISIONS.md justifies tabs, which the manifest does not ask for']);
  // An icon of the wrong size: the 16 px file where the 48 px one should be.
  assert.deepEqual(problemsAfter((d) => cpSync(path.join(d, 'icons/icon-16.png'), path.join(d, 'icons/icon-48.png'))),
    ['icons.48: icons/icon-48.png is 16×16', 'action.default_icon.48: icons/icon-48.png is 16×16']);
  assert.deepEqual(problemsAfter((d) => editManifest(d, (m) => {
    const { 128: _gone, ...icons } = m.icons;
    return { ...m, icons };
  })), ['icons has no 128 px icon (the store needs one)']);
  assert.deepEqual(problemsAfter((d) => editManifest(d, (m) => ({ ...m, content_security_policy: { extension_pages: "script-src 'self' https://cdn.example; object-src 'self'" } }))),
    ["the CSP's script-src allows https://cdn.example: remote code"]);
  assert.deepEqual(problemsAfter((d) => {
    const html = path.join(d, 'panel/panel.html');
    writeFileSync(html, readFileSync(html, 'utf8').replace('</head>', '<script src="https://cdn.example/x.js"></script></head>'));
  }), ['panel/panel.html loads a script from https://cdn.example/x.js: remote code']);
  assert.deepEqual(problemsAfter((d) => {
    const file = path.join(d, '_locales/zh_CN/messages.json');
    const { extDescription: _gone, ...messages } = JSON.parse(readFileSync(file, 'utf8'));
    writeFileSync(file, JSON.stringify(messages));
  }), ['description: message extDescription is missing from _locales/zh_CN']);
  assert.deepEqual(problemsAfter((d) => {
    const file = path.join(d, '_locales/en/messages.json');
    const messages = JSON.parse(readFileSync(file, 'utf8'));
    writeFileSync(file, JSON.stringify({ ...messages, extName: { message: 'S'.repeat(76) } }));
  }), ["name in en is 76 characters, over the store's 75"]);
  assert.deepEqual(problemsAfter((d) => editManifest(d, (m) => ({ ...m, version: '1.2.3.4.5', key: 'MIIB' }))), [
    'version "1.2.3.4.5" is not 1 to 4 dot-separated whole numbers up to 65535',
    'manifest.json has "key", which the store refuses',
  ]);
  assert.deepEqual(problemsAfter((d) => {
    writeFileSync(path.join(d, 'wasm/sightline.js.map'), '{}');
    rmSync(path.join(d, 'background/service-worker.js'));
  }), ['the manifest names background/service-worker.js, which is missing', "wasm/sightline.js.map is a developer's file, not the extension's"]);
});

test('the unpacked zip loads in Chromium: the worker starts, the panel opens and the demo flow passes', { timeout: 180_000 }, async () => {
  assert.ok(unpacked, 'the zip was made and unpacked');
  const browser = await launchWithExtension({ extensionDir: unpacked });
  const opened = await openFlow(path.join(ROOT, 'tests/fixtures/todo.flow.yaml'));
  try {
    const version = await browser.sw.evaluate(() => chrome.runtime.getManifest().version);
    assert.equal(version, manifest.version);
    const page = await browser.context.newPage();
    await page.goto(opened.url);
    const panel = await browser.openPanel(await browser.tabIdOf(page));
    await panel.waitForFunction(() => document.getElementById('target-title').textContent.trim().length > 0);
    const { run } = await runFlowIn(browser, { ...opened, page, log: () => {} });
    assert.equal(run.status, 'succeeded', JSON.stringify(run.error ?? run.flow?.items?.map((i) => [i.title, i.status])));
    assert.ok(run.flow.items.length >= 3, `${run.flow.items.length} flow items`);
    await panel.waitForSelector('#run-status.succeeded', { timeout: 30_000 });
  } finally {
    await browser.close();
    await opened.close();
  }
});

test('the store listings give the name and short description the locale files give', () => {
  for (const locale of ['en', 'zh_CN']) {
    const listing = readFileSync(path.join(ROOT, `docs/store/listing.${locale}.md`), 'utf8');
    const messages = JSON.parse(readFileSync(path.join(DIST, `_locales/${locale}/messages.json`), 'utf8'));
    const field = (label) => listing.match(new RegExp(`^\\*\\*${label}[:：]\\*\\* ?(.+)$`, 'm'))?.[1].trim();
    const [name, description] = locale === 'en' ? ['Name', 'Short description'] : ['名称', '简短说明'];
    assert.equal(field(name), messages.extName.message, `${locale} name`);
    assert.equal(field(description), messages.extDescription.message, `${locale} short description`);
    for (const permission of [...manifest.permissions, ...manifest.host_permissions.map(() => 'scripting')]) {
      assert.ok(listing.includes(`\`${permission}\``), `${locale} justifies ${permission}`);
    }
  }
});
