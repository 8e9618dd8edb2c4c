// The npm package @sightline/playwright as a user gets it: packed (scripts/lib/package.mjs →
// `npm pack` with the built extension inside), installed in a fresh project outside the repo
// (`npm ci --offline` from a lock made of the repo's, so it needs no registry once the repo's own
// `npm ci` has filled npm's cache from the same one; else `npm install`), and a spec there that
// extends Playwright Test's `test` once with the fixtures, run with `npx playwright test` against
// a local page and this file's scripted model. The project's `use` settings (baseURL, a file's
// own baseURL, viewport, storageState) must hold in the fixture's browser; the bridge client is
// imported from the installed package (its MCP SDK with it).
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { DIST, ROOT, userMessage } from '../support/browser.mjs';
import { startMockModel } from '../support/mock-model.mjs';
import { startStaticServer } from '../support/static-server.mjs';
import { filesUnder, packageNpm } from '../../scripts/lib/package.mjs';
import { chromiumPath } from '../../scripts/lib/playwright/lib/chromium-path.mjs';

const work = mkdtempSync(path.join(tmpdir(), 'sightline-npm-'));
const project = path.join(work, 'project');
const PLAYWRIGHT_TEST = JSON.parse(readFileSync(path.join(ROOT, 'node_modules/@playwright/test/package.json'), 'utf8')).version;
let mock;
let site;
let tarball;

before(async () => {
  [mock, site] = await Promise.all([startMockModel(), startStaticServer()]);
  mock.setFallback(answer);
});
after(async () => {
  await Promise.all([mock?.close(), site?.close()]);
  rmSync(work, { recursive: true, force: true });
});

/** The element lines of the page description a request carries (`[n] …`). */
const elementLines = (text) => text.split('\n').filter((l) => /^\s*\[\d+\]/.test(l));

/** The model's part: the number of the todo box for a locate, the todo titles for the query. */
function answer(body) {
  const { text } = userMessage(body);
  if (/the titles of the todos shown/.test(text)) {
    const titles = elementLines(text).map((l) => l.match(/^\s*\[\d+\]\s+label\b[^\n]*?"([^"]+)"/)?.[1]).filter((t) => t && t !== 'Mark all as complete');
    return JSON.stringify({ thought: 'the labels of the list', data: titles });
  }
  const line = elementLines(text).find((l) => /What needs to be done\?/.test(l));
  return JSON.stringify(line ? { thought: 'the new-todo box', element: Number(line.match(/\[(\d+)\]/)[1]) } : { thought: 'not there', element: null, error: 'no todo box' });
}

/**
 * A command in a process group of its own: exit code and output. Past `boundMs` the group is
 * killed (TERM, then KILL) and the promise rejects, naming the command and what it printed.
 */
function run(command, args, { cwd, env = process.env, boundMs }) {
  return new Promise((resolve, reject) => {
    const started = Date.now();
    const child = spawn(command, args, { cwd, env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (d) => { out += d; });
    child.stderr.on('data', (d) => { out += d; });
    const kill = (signal) => { try { process.kill(-child.pid, signal); } catch { /* gone */ } };
    const timer = setTimeout(() => {
      kill('SIGTERM');
      setTimeout(() => kill('SIGKILL'), 5_000).unref();
      reject(new Error(`${command} ${args.join(' ')} took over ${boundMs / 1000} s:\n${out}`));
    }, boundMs);
    child.on('error', (e) => { clearTimeout(timer); reject(e); });
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, out, ms: Date.now() - started });
    });
  });
}

const figures = {};

/**
 * The project's lockfile, made from the repo's own: the tarball and @playwright/test at the root,
 * every package they need as the repo's tree has it (version and integrity), so `npm ci
 * --offline` takes each from npm's cache, which the repo's `npm ci` filled (an `npm install`
 * offline would also need the registry's package lists, which `npm ci` never fetches). Null when
 * the repo's lock lacks one of them (the install then asks the registry).
 */
