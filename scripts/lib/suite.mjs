// scripts/suite: a folder or glob of YAML flows run on Playwright Test's own runner, one test per
// flow (scripts/lib/playwright: suite.config.mjs + flows.spec.mjs), a Chromium with the
// extension per worker. Writes JUnit XML and one HTML report, or with --shard a blob report for
// `scripts/suite merge`. Exit code: Playwright's (0 when every flow passed).
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { copyFile, mkdir, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import path from 'node:path';
import { stripVTControlCharacters } from 'node:util';
import { ROOT } from './root.mjs';

const USAGE = `usage: scripts/suite FOLDER|GLOB|FLOW.yaml… [options]
       scripts/suite INDEX.yaml [options]
       scripts/suite merge DIR… [--out DIR]
Runs every YAML flow (*.yaml, *.yml) in the folders, matching the globs ("flows/**/*.yaml";
quote them) or named, each as one Playwright test on its own page; a Chromium with the
extension per worker. A batch index file (Midscene's: \`files:\` globs relative to it,
\`concurrent\` → workers, \`continueOnError: false\` → stop after the first failure, \`retry\`,
\`shareBrowserContext\`, a shared \`web:\` whose keys win over each file's, \`summary\`: the
summary JSON, in Midscene's shape, relative to --out) runs its files; the options here win
over its keys.
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
report-*.zip) into one HTML report and one junit.xml in --out (default ./sightline-suite/merged);
shards of a batch index file: its summary JSON too.
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
  const args = { merge: argv[0] === 'merge', inputs: [], workers: 1, retries: 0, shard: null, reporter: 'list', out: null, timeoutS: 300, headed: false, live: false, uploadDir: null, dialogs: null, given: new Set() };
  const rest = args.merge ? argv.slice(1) : argv;
  for (let i = 0; i < rest.length; i++) {
    const [flag, inline] = rest[i].startsWith('--') && rest[i].includes('=') ? [rest[i].slice(0, rest[i].indexOf('=')), rest[i].slice(rest[i].indexOf('=') + 1)] : [rest[i], undefined];
    const value = () => {
      const v = inline ?? rest[++i];
      if (v === undefined) throw new Error(`${flag} needs a value`);
      return v;
    };
    args.given.add(flag === '-j' ? '--workers' : flag);
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

/**
 * The batch index file among the inputs, read by the core: `{file, index}`, or null when the
 * inputs are flows. An index is run alone.
 */
async function batchOf(inputs, core, flowVars) {
  const named = [];
  for (const input of inputs) {
    if (/[*?]/.test(input) || !isFlow(input)) continue;
    const file = path.resolve(input);
    const text = await readFile(file, 'utf8').catch(() => null);
    if (text === null) continue;
    let index;
    try {
      // null for a flow (and for a file the YAML reader refuses: running it as a flow says why).
      index = core.parseBatch(text, await flowVars(file));
    } catch (e) {
      throw new Error(`${input}: ${e.message ?? e}`, { cause: e });
    }
    if (index) named.push({ file, index });
  }
  if (!named.length) return null;
  if (inputs.length > 1) throw new Error(`${path.relative(process.cwd(), named[0].file)} is a batch index file: run it alone (its \`files:\` say which flows run)`);
  return named[0];
}

/** The flows an index's `files:` name, relative to the index file: in the order listed, each glob's in path order, each once. */
async function batchFlows({ file, index }) {
  const dir = path.dirname(file);
  const files = [];
  for (const pattern of index.files) {
    const found = await expandFlows([pattern], dir).catch(() => []);
    if (!found.length) console.warn(`${path.relative(process.cwd(), file)}: \`files:\` ${pattern} names no YAML flow`);
    for (const f of found) if (!files.includes(f) && f !== file) files.push(f);
  }
  if (!files.length) throw new Error(`${path.relative(process.cwd(), file)}: its \`files:\` name no YAML flow`);
  return files;
}

/**
 * The summary JSON of a batch (Midscene's shape, by the core) from Playwright's JSON report:
 * each flow's last attempt, in the index's order; a flow that never ran (the batch stopped at
 * a failure) is not executed.
 */
