// Hostile pages (tests/fixtures/hostile/hostile.js builds them at load): each is read by both
// page readers, and each read must end, with a result or an error that says what is wrong,
// within a time bound. The bounds written below are about three times what a 2-core machine
// measured alone (the figures are in each test's diagnostics; HOSTILE_FIGURES=file.json collects
// them), never below 3 s; each is applied times LOAD_SLACK, since the same machine running the
// suite beside a build measured up to 3.8x slower. A regression to quadratic work or a hang
// (minutes on these pages) still fails; load does not.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { pageSuite } from '../support/suite.mjs';

let browser, site;
const figures = [];
pageSuite((env) => ({ browser, site } = env));
after(() => {
  if (process.env.HOSTILE_FIGURES) writeFileSync(process.env.HOSTILE_FIGURES, JSON.stringify(figures, null, 1));
});

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const MB = 1024 * 1024;

/** Opens a fixture (`case=…` under /hostile/page.html, or a full path) and waits until it is built. */
async function open(query, { prefix = '', ready = true, onPage } = {}) {
  const page = await browser.context.newPage();
  onPage?.(page);
  await page.goto(site.url(`${prefix}/hostile/page.html?${query}`), { timeout: 120_000 });
  if (ready) await page.waitForSelector('#hostile-ready', { state: 'attached', timeout: 120_000 });
  return { page, tabId: await browser.tabIdOf(page) };
}

/**
 * One read through `self.sightline[how]`, timed from here (wall time). The result stays in the
 * worker (it can be tens of megabytes); this returns its size, its description and a summary
 * of its elements (all of them up to 5,000).
 */
async function read(tabId, how = 'extract', opts = {}) {
  const started = performance.now();
  const r = await browser.sw.evaluate(async ([id, how, o]) => {
    const x = await self.sightline[how](id, o);
    const facts = (e) => [e.id, e.kind, e.tag, e.content, [e.rect.x, e.rect.y, e.rect.width, e.rect.height].map(Math.round).join(','),
      e.inViewport.toFixed(2), e.occluded, e.xpath, e.xpathText ?? null];
    let longestXpath = 0;
    for (const e of x.elements) longestXpath = Math.max(longestXpath, e.xpath.length);
    return {
      bytes: JSON.stringify(x).length,
      source: x.source,
      timings: x.timings,
      title: x.title,
      description: x.description,
      count: x.elements.length,
      uniqueIds: new Set(x.elements.map((e) => e.id)).size === x.elements.length,
      longestContent: x.elements.reduce((m, e) => Math.max(m, e.content.length), 0),
      longestXpath,
      elements: x.elements.length <= 5000 ? x.elements.map(facts) : null,
    };
  }, [tabId, how, opts]);
  return { ...r, ms: performance.now() - started };
}

const contents = (r) => r.elements.map((e) => e[3]);
const withoutTitle = (description) => description.split('\n').slice(1).join('\n');

/** Bytes of WebAssembly memory the content script's core holds in the tab (0: not loaded). */
const wasmBytes = (tabId) => browser.sw.evaluate(async (id) => {
  const [frame] = await chrome.scripting.executeScript({ target: { tabId: id }, func: () => globalThis.__sightline?.memory?.() ?? null });
  return frame?.result?.wasmBytes ?? 0;
}, tabId);

/** The page's JavaScript heap in use (CDP Runtime.getHeapUsage on its target), bytes. */
async function pageHeap(page) {
  const session = await browser.context.newCDPSession(page);
  try {
    return (await session.send('Runtime.getHeapUsage')).usedSize;
  } finally {
    await session.detach().catch(() => {});
  }
}

function record(t, name, data) {
  figures.push({ name, ...data });
  t.diagnostic(`${name}: ${JSON.stringify(data)}`);
}

/** A read's figures for the record. */
const fig = (r) => ({ ms: Math.round(r.ms), source: r.source, elements: r.count, resultBytes: r.bytes, descriptionChars: r.description.length, timings: r.timings });

const LOAD_SLACK = 3;
/** A bound written for an idle machine, as applied. */
const bounded = (ms) => ms * LOAD_SLACK;