function lockFromRepo(tarballFile, devDependencies) {
  const repo = JSON.parse(readFileSync(path.join(ROOT, 'package-lock.json'), 'utf8')).packages;
  const meta = JSON.parse(readFileSync(path.join(ROOT, 'scripts/lib/playwright/package.json'), 'utf8'));
  const integrity = `sha512-${createHash('sha512').update(readFileSync(tarballFile)).digest('base64')}`;
  const own = { version: meta.version, resolved: devDependencies['@sightline/playwright'], integrity, dev: true, license: meta.license,
    dependencies: meta.dependencies, peerDependencies: meta.peerDependencies, peerDependenciesMeta: meta.peerDependenciesMeta };
  const packages = { '': { name: 'a-user-project', devDependencies }, 'node_modules/@sightline/playwright': own };
  // Where npm finds `name` from the package at `from`: its own node_modules, then each one up.
  const find = (name, from) => {
    for (let base = from; ; base = base.includes('/node_modules/') ? base.slice(0, base.lastIndexOf('/node_modules/')) : '') {
      const key = `${base ? `${base}/` : ''}node_modules/${name}`;
      if (packages[key] || repo[key]) return key;
      if (!base) return null;
    }
  };
  const pending = ['node_modules/@sightline/playwright', 'node_modules/@playwright/test'];
  if (!repo['node_modules/@playwright/test']) return null;
  packages['node_modules/@playwright/test'] = repo['node_modules/@playwright/test'];
  while (pending.length) {
    const at = pending.pop();
    const entry = packages[at];
    const optional = new Set([...Object.keys(entry.optionalDependencies ?? {}), ...Object.entries(entry.peerDependenciesMeta ?? {}).filter(([, m]) => m.optional).map(([n]) => n)]);
    for (const name of Object.keys({ ...entry.dependencies, ...entry.optionalDependencies, ...entry.peerDependencies })) {
      const key = find(name, at);
      if (!key) {
        if (optional.has(name)) continue;
        return null;
      }
      if (packages[key]) continue;
      packages[key] = repo[key];
      pending.push(key);
    }
  }
  return { name: 'a-user-project', lockfileVersion: 3, requires: true, packages };
}

test('the default Chromium: CHROMIUM_PATH, else Playwright\'s own when it is there, else the system\'s', () => {
  const own = path.join(work, 'ms-playwright-chrome');
  writeFileSync(own, '');
  const playwright = (file) => ({ executablePath: () => file });
  const system = process.platform === 'darwin' ? '/Applications/Chromium.app/Contents/MacOS/Chromium' : '/usr/bin/chromium';
  assert.equal(chromiumPath({ env: {}, browserType: playwright(own) }), own);
  assert.equal(chromiumPath({ env: {}, browserType: playwright(path.join(work, 'not-downloaded')) }), system);
  assert.equal(chromiumPath({ env: {}, browserType: { executablePath: () => { throw new Error('no build for this platform'); } } }), system);
  assert.equal(chromiumPath({ env: { CHROMIUM_PATH: '/opt/chromium' }, browserType: playwright(own) }), '/opt/chromium');
});

