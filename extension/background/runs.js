// Run lifecycle: start, stop, keep the worker alive, persist every step, tell the panel.
// The loop itself is Rust (runInstruction); this file gives it a host for one tab.
import { keepCacheRecord, loadCache } from './cache.js';
import {
  answerDialog, cdp, chooseFiles, consoleSince, detach, focusedField, holdDialogs, takeDialogs, unwatchConsole, watchConsole,
} from './debugger.js';
import { assertUsable, choose, locatorData, read, readUsable, restriction, reveal, setRecording, settle, shoot, shootUsable, tabLoaded } from './page.js';
import { getSettings, overlayModel } from './settings.js';
import { resolveLanguage } from '../shared/i18n.js';
import { allRuns, getImages, getRun, pruneRuns, putImage, putRun } from './store.js';
import { absorb, holdStored, untoldChanges } from './records.js';
import { core } from './wasm.js';

/** How many runs the history keeps (Settings), at least 1. */
async function keepRuns() {
  const n = Math.round(Number((await getSettings()).ui.historyLimit));
  return Number.isFinite(n) ? Math.max(1, n) : 50;
}
const active = new Map(); // run id → { controller, tabId, latest }
let keepAlive = null;

/** Chrome stops an idle worker after ~30 s; an extension API call every 20 s resets that clock. */
function updateKeepAlive() {
  if (active.size && !keepAlive) keepAlive = setInterval(() => chrome.runtime.getPlatformInfo(), 20_000);
  if (!active.size && keepAlive) {
    clearInterval(keepAlive);
    keepAlive = null;
  }
}

let saving = Promise.resolve();
function saveRun(run) {
  // In order, so a late write of an older report cannot land over a newer one.
  saving = saving.then(() => putRun(run)).catch((e) => console.error('saving the run failed', e));
  return saving;
}

/** The run without the prompts it sent (long, and only the report and the step details need them). */
export function lean(run) {
  return { ...run, steps: leanSteps(run.steps) };
}

/** The steps without the prompts they sent (long, and only the report and the step details need them). */
function leanSteps(steps) {
  return steps.map(({ exchange, ...step }) => (exchange ? { ...step, reply: exchange.reply } : step));
}

/** Tells the panel what changed in `run` since it was last told: the head and the new or changed steps. */
function broadcast(run) {
  const changes = untoldChanges(run, leanSteps);
  chrome.runtime.sendMessage({ type: 'sightline/run-update', changes }).catch(() => {}); // no panel open
}

function broadcastText(runId, text) {
  chrome.runtime.sendMessage({ type: 'sightline/run-text', runId, text }).catch(() => {});
}

/** Calls `fn` with the latest arguments at most once per `ms`, always delivering the last. */
function throttle(fn, ms) {
  let last = 0;
  let timer = null;
  let pending = null;
  return (...args) => {
    pending = args;
    const wait = last + ms - Date.now();
    if (wait <= 0) {
      last = Date.now();
      fn(...pending);
    } else if (!timer) {
      timer = setTimeout(() => {
        timer = null;
        last = Date.now();
        fn(...pending);
      }, wait);
    }
  };
}

// A tab opened by the tab a run is acting on (a target=_blank link, window.open).
chrome.tabs.onCreated.addListener((tab) => {
  for (const entry of active.values()) if (tab.openerTabId === entry.tabId) entry.opened = tab.id;
});
// A new document in the top frame of a run's tab: a navigation even where the address stays the same.
chrome.webNavigation.onCommitted.addListener(({ tabId, frameId }) => {
  if (frameId !== 0) return;
  for (const entry of active.values()) if (entry.tabId === tabId) entry.loaded = true;
});

/** Every kept run, newest first, without the prompts they sent. */
export async function listRuns() {
  await saving;
  return (await allRuns()).map(lean);
}

/** One run in full: every step's model call included. */
export async function fullRun(id) {
  await saving;
  return getRun(id);
}

/** The screenshots a run (JSON text) refers to, as JSON text `{ref: dataUrl}`. */
async function imagesOf(wasm, runJson) {
  return JSON.stringify(await getImages(wasm.trajectoryReferences(runJson)));
}

/**
 * `imagesOf` for a core that reads the pixels (the report, the GIF, naming a recording's elements
 * from their screenshots): each kept JPEG the core names (`browserDecodes`: the model's images
 * with Settings' JPEG format, a loaded trajectory's) as the browser's PNG of it, for the module
 * carries no JPEG decoder. One that does not decode stays as it is, and the core leaves it out
 * as it does any unreadable image.
 */
