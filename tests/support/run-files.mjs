// Runs test files one at a time, each in a process group of its own with a wall-time bound.
// A file that passes its bound is killed with everything it started (its Chromium, mock model
// and fixture servers, found by a marker in their environment: Playwright starts Chromium in
// a process group of its own, so killing the file's group alone would leave it running), is
// reported as one failure, and the suite goes on. Any process a file leaves behind when it ends
// is killed the same way and named.
//
//   node tests/support/run-files.mjs --tap-dir DIR [--bound-scale N] FILE...
//
// Prints each file's result and the suite's wall time; the last line is "N passed, N failed".
import { spawn } from 'node:child_process';
import { mkdir, readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { randomUUID } from 'node:crypto';

/**
 * Wall-time bounds per file, in seconds: at least 2x what the file took on a 2-core machine
 * busy with three builds beside the suite (2026-11-23), so a slow machine passes and a hang is
 * cut short. Files not listed get DEFAULT_BOUND_S; the slowest of them took 47 s there.
 */
export const BOUNDS_S = {
  'hostile.test.mjs': 600, // 84 s alone, 121 s beside the builds
  'record-apps.test.mjs': 600, // 204-233 s beside two other helpers' builds
};
export const DEFAULT_BOUND_S = 300;
/** After SIGTERM, how long a process has to exit before SIGKILL. */
const GRACE_MS = 5_000;
/** The environment variable that marks every process a file starts. */
export const MARKER = 'SIGHTLINE_TEST_FILE_RUN';

/** Pids (other than ours) whose environment carries `MARKER=tag`. Linux /proc. */
export async function markedPids(tag) {
  const want = `${MARKER}=${tag}`;
  const pids = [];
  for (const name of await readdir('/proc').catch(() => [])) {
    if (!/^\d+$/.test(name) || Number(name) === process.pid) continue;
    const env = await readFile(`/proc/${name}/environ`, 'latin1').catch(() => '');
    if (env.split('\0').includes(want)) pids.push(Number(name));
  }
  return pids;
}

function kill(pid, signal) {
  try {
    process.kill(pid, signal);
    return true;
  } catch {
    return false; // gone already
  }
}

/** Kills the file's process group and every marked process: TERM, then KILL after the grace time. */
export async function killAll(groupPid, tag) {
  kill(-groupPid, 'SIGTERM');
  for (const pid of await markedPids(tag)) kill(pid, 'SIGTERM');
  const until = Date.now() + GRACE_MS;
  while (Date.now() < until && (await markedPids(tag)).length) await new Promise((r) => setTimeout(r, 100));
  kill(-groupPid, 'SIGKILL');
  const left = await markedPids(tag);
  for (const pid of left) kill(pid, 'SIGKILL');
  return left;
}

function tapCounts(text) {
  const count = (name) => Number(text.match(new RegExp(`^# ${name} (\\d+)$`, 'm'))?.[1] ?? 0);
  return { passed: count('pass'), failed: count('fail') };
}

/**
 * Runs one test file under `node --test` with a bound (and each test in it under
 * `testTimeoutMs`, by default a little less). Resolves to
 * `{file, passed, failed, seconds, timedOut, leftovers, code}`.
 */
export async function runFile(file, { tapDir, boundS, testTimeoutMs = Math.round(boundS * 900), nodeArgs = [], log = console.log }) {
  const tag = randomUUID();
  const tap = path.join(tapDir, `${path.basename(file)}.tap`);
  const args = [
    // A test that runs too long is failed by node first (and named in the report); the file's
    // process is killed at the bound if it still does not end.
    '--test', '--test-concurrency=1', `--test-timeout=${testTimeoutMs}`, ...nodeArgs,
    '--test-reporter=spec', '--test-reporter-destination=stdout',
    '--test-reporter=tap', `--test-reporter-destination=${tap}`,
    file,
  ];
  const started = performance.now();
  // NODE_TEST_CONTEXT is set when this runs inside a test (its own self-test): the child would
  // then skip its files as a nested run.
  const { NODE_TEST_CONTEXT, ...env } = process.env;
  const child = spawn(process.execPath, args, { stdio: 'inherit', detached: true, env: { ...env, [MARKER]: tag } });
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    log(`\n[tests] ${file}: still running after ${boundS} s; killing it with its browser and servers`);
    killAll(child.pid, tag);
  }, boundS * 1000);
  const code = await new Promise((resolve) => child.on('exit', (c, signal) => resolve(c ?? signal)));
  clearTimeout(timer);
  const seconds = (performance.now() - started) / 1000;
  // Whatever the file left running (a browser it never closed) goes now, and is named.
  const leftovers = timedOut ? [] : await markedPids(tag);
  await killAll(child.pid, tag);
  let { passed, failed } = tapCounts(await readFile(tap, 'utf8').catch(() => ''));
  // A file that timed out, crashed or exited non-zero without a failing test counts as one failure.
  if (timedOut || (code !== 0 && failed === 0)) failed += 1;
  return { file, passed, failed, seconds, timedOut, code, leftovers };
}

async function main(argv) {
  let tapDir = 'out/e2e';
  let scale = 1;
  const files = [];
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === '--tap-dir') tapDir = argv[++i];
    else if (argv[i] === '--bound-scale') scale = Number(argv[++i]);
    else files.push(argv[i]);
  }
  if (!files.length || !(scale > 0)) {
    console.error('usage: node tests/support/run-files.mjs --tap-dir DIR [--bound-scale N] FILE...');
    return 2;
  }
  await mkdir(tapDir, { recursive: true });
  const started = performance.now();
  const results = [];
  for (const file of files) {
    const boundS = Math.round((BOUNDS_S[path.basename(file)] ?? DEFAULT_BOUND_S) * scale);
    const r = await runFile(file, { tapDir, boundS });
    results.push(r);
    const what = r.timedOut ? `TIMED OUT after ${boundS} s (killed)` : `exit ${r.code}`;
    console.log(`[tests] ${file}: ${r.passed} passed, ${r.failed} failed in ${r.seconds.toFixed(1)} s of ${boundS} s (${what})`);
    if (r.leftovers.length) console.log(`[tests] ${file} left ${r.leftovers.length} process(es) running (killed): ${r.leftovers.join(', ')}`);
  }
  const wall = (performance.now() - started) / 1000;
  const passed = results.reduce((n, r) => n + r.passed, 0);
  const failed = results.reduce((n, r) => n + r.failed, 0);
  console.log('\n[tests] files, slowest first:');
  for (const r of [...results].sort((a, b) => b.seconds - a.seconds)) {
    console.log(`  ${r.seconds.toFixed(1).padStart(7)} s  ${r.failed ? '✗' : '✓'} ${r.file}${r.timedOut ? ' (timed out)' : ''}`);
  }
  console.log(`[tests] wall time ${wall.toFixed(1)} s for ${results.length} files`);
  console.log(`${passed} passed, ${failed} failed`);
  return failed ? 1 : 0;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  process.exitCode = await main(process.argv.slice(2));
}