function assertWithin(r, bound, what) {
  assert.ok(r.ms < bounded(bound), `${what} took ${Math.round(r.ms)} ms; the bound is ${bounded(bound)} ms`);
}

// 1. Two hundred thousand nodes.
test('200,000 nodes: both readers finish within their bounds, the description stays small', async (t) => {
  const { page, tabId } = await open('case=nodes&n=200000');
  const built = Number(await page.locator('#hostile-ready').getAttribute('data-info'));
  assert.ok(built >= 199_000 && built <= 200_000, `the page holds ${built} nodes`);
  const heapBefore = await pageHeap(page);
  const live = await read(tabId);
  const wasm = await wasmBytes(tabId);
  const heapAfter = await pageHeap(page);
  const cdp = await read(tabId, 'extractViaCdp');
  record(t, '200k nodes', { nodes: built, live: fig(live), cdp: fig(cdp), wasmBytes: wasm, pageHeap: [heapBefore, heapAfter] });

  assert.equal(live.source, 'content-script');
  assertWithin(live, 7_000, 'the content-script read (measured 2.1 s)');
  assertWithin(cdp, 30_000, 'the CDP read (measured 9.7 s, 7.2 s of it DOMSnapshot)');
  for (const r of [live, cdp]) {
    // Every text and control is an element (about one in two nodes): the list is long, the
    // description lists only what is in view.
    assert.ok(r.count > 90_000, `${r.count} elements`);
    assert.ok(r.uniqueIds, 'ids are unique');
    assert.ok(r.description.length < 20_000, `description of ${r.description.length} chars`);
    assert.ok(r.bytes < 64 * MB, `result of ${r.bytes} bytes (measured 30.5 MB)`);
    assert.match(r.description, /\[\d+\] button "Action 1" /);
  }
  assert.equal(cdp.count, live.count, 'both readers list the same elements');
  assert.ok(wasm < 480 * MB, `the content script's WASM memory grew to ${wasm} bytes (measured 156 MB)`);
  await page.close();
});

// 2. Ten thousand levels deep. Chromium's renderer itself crashes laying out 10,000 nested
// blocks or inline spans (and at about 3,000 blocks, see crate/reader/tests/web_dom.rs), before any
// extension reads it; display:contents elements make no boxes, so the page survives at 10,000.
test('10,000-deep nesting (display:contents) and 2,500-deep blocks: read without overflow, readers agree', async (t) => {
  for (const [query, bound, measured] of [['case=deep&how=contents&depth=10000', 3_000, '0.3 s'], ['case=deep&how=div&depth=2500', 3_000, '0.55 s']]) {
    const { page, tabId } = await open(query);
    const live = await read(tabId);
    const cdp = await read(tabId, 'extractViaCdp');
    record(t, `deep ${query}`, { live: fig(live), cdp: fig(cdp), longestXpathChars: live.longestXpath });
    assert.equal(live.source, 'content-script');
    assertWithin(live, bound, `the content-script read (measured ${measured})`);
    assertWithin(cdp, bound, 'the CDP read (measured 0.2-0.5 s)');
    assert.deepEqual(cdp.elements, live.elements, 'both readers agree: ids, kinds, text, boxes, XPaths');
    const depth = Number(query.match(/depth=(\d+)/)[1]);
    assert.ok(contents(live).includes('Deepest button'), 'the button at the bottom is found');
    // Text every 500 levels, including inside display:contents elements (which have no box).
    for (let level = 500; level <= depth; level += 500) assert.ok(contents(live).includes(`Level ${level}`), `Level ${level}`);
    // An XPath names every level: long, but linear in the depth.
    assert.ok(live.longestXpath > depth * 5 && live.longestXpath < depth * 10, `longest XPath ${live.longestXpath} chars`);
    assert.ok(live.bytes < 4 * MB, `result of ${live.bytes} bytes`);
    await page.close();
  }
});