async function decodedImagesOf(wasm, runJson) {
  const images = await getImages(wasm.trajectoryReferences(runJson));
  await Promise.all(Object.entries(images).filter(([, url]) => wasm.browserDecodes(url)).map(async ([ref, url]) => {
    images[ref] = await pngOf(url).catch(() => url);
  }));
  return JSON.stringify(images);
}

/** An image data URL drawn on a canvas and read back as a PNG data URL. */
async function pngOf(url) {
  const bitmap = await createImageBitmap(await (await fetch(url)).blob());
  const canvas = new OffscreenCanvas(bitmap.width, bitmap.height);
  canvas.getContext('2d').drawImage(bitmap, 0, 0);
  bitmap.close();
  const png = await canvas.convertToBlob({ type: 'image/png' });
  return new Promise((resolve, reject) => {
    const reader = new FileReader();
    reader.onload = () => resolve(reader.result);
    reader.onerror = () => reject(reader.error);
    reader.readAsDataURL(png);
  });
}

/** A run and its screenshots as a trajectory file (JSON text). */
export async function saveTrajectory(id) {
  const run = await fullRun(id);
  if (!run) throw new Error(`there is no run ${id}: it may have been deleted as one of the oldest`);
  const wasm = await core();
  const text = JSON.stringify(run);
  return wasm.saveTrajectory(text, await imagesOf(wasm, text));
}

/**
 * A kept run written for another tool (`format`: midscene-yaml, playwright, recorder, report,
 * gif):
 * `{text, filename, mime}`. The viewport is `opts.viewport`, else the size of the run's tab.
 */
export async function exportRun(id, format, opts = {}) {
  const run = await fullRun(id);
  if (!run) throw new Error(`there is no run ${id}: it may have been deleted as one of the oldest`);
  const wasm = await core();
  const kind = wasm.exportFormat(format); // the core's table: its file ending, type, whether it draws the screenshots
  // A tab id Chrome cannot take (none: -1) would throw before any catch.
  const tab = Number.isInteger(run.tabId) && run.tabId >= 0 ? await chrome.tabs.get(run.tabId).catch(() => null) : null;
  const viewport = opts.viewport ?? (tab?.width && tab?.height ? { width: tab.width, height: tab.height } : undefined);
  const json = JSON.stringify(run);
  const images = kind.images ? await decodedImagesOf(wasm, json) : undefined;
  const text = wasm.exportRun(json, format, viewport, images);
  const stamp = new Date(run.startedMs).toISOString().slice(0, 19).replace(/[:T]/g, '-');
  return { text, filename: `sightline-${stamp}.${kind.ending}`, mime: kind.mime };
}

/** Keeps a trajectory file's run and screenshots; resolves to the run (its images stored). */
export async function loadTrajectory(json) {
  // A run saved mid-run comes back stopped (the core's decision): nothing drives it here.
  const { run, images } = (await core()).loadTrajectory(typeof json === 'string' ? json : JSON.stringify(json));
  await Promise.all(Object.entries(images).map(([ref, url]) => putImage(ref, url)));
  await saveRun(run);
  await pruneRuns(await keepRuns());
  return run;
}

/**
 * Runs a kept run again (by id, or a trajectory file's JSON): its steps first, without the
 * model, where their targets still match; the model takes over where one does not.
 */
export async function replayRun(tabId, source, opts = {}) {
  const run = typeof source === 'string' && !source.trimStart().startsWith('{') ? await fullRun(source) : await loadTrajectory(source);
  if (!run) throw new Error(`there is no run ${source}`);
  const wasm = await core();
  const replay = wasm.replayCache(JSON.stringify(run));
  const tab = await chrome.tabs.get(tabId);
  if (run.url && wasm.pageKey(tab.url ?? '') !== wasm.pageKey(run.url)) {
    // The steps belong to the run's page: start where it started, if a run may open it.
    wasm.checkOpen(run.url, opts.allowedSites ?? (await getSettings()).run.allowedSites ?? []);
    await chrome.tabs.update(tabId, { url: run.url });
    await tabLoaded(tabId, 30_000);
    await settle(tabId);
  }
  // Upload paths in a saved run are the file's, not typed by the person: they need an Allow.
  return startRun(tabId, run.flow ? { flow: run.flow.flow } : (run.task ?? run.instruction), { ...opts, replay, typedUploads: false });
}

/**
 * Runs a flow file (Midscene YAML text) on `tabId` as one run, its XPaths and the cache
 * first, the model where they miss. An absolute `web.url` is opened first unless the tab is
 * on that page already; only an http(s) address on the allowed sites is. Throws saying what
 * is wrong with the file before anything runs. opts.flowXpaths === false: every element found
 * by its description (a live run); opts.dialogs overrides the file's `web.dialogs`.
 */
