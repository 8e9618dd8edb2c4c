// scripts/bench crossing: what crosses between the WASM core and the worker's glue per step of
// a long run. One run of STEPS planning rounds (each keeps a note, the page changing meanwhile)
// on a 140-row form; every value the core hands to JS goes through JSON.parse (to_js) and every
// one JS hands in through JSON.stringify (from_js), so both are counted while the run lasts;
// so is what the worker then tells the panel (each `sightline/run-update` message, as JSON).
// With BENCH_BEFORE=<another dist/> that build is measured first, in the same invocation, for a
// before and after. A benchmark, not a test: it prints figures and writes out/bench-crossing.json.
import { writeFileSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import { launchWithExtension } from './playwright/lib/browser.mjs';
import { ROOT } from './root.mjs';
import { startStaticServer } from './static-server.mjs';
import { PAGES_DIR, formTable } from './bench-dom.mjs';
import { benchTask, startInstantModel } from './bench-step.mjs';

const STEPS = Number(process.env.BENCH_STEPS ?? 50);
const OUT = path.join(ROOT, 'out');

/** In the worker: counts the JSON text crossing while `work` runs; per crossing, its size. */
function installCounter() {
  if (self.__benchCrossing) return;
  const count = { on: false, out: [], in: [], panel: [] };
  self.__benchCrossing = count;
  const parse = JSON.parse;
  const stringify = JSON.stringify;
  JSON.parse = function counted(text, ...rest) {
    if (count.on && typeof text === 'string') count.out.push(text.length);
    return parse.call(this, text, ...rest);
  };
  JSON.stringify = function counted(...args) {
    const text = stringify.apply(this, args);
    if (count.on && typeof text === 'string') count.in.push(text.length);
    return text;
  };
  const send = chrome.runtime.sendMessage.bind(chrome.runtime);
  chrome.runtime.sendMessage = (message, ...rest) => {
    if (count.on && message?.type === 'sightline/run-update') count.panel.push(stringify(message).length);
    return send(message, ...rest);
  };
  count.counted = async (work) => {
    count.out = [];
    count.in = [];
    count.panel = [];
    count.on = true;
    try {
      const run = await work();
      return { status: run.status, steps: run.steps.length, error: run.error, out: count.out, in: count.in, panel: count.panel };
    } finally {
      count.on = false;
    }
  };
}

async function measure(extensionDir, url, model) {
  const browser = await launchWithExtension({ extensionDir });
  try {
    await browser.sw.evaluate(([baseUrl, rounds]) => self.sightline.setSettings({
      model: { provider: 'custom', baseUrl, model: 'bench-model', apiKey: 'sk-bench', family: 'generic', stream: false },
      run: { useCache: false, maxRounds: rounds },
    }), [model.baseUrl, STEPS + 5]);
    const page = await browser.context.newPage();
    await page.goto(url, { waitUntil: 'load' });
    const tabId = await browser.tabIdOf(page);
    await browser.sw.evaluate(installCounter);
    await page.evaluate(() => {
      let n = 0;
      window.__benchTicking = setInterval(() => { document.body.dataset.benchTick = String(n++); }, 5);
    });
    const run = await browser.sw.evaluate(([id, instruction]) => self.__benchCrossing.counted(() => self.sightline.act(id, instruction)),
      [tabId, benchTask(`crossing-${Date.now()}`, STEPS)]);
    if (run.status !== 'succeeded') throw new Error(`the bench's run ended ${run.status}: ${JSON.stringify(run.error)}`);
    return run;
  } finally {
    await browser.close();
  }
}

export async function benchCrossing() {
  mkdirSync(PAGES_DIR, { recursive: true });
  writeFileSync(path.join(PAGES_DIR, 'form-140.html'), formTable(140));
  const model = await startInstantModel();
  const pages = await startStaticServer({ root: PAGES_DIR });
  const builds = [
    ...(process.env.BENCH_BEFORE ? [['before', path.resolve(process.env.BENCH_BEFORE)]] : []),
    [process.env.BENCH_BEFORE ? 'after' : 'this build', process.env.BENCH_DIST ? path.resolve(process.env.BENCH_DIST) : undefined],
  ];
  const rows = [];
  try {
    for (const [name, dir] of builds) {
      const run = await measure(dir, pages.url('/form-140.html'), model);
      const sum = (xs) => xs.reduce((a, b) => a + b, 0);
      rows.push({
        name, dir: dir ?? 'dist', steps: run.steps, crossingsOut: run.out.length, crossingsIn: run.in.length,
        bytesOut: sum(run.out), bytesIn: sum(run.in), largestOut: Math.max(0, ...run.out),
        bytesToPanel: sum(run.panel), largestToPanel: Math.max(0, ...run.panel),
        lastTenOut: run.out.slice(-10),
      });
    }
  } finally {
    await Promise.all([model.close(), pages.close()]);
  }
  const kb = (b) => (b / 1024).toFixed(1);
  console.log(`\nscripts/bench crossing — one run of ${STEPS} planning rounds (form table 140), JSON text between the core and the glue\n`);
  const header = ['build', 'steps', 'out of core per step (KB)', 'into core per step (KB)', 'out total (KB)', 'largest one (KB)', 'crossings out', 'to panel per step (KB)', 'largest to panel (KB)'];
  const table = rows.map((r) => [r.name, r.steps, kb(r.bytesOut / r.steps), kb(r.bytesIn / r.steps), kb(r.bytesOut), kb(r.largestOut), r.crossingsOut,
    kb(r.bytesToPanel / r.steps), kb(r.largestToPanel)]);
  const widths = header.map((h, i) => Math.max(h.length, ...table.map((row) => String(row[i]).length)));
  const line = (cells) => cells.map((c, i) => String(c).padStart(widths[i])).join('  ');
  console.log(line(header));
  for (const row of table) console.log(line(row));
  writeFileSync(path.join(OUT, 'bench-crossing.json'), JSON.stringify({ steps: STEPS, rows }, null, 2));
  console.log('\n"out of core": what the core handed the glue (every to_js is a JSON.parse); "into core": what the glue handed it (JSON.stringify);');
  console.log('"to panel": the worker\'s run-update messages to the side panel, as JSON.');
  console.log('written: out/bench-crossing.json');
}