async function writeSummary(core, { results, flows, summaryFile }) {
  const report = JSON.parse(await readFile(results, 'utf8'));
  const specs = (report.suites ?? []).flatMap(function all(s) { return [...(s.specs ?? []), ...(s.suites ?? []).flatMap(all)]; });
  const dir = path.dirname(summaryFile);
  const rows = flows.map(({ title, file }) => {
    const tests = specs.filter((s) => s.title === title).flatMap((s) => s.tests);
    const runs = tests.flatMap((t) => t.results ?? []).filter((r) => r.status !== 'skipped');
    const last = runs.at(-1);
    // What flows.spec.mjs noted of the last attempt (the core's name for its end).
    const noted = [...(last?.annotations ?? []), ...tests.flatMap((t) => t.annotations ?? [])].find((a) => a.type === 'sightline-result');
    let report = last?.attachments?.find((a) => a.name.startsWith('sightline report') && a.path)?.path;
    if (report && !existsSync(report)) report = null;
    return {
      script: path.relative(dir, file),
      status: last?.status ?? null,
      error: last?.error?.message ? stripVTControlCharacters(last.error.message) : null,
      durationMs: runs.reduce((sum, r) => sum + (r.duration ?? 0), 0),
      report: report ? path.relative(dir, report) : null,
      attempts: runs.length,
      partial: noted?.description === 'partialFailed',
    };
  });
  const summary = core.batchSummary(rows, new Date().toISOString());
  await mkdir(dir, { recursive: true });
  await writeFile(summaryFile, JSON.stringify(summary, null, 2));
  return summary.summary;
}

async function runSuite(args) {
  // Loaded here, not above: it loads the built core, which `merge` (a CI job of its own) need not have.
  const { flowVars, modelsFromEnv, secretsFromEnv } = await import('./playwright/lib/flow-runner.mjs');
  const { core } = await import('./playwright/lib/core-node.mjs');
  const batch = await batchOf(args.inputs, core, flowVars);
  const flows = batch ? await batchFlows(batch) : await expandFlows(args.inputs);
  if (batch) {
    for (const w of batch.index.warnings ?? []) console.warn(`${path.relative(process.cwd(), batch.file)}: ${w}`);
    // The command line wins over the index, as Midscene's does.
    if (!args.given.has('--workers')) args.workers = batch.index.concurrent;
    if (!args.given.has('--retries')) args.retries = batch.index.retry;
    args.headed ||= batch.index.headed;
  }
  // Read here so that a bad variable fails before Playwright starts; each worker's fixture reads them again.
  const { model } = modelsFromEnv();
  secretsFromEnv();
  if (args.live && !model) throw new Error('--live needs a model: set SIGHTLINE_BASE_URL and SIGHTLINE_MODEL (or MIDSCENE_MODEL_*)');
  const out = path.resolve(args.out ?? (args.shard ? `sightline-suite/shard-${args.shard.index}-of-${args.shard.total}` : 'sightline-suite'));
  await mkdir(out, { recursive: true });
  const files = (args.shard ? 'blob,junit' : 'junit,html') + (batch ? ',json' : '');
  const cli = [
    'test', '-c', CONFIG, `--workers=${args.workers}`, `--retries=${args.retries}`, `--reporter=${args.reporter},${files}`,
    `--output=${path.join(out, 'test-results')}`, ...(args.shard ? [`--shard=${args.shard.index}/${args.shard.total}`] : []),
    ...(batch && !batch.index.continueOnError ? ['--max-failures=1'] : []),
  ];
  console.log(`${flows.length} flow${flows.length === 1 ? '' : 's'}, ${args.workers} worker${args.workers === 1 ? '' : 's'}${args.shard ? `, shard ${args.shard.index} of ${args.shard.total}` : ''} → ${out}`);
  // The list in a file: a suite of thousands of flows would not fit in one environment variable.
  const list = path.join(out, 'flows.json');
  await writeFile(list, JSON.stringify(flows, null, 1));
  // What the flows take from the index, and what `merge` needs to write the summary of all shards.
  const batchFile = path.join(out, 'batch.json');
  const results = path.join(out, 'results.json');
  if (batch) {
    await rm(results, { force: true });
    await writeFile(batchFile, JSON.stringify({
      file: batch.file, web: batch.index.web ?? null, share: batch.index.shareBrowserContext, summary: batch.index.summary,
      flows: flows.map((f) => ({ title: path.relative(process.cwd(), f), file: f })),
    }, null, 1));
  }
  const code = await playwright(cli, {
    SIGHTLINE_SUITE_FLOWS: list,
    SIGHTLINE_SUITE_ROOT: process.cwd(),
    SIGHTLINE_SUITE_OUT: out,
    SIGHTLINE_SUITE_TIMEOUT_MS: String(args.timeoutS * 1000),
    ...(args.live ? { SIGHTLINE_SUITE_LIVE: '1' } : {}),
    ...(args.headed ? { SIGHTLINE_SUITE_HEADED: '1' } : {}),
    ...(args.uploadDir ? { SIGHTLINE_SUITE_UPLOAD_DIR: args.uploadDir } : {}),
    ...(args.dialogs ? { SIGHTLINE_SUITE_DIALOGS: args.dialogs } : {}),
    ...(batch ? { SIGHTLINE_SUITE_BATCH: batchFile, PLAYWRIGHT_JSON_OUTPUT_FILE: results } : {}),
    // Each process its own places: concurrent shards on one machine must not clear each other's.
    PLAYWRIGHT_JUNIT_OUTPUT_FILE: path.join(out, 'junit.xml'),
    PLAYWRIGHT_HTML_OUTPUT_DIR: path.join(out, 'html'),
    PLAYWRIGHT_HTML_OPEN: 'never',
    PLAYWRIGHT_BLOB_OUTPUT_DIR: path.join(out, 'blob'),
  });
  console.log(`junit: ${path.join(out, 'junit.xml')}\n${args.shard ? `blob: ${path.join(out, 'blob')} (scripts/suite merge)` : `html: ${path.join(out, 'html', 'index.html')}`}`);
  if (batch) {
    const info = JSON.parse(await readFile(batchFile, 'utf8'));
    // A shard's summary names the flows of its part only (the merge names them all).
    const mine = args.shard ? await shardTitles(results) : null;
    const summaryFile = path.resolve(out, batch.index.summary);
    const s = await writeSummary(core, { results, flows: mine ? info.flows.filter((f) => mine.has(f.title)) : info.flows, summaryFile });
    console.log(`summary: ${summaryFile} (${s.successful} passed, ${s.failed} failed, ${s.notExecuted} not executed)`);
  }
  return code;
}