export async function startFlow(tabId, yaml, opts = {}) {
  const flow = (await core()).parseFlow(String(yaml ?? ''));
  if (flow.url && /^[a-z][a-z0-9+.-]*:/i.test(flow.url)) {
    (await core()).checkOpen(flow.url, opts.allowedSites ?? (await getSettings()).run.allowedSites ?? []);
    const tab = await chrome.tabs.get(tabId);
    if ((await core()).pageKey(tab.url ?? '') !== (await core()).pageKey(flow.url)) {
      await chrome.tabs.update(tabId, { url: flow.url });
      await tabLoaded(tabId, 30_000);
      await settle(tabId);
    }
  }
  return startRun(tabId, { flow }, { ...opts, typedUploads: false });
}


/**
 * Starts a run: `request` is an instruction (the planning loop), a task object
 * (`{type: "aiTap", locate}`, `{type: "aiQuery", demand}`, …) or a flow (`{flow}`, the
 * flow as `parseFlow` reads it). Resolves at once to
 * { runId, done }, where `done` resolves to the final record.
 * opts.model overrides the stored endpoint; opts.maxRounds etc. override run settings.
 * opts.dialogs ("ask" | "accept" | "dismiss"): how the page's dialogs during actions are
 * answered. opts.typedUploads: upload paths were given by the person or the caller, not read
 * from a file (those need the person's Allow, or lie in opts.uploadDir).
 */
