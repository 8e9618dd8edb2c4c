// scripts/suite: a folder or glob of YAML flows run on Playwright Test's own runner, one test per
// flow (scripts/lib/playwright: suite.config.mjs + flows.spec.mjs), a Chromium with the
// extension per worker. Writes JUnit XML and one HTML report, or with --shard a blob report for
// `scripts/suite merge`. Exit code: Playwright's (0 when every flow passed).
import { spawn } from 'node:child_process';
import { copyFile, mkdir, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import path from 'node:path';
import { ROOT } from './root.mjs';

const USAGE = `usage: scripts/suite FOLDER|GLOB|FLOW.yaml… [options]
       scripts/suite merge DIR… [--out DIR]
Runs every YAML flow (*.yaml, *.yml) in the folders, matching the globs ("flows/**/*.yaml";
quote them) or named, each as one Playwright test on its own page; a Chromium with the
extension per worker.
  --workers N       parallel workers, each with its own browser (default 1)
  --retries N       run a failed flow again up to N times (default 0)
  --shard I/N       run the I-th of N parts (1-based) and write a blob report to merge later
  --reporter R      what the terminal shows: list (default), line, dot, github, …
  --out DIR         where reports go (default ./sightline-suite, or ./sightline-suite/shard-I-of-N):
                    junit.xml, html/index.html (unsharded), blob/report-I.zip (sharded),
                    test-results/
  --timeout S       one flow's time limit in seconds (default 300)
  --headed          show the browsers
  --live            find every element by its description (the model), not the files' XPaths
  --upload-dir DIR  the folder the flows' uploads may come from
  --dialogs ANSWER  answer the pages' dialogs with accept or dismiss
merge: joins the blob reports found in the DIRs (shards' --out folders, or folders of
report-*.zip) into one HTML report and one junit.xml in --out (default ./sightline-suite/merged).
Model (for steps the XPaths and the cache cannot answer): SIGHTLINE_BASE_URL, SIGHTLINE_MODEL,
SIGHTLINE_API_KEY, SIGHTLINE_FAMILY, SIGHTLINE_PROVIDER; or Midscene's MIDSCENE_MODEL_BASE_URL,
MIDSCENE_MODEL_API_KEY, MIDSCENE_MODEL_NAME, MIDSCENE_MODEL_FAMILY (OPENAI_API_KEY,
OPENAI_BASE_URL). Planning model (optional: it plans, the model above finds what it describes):
SIGHTLINE_PLANNER_BASE_URL, SIGHTLINE_PLANNER_MODEL, SIGHTLINE_PLANNER_API_KEY,
SIGHTLINE_PLANNER_FAMILY, SIGHTLINE_PLANNER_PROVIDER; or MIDSCENE_PLANNING_MODEL_BASE_URL,
_API_KEY, _NAME, _FAMILY. Secrets: SIGHTLINE_SECRET_<NAME>=value, typed where a flow says
<secret>name</secret>, only on the sites SIGHTLINE_SECRET_<NAME>_SITES names (comma-separated;
required). Chromium: CHROMIUM_PATH (default Debian's /usr/bin/chromium, on macOS Homebrew's Chromium.app; branded Chrome ignores
extensions loaded this way).`;

const PACKAGE = path.join(ROOT, 'scripts/lib/playwright');
const CONFIG = path.join(PACKAGE, 'suite.config.mjs');
const CLI = createRequire(path.join(PACKAGE, 'package.json')).resolve('@playwright/test/cli');

const positive = (name, v, min = 1) => {
  if (!/^\d+$/.test(v ?? '') || Number(v) < min) throw new Error(`${name} takes a whole number${min ? ' of at least 1' : ''}`);
  return Number(v);
};

function parseArgs(argv) {
  const args = { merge: argv[0] === 'merge', inputs: [], workers: 1, retries: 0, shard: null, reporter: 'list', out: null, timeoutS: 300, headed: false, live: false, uploadDir: null, dialogs: null };
  const rest = args.merge ? argv.slice(1) : argv;
  for (let i = 0; i < rest.length; i++) {
    const [flag, inline] = rest[i].startsWith('--') && rest[i].includes('=') ? [rest[i].slice(0, rest[i].indexOf('=')), rest[i].slice(rest[i].indexOf('=') + 1)] : [rest[i], undefined];
    const value = () => {
      const v = inline ?? rest[++i];
      if (v === undefined) throw new Error(`${flag} needs a value`);
      return v;
    };
    if (flag === '-h' || flag === '--help') args.help = true;
    else if (flag === '--out') args.out = value();
    else if (args.merge) {
      if (flag.startsWith('-')) throw new Error(`merge takes folders and --out, not ${flag}`);
      args.inputs.push(flag);
    } else if (flag === '--workers' || flag === '-j') args.workers = positive('--workers', value());
    else if (flag === '--retries') args.retries = positive('--retries', value(), 0);
    else if (flag === '--timeout') args.timeoutS = positive('--timeout', value());
    else if (flag === '--reporter') args.reporter = value();
    else if (flag === '--upload-dir') args.uploadDir = path.resolve(value());
    else if (flag === '--headed') args.headed = true;
    else if (flag === '--live') args.live = true;
    else if (flag === '--dialogs') {
      args.dialogs = value();
      if (args.dialogs !== 'accept' && args.dialogs !== 'dismiss') throw new Error('--dialogs takes accept or dismiss');
    } else if (flag === '--shard') {
      const m = value().match(/^(\d+)\/(\d+)$/);
      if (!m || Number(m[1]) < 1 || Number(m[1]) > Number(m[2])) throw new Error('--shard takes I/N with 1 ≤ I ≤ N, e.g. 1/2');
      args.shard = { index: Number(m[1]), total: Number(m[2]) };
    } else if (flag.startsWith('-')) throw new Error(`unknown option ${flag}`);
    else args.inputs.push(flag);
  }
  if (!args.help && !args.inputs.length) throw new Error(args.merge ? 'merge needs the folders holding the blob reports' : 'no flows given: name a folder, a glob or files');
  return args;
}

const isFlow = (name) => /\.ya?ml$/i.test(name);

/** Every file under `dir` (recursive; node_modules and dot-folders left out). */
async function walk(dir) {
  const found = [];
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    if (entry.name.startsWith('.') || entry.name === 'node_modules') continue;
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) found.push(...(await walk(full)));
    else if (entry.isFile()) found.push(full);
  }
  return found;
}