/** The titles of the tests a shard's JSON report lists. */
async function shardTitles(results) {
  const report = JSON.parse(await readFile(results, 'utf8'));
  return new Set((report.suites ?? []).flatMap(function all(s) { return [...(s.specs ?? []), ...(s.suites ?? []).flatMap(all)]; }).map((s) => s.title));
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
  // Shards of a batch index file left its batch.json in their --out folders (or wherever CI put them beside the blobs).
  const batches = [];
  for (const input of args.inputs) {
    for (const file of (await walk(path.resolve(input)).catch(() => [])).filter((f) => path.basename(f) === 'batch.json' && !f.startsWith(out))) {
      batches.push(JSON.parse(await readFile(file, 'utf8')));
    }
  }
  const results = path.join(out, 'results.json');
  const code = await playwright(['merge-reports', '-c', CONFIG, `--reporter=junit,html${batches.length ? ',json' : ''}`, blobs], {
    PLAYWRIGHT_JUNIT_OUTPUT_FILE: path.join(out, 'junit.xml'),
    PLAYWRIGHT_HTML_OUTPUT_DIR: path.join(out, 'html'),
    PLAYWRIGHT_HTML_OPEN: 'never',
    PLAYWRIGHT_JSON_OUTPUT_FILE: results,
  });
  if (code !== 0) return code;
  const { tests, failures, errors } = await junitTotals(path.join(out, 'junit.xml'));
  console.log(`merged ${count} blob report${count === 1 ? '' : 's'}: ${tests} flows, ${failures + errors} failed\njunit: ${path.join(out, 'junit.xml')}\nhtml: ${path.join(out, 'html', 'index.html')}`);
  if (batches.length) {
    // The summary is shaped by the core: this merge needs the built extension (scripts/build).
    const { core } = await import('./playwright/lib/core-node.mjs').catch((e) => {
      throw new Error(`writing the batch summary needs the built extension (run scripts/build first): ${e.message}`, { cause: e });
    });
    const flows = [];
    for (const f of batches.flatMap((b) => b.flows)) if (!flows.some((g) => g.title === f.title)) flows.push(f);
    const summaryFile = path.resolve(out, batches[0].summary);
    const s = await writeSummary(core, { results, flows, summaryFile });
    console.log(`summary: ${summaryFile} (${s.successful} passed, ${s.failed} failed, ${s.notExecuted} not executed)`);
    return failures + errors || s.notExecuted ? 1 : 0;
  }
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