export async function startRun(tabId, request, opts = {}) {
  // An instruction may start on a blank or new-tab page: it opens an address first. An agent's
  // move of the browser (opts.session.anyPage) goes from any page: it reads none.
  const tab = opts.session?.anyPage ? await chrome.tabs.get(tabId)
    : typeof request === 'string' ? await usableOrStartPage(tabId) : await assertUsable(tabId);
  const settings = await getSettings();
  const model = overlayModel(settings.model, opts.model);
  const options = await runOptions(settings, opts);
  const wasm = await core();
  // An agent's call (opts.session: {runId, plan}) adds its steps to the agent session's run.
  const id = opts.session?.runId ?? crypto.randomUUID();
  const controller = new AbortController();
  // The run follows its tab: a link that opens a new tab moves it there (entry.tabId).
  const entry = {
    controller, tabId, title: tab.title, tabs: new Set([tabId]), opened: null, loaded: false, switched: false, settled: true, images: 0,
  };
  /** The tab the run acts on now, for its record (`url`: where it started, until the core reads the page). */
  const tabFacts = () => ({ id: entry.tabId, title: entry.title ?? '', url: tab.url ?? '' });
  active.set(id, entry);
  updateKeepAlive();
  // What the page reports while the run acts (console errors, failed requests) goes on its steps.
  // Not waited for before the run starts: the first observation's read and capture wait only
  // for the attachment the watch starts with (they share it), not for its Runtime and Log
  // domains, which wait for the page's main thread; any input waits for it (`beforeInput`).
  // Until the watch has its place (`consoleAt`), there is nothing after it to report: what the
  // page said before is replayed to the watch and falls before that place.
  entry.consoleAt = null;
  const watching = watchConsole(tabId, id).catch(() => 0).then((at) => {
    entry.consoleAt ??= at; // unless a tab the run followed has its own place already
  });

  /**
   * What `settle` reports against, taken at the first input after a settle (an action's
   * commands may come in parts): the address before it; no document loaded, no tab opened yet.
   * No input goes before the console watch has its place: what the page reports in answer to
   * the run's own input is always after it.
   */
  const beforeInput = async () => {
    await watching;
    if (!entry.settled) return;
    entry.settled = false;
    entry.urlBefore = (await chrome.tabs.get(entry.tabId).catch(() => null))?.url ?? '';
    entry.opened = null;
    entry.loaded = false;
    entry.switched = false;
  };
  /** The run follows tab `next` from now on (opened, switched to, or left after a close). */
  const follow = async (next) => {
    entry.tabId = next;
    entry.tabs.add(next);
    entry.switched = true;
    holdDialogs(next, take);
    await chrome.tabs.update(next, { active: true }).catch(() => {});
  };
  /**
   * Waits for the page, following a tab the input opened: `{urlBefore, url, loaded, followedTab}`
   * (the core decides what that means for the run).
   */
  const settleAndFollow = async () => {
    await settle(entry.tabId);
    let followedTab = false;
    if (entry.opened != null) {
      const next = entry.opened;
      entry.opened = null;
      await tabLoaded(next, 10_000);
      const opened = await assertUsable(next).catch(() => null);
      if (opened) {
        entry.tabId = next;
        entry.tabs.add(next);
        entry.consoleAt = await watchConsole(next, id).catch(() => 0);
        holdDialogs(next, take);
        await chrome.tabs.update(next, { active: true }).catch(() => {});
        await settle(next);
        followedTab = true;
      }
    }
    const now = await chrome.tabs.get(entry.tabId).catch(() => null);
    if (now) entry.title = now.title;
    return { urlBefore: entry.urlBefore ?? '', url: now?.url ?? '', loaded: entry.loaded, followedTab: followedTab || entry.switched };
  };
  // The page's dialogs during an action are the core's to answer. The input or wait a dialog
  // interrupts resolves early (`acting`); its work goes on once the dialog is answered.
  const held = { dialog: null, work: null, wake: null };
  const take = (dialog) => {
    if (!held.work || held.dialog) return false; // not during an action: debugger.js answers it
    held.dialog = dialog;
    held.wake?.();
    return true;
  };
  holdDialogs(tabId, take);
  /** Resolves to the held work's value once it is done, or to null as soon as a dialog is held. */
  const untilDoneOrDialog = () => new Promise((resolve, reject) => {
    const work = held.work;
    if (!work || held.dialog) return resolve(null);
    held.wake = () => resolve(null);
    work.then(resolve, reject);
  });
  const acting = (start) => {
    // Held before it starts: a dialog already open is offered to `take` as the work begins.
    const work = Promise.resolve().then(start).finally(() => { if (held.work === work) held.work = null; });
    work.catch(() => {}); // its error reaches whoever waits on it
    held.work = work;
    return untilDoneOrDialog();
  };
  const host = {
    /**
     * The page as the browser gives it, `{page, shot}`, each a promise (shot: null when no
     * screenshot is wanted) that the core awaits and decodes once; or `{unreadable}`.
     * `opts`: how much of the page to read, as the core decided (`Reach`).
     */
    async observe(opts) {
      // A page no extension may read: the core decides (a start page is an empty page).
      const now = await chrome.tabs.get(entry.tabId).catch(() => null);
      if (!now) throw new Error(`tab ${entry.tabId} no longer exists`);
      const url = now.url || now.pendingUrl || '';
      const restricted = await restriction(url);
      if (restricted) return { unreadable: { url, title: now.title ?? '', reason: restricted.reason } };
      // The reading and the capture at once: each waits mostly on the page's process, and the
      // page has settled before any observation, so the markers drawn from this reading fit.
      // The capture is asked for first: its metrics wait for the page's main thread, which
      // the read then occupies.
      // The tab was found usable above: neither asks chrome.tabs for it again.
      // Handed over unsettled: the core decodes the capture while the read goes on.
      // `screenshot: false`: the core only aims (`Reach::Aiming`); the reader gets the rest, so
      // a page unchanged since the step's read is answered from its kept reading.
      const { screenshot, ...reading } = opts ?? {};
      const shooting = options.includeScreenshot === false || screenshot === false ? null : shootUsable(entry.tabId);
      const page = readUsable(entry.tabId, reading, { besideCapture: shooting != null });
      // The core awaits the capture first. A read that fails fails the capture too, as one
      // observation: its error (and advice) reaches the run at once, and a capture held up by
      // what made the read fail (a dialog over the page) cannot keep the run waiting.
      const shot = shooting && Promise.race([shooting, page.then(() => shooting)]);
      // Whichever fails, the core hears of it through the one it awaits: the other is not news.
      for (const p of [page, shot]) p?.catch(() => {});
      return { page, shot };
    },
    async dispatch(commands) {
      await beforeInput();
      const tabId = entry.tabId;
      await acting(async () => {
        for (const { method, params } of commands) await cdp(tabId, method, params);
      });
    },
    async chooseFiles(click, files) {
      await beforeInput();
      const tabId = entry.tabId;
      await acting(() => chooseFiles(tabId, click, files));
    },
    /** Waits for the page: what happened since the input (`Settled`), dialogs answered on the tab it left included. */
    async settle() {
      const acted = entry.tabId;
      const settled = await acting(settleAndFollow);
      // Cut short by a dialog the core must answer: what is known so far. The input is not
      // over yet: once the dialog is answered, the core settles again against the same start.
      if (settled) entry.settled = true;
      const now = settled ?? {
        urlBefore: entry.urlBefore ?? '', url: (await chrome.tabs.get(entry.tabId).catch(() => null))?.url ?? '', loaded: entry.loaded, followedTab: false,
      };
      const dialogs = (await Promise.all([...new Set([acted, entry.tabId])].map((t) => takeDialogs(t)))).flat()
        .map(({ type, message, accepted }) => ({ type, message: String(message ?? ''), accepted }));
      return { ...now, dialogs };
    },
    focusedField: (selectors) => focusedField(entry.tabId, selectors),
    /** The dialog holding up the action, for the core to decide on: `{type, message, defaultPrompt, url}`. */
    openDialog() {
      const d = held.dialog;
      return d && { type: d.type, message: d.message.slice(0, 2000), defaultPrompt: d.defaultPrompt.slice(0, 2000), url: d.url };
    },
    /** The core's answer to the held dialog; resolves once the interrupted work is done or another dialog opens. */
    async answerDialog(accept, promptText) {
      const dialog = held.dialog;
      held.dialog = null;
      if (dialog) await answerDialog(dialog, accept, promptText ?? undefined);
      await untilDoneOrDialog();
    },
    async reveal(element) {
      await watching; // it scrolls: what the page says to that is the run's, as after an input
      return reveal(entry.tabId, element);
    },
    /** What the core decides the element's locators from (`LocatorData`), or null. */
    locatorData: (xpath, textCheck) => locatorData(entry.tabId, xpath, textCheck),
    async choose(element, index) {
      await beforeInput();
      return choose(entry.tabId, element, index);
    },
    /**
     * The tabs of the run's window: `[{id, title, url, current, opener, followed}]` (`followed`:
     * the order in which the run went on it, null for a tab it has not been on).
     */
    async tabs() {
      const now = await chrome.tabs.get(entry.tabId).catch(() => null);
      if (!now) return [];
      const followed = [...entry.tabs];
      return (await chrome.tabs.query({ windowId: now.windowId })).map((t) => ({
        id: t.id,
        title: t.title ?? '',
        url: t.url || t.pendingUrl || '',
        current: t.id === entry.tabId,
        opener: t.openerTabId ?? null,
        followed: followed.includes(t.id) ? followed.indexOf(t.id) : null,
      }));
    },
    /**
     * Where a step back or forward in the tab's history, or a reload, would go (`Go`): the
     * address of that entry of the tab's history, or null when the browser does not say.
     */
    async historyTarget(to) {
      const history = await cdp(entry.tabId, 'Page.getNavigationHistory').catch(() => null);
      if (!history?.entries) return null;
      const step = { back: -1, forward: 1 }[to.kind] ?? 0;
      return history.entries[history.currentIndex + step]?.url ?? null;
    },
    /** Goes where the core decided (`Go`), with chrome.tabs; the next settle reports where the run is. */
    async go(to) {
      await beforeInput();
      const tabId = entry.tabId;
      const committed = () => new Promise((resolve) => {
        const done = () => {
          clearTimeout(timer);
          chrome.webNavigation.onCommitted.removeListener(onCommitted);
          resolve();
        };
        const onCommitted = (d) => d.tabId === tabId && d.frameId === 0 && done();
        const timer = setTimeout(done, 10_000);
        chrome.webNavigation.onCommitted.addListener(onCommitted);
      });
      switch (to.kind) {
        case 'address': {
          const loaded = committed();
          await chrome.tabs.update(tabId, { url: to.url });
          await loaded;
          break;
        }
        case 'back': case 'forward': case 'reload': {
          const loaded = committed();
          if (to.kind === 'back') await chrome.tabs.goBack(tabId);
          else if (to.kind === 'forward') await chrome.tabs.goForward(tabId);
          else await chrome.tabs.reload(tabId);
          await loaded;
          break;
        }
        case 'openTab': {
          const from = await chrome.tabs.get(tabId);
          const opened = await chrome.tabs.create({ url: to.url, windowId: from.windowId, openerTabId: tabId, active: true });
          await follow(opened.id);
          await tabLoaded(opened.id, 30_000);
          break;
        }
        case 'switchTab': {
          const target = await chrome.tabs.get(to.tab).catch(() => null);
          if (!target) throw new Error(`there is no tab ${to.tab} any more`);
          await follow(target.id);
          break;
        }
        case 'closeOtherTab': {
          // Another tab of the window: an agent's `tabs close`, or the one the run was on once
          // the core has moved it to the tab it chose (its close of the run's tab).
          if (to.tab === tabId) throw new Error('that is the tab the run is on');
          await chrome.tabs.remove(to.tab);
          entry.tabs.delete(to.tab);
          break;
        }
        default:
          throw new Error(`unknown move ${to.kind}`);
      }
    },
    wait: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
    // The question is on the run record (reported just before); the panel answers with answerRun.
    // opts.interactive === false: nobody will answer, the core then does what it says it does.
    ask: (question) => (opts.interactive === false || controller.signal.aborted ? Promise.resolve(null) : new Promise((resolve) => {
      entry.asking = question;
      entry.answer = (answer) => {
        entry.asking = null;
        entry.answer = null;
        resolve(answer);
      };
      controller.signal.addEventListener('abort', () => entry.answer?.(null), { once: true });
    })),
    // The model's reply while it streams: for the panel only, at most ~8 updates a second.
    modelText: throttle((text) => broadcastText(id, text), 120),
    remember: (record) => keepCacheRecord(record).catch((e) => console.error('keeping a cache entry failed', e)),
    keepImage(dataUrl) {
      const ref = `${id}/${entry.images++}`;
      putImage(ref, dataUrl).catch((e) => console.error('keeping a screenshot failed', e));
      return ref;
    },
    /** What the run's tab reported since the last report, for the step just recorded. */
    takeConsole() {
      if (entry.consoleAt == null) return []; // the watch has not started yet
      const { entries, next } = consoleSince(entry.tabId, entry.consoleAt);
      entry.consoleAt = next;
      return entries;
    },
    stopRequested: () => controller.signal.aborted,
    stopSignal: () => controller.signal,
    tab: tabFacts,
    /** The record's changes, as the core holds it: applied, stored and shown as is. */
    report(changes) {
      const run = absorb(changes);
      saveRun(run);
      broadcast(run);
      opts.onReport?.(run);
    },
  };
  const release = async () => {
    // A watch still attaching would leave the tab attached after the run: waited for, but not
    // past 2 s. Its Runtime and Log domains never answer while a dialog holds the page (the
    // run failed saying so), and the detach below ends them.
    await Promise.race([watching, new Promise((resolve) => setTimeout(resolve, 2000))]);
    active.delete(id);
    updateKeepAlive();
    for (const t of entry.tabs) holdDialogs(t, null, take);
    if (held.dialog) await answerDialog(held.dialog, false); // the core ended without answering it
    for (const t of entry.tabs) {
      await unwatchConsole(t, id, true);
      // Not waited for: the run's caller has its record a few ms sooner (the next attachment
      // to the tab waits for this detachment).
      if (![...active.values()].some((r) => r.tabs.has(t))) detach(t);
    }
  };
  if (opts.session) {
    // Resolves to the call's answer ({ok, text, result, error, tab}); the session's run stays open.
    const done = wasm.agentCall({ runId: id, call: opts.session.call, model, options }, host).finally(release);
    return { runId: id, done };
  }

  const work = typeof request === 'string'
    ? wasm.runInstruction({ id, instruction: request, model, options }, host)
    : request?.flow
      ? wasm.runFlow({ id, flow: request.flow, model, options }, host)
      : wasm.runTask({ id, task: request, model, options }, host);
  const title = typeof request === 'string' ? request : request?.flow ? 'flow' : String(request?.type);
  const done = work
    // A rejection from the core (bad arguments) still ends as a readable, kept record, with the code the core gave.
    .catch((e) => wasm.failedRun(id, title, tabFacts(), String(e?.code ?? 'internal'), String(e?.message ?? e)))
    .then((changes) => {
      const run = absorb(changes);
      // Stored and pruned after the caller has the record, not before: the store is written in
      // order (`saving`) and whoever reads it (listRuns, fullRun) waits for those writes first.
      // A screenshot's write ahead of it held the end of each step up by tens of ms.
      saveRun(run);
      saving = saving.then(async () => pruneRuns(await keepRuns())).catch((e) => console.error('pruning old runs failed', e));
      broadcast(run);
      return run;
    })
    .finally(release);
  return { runId: id, done };
}