// 3. A 10 MB text node (and the same 10 MB as a textarea's value).
test('a 10 MB text node: read cut to 10,000 characters, shown as 300, never copied whole', async (t) => {
  const { page, tabId } = await open('case=bigtext&mb=10');
  assert.equal(Number(await page.locator('#hostile-ready').getAttribute('data-info')), 10 * MB);
  const live = await read(tabId);
  const wasm = await wasmBytes(tabId);
  const cdp = await read(tabId, 'extractViaCdp');
  record(t, '10 MB text', { live: fig(live), cdp: fig(cdp), wasmBytes: wasm, longestContent: live.longestContent });
  assert.equal(live.source, 'content-script');
  assertWithin(live, 3_000, 'the content-script read (measured 0.12 s; 0.38 s before reads were cut)');
  assertWithin(cdp, 3_000, 'the CDP read (measured 0.7 s)');
  for (const r of [live, cdp]) {
    assert.ok(r.description.length < 2_000, `description of ${r.description.length} chars`);
    assert.ok(r.bytes < 16_000, `result of ${r.bytes} bytes`);
    assert.ok(r.longestContent <= 301, `longest content ${r.longestContent} chars`);
    assert.ok(contents(r).includes('After the big text'));
    assert.ok(r.elements.some((e) => e[2] === 'p' && e[3].startsWith('lorem ipsum dolor')));
    assert.ok(r.elements.some((e) => e[2] === 'textarea' && e[3].startsWith('lorem ipsum dolor')), 'the field shows its value, cut');
  }
  assert.deepEqual(cdp.elements, live.elements, 'both readers agree');
  // The text never crossed into WASM whole: its memory is far below the 10 MB text.
  assert.ok(wasm < 8 * MB, `the content script's WASM memory is ${wasm} bytes (measured 1.4 MB)`);
  await page.close();
});

// 4. Fifty same-origin frames, each inside the one before.
test('50 nested same-origin frames: every frame read, readers agree', async (t) => {
  const { page, tabId } = await open('case=frames&depth=50');
  assert.equal(page.frames().length, 51);
  const live = await read(tabId);
  const cdp = await read(tabId, 'extractViaCdp');
  record(t, '50 nested frames', { live: fig(live), cdp: fig(cdp), pageHeap: await pageHeap(page), longestXpathChars: live.longestXpath });
  assert.equal(live.source, 'content-script');
  assertWithin(live, 4_000, 'the content-script read (measured 0.9 s, most of it hit-testing: up to 50 frames descended per element)');
  assertWithin(cdp, 3_000, 'the CDP read (measured 0.16 s)');
  for (let level = 0; level <= 50; level++) assert.ok(contents(live).includes(`Button at level ${level}`), `level ${level}`);
  const deepest = live.elements.find((e) => e[3] === 'Button at level 0');
  assert.equal(deepest[7].split(' >>> ').length, 51, 'its XPath crosses 50 frames');
  for (const r of [live, cdp]) assert.match(r.description, /"Button at level 0"/, 'the deepest button is in view and listed');
  assert.deepEqual(cdp.elements, live.elements, 'both readers agree');
  await page.close();
});

// 5. Open and closed shadow roots, nested both ways, with slots.
test('open and closed shadow roots, nested: every button read, readers agree', async (t) => {
  const { page, tabId } = await open('case=shadow&hosts=200');
  const live = await read(tabId);
  const cdp = await read(tabId, 'extractViaCdp');
  record(t, 'shadow roots', { live: fig(live), cdp: fig(cdp) });
  assertWithin(live, 3_000, 'the content-script read (measured 0.18 s)');
  assertWithin(cdp, 3_000, 'the CDP read (measured 0.09 s)');
  // 200 outer and 200 inner hosts, and the two nested inside a shadow tree.
  const buttons = (r) => contents(r).filter((c) => /^(open|closed) button \d+$/.test(c));
  assert.equal(buttons(live).length, 402);
  assert.deepEqual(buttons(cdp).sort(), buttons(live).sort());
  for (let i = 1; i <= 200; i++) assert.ok(contents(live).includes(`Slotted ${i}`), `slotted text ${i}`);
  assert.equal(live.elements.filter((e) => e[6]).length, 0, 'nothing covered');
  assert.equal(cdp.elements.filter((e) => e[6]).length, 0, 'nothing covered on the CDP path either (inline hosts wrap)');
  // A closed root on a <div>: chrome.dom.openOrClosedShadowRoot is asked of custom elements
  // only (the documented trade-off); DOMSnapshot sees it.
  assert.ok(!contents(live).includes('Closed root on a div'));
  assert.ok(contents(cdp).includes('Closed root on a div'));
  // Otherwise both readers see the same elements in the same places. Their ids and XPaths
  // differ for slotted light-DOM nodes: DOMSnapshot walks the flat tree, where those hang
  // under their <slot>, so the CDP reader's XPath for them goes through the slot and does not
  // resolve (reported; left alone). Elements outside slots agree in full.
  const seen = (r) => r.elements.filter((e) => e[3] !== 'Closed root on a div').map((e) => e.slice(1, 7));
  assert.deepEqual(seen(cdp), seen(live));
  const unslotted = (r) => r.elements.filter((e) => !/\/x-(open|closed)\[\d+\]\/x-|>>> \/slot|\/span\[1\]\/text/.test(e[7]) && e[3] !== 'Closed root on a div');
  assert.ok(unslotted(live).length >= 200);
  assert.deepEqual(unslotted(cdp), unslotted(live));
  await page.close();
});

