// scripts/bench vision: decode a real capture, draw 150 markers, encode — ours (WASM, in the
// service worker) against an OffscreenCanvas 2D baseline doing the same drawing in the same
// worker. Both start from CDP's base64 PNG and end with base64 ready for a data URL.
// A benchmark, not a test: it prints figures and writes out/bench-vision.json.
import { writeFileSync, existsSync } from 'node:fs';
import path from 'node:path';
import { launchWithExtension } from './playwright/lib/browser.mjs';
import { ROOT } from './root.mjs';
import { startStaticServer } from './static-server.mjs';

const RUNS = Number(process.env.BENCH_RUNS ?? 9);
const PY_DOCS = '/usr/share/doc/python3.11-doc/html';
const MARKERS = 150;

/** 150 boxes over the viewport, in the shape of extracted elements (CSS px). */
function elements(width, height) {
  const out = [];
  let seed = 7;
  const rand = () => ((seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648);
  for (let i = 1; i <= MARKERS; i++) {
    const w = 30 + rand() * 160, h = 14 + rand() * 30;
    const x = rand() * (width - w), y = rand() * (height - h);
    out.push({
      index: i, id: `e${i}`, kind: 'BUTTON', tag: 'button', attributes: [], content: `b${i}`,
      rect: { x, y, width: w, height: h }, center: [x + w / 2, y + h / 2], inViewport: 1, occluded: false, xpath: '', node: i,
    });
  }
  return out;
}

// Runs in the service worker.
async function canvasMark(b64, els, dpr, type) {
  const t0 = performance.now();
  const blobIn = await (await fetch(`data:image/png;base64,${b64}`)).blob();
  const bitmap = await createImageBitmap(blobIn);
  const canvas = new OffscreenCanvas(bitmap.width, bitmap.height);
  const g = canvas.getContext('2d');
  g.drawImage(bitmap, 0, 0);
  const colors = ['#e6194b', '#006ec8', '#14963c', '#f58230', '#911eb4', '#008080', '#dc28c8', '#806400'];
  g.font = `bold ${Math.round(12 * dpr)}px sans-serif`;
  g.textBaseline = 'top';
  for (const e of els) {
    const c = colors[e.index % colors.length];
    const r = e.rect;
    g.strokeStyle = c;
    g.lineWidth = 2 * dpr;
    g.strokeRect(r.x * dpr, r.y * dpr, r.width * dpr, r.height * dpr);
    const text = String(e.index);
    const w = g.measureText(text).width + 4 * dpr, h = 16 * dpr;
    g.fillStyle = c;
    g.fillRect(r.x * dpr - w, r.y * dpr, w, h);
    g.fillStyle = '#fff';
    g.fillText(text, r.x * dpr - w + 2 * dpr, r.y * dpr + 2 * dpr);
  }
  const blob = await canvas.convertToBlob(type === 'jpeg' ? { type: 'image/jpeg', quality: 0.8 } : { type: 'image/png' });
  const bytes = new Uint8Array(await blob.arrayBuffer());
  let binary = '';
  for (let i = 0; i < bytes.length; i += 0x8000) binary += String.fromCharCode.apply(null, bytes.subarray(i, i + 0x8000));
  const out = btoa(binary);
  return { ms: performance.now() - t0, bytes: bytes.length, chars: out.length };
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

async function measure(browser, url, dpr) {
  const page = await browser.context.newPage();
  await page.goto(url, { waitUntil: 'load' });
  const tabId = await browser.tabIdOf(page);
  const capture = await browser.sw.evaluate((id) => self.sightline.capture(id), tabId);
  await page.close();
  const els = elements(1280, 800);
  const rows = [];
  for (const format of ['png', 'jpeg']) {
    const opts = { resizeToCss: false, format: format === 'png' ? { type: 'png' } : { type: 'jpeg', quality: 80 } };
    const result = await browser.sw.evaluate(async ({ capture, els, opts, format, dpr, runs, canvasSrc }) => {
      const canvasMark = (0, eval)(`(${canvasSrc})`);
      const ours = [], theirs = [];
      let oursBytes = 0, theirsBytes = 0, size = null;
      await self.sightline.markScreenshot(capture, els, opts); // warm up
      await canvasMark(capture.base64, els, dpr, format);
      for (let i = 0; i < runs; i++) {
        const t0 = performance.now();
        const shot = await self.sightline.markScreenshot(capture, els, opts);
        ours.push(performance.now() - t0);
        oursBytes = shot.bytes;
        size = [shot.mapping.width, shot.mapping.height];
        const c = await canvasMark(capture.base64, els, dpr, format);
        theirs.push(c.ms);
        theirsBytes = c.bytes;
      }
      return { ours, theirs, oursBytes, theirsBytes, size };
    }, { capture, els, opts, format, dpr, runs: RUNS, canvasSrc: canvasMark.toString() });
    rows.push({ format, size: result.size, oursMs: median(result.ours), canvasMs: median(result.theirs), oursBytes: result.oursBytes, canvasBytes: result.theirsBytes });
  }
  return rows;
}

export async function benchVision() {
  const pyDocs = existsSync(PY_DOCS) ? await startStaticServer({ root: PY_DOCS }) : null;
  const fixtures = await startStaticServer();
  const url = pyDocs ? pyDocs.url('/library/stdtypes.html') : fixtures.url('/index.html');
  const rows = [];
  try {
    for (const dpr of [1, 2]) {
      const browser = await launchWithExtension({ deviceScaleFactor: dpr === 1 ? undefined : dpr });
      try {
        for (const r of await measure(browser, url, dpr)) rows.push({ dpr, ...r });
      } finally {
        await browser.close();
      }
      console.log(`measured DPR ${dpr}`);
    }
  } finally {
    await Promise.all([pyDocs?.close(), fixtures.close()]);
  }
  console.log(`\nscripts/bench vision — decode + ${MARKERS} markers + encode + base64, median of ${RUNS}, service worker, ${pyDocs ? 'python stdtypes' : 'fixture index'}\n`);
  const header = ['image', 'format', 'ours ms', 'canvas ms', 'ours/canvas', 'ours bytes', 'canvas bytes'];
  const table = rows.map((r) => [`${r.size[0]}x${r.size[1]}`, r.format, r.oursMs.toFixed(1), r.canvasMs.toFixed(1), (r.oursMs / r.canvasMs).toFixed(2), r.oursBytes, r.canvasBytes]);
  const widths = header.map((h, i) => Math.max(h.length, ...table.map((row) => String(row[i]).length)));
  const line = (cells) => cells.map((c, i) => String(c).padStart(widths[i])).join('  ');
  console.log(line(header));
  for (const row of table) console.log(line(row));
  const file = path.join(ROOT, 'out', 'bench-vision.json');
  writeFileSync(file, JSON.stringify({ runs: RUNS, markers: MARKERS, rows }, null, 2));
  console.log(`\nwritten: ${path.relative(ROOT, file)}`);
}