/** The tab, when a run may start on it: a page Sightline can use, or a blank or new-tab page. */
async function usableOrStartPage(tabId) {
  const tab = await chrome.tabs.get(tabId).catch(() => null);
  if (tab && (await core()).isStartPage(tab.url || tab.pendingUrl || '')) return tab;
  return assertUsable(tabId);
}

/**
 * The run options a run gets: the stored ones, with `opts` (the caller's) over them. Also what
 * an agent's snapshot is screened with (allowed sites, secrets, image settings).
 */
export async function runOptions(settings, opts = {}) {
  const options = { ...settings.run, ...pick(opts, ['maxRounds', 'maxFailures', 'includeScreenshot', 'includeDescription', 'flowXpaths', 'dialogs', 'uploadDir', 'context']) };
  options.typedUploads = opts.typedUploads === true;
  // The core writes the run's captions, notes and errors in the person's language.
  options.language = resolveLanguage(opts.language ?? settings.ui.language);
  if (settings.prices) options.prices = settings.prices;
  // A caller's own (the headless runner's, from its environment) replace the stored ones.
  options.secrets = opts.secrets ?? settings.secrets;
  if (opts.allowedSites) options.allowedSites = opts.allowedSites;
  // The planning model: Settings' when switched on; a caller's `opts.planner` (an object over
  // the saved one, its key going only where it was entered for; or null for none) wins.
  const planner = opts.planner === undefined ? (settings.planner?.enabled ? settings.planner : null) : opts.planner && overlayModel(settings.planner, opts.planner);
  options.planner = planner ? (({ enabled, ...config }) => config)(planner) : null;
  options.useCache = opts.useCache ?? settings.run.useCache ?? true;
  if (options.useCache) options.cache = await loadCache();
  if (opts.replay) {
    // A replay's own steps come first; what the cache knows helps where they miss.
    options.cache = [...opts.replay, ...(options.useCache ? options.cache : [])];
    options.useCache = true;
  }
  return options;
}