// 6. A page that adds and removes nodes on every animation frame, timer tick and mutation.
test('a page that never stops mutating: every read ends with a consistent result, an action ends', async (t) => {
  const { page, tabId } = await open('case=mutating');
  const times = [];
  for (let i = 0; i < 10; i++) {
    const r = await read(tabId, i % 2 ? 'extractViaCdp' : 'extract');
    times.push(Math.round(r.ms));
    assertWithin(r, 3_000, `read ${i + 1} (measured up to 0.2 s)`);
    assert.ok(r.uniqueIds);
    for (let k = 1; k <= 10; k++) assert.ok(contents(r).includes(`Stable ${k}`), `read ${i + 1}: Stable ${k}`);
    assert.ok(contents(r).filter((c) => c.startsWith('Churn ')).length > 200, 'the churning list is read whole');
  }
  // An action waits for the DOM to be quiet, which it never is: capped, not stuck.
  const url = page.url();
  const started = performance.now();
  const run = await browser.sw.evaluate(([id, yaml]) => self.sightline.runFlow(id, yaml), [tabId, flowYaml(url, [['Stable 3', '//button[normalize-space()="Stable 3"]']])]);
  const actionMs = performance.now() - started;
  record(t, 'mutating', { readsMs: times, actionMs: Math.round(actionMs), run: run.status });
  assert.equal(run.status, 'succeeded', run.error);
  assert.ok(actionMs < bounded(10_000), `a tap on a never-quiet page took ${Math.round(actionMs)} ms (measured 3.4 s; settle caps: 3 s DOM, 5 s network)`);
  await page.close();
});

// 7. Builtins broken in the page's main world. The content script's walker runs in an isolated
// world with its own JavaScript builtins and DOM wrappers; the CDP reader runs no page script.
test('a page that breaks Array, JSON, getBoundingClientRect, Node getters…: both readers unaffected', async (t) => {
  const clean = await open('case=overrides&off=1');
  const hostile = await open('case=overrides');
  const strict = await open('case=overrides', { prefix: '/strict' });
  const baseline = await read(clean.tabId);
  const live = await read(hostile.tabId);
  const cdp = await read(hostile.tabId, 'extractViaCdp');
  const strictRead = await read(strict.tabId);
  record(t, 'broken builtins', { live: fig(live), cdp: fig(cdp), strict: fig(strictRead) });
  assert.equal(live.title, 'Ordinary page (broken builtins)', 'the page did break its builtins');
  // The page's own world really is broken.
  await assert.rejects(hostile.page.evaluate(() => [1, 2].map((x) => x)), /broken/);
  assert.equal(live.source, 'content-script');
  assert.equal(strictRead.source, 'cdp');
  for (const r of [live, cdp, strictRead]) assertWithin(r, 3_000, `${r.source} read (measured under 0.1 s)`);
  const facts = (r) => r.elements.map(([, kind, tag, content, rect, inView, occluded, xpath, xpathText]) => [kind, tag, content, rect, inView, occluded, xpath, xpathText]);
  assert.deepEqual(facts(live), facts(baseline), 'the content script reads the same as on the unbroken page');
  assert.deepEqual(facts(cdp), facts(baseline), 'so does CDP');
  assert.deepEqual(facts(strictRead), facts(baseline), 'and the CDP fallback under a strict CSP');
  assert.equal(withoutTitle(live.description), withoutTitle(baseline.description));
  assert.ok(contents(live).includes('Card button'), 'a closed shadow root, even with attachShadow broken afterwards');
  for (const p of [clean, hostile, strict]) await p.page.close();
});

