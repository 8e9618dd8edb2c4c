// scripts/bench dom: extraction speed and description size, ours against Midscene's published
// extractor (bundled from npm for this comparison only) and against a bare JS floor, in the same
// Chromium at 1280×800. A benchmark, not a test: it prints figures and writes out/bench-dom.json.
import { writeFileSync, mkdirSync, existsSync } from 'node:fs';
import path from 'node:path';
import esbuild from 'esbuild';
import { encode } from 'gpt-tokenizer/encoding/cl100k_base';
import { launchWithExtension } from './playwright/lib/browser.mjs';
import { ROOT } from './root.mjs';
import { startStaticServer } from './static-server.mjs';

const RUNS = Number(process.env.BENCH_RUNS ?? 9);
const OUT = path.join(ROOT, 'out');
export const PAGES_DIR = path.join(OUT, 'bench-pages');
export const PY_DOCS = '/usr/share/doc/python3.11-doc/html';

export function formTable(rows) {
  const row = (i) => `<tr><td><label for="f${i}">Field ${i}</label></td><td><input id="f${i}" name="f${i}" value="value ${i}"></td>` +
    `<td><select name="s${i}"><option>one</option><option selected>two</option><option>three</option></select></td>` +
    `<td><input type="checkbox" name="c${i}"${i % 2 ? ' checked' : ''}></td><td><button type="button">Save ${i}</button></td></tr>`;
  return `<!doctype html><title>Form table ${rows}</title><table>${Array.from({ length: rows }, (_, i) => row(i)).join('')}</table>`;
}

function nesting(depth) {
  let html = '<!doctype html><title>Nesting ' + depth + '</title>';
  for (let i = 0; i < depth; i++) html += `<div class="level"><span>level ${i}</span>`;
  html += '<button>bottom</button>' + '</div>'.repeat(depth);
  return html;
}

function writePages() {
  mkdirSync(PAGES_DIR, { recursive: true });
  const pages = { 'form-1000.html': formTable(1000), 'form-2000.html': formTable(2000), 'form-5000.html': formTable(5000), 'nesting-2000.html': nesting(2000) };
  for (const [name, html] of Object.entries(pages)) writeFileSync(path.join(PAGES_DIR, name), html);
}

/**
 * The floor of reading a page (runs in the page): a bare TreeWalker reading
 * getBoundingClientRect + getComputedStyle per element. `{ms, sum}`.
 */
export function bareWalk() {
  const t0 = performance.now();
  const walker = document.createTreeWalker(document.documentElement, NodeFilter.SHOW_ELEMENT);
  let sum = 0;
  for (let el = walker.currentNode; el; el = walker.nextNode()) {
    const r = el.getBoundingClientRect();
    sum += r.width + getComputedStyle(el).getPropertyValue('display').length;
  }
  return { ms: performance.now() - t0, sum };
}

export async function midsceneBundle() {
  const result = await esbuild.build({
    stdin: { contents: "export { webExtractNodeTree, descriptionOfTree, treeToList } from '@midscene/shared/extractor';", resolveDir: ROOT },
    bundle: true, format: 'iife', globalName: 'midsceneExtractor', write: false, platform: 'browser', minify: true,
  });
  return result.outputFiles[0].text;
}

export const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

async function measure(browser, url, bundle) {
  const page = await browser.context.newPage();
  await page.goto(url, { waitUntil: 'load' });
  const tabId = await browser.tabIdOf(page);
  await page.addScriptTag({ content: bundle });
  const nodes = await page.evaluate(() => document.getElementsByTagName('*').length);

  const ours = () => browser.sw.evaluate((id) => self.sightline.extract(id), tabId);
  const oursInView = () => browser.sw.evaluate((id) => self.sightline.extract(id, { viewportOnly: true }), tabId);
  const theirs = () => page.evaluate(() => {
    const t0 = performance.now();
    const tree = window.midsceneExtractor.webExtractNodeTree(document);
    const description = window.midsceneExtractor.descriptionOfTree(tree);
    const ms = performance.now() - t0;
    return { ms, description, elements: window.midsceneExtractor.treeToList(tree).length };
  });
  const floor = () => page.evaluate(bareWalk);

  // Warm up all three (WASM compile, style caches), then interleave the timed runs.
  const first = await ours();
  await theirs();
  await floor();
  await oursInView();
  const t = { ours: [], inView: [], theirs: [], floor: [] };
  let last = { ours: first, theirs: null };
  for (let i = 0; i < RUNS; i++) {
    last.ours = await ours();
    t.ours.push(last.ours.timings.inPageMs);
    t.inView.push((await oursInView()).timings.inPageMs);
    last.theirs = await theirs();
    t.theirs.push(last.theirs.ms);
    t.floor.push((await floor()).ms);
  }
  const midsceneFormat = await browser.sw.evaluate((id) => self.sightline.extract(id, { format: 'midscene' }), tabId);
  await page.close();
  return {
    nodes,
    source: last.ours.source,
    oursMs: median(t.ours),
    inViewMs: median(t.inView),
    midsceneMs: median(t.theirs),
    floorMs: median(t.floor),
    oursElements: last.ours.elements.length,
    midsceneElements: last.theirs.elements,
    compactTokens: encode(last.ours.description).length,
    oursMidsceneFormatTokens: encode(midsceneFormat.description).length,
    midsceneTokens: encode(last.theirs.description).length,
  };
}