/** Stores a run record whose changes the core handed over (an agent session's) and shows it in the panel. */
export function keepRun(changes) {
  const run = absorb(changes);
  saveRun(run);
  broadcast(run);
  return run;
}

/** The answer kind each question kind takes. */
const ANSWERS = { text: 'text', pageDialog: 'dialog', upload: 'upload' };

/**
 * The person's answer to the question a run is waiting on (`run.question`): text for the
 * model's question (a string, or `{kind: "text", text}`), `{kind: "dialog", accept, text?}`
 * for a page dialog, `{kind: "upload", allow}` for an upload. False when no question waits or
 * the answer is of another kind.
 */
export function answerRun(runId, answer) {
  const entry = active.get(runId);
  if (!entry?.answer) return false;
  const given = typeof answer === 'string' || answer == null ? { kind: 'text', text: String(answer ?? '') } : answer;
  if (given.kind !== ANSWERS[entry.asking?.kind]) return false;
  const typed = {
    text: () => ({ kind: 'text', text: String(given.text ?? '') }),
    dialog: () => ({ kind: 'dialog', accept: given.accept === true, ...(given.text != null ? { text: String(given.text) } : {}) }),
    upload: () => ({ kind: 'upload', allow: given.allow === true }),
  }[given.kind]();
  entry.answer(typed);
  return true;
}