// 8. Infinite scroll: every scroll near the bottom appends more.
test('infinite scroll: scrolling to the end is bounded, reads stay bounded as the page grows', async (t) => {
  const { page, tabId } = await open('case=infinite');
  const first = await read(tabId);
  const started = performance.now();
  const run = await browser.sw.evaluate((id) => self.sightline.ai(id, { type: 'aiScroll', direction: 'down', scrollType: 'untilEdge' }), tabId);
  const scrollMs = performance.now() - started;
  const items = Number((await page.title()).match(/\((\d+)\)/)[1]);
  const last = await read(tabId);
  const cdp = await read(tabId, 'extractViaCdp');
  const edgeNote = run.steps.map((s) => s.note).filter(Boolean).join('; ');
  record(t, 'infinite scroll', { first: fig(first), scrollMs: Math.round(scrollMs), steps: run.steps.length, items, after: fig(last), cdp: fig(cdp), note: edgeNote });
  assert.equal(run.status, 'succeeded', run.error);
  // "To the end" has no end here: the task stops after its most steps (25), not for ever.
  assert.ok(scrollMs < bounded(60_000), `scrolling "to the end" took ${Math.round(scrollMs)} ms (measured about 20 s)`);
  assert.ok(items > 300, `the feed grew to ${items} items`);
  assert.ok(last.count > first.count * 5);
  assertWithin(last, 3_000, 'a read of the grown page');
  assertWithin(cdp, 3_000, 'a CDP read of the grown page');
  const shown = [...last.description.matchAll(/"Like (\d+)"/g)].map((m) => Number(m[1]));
  assert.ok(Math.max(...shown) > items - 90, `the view is near the new bottom (shows up to Like ${Math.max(...shown)} of ${items})`);
  await page.close();
});

function flowYaml(url, taps) {
  const steps = taps.map(([label, xpath]) => `      - aiTap: the ${label} button\n        xpath: '${xpath}'\n`).join('');
  return `web:\n  url: ${url}\ntasks:\n  - name: taps\n    flow:\n${steps}`;
}

// 9. alert / confirm / prompt / beforeunload. They block the page, and with it every read and
// every input command, until answered. Playwright (attached to every page) would dismiss them
// itself unless the page has a 'dialog' listener: these tests add one that does nothing, so
// only Sightline can answer. A run asks the person about confirm, prompt and beforeunload
// unless told how to answer (tests/e2e/dialogs.test.mjs): these runs are told.
test('dialogs opened by actions are answered as the run is told: alert OK, confirm OK, prompt OK, beforeunload Leave', async (t) => {
  const seen = [];
  const { page, tabId } = await open('case=dialogs', { onPage: (p) => p.on('dialog', (d) => seen.push(d.type())) });
  const url = page.url();
  await read(tabId); // reading attaches; dialogs opening from now on are reported
  // A dialog that opens while Sightline is idle is left to the person until Sightline next needs the tab.
  const shown = page.waitForEvent('dialog');
  await page.evaluate(() => setTimeout(() => { alert('Later'); window.dialogLog = [...(window.dialogLog ?? []), 'later:returned']; }, 50));
  await shown;
  const pending = await read(tabId);
  assertWithin(pending, 3_000, 'a read while an alert is open (measured 16 ms)');
  const started = performance.now();
  const run = await browser.sw.evaluate(([id, yaml]) => self.sightline.runFlow(id, yaml, { dialogs: 'accept' }), [tabId, flowYaml(url, [
    ['Alert', '//button[normalize-space()="Alert"]'],
    ['Confirm', '//button[normalize-space()="Confirm"]'],
    ['Prompt', '//button[normalize-space()="Prompt"]'],
    ['Arm leaving', '//button[normalize-space()="Arm leaving"]'],
    ['Leave', '//a[normalize-space()="Leave this page"]'],
  ])]);
  const flowMs = performance.now() - started;
  record(t, 'dialogs in actions', { pendingReadMs: Math.round(pending.ms), flowMs: Math.round(flowMs), dialogs: seen, run: run.status });
  assert.equal(run.status, 'succeeded', run.error);
  assert.ok(flowMs < bounded(20_000), `five taps, four dialogs: ${Math.round(flowMs)} ms (measured 1.7 s)`);
  assert.deepEqual(seen, ['alert', 'alert', 'confirm', 'prompt', 'beforeunload']);
  assert.match(run.steps.at(-1).note ?? '', /navigated to .*other\.html/, 'leaving was accepted');
  assert.match(page.url(), /other\.html$/);
  await page.goBack();
  await page.close();
});