test('npm pack: the package\'s files, its types and the built extension, nothing of the repo besides', { timeout: 150_000 }, () => {
  const started = Date.now();
  const { file, entries } = packageNpm({ out: path.join(work, 'out') });
  figures.packMs = Date.now() - started;
  tarball = file;
  assert.equal(path.basename(file), `sightline-playwright-${JSON.parse(readFileSync(path.join(ROOT, 'scripts/lib/playwright/package.json'), 'utf8')).version}.tgz`);
  for (const f of ['package.json', 'index.mjs', 'index.d.ts', 'fixtures.mjs', 'fixtures.d.ts', 'bridge.mjs', 'bridge.d.ts', 'calls.mjs', 'lib/browser.mjs', 'lib/core-node.mjs', 'lib/flow-runner.mjs', 'lib/static-server.mjs', 'lib/chromium-path.mjs', 'extension/manifest.json', 'extension/wasm/sightline_bg.wasm']) {
    assert.ok(entries.includes(`package/${f}`), `${f} is in the tarball: ${entries.join(' ')}`);
  }
  const extension = entries.filter((e) => e.startsWith('package/extension/')).map((e) => e.slice('package/extension/'.length)).sort();
  assert.deepEqual(extension, filesUnder(DIST), 'the extension inside is the built one, whole');
  assert.ok(!entries.some((e) => /(^|\/)(tests?|node_modules|scripts)\//.test(e)), entries.join(' '));
  const meta = JSON.parse(readFileSync(path.join(ROOT, 'scripts/lib/playwright/package.json'), 'utf8'));
  assert.equal(meta.private, undefined, 'publishable');
  assert.deepEqual(Object.keys(meta.exports).filter((k) => ['.', './fixtures', './bridge'].includes(k)), ['.', './fixtures', './bridge']);
  assert.match(meta.peerDependencies['@playwright/test'], /^>=1\.\d+ <2$/);
  assert.ok(meta.dependencies['playwright-core'] && meta.dependencies['@modelcontextprotocol/sdk']);
});

test('npm i of the tarball in a fresh project outside the repo; a spec with one extend passes there, with the project\'s baseURL, viewport and storageState', { timeout: 420_000 }, async () => {
  assert.ok(tarball, 'packed');
  assert.ok(!path.resolve(project).startsWith(ROOT + path.sep), 'outside the repo');
  const specDir = path.join(project, 'e2e');
  mkdirSync(specDir, { recursive: true });
  const devDependencies = { '@playwright/test': PLAYWRIGHT_TEST, '@sightline/playwright': `file:${path.relative(project, tarball)}` };
  writeFileSync(path.join(project, 'package.json'), JSON.stringify({ name: 'a-user-project', private: true, type: 'module', devDependencies }, null, 2));
  // The install: `npm ci` offline from the lock the repo's makes; else `npm install`, from npm's
  // cache where it can and the registry for the rest.
  const clean = Object.fromEntries(Object.entries(process.env).filter(([k]) => !/^(SIGHTLINE_|MIDSCENE_|OPENAI_|PLAYWRIGHT_|npm_package_|npm_lifecycle_)/.test(k)));
  const npm = (args) => run('npm', [...args, '--no-audit', '--no-fund', '--loglevel=error'], { cwd: project, env: clean, boundMs: 240_000 });
  const started = Date.now();
  const lock = lockFromRepo(tarball, devDependencies);
  let installed = { code: 1, out: 'the repo\'s lock lacks a package the tarball needs' };
  if (lock) {
    writeFileSync(path.join(project, 'package-lock.json'), JSON.stringify(lock, null, 2));
    installed = await npm(['ci', '--offline']);
  }
  figures.install = 'npm ci --offline';
  if (installed.code !== 0) {
    const why = installed.out.trim().split('\n').find((l) => /ENOTCACHED|error|lacks/.test(l)) ?? `exit ${installed.code}`;
    rmSync(path.join(project, 'package-lock.json'), { force: true });
    installed = await npm(['install', '--prefer-offline', '--fetch-retries=1', '--fetch-retry-mintimeout=2000', '--fetch-retry-maxtimeout=5000']);
    figures.install = `npm install --prefer-offline (offline: ${why})`;
  }
  figures.installMs = Date.now() - started;
  assert.equal(installed.code, 0, `${figures.install}\n${installed.out}`);
  const root = path.join(project, 'node_modules/@sightline/playwright');
  assert.ok(existsSync(path.join(root, 'extension/manifest.json')), 'the extension came with the package');
  assert.ok(existsSync(path.join(project, 'node_modules/@modelcontextprotocol/sdk/package.json')), 'the MCP SDK came as its dependency');

  const state = { cookies: [{ name: 'from-state', value: 'cookie', domain: '127.0.0.1', path: '/', expires: -1, httpOnly: false, secure: false, sameSite: 'Lax' }], origins: [{ origin: site.origin, localStorage: [{ name: 'from-state', value: 'local' }] }] };
  writeFileSync(path.join(project, 'state.json'), JSON.stringify(state));
  writeFileSync(path.join(project, 'playwright.config.mjs'), `import { defineConfig } from '@playwright/test';
export default defineConfig({
  testDir: './e2e',
  timeout: 90_000,
  workers: 1,
  use: { baseURL: ${JSON.stringify(site.origin)}, viewport: { width: 1000, height: 700 }, storageState: 'state.json' },
});
`);
  writeFileSync(path.join(specDir, 'todo.spec.mjs'), `import { test as base, expect } from '@playwright/test';
import { sightlineFixtures } from '@sightline/playwright/fixtures';
import { SightlineBridge } from '@sightline/playwright/bridge';

const test = base.extend(sightlineFixtures(base));

test('adds a todo through Sightline on the project\\'s baseURL', async ({ page, aiInput, aiKeyboardPress, aiQuery }) => {
  await page.goto('/todo.html');
  expect(page.url()).toBe(${JSON.stringify(site.url('/todo.html'))});
  expect(await page.evaluate(() => [innerWidth, innerHeight])).toEqual([1000, 700]);
  expect(await page.evaluate(() => [localStorage.getItem('from-state'), document.cookie])).toEqual(['local', 'from-state=cookie']);
  await aiInput('the "What needs to be done?" box', { value: 'buy milk' });
  await aiKeyboardPress('Enter');
  await expect(page.locator('.todo-list label')).toHaveText(['buy milk']);
  expect(await aiQuery('the titles of the todos shown, as a list of strings')).toEqual(['buy milk']);
});

test('a second test gets the storage state again, not what the first test left', async ({ page }) => {
  await page.goto('/todo.html');
  expect(await page.evaluate(() => localStorage.getItem('from-state'))).toBe('local');
  expect(await page.locator('.todo-list label').count()).toBe(0);
});

test.describe('a file of its own baseURL and device ratio', () => {
  test.use({ baseURL: ${JSON.stringify(site.url('/strict/'))}, deviceScaleFactor: 2 });
  test('gets them: the browser is launched again for settings that differ', async ({ page }) => {
    await page.goto('todo.html');
    expect(page.url()).toBe(${JSON.stringify(site.url('/strict/todo.html'))});
    expect(await page.evaluate(() => [innerWidth, innerHeight, devicePixelRatio])).toEqual([1000, 700, 2]);
  });
});

test('the bridge client comes with the package: no server, a readable error', async () => {
  const agent = new SightlineBridge({ port: 9, token: 't', timeoutMs: 10_000 });
  await expect(agent.connect()).rejects.toThrow(/sightline-mcp does not answer at http:\\/\\/127\\.0\\.0\\.1:9\\/mcp/);
});
`);
  const asked = mock.requests.length;
  const cli = path.join(project, 'node_modules/@playwright/test/cli.js');
  const env = { ...clean, SIGHTLINE_BASE_URL: mock.baseUrl, SIGHTLINE_MODEL: 'mock-model', SIGHTLINE_API_KEY: 'sk-npm', PLAYWRIGHT_JSON_OUTPUT_FILE: path.join(work, 'report.json') };
  const tested = await run(process.execPath, [cli, 'test', '--reporter=json,line'], { cwd: project, env, boundMs: 240_000 });
  figures.testMs = tested.ms;
  assert.equal(tested.code, 0, tested.out);
  const report = JSON.parse(readFileSync(path.join(work, 'report.json'), 'utf8'));
  const specs = report.suites.flatMap(function all(s) { return [...s.specs, ...(s.suites ?? []).flatMap(all)]; });
  assert.deepEqual(specs.map((s) => s.tests[0].results.at(-1).status), ['passed', 'passed', 'passed', 'passed'], tested.out);
  const steps = specs[0].tests[0].results.at(-1).steps.map((s) => s.title);
  assert.ok(steps.includes('aiInput "the \\"What needs to be done?\\" box"'), JSON.stringify(steps));
  assert.ok(mock.requests.length - asked >= 2, 'the calls went to the model from the environment');
  console.log(`# figures: ${JSON.stringify(figures)}`);
});