/** A glob as a regular expression over paths: `**` any folders, `*` and `?` within one name. */
function globRegex(glob) {
  let re = '';
  for (let i = 0; i < glob.length; i++) {
    const c = glob[i];
    if (c === '*' && glob[i + 1] === '*') {
      re += glob[i + 2] === '/' ? '(?:.*/)?' : '.*';
      i += glob[i + 2] === '/' ? 2 : 1;
    } else if (c === '*') re += '[^/]*';
    else if (c === '?') re += '[^/]';
    else re += c.replace(/[.+^${}()|[\]\\]/g, '\\$&');
  }
  return new RegExp(`^${re}$`);
}

/** The flow files the inputs name, absolute, sorted, each once; throws naming an input that names none. */
async function expandFlows(inputs, cwd = process.cwd()) {
  const files = new Set();
  for (const input of inputs) {
    const abs = path.resolve(cwd, input);
    let found;
    if (/[*?]/.test(input)) {
      const parts = abs.split(path.sep);
      const firstWild = parts.findIndex((p) => /[*?]/.test(p));
      const base = parts.slice(0, firstWild).join(path.sep) || path.sep;
      const re = globRegex(parts.join('/'));
      found = (await walk(base).catch(() => [])).filter((f) => re.test(f.split(path.sep).join('/')) && isFlow(f));
    } else {
      const info = await stat(abs).catch(() => null);
      if (!info) throw new Error(`${input}: no such file or folder`);
      found = info.isDirectory() ? (await walk(abs)).filter(isFlow) : [abs];
    }
    if (!found.length) throw new Error(`${input}: no YAML flows there`);
    for (const f of found) files.add(f);
  }
  return [...files].sort();
}

/** Runs the Playwright CLI; resolves to its exit code. Ctrl-C and kills reach it too. */
function playwright(args, env) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CLI, ...args], { stdio: 'inherit', env: { ...process.env, ...env } });
    const forward = (signal) => child.kill(signal);
    process.on('SIGINT', forward).on('SIGTERM', forward);
    child.on('error', reject);
    child.on('exit', (code, signal) => {
      process.off('SIGINT', forward).off('SIGTERM', forward);
      resolve(code ?? (signal ? 1 : 0));
    });
  });
}