export async function benchDom() {
  writePages();
  const bundle = await midsceneBundle();
  const fixtures = await startStaticServer();
  const generated = await startStaticServer({ root: PAGES_DIR });
  const pyDocs = existsSync(PY_DOCS) ? await startStaticServer({ root: PY_DOCS }) : null;
  const targets = [
    ['fixture todo', fixtures.url('/todo.html')],
    ['fixture index', fixtures.url('/index.html')],
    ...(pyDocs ? [['python stdtypes', pyDocs.url('/library/stdtypes.html')], ['python functions', pyDocs.url('/library/functions.html')]] : []),
    ['form table 1000', generated.url('/form-1000.html')],
    ['form table 2000', generated.url('/form-2000.html')],
    ['form table 5000', generated.url('/form-5000.html')],
    ['nesting 2000 deep', generated.url('/nesting-2000.html')],
  ];
  if (!pyDocs) console.log(`(python docs not found at ${PY_DOCS}: scripts/bench installs python3.11-doc)`);
  const browser = await launchWithExtension();
  const rows = [];
  try {
    for (const [name, url] of targets) {
      const r = await measure(browser, url, bundle);
      rows.push({ name, ...r });
      console.log(`measured ${name}`);
    }
  } finally {
    await browser.close();
    await Promise.all([fixtures.close(), generated.close(), pyDocs?.close()]);
  }

  const f = (x, d = 1) => x.toFixed(d);
  // performance.now() is coarse (0.1 ms): a ratio over a zero reading is not a measurement.
  const ratio = (a, b, d = 1) => (b > 0 ? f(a / b, d) : '–');
  console.log(`\nscripts/bench dom — median of ${RUNS} runs, in-page ms, Chromium 1280x800\n`);
  const header = ['page', 'nodes', 'ours ms', 'in-view ms', 'midscene ms', 'floor ms', 'midscene/ours', 'ours/floor', 'us/node', 'elements ours/ms', 'tokens compact', 'tokens midscene-fmt', 'compact/midscene'];
  const table = rows.map((r) => [
    r.name, r.nodes, f(r.oursMs), f(r.inViewMs), f(r.midsceneMs), f(r.floorMs), ratio(r.midsceneMs, r.oursMs), ratio(r.oursMs, r.floorMs, 2),
    f((r.oursMs * 1000) / r.nodes, 2), `${r.oursElements}/${r.midsceneElements}`, r.compactTokens, r.oursMidsceneFormatTokens,
    ratio(r.compactTokens, r.oursMidsceneFormatTokens, 2),
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...table.map((row) => String(row[i]).length)));
  const line = (cells) => cells.map((c, i) => String(c).padStart(widths[i])).join('  ');
  console.log(line(header));
  for (const row of table) console.log(line(row));
  writeFileSync(path.join(OUT, 'bench-dom.json'), JSON.stringify({ runs: RUNS, rows }, null, 2));
  console.log('\n"ours": the whole page, every element with its box, XPaths and id, description, JSON out.');
  console.log('"in-view": extract(tab, {viewportOnly: true}), which skips subtrees that cannot reach the viewport.');
  console.log('"floor": a bare TreeWalker reading getBoundingClientRect + getComputedStyle per element.');
  console.log('\nwritten: out/bench-dom.json');
}
