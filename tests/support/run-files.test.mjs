// The suite's file runner: a file that hangs is ended within its bound together with the
// processes it started (one in a process group of its own, as Playwright's Chromium is), and
// it is reported as a failure while the suite goes on.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { runFile } from './run-files.mjs';

const HANG = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../fixtures/runner/hang.test.mjs');

/** Running (a zombie waiting for its parent to reap it has ended). */
async function alive(pid) {
  const stat = await readFile(`/proc/${pid}/stat`, 'utf8').catch(() => null);
  return stat != null && stat.slice(stat.lastIndexOf(')') + 2)[0] !== 'Z';
}

async function hang(where, bounds) {
  const dir = await mkdtemp(path.join(tmpdir(), 'sightline-runner-'));
  const pidsFile = path.join(dir, 'pids.json');
  Object.assign(process.env, { HANG_PIDS: pidsFile, HANG_IN: where });
  try {
    const started = performance.now();
    const result = await runFile(HANG, { tapDir: dir, ...bounds, log: () => {} });
    const seconds = (performance.now() - started) / 1000;
    const pids = JSON.parse(await readFile(pidsFile, 'utf8'));
    const survivors = [];
    for (const pid of pids) if (await alive(pid)) survivors.push(pid);
    return { result, seconds, pids, survivors };
  } finally {
    delete process.env.HANG_PIDS;
    delete process.env.HANG_IN;
    await rm(dir, { recursive: true, force: true });
  }
}

test('a file that hangs outside any test is killed at its bound with everything it started', async () => {
  const { result, seconds, pids, survivors } = await hang('top', { boundS: 3 });
  assert.equal(result.timedOut, true);
  assert.equal(result.failed, 1);
  assert.ok(seconds < 3 + 10, `ended ${seconds.toFixed(1)} s after it started (bound 3 s, grace 5 s)`);
  assert.equal(pids.length, 2);
  assert.deepEqual(survivors, [], 'nothing it started outlives the bound');
});

test('a test that hangs fails at the per-test timeout, and what its file left running is killed and named', async () => {
  // The file's bound is far off: node's per-test timeout ends this one.
  const { result, survivors, pids } = await hang('test', { boundS: 60, testTimeoutMs: 2_000 });
  assert.equal(result.timedOut, false);
  assert.equal(result.failed, 1);
  assert.ok(result.leftovers.includes(pids[1]), `the detached process is named: ${result.leftovers}`);
  assert.deepEqual(survivors, []);
});