export function stopRun(runId) {
  const entry = active.get(runId);
  if (!entry) return false;
  entry.controller.abort();
  return true;
}

// "Record my steps": tab id → the recording's run id, in session storage so a worker stopped
// between two of the person's clicks picks the recording up again.
const RECORDING_KEY = 'recordings';
let recordingChain = Promise.resolve(); // events are added one at a time, in order

async function recordings() {
  return (await chrome.storage.session.get(RECORDING_KEY))[RECORDING_KEY] ?? {};
}

/** The id of the recording on `tabId`, or null. */
export async function recordingOn(tabId) {
  return (await recordings())[tabId] ?? null;
}

/** The tabs being recorded. */
export async function recordingTabs() {
  return Object.keys(await recordings()).map(Number);
}

/** Starts recording what the person does on `tabId` as a new run (the core's); resolves to its id. */
export async function startRecording(tabId, title) {
  const tab = await assertUsable(tabId);
  const current = await recordings();
  if (current[tabId]) return current[tabId];
  // Named (when untitled) in the person's language, as a run of the loop is written.
  const language = resolveLanguage((await getSettings()).ui.language);
  const run = absorb((await core()).startRecording(crypto.randomUUID(), title || undefined, { id: tabId, title: tab.title ?? '', url: tab.url ?? '' }, language));
  await saveRun(run);
  await chrome.storage.session.set({ [RECORDING_KEY]: { ...current, [tabId]: run.id } });
  await setRecording(tabId, true);
  broadcast(run);
  return run.id;
}

/**
 * The core holds recording `id` open: after a worker restart it is read back from storage once.
 * False when it is gone (deleted).
 */
async function holdRecording(wasm, id) {
  if (wasm.holdsRun(id)) return true;
  const stored = await fullRun(id);
  if (!stored) return false;
  wasm.resumeRun(stored);
  holdStored(stored);
  return true;
}

