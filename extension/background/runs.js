// Run lifecycle: start, stop, persist every step, tell the panel.
// The loop itself is Rust (runInstruction); this file gives it a host for one tab, built from
// host/ (one file per seam of the core's agent/browser/).
import { loadCache } from './cache.js';
import { active, openEntry } from './host/entry.js';
import { clockHost } from './host/clock.js';
import { dialogHost } from './host/dialogs.js';
import { pageHost } from './host/page.js';
import { personHost } from './host/person.js';
import { storeHost } from './host/store.js';
import { tabHost } from './host/tabs.js';
import { assertUsable, locatorData, read, setRecording, settle, shoot, tabLoaded } from './page.js';
import { getSettings, overlayModel } from './settings.js';
import { resolveLanguage } from '../shared/i18n.js';
import { allRuns, deleteRun as deleteStored, getImages, getRun, pruneRuns, putImage, putRun } from './store.js';
import { absorb, holdStored, untoldChanges } from './records.js';
import { core } from './wasm.js';

/** How many runs the history keeps (Settings), at least 1. */
async function keepRuns() {
  const n = Math.round(Number((await getSettings()).ui.historyLimit));
  return Number.isFinite(n) ? Math.max(1, n) : 50;
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

/** Every kept run, newest first, without the prompts they sent. */
export async function listRuns() {
  await saving;
  return (await allRuns()).map(lean);
}

/** The ids of the kept runs that `query` finds, newest first (the core decides what matches). */
export async function searchRuns(query) {
  return (await core()).searchRuns(await listRuns(), String(query ?? ''));
}

/**
 * Deletes kept run `id` with its screenshots and tells the panels. A run still going (the
 * loop's, an agent session's, a recording) is refused with `run_still_running`: stop it first.
 */
export async function deleteRun(id) {
  const runId = String(id);
  await saving;
  const wasm = await core();
  const stored = await getRun(runId);
  if (active.has(runId) || wasm.holdsRun(runId) || stored?.status === 'running' || Object.values(await recordings()).includes(runId)) {
    throw Object.assign(new Error(`run ${runId} is still running: stop it first`), { code: 'run_still_running' });
  }
  if (!stored) return false;
  await deleteStored(runId);
  chrome.runtime.sendMessage({ type: 'sightline/run-deleted', runId }).catch(() => {}); // no panel open
  return true;
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
  // A flow run's scripts run again only where the person allowed that very flow (the core
  // works its hash out from what it runs, whatever hash the saved run carries).
  const consent = run.flow ? wasm.flowConsent(run.flow.flow, await allowedFlows()) : null;
  const scriptsAllowed = consent?.allowed && consent.scripts.length ? consent.hash : undefined;
  // Upload paths in a saved run are the file's, not typed by the person: they need an Allow.
  return startRun(tabId, run.flow ? { flow: run.flow.flow } : (run.task ?? run.instruction), { ...opts, replay, typedUploads: false, scriptsAllowed });
}

/**
 * Runs a flow file (Midscene YAML text) on `tabId` as one run, its XPaths and the cache
 * first, the model where they miss. An absolute `web.url` is opened first unless the tab is
 * on that page already; only an http(s) address on the allowed sites is. Throws saying what
 * is wrong with the file before anything runs. opts.flowXpaths === false: every element found
 * by its description (a live run); opts.dialogs overrides the file's `web.dialogs`.
 */
export async function startFlow(tabId, yaml, opts = {}) {
  // `${NAME}`: the person's secrets by name, and what a runner read from a .env file and the
  // variables the person listed (opts.vars); the core decides what each may stand for.
  const secrets = opts.secrets ?? (await getSettings()).secrets ?? [];
  const vars = { ...opts.vars, secrets: secrets.map((s) => s.name) };
  const flow = (await core()).parseFlow(String(yaml ?? ''), vars);
  // javascript steps: the core decides whether this very file (its hash) may run them. A runner
  // on the person's machine runs their own file (opts.allowScripts); the panel asks first
  // (opts.askConsent: resolves to {consent} and runs nothing until the person allowed it).
  const consent = (await core()).flowConsent(flow, opts.allowScripts === true ? [flow.hash] : await allowedFlows());
  if (!consent.allowed && opts.askConsent) return { consent };
  const scriptsAllowed = consent.allowed && consent.scripts.length ? consent.hash : undefined;
  if (flow.url && /^[a-z][a-z0-9+.-]*:/i.test(flow.url)) {
    (await core()).checkOpen(flow.url, opts.allowedSites ?? (await getSettings()).run.allowedSites ?? []);
    const tab = await chrome.tabs.get(tabId);
    if ((await core()).pageKey(tab.url ?? '') !== (await core()).pageKey(flow.url)) {
      await chrome.tabs.update(tabId, { url: flow.url });
      await tabLoaded(tabId, 30_000);
      await settle(tabId);
    }
  }
  return startRun(tabId, { flow }, { ...opts, typedUploads: false, scriptsAllowed });
}

/** Where the hashes of the flow files whose scripts the person allowed are kept (closed to content scripts). */
const ALLOWED_FLOWS = 'allowedFlowScripts';
/** Allowances kept: the oldest go first. */
const MAX_ALLOWED_FLOWS = 200;

/** The hashes of the flow files whose javascript steps the person allowed in the panel. */
export async function allowedFlows() {
  const { [ALLOWED_FLOWS]: list } = await chrome.storage.local.get(ALLOWED_FLOWS);
  return Array.isArray(list) ? list.filter((h) => typeof h === 'string') : [];
}

/** The person allowed the scripts of the flow file with this hash (a SHA-256, hex) after seeing them. */
export async function allowFlowScripts(hash) {
  if (!/^[0-9a-f]{64}$/.test(hash)) throw Object.assign(new Error('not a flow file\'s hash'), { code: 'bad_input' });
  const list = (await allowedFlows()).filter((h) => h !== hash);
  list.push(hash);
  await chrome.storage.local.set({ [ALLOWED_FLOWS]: list.slice(-MAX_ALLOWED_FLOWS) });
  return true;
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
  // One object for the core, each seam of `agent/browser/` from its file in host/.
  const entry = openEntry(id, tabId, tab);
  const host = {
    ...pageHost(entry, options),
    ...tabHost(entry),
    ...dialogHost(entry),
    ...personHost(entry, opts),
    ...storeHost(entry, keepRun, opts.onReport),
    ...clockHost(entry),
  };
  if (opts.session) {
    // Resolves to the call's answer ({ok, text, result, error, tab}); the session's run stays open.
    const done = wasm.agentCall({ runId: id, call: opts.session.call, model, options }, host).finally(entry.release);
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
    .catch((e) => wasm.failedRun(id, title, entry.tabFacts(), String(e?.code ?? 'internal'), String(e?.message ?? e)))
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
    .finally(entry.release);
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
  // Set by startFlow and replayRun alone, to the hash the core gave the flow it allowed (the core compares it again).
  if (typeof opts.scriptsAllowed === 'string') options.scriptsAllowed = opts.scriptsAllowed;
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
    // A check keeps what the core reads of its element now, as a replay will read it.
    if (event.kind === 'check' && event.check !== 'visible' && event.target?.xpath) {
      event.expected = wasm.checkReads(await read(tabId, {}), event.target.xpath);
      if (event.expected == null) throw new Error('the checked element is not on the page any more: the check was not recorded');
    }
    // How test tools find the element again: from the facts the page read as the gesture
    // started, else (no facts: the page's reader could not run) read through CDP now.
    for (const target of [event.target, event.hovered]) {
      if (!target?.xpath) continue;
      try {
        const facts = target.facts ?? (target === event.target ? await locatorData(tabId, target.xpath) : null);
        delete target.facts;
        target.locators = wasm.locatorsOf(facts ?? null);
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