test('what the page answered: accept gives confirm true and the prompt its default, dismiss confirm false and prompt null', async () => {
  for (const [dialogs, log, button] of [
    ['accept', ['alert:returned', 'confirm:true', 'prompt:"Ada"'], 'OK'],
    ['dismiss', ['alert:returned', 'confirm:false', 'prompt:null'], 'Cancel'],
  ]) {
    const { page, tabId } = await open(`case=dialogs&answer=${dialogs}`, { onPage: (p) => p.on('dialog', () => {}) });
    const url = page.url();
    const run = await browser.sw.evaluate(([id, yaml, d]) => self.sightline.runFlow(id, yaml, { dialogs: d }), [tabId, flowYaml(url, [
      ['Alert', '//button[normalize-space()="Alert"]'],
      ['Confirm', '//button[normalize-space()="Confirm"]'],
      ['Prompt', '//button[normalize-space()="Prompt"]'],
    ]), dialogs]);
    assert.equal(run.status, 'succeeded', run.error);
    assert.deepEqual(await page.evaluate(() => window.dialogLog), log);
    const notes = run.steps.map((s) => s.note ?? '').join('\n');
    assert.match(notes, /answered the page's alert dialog “[^”]+” with OK/, notes);
    assert.match(notes, new RegExp(`answered the page's confirm dialog “[^”]+” with ${button}`), notes);
    assert.match(notes, new RegExp(`answered the page's prompt dialog “[^”]+” with ${button}`), notes);
    await page.close();
  }
});

test('while the person records their steps, their dialogs are theirs to answer', async () => {
  const { page, tabId } = await open('case=dialogs', {
    // The person takes a moment, then presses Cancel.
    onPage: (p) => p.on('dialog', (d) => sleep(1500).then(() => d.dismiss()).catch(() => {})),
  });
  await read(tabId); // attached: Sightline would see the dialog
  await browser.sw.evaluate((id) => self.sightline.startRecording(id), tabId);
  await page.click('text=Confirm');
  const recorded = await browser.sw.evaluate((id) => self.sightline.stopRecording(id), tabId);
  assert.deepEqual(await page.evaluate(() => window.dialogLog), ['confirm:false'], 'the person’s Cancel, not Sightline’s OK');
  assert.ok(recorded.steps.some((s) => s.action?.includes?.('Confirm') || JSON.stringify(s).includes('Confirm')), 'the tap is recorded');
  await page.close();
});

test('a dialog open before Sightline attached blocks the page: the read fails saying so, within its deadline', async (t) => {
  let dialog;
  const { page, tabId } = await open('case=dialogs&alertOnLoad=1', { ready: false, onPage: (p) => p.on('dialog', (d) => { dialog = d; }) });
  while (!dialog) await sleep(50);
  const started = performance.now();
  const error = await browser.sw.evaluate((id) => self.sightline.extract(id, {}).then(() => null, (e) => e.message), tabId);
  const ms = performance.now() - started;
  record(t, 'dialog before attach', { ms: Math.round(ms), error });
  assert.match(error ?? '', /not responding.*dialog \(alert, confirm, prompt\)/);
  assert.ok(ms > 25_000 && ms < 40_000, `failed after ${Math.round(ms)} ms (deadline 30 s)`);
  // A run's observation as well: its capture, which CDP holds back while the dialog is up, fails
  // with the read, and the run ends saying why instead of waiting for it.
  const runStarted = performance.now();
  const flowRun = browser.sw.evaluate(([id, yaml]) => self.sightline.runFlow(id, yaml), [tabId, flowYaml(page.url(), [['Confirm', '//button[normalize-space()="Confirm"]']])]);
  // Bounded here: a run that never ends (it once waited for the console watch the dialog holds up) fails readably.
  const run = await Promise.race([flowRun, sleep(90_000).then(() => ({ status: 'still running after 90 s' }))]);
  const runMs = performance.now() - runStarted;
  record(t, 'dialog before attach, a run', { ms: Math.round(runMs), status: run.status, error: run.error });
  assert.equal(run.status, 'failed');
  assert.match(JSON.stringify(run.error), /not responding.*dialog \(alert, confirm, prompt\)/);
  assert.ok(runMs < 45_000, `the run failed after ${Math.round(runMs)} ms (the read's deadline: 30 s)`);
  await dialog.dismiss();
  // Closed by the person: the page reads again.
  const after = await read(tabId);
  assertWithin(after, 5_000, 'the next read');
  await page.close();
});

// 10. Trusted Types: the page may assign no string to an HTML or script sink. Nothing the
// content script or the worker does in the page uses such a sink (no innerHTML, no injected
// script: markers are drawn on the screenshot, not the page).
test('strict CSP with Trusted Types: read through CDP, or by the content script where WASM is allowed; actions work', async (t) => {
  const tt = await open('case=tt', { prefix: '/trusted' });
  const ttWasm = await open('case=tt', { prefix: '/trusted-wasm' });
  // The page's own check (an innerHTML string assignment) was refused: the policy is in force.
  assert.match(await tt.page.locator('#tt-status').textContent(), /Trusted Types enforced/);
  assert.match(await ttWasm.page.locator('#tt-status').textContent(), /Trusted Types enforced/);
  // From here on, any violation is ours.
  const violations = [];
  for (const p of [tt.page, ttWasm.page]) p.on('console', (m) => /trusted|content security policy/i.test(m.text()) && violations.push(m.text()));
  const viaCdp = await read(tt.tabId);
  const live = await read(ttWasm.tabId);
  const liveCdp = await read(ttWasm.tabId, 'extractViaCdp');
  record(t, 'trusted types', { fallback: fig(viaCdp), live: fig(live) });
  assert.equal(viaCdp.source, 'cdp', 'WASM refused: the worker reads through CDP');
  assert.equal(live.source, 'content-script', 'WASM allowed: the content script reads under Trusted Types');
  for (const r of [viaCdp, live]) {
    assertWithin(r, 3_000, `${r.source} read (measured under 0.1 s)`);
    for (const c of ['Trusted Types page', 'Go', 'Help', 'Shadow go']) assert.ok(contents(r).includes(c), `${c} (${r.source})`);
  }
  assert.deepEqual(liveCdp.elements, live.elements, 'both readers agree under Trusted Types');
  // An action, and recording the person's steps (content-script listeners), on the strict page.
  const run = await browser.sw.evaluate(([id, yaml]) => self.sightline.runFlow(id, yaml), [tt.tabId, flowYaml(tt.page.url(), [['Go', '//button[normalize-space()="Go"]']])]);
  assert.equal(run.status, 'succeeded', run.error);
  await browser.sw.evaluate((id) => self.sightline.startRecording(id), ttWasm.tabId);
  await ttWasm.page.click('text=Go');
  const recorded = await browser.sw.evaluate((id) => self.sightline.stopRecording(id), ttWasm.tabId);
  assert.ok(recorded.steps.length >= 1, 'the tap is recorded');
  assert.deepEqual(violations, [], 'no Trusted Types or CSP violation reported');
  await tt.page.close();
  await ttWasm.page.close();
});