/** Ends the recording on `tabId`; resolves to its run, or null when none was recording. */
export async function stopRecording(tabId) {
  const current = await recordings();
  const id = current[tabId];
  if (!id) return null;
  delete current[tabId];
  await chrome.storage.session.set({ [RECORDING_KEY]: current });
  await setRecording(tabId, false).catch(() => {}); // the tab may be gone
  await recordingChain;
  const wasm = await core();
  if (!(await holdRecording(wasm, id))) return null;
  let run = absorb(wasm.stopRecording(id));
  await saveRun(run);
  broadcast(run);
  run = await describeRecording(run);
  await pruneRuns(await keepRuns());
  return run;
}

/**
 * With a model configured (and Settings' "describe recorded elements" on), each element of a
 * finished recording is named by the model from its step's screenshot: the words exports find
 * it by. Steps say where that failed; the recording itself is kept either way.
 */
async function describeRecording(run) {
  const settings = await getSettings();
  if (settings.run.describeRecorded === false || !settings.model.baseUrl || !settings.model.model) return run;
  const wasm = await core();
  const json = JSON.stringify(run);
  const images = await decodedImagesOf(wasm, json);
  try {
    const described = JSON.parse(await wasm.describeRecorded(json, images, run.devicePixelRatio ?? 1, settings.model));
    await saveRun(described);
    broadcast(described);
    return described;
  } catch (e) {
    console.error('describing the recorded elements failed', e);
    return run;
  }
}

/**
 * One event from the page's recorder: added by the core to the recording it holds (secret
 * values as their placeholders), then the page is photographed for the step, and the record
 * the core holds is stored. Events from tabs not being recorded are ignored.
 */
export function recordEvent(tabId, event) {
  recordingChain = recordingChain.then(async () => {
    const id = (await recordings())[tabId];
    const wasm = await core();
    if (!id || !(await holdRecording(wasm, id))) return;
    if (event.kind === 'navigate') await tabLoaded(tabId, 15_000).catch(() => {}); // its screenshot shows the new page
    if (!event.target && event.point && event.kind !== 'key' && event.kind !== 'scroll') {
      event.target = await targetAt(tabId, event.point);
    }
    // How test tools find the element again, read once as it is recorded.
    if (event.target?.xpath) {
      try {
        event.target.locators = wasm.locatorsOf(await locatorData(tabId, event.target.xpath));
      } catch (e) {
        console.warn('the element\'s locators were not recorded (exports use its XPath)', e);
      }
    }
    const { secrets } = await getSettings();
    const { stepChanged } = wasm.recordEvent(id, event, secrets);
    if (stepChanged) {
      // A click that navigates: the capture can fail mid-load; once the page is there it works.
      const photo = await stepPhoto(wasm, id, tabId, secrets)
        .catch(() => tabLoaded(tabId, 10_000).then(() => stepPhoto(wasm, id, tabId, secrets)))
        .catch((e) => {
          console.warn('the step was not photographed', e);
          wasm.stepPhotoFailed(id, String(e?.message ?? e), secrets);
          return null;
        });
      if (photo) await putImage(photo.reference, photo.dataUrl);
    }
    const run = absorb(wasm.runChanges(id));
    await saveRun(run);
    broadcast(run);
  }).catch((e) => console.error('recording a step failed', e));
  return recordingChain;
}

/**
 * The page as recording `id`'s last step keeps it: the elements in view read first, then the
 * capture, both handed to the core as the browser gave them; it paints over sensitive fields
 * and any showing a secret (as in what a model is sent). `{reference, dataUrl}` or null.
 */
async function stepPhoto(wasm, id, tabId, secrets) {
  const page = await read(tabId, { viewportOnly: true });
  const shot = await shoot(tabId);
  return wasm.photographStep(id, { page, shot }, secrets);
}

/** Where the page's own recorder could not run the core (strict CSP): the element at a point. */
async function targetAt(tabId, point) {
  return (await core()).elementAtPoint(await read(tabId, {}), point.x, point.y) ?? null;
}

/**
 * After a worker restart, runs stored as running can no longer be driven: the core ends them,
 * their steps kept (those this worker drives or records go on).
 */
export async function closeOrphanedRuns() {
  const live = [...active.keys(), ...Object.values(await recordings())];
  // Only records stored as running go in (a query, like an index would answer): the others
  // would only fill WebAssembly memory, which never shrinks.
  const running = (await allRuns()).filter((run) => run.status === 'running');
  if (!running.length) return;
  for (const run of (await core()).closeOrphanedRuns(running, live)) {
    await saveRun(run);
    broadcast(run);
  }
}

function pick(obj, keys) {
  return Object.fromEntries(keys.filter((k) => obj[k] !== undefined).map((k) => [k, obj[k]]));
}