async function runSuite(args) {
  const flows = await expandFlows(args.inputs);
  // Loaded here, not above: it loads the built core, which `merge` (a CI job of its own) need not have.
  const { modelsFromEnv, secretsFromEnv } = await import('./playwright/lib/flow-runner.mjs');
  // Read here so that a bad variable fails before Playwright starts; each worker's fixture reads them again.
  const { model } = modelsFromEnv();
  secretsFromEnv();
  if (args.live && !model) throw new Error('--live needs a model: set SIGHTLINE_BASE_URL and SIGHTLINE_MODEL (or MIDSCENE_MODEL_*)');
  const out = path.resolve(args.out ?? (args.shard ? `sightline-suite/shard-${args.shard.index}-of-${args.shard.total}` : 'sightline-suite'));
  await mkdir(out, { recursive: true });
  const files = args.shard ? 'blob,junit' : 'junit,html';
  const cli = [
    'test', '-c', CONFIG, `--workers=${args.workers}`, `--retries=${args.retries}`, `--reporter=${args.reporter},${files}`,
    `--output=${path.join(out, 'test-results')}`, ...(args.shard ? [`--shard=${args.shard.index}/${args.shard.total}`] : []),
  ];
  console.log(`${flows.length} flow${flows.length === 1 ? '' : 's'}, ${args.workers} worker${args.workers === 1 ? '' : 's'}${args.shard ? `, shard ${args.shard.index} of ${args.shard.total}` : ''} → ${out}`);
  // The list in a file: a suite of thousands of flows would not fit in one environment variable.
  const list = path.join(out, 'flows.json');
  await writeFile(list, JSON.stringify(flows, null, 1));
  const code = await playwright(cli, {
    SIGHTLINE_SUITE_FLOWS: list,
    SIGHTLINE_SUITE_ROOT: process.cwd(),
    SIGHTLINE_SUITE_OUT: out,
    SIGHTLINE_SUITE_TIMEOUT_MS: String(args.timeoutS * 1000),
    ...(args.live ? { SIGHTLINE_SUITE_LIVE: '1' } : {}),
    ...(args.headed ? { SIGHTLINE_SUITE_HEADED: '1' } : {}),
    ...(args.uploadDir ? { SIGHTLINE_SUITE_UPLOAD_DIR: args.uploadDir } : {}),
    ...(args.dialogs ? { SIGHTLINE_SUITE_DIALOGS: args.dialogs } : {}),
    // Each process its own places: concurrent shards on one machine must not clear each other's.
    PLAYWRIGHT_JUNIT_OUTPUT_FILE: path.join(out, 'junit.xml'),
    PLAYWRIGHT_HTML_OUTPUT_DIR: path.join(out, 'html'),
    PLAYWRIGHT_HTML_OPEN: 'never',
    PLAYWRIGHT_BLOB_OUTPUT_DIR: path.join(out, 'blob'),
  });
  console.log(`junit: ${path.join(out, 'junit.xml')}\n${args.shard ? `blob: ${path.join(out, 'blob')} (scripts/suite merge)` : `html: ${path.join(out, 'html', 'index.html')}`}`);
  return code;
}

/** The junit file's totals: `{tests, failures, errors}`. */
async function junitTotals(file) {
  const head = (await readFile(file, 'utf8')).match(/<testsuites\b[^>]*>/)?.[0] ?? '';
  const n = (name) => Number(head.match(new RegExp(`\\b${name}="(\\d+)"`))?.[1] ?? 0);
  return { tests: n('tests'), failures: n('failures'), errors: n('errors') };
}

async function merge(args) {
  const out = path.resolve(args.out ?? 'sightline-suite/merged');
  const blobs = path.join(out, 'blobs');
  await rm(blobs, { recursive: true, force: true });
  await mkdir(blobs, { recursive: true });
  let count = 0;
  for (const input of args.inputs) {
    const zips = (await walk(path.resolve(input)).catch(() => { throw new Error(`${input}: no such folder`); })).filter((f) => f.endsWith('.zip') && !f.startsWith(blobs));
    // Numbered: two machines may each have written report-1.zip.
    for (const zip of zips) await copyFile(zip, path.join(blobs, `${++count}-${path.basename(zip)}`));
  }
  if (!count) throw new Error(`no blob reports (*.zip) in ${args.inputs.join(', ')}: run the shards with --shard I/N first`);
  const code = await playwright(['merge-reports', '-c', CONFIG, '--reporter=junit,html', blobs], {
    PLAYWRIGHT_JUNIT_OUTPUT_FILE: path.join(out, 'junit.xml'),
    PLAYWRIGHT_HTML_OUTPUT_DIR: path.join(out, 'html'),
    PLAYWRIGHT_HTML_OPEN: 'never',
  });
  if (code !== 0) return code;
  const { tests, failures, errors } = await junitTotals(path.join(out, 'junit.xml'));
  console.log(`merged ${count} blob report${count === 1 ? '' : 's'}: ${tests} flows, ${failures + errors} failed\njunit: ${path.join(out, 'junit.xml')}\nhtml: ${path.join(out, 'html', 'index.html')}`);
  return failures + errors ? 1 : 0;
}

async function main() {
  let args;
  try {
    args = parseArgs(process.argv.slice(2));
  } catch (e) {
    console.error(`${e.message}\n${USAGE}`);
    return 2;
  }
  if (args.help) {
    console.log(USAGE);
    return 0;
  }
  try {
    return await (args.merge ? merge(args) : runSuite(args));
  } catch (e) {
    console.error(`scripts/suite: ${e.message}`);
    return 2;
  }
}

process.exitCode = await main();
