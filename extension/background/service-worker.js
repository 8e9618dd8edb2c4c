// Service worker: wires Chrome events to the run lifecycle and exposes `self.sightline`,
// the automation surface used by tests, the headless runner and benchmarks
// (shapes documented in docs/API.md).
import { agentsStatus, connect as connectAgents, revokeAgents, setAgents, stopAgentSession } from './agents.js';
import { focusedField } from './debugger.js';
import { capture, extract, extractViaCdp, locatorData, overlay, pickCheck, restriction, screenshot, setRecording } from './page.js';
import { cacheSize, clearCache, importCache, loadCache } from './cache.js';
import {
  allowFlowScripts, answerRun, closeOrphanedRuns, deleteRun, exportRun, fullRun, lean, listRuns, loadTrajectory, recordEvent, recordingTabs, replayRun,
  saveTrajectory, searchRuns, startFlow, startRecording, startRun, stopRecording, stopRun,
} from './runs.js';
import { getSettings, maskKey, overlayModel, setSettings, withoutSecretValues } from './settings.js';
import { getImages } from './store.js';
import { core } from './wasm.js';

// The API key and the secrets' values are in the vault (settings.js), out of every content
// script's reach. The rest of chrome.storage.local (the other settings, allowed sites) is closed to
// content scripts too where Chrome supports that for the local area; where it does not, only
// what is no secret stays readable, and the worker says so once.
const localClosed = typeof chrome.storage.local.setAccessLevel === 'function'
  ? chrome.storage.local.setAccessLevel({ accessLevel: 'TRUSTED_CONTEXTS' }).then(() => true, (e) => {
    console.warn(`chrome.storage.local stays readable by content scripts (${e.message}); it holds no key and no secret value`);
    return false;
  })
  : Promise.resolve(false);
// Allow agents on: the bridge to sightline-mcp reconnects whenever the worker starts.
connectAgents().catch((e) => console.error('connecting the agents bridge failed', e));
chrome.sidePanel.setPanelBehavior({ openPanelOnActionClick: true }).catch(() => {});
// A worker that starts while runs are stored as running was stopped under them (Chrome
// stops idle workers; a crash): those runs end here, steps kept, before anyone lists runs.
const orphansClosed = closeOrphanedRuns().catch((e) => console.error('closing interrupted runs failed', e));
// The panel holds a port: when this worker stops, the panel sees the port close, reconnects
// (which starts a new worker) and reloads the runs.
chrome.runtime.onConnect.addListener((port) => {
  if (port.sender?.id !== chrome.runtime.id || port.name !== 'sightline/panel') port.disconnect();
});

self.sightline = {
  extract: (tabId, opts = {}) => extract(tabId, opts),
  extractViaCdp: (tabId, opts = {}) => extractViaCdp(tabId, opts),
  /** What an element's locators are decided from (`LocatorData`), read through CDP; null where it cannot be. */
  locatorData: (tabId, xpath, textCheck) => locatorData(tabId, xpath, textCheck),
  capture: (tabId, opts = {}) => capture(tabId, opts),
  /** The focused element and its frame, as a secret's guard reads it (`selectors`: CSS selectors to test it against). */
  focusedField: (tabId, selectors = []) => focusedField(tabId, selectors),
  screenshot: (tabId, opts = {}) => screenshot(tabId, opts),
  overlay: (tabId, overlays, opts = {}) => overlay(tabId, overlays, opts),
  /** Reads a model reply as `family` does in a run: the plan (CSS px) or `{error}`. */
  parse: async (family, reply, screen) => (await core()).parseReply(family, reply, screen),
  /** Marks a capture (from `capture`) with the listed ones of `elements` (from `extract`). */
  markScreenshot: async (shot, elements, image) => (await core()).markScreenshot(shot, elements, image),
  /** One short request with these model settings (stored ones fill the gaps): the reply or a thrown error. */
  checkModel: (model) => checkModel(model),
  /** Runs one instruction to the end and resolves to its record. */
  async act(tabId, instruction, opts = {}) {
    const { done } = await startRun(tabId, instruction, opts);
    return done;
  },
  /**
   * Runs one AI task (`{type: "aiTap", locate}`, …) and resolves to its record. An aiUpload's
   * paths are the caller's own: they need no confirmation.
   */
  async ai(tabId, task, opts = {}) {
    const { done } = await startRun(tabId, task, { ...opts, typedUploads: true });
    return done;
  },
  /**
   * Runs a flow file (Midscene YAML text: `web.url`, `tasks` of `flow` items) on `tabId` as
   * one run and resolves to its record (`flow.items`: each item's outcome). The file's
   * XPaths and the cache come first, the model only where they miss; `opts.flowXpaths:
   * false` finds every element by its description. Throws what is wrong with the file.
   * `opts.allowScripts: true`: the caller runs its own file on its own machine (scripts/run,
   * the Playwright fixture), so its javascript steps run; without it they fail with
   * `script_not_allowed` unless the person allowed this very file in the panel.
   */
  async runFlow(tabId, yaml, opts = {}) {
    const { done } = await startFlow(tabId, yaml, { ...opts, askConsent: false });
    return done;
  },
  /** A flow file's text as Sightline reads it, or a thrown error saying where and why not. */
  parseFlow: async (yaml, vars) => (await core()).parseFlow(String(yaml ?? ''), vars ?? null),
  /** Stops a run: the panel's, or an agent session's (ended stopped; the agent's next call is told). */
  stop: async (runId) => (await stopAgentSession(runId)) || stopRun(runId),
  /**
   * Answers the question a run is waiting on (`run.question`): a string for the model's
   * question, `{kind: "dialog", accept, text?}` for a page dialog, `{kind: "upload", allow}`
   * for an upload a file named. `true` if a question of that kind was waiting.
   */
  answer: (runId, answer) => answerRun(runId, answer),
  /** Kept runs, newest first (without the prompts sent; `run(id)` has them). */
  runs: () => orphansClosed.then(listRuns),
  /** One kept run in full, or null. */
  run: (runId) => fullRun(runId),
  /** The ids of the kept runs a history search finds (words and "quoted phrases", all of them), newest first. */
  searchRuns: (query) => orphansClosed.then(() => searchRuns(query)),
  /** Deletes a kept run with its screenshots: true, or false when none has that id; a running one is refused (`run_still_running`). */
  deleteRun: (runId) => deleteRun(runId),
  /** A kept run with its screenshots as trajectory JSON text, to save as a file. */
  saveTrajectory: (runId) => saveTrajectory(runId),
  /**
   * "Record my steps": what the person does on `tabId` becomes a run (resolves to its id)
   * until `stopRecording(tabId)`, which resolves to the finished run.
   */
  startRecording: (tabId, title) => startRecording(tabId, title),
  stopRecording: (tabId) => stopRecording(tabId),
  /** Keeps a trajectory file's run (JSON text or object); resolves to it. Throws saying what is wrong. */
  loadTrajectory: (json) => loadTrajectory(json),
  /**
   * A kept run for another tool: `midscene-yaml`, `playwright` or `recorder` (each runnable
   * with no model), `report` (one HTML file) or `gif` (a `data:image/gif` URL);
   * `opts.viewport` `{width, height}`. Resolves to the file's text.
   */
  exportRun: async (runId, format, opts) => (await exportRun(runId, format, opts)).text,
  /**
   * Runs a kept run (its id) or a trajectory (JSON) again on `tabId`, resolving to the new
   * run's record: its steps without the model while their targets match, the model after.
   */
  async replay(tabId, source, opts = {}) {
    const { done } = await replayRun(tabId, source, opts);
    return done;
  },
  /** The cache of located elements and replayable plans, as JSON text. */
  exportCache: async () => JSON.stringify(await loadCache(), null, 1),
  /** Merges exported JSON into the cache; throws saying what is wrong with it. Resolves to the entry count. */
  async importCache(json) {
    let parsed;
    try {
      parsed = JSON.parse(String(json));
    } catch (e) {
      throw new Error(`not a Sightline cache export: ${e.message}`, { cause: e });
    }
    return importCache(parsed);
  },
  clearCache: () => clearCache(),
  getSettings,
  setSettings,
  /** Whether Chrome closed chrome.storage.local to content scripts (it holds nothing secret either way). */
  storageClosed: () => localClosed,
  /** Resolves once the core is loaded and the task functions (`aiTap`, …) are defined. */
  ready: () => tasksDefined.then(() => true),
};

/**
 * The stored model settings overlaid by unsaved ones. An empty key keeps the stored key, which
 * still goes only to the origin it was entered for; a typed key goes with the typed URL.
 */
async function checkModel(model = {}, role = 'actor') {
  const { apiKey, ...unsaved } = model ?? {};
  const settings = await getSettings();
  const saved = role === 'planner' ? settings.planner : settings.model;
  return (await core()).checkModel(overlayModel(saved, apiKey ? { ...unsaved, apiKey } : unsaved));
}

// Each AI task by name, with its arguments in order and options last (the schema is the
// core's: `taskSchema()`): `aiInput(tabId, locate, value, {mode})`. Resolves to what the task
// returns (data, a verdict, a location) and throws the run's error, as a script expects;
// `ai()` gives the whole record instead.
const tasksDefined = core().then((wasm) => {
  for (const { type, fields, args: named } of wasm.taskSchema()) {
    const paths = fields.filter((f) => f.kind === 'paths').map((f) => f.name);
    self.sightline[type] = async (tabId, ...args) => {
      const task = { type };
      named.forEach((f, i) => { task[f] = args[i]; });
      for (const f of paths) if (typeof task[f] === 'string') task[f] = [task[f]]; // one path
      const extra = args[named.length];
      const { model, maxRounds, maxFailures, includeScreenshot, useCache, interactive, dialogs, ...taskOptions } = extra && typeof extra === 'object' ? extra : {};
      Object.assign(task, taskOptions);
      const run = await self.sightline.ai(tabId, task, { model, maxRounds, maxFailures, includeScreenshot, useCache, interactive, dialogs });
      if (run.status !== 'succeeded') throw Object.assign(new Error(run.error?.message ?? (run.check ? `done but not confirmed: ${run.check.reason}` : `the task was ${run.status}`)), { code: run.error?.code ?? run.status });
      return run.result;
    };
  }
});

// Messages from the extension's own pages only (panel, options). Content scripts share our
// sender.id but carry the page's URL; web pages cannot reach us without externally_connectable.
const OWN_PAGES = chrome.runtime.getURL('');
const handlers = {
  /**
   * An instruction for the planning loop, or one AI task (`task: {type, …}`); `dialogs`: the
   * panel's answer to page dialogs (unset: ask). `fromRun`: the task is an earlier run's, so
   * its upload paths are a record's (perhaps a loaded file's), not typed now: they need an Allow.
   */
  async run({ tabId, instruction, task, dialogs, fromRun, context }) {
    const opts = { dialogs: dialogs || undefined, typedUploads: !fromRun, context: typeof context === 'string' ? context : undefined };
    const { runId } = await startRun(tabId, task ?? instruction, opts);
    return { runId };
  },
  /** A flow file's text (Midscene YAML) run on the tab. */
  async runFlow({ tabId, yaml, dialogs }) {
    // A flow with javascript steps this file's hash was not allowed for: `{consent}` (the code
    // to show, Allow / Cancel), and nothing runs.
    const started = await startFlow(tabId, yaml, { dialogs: dialogs || undefined, askConsent: true });
    return started.consent ? { consent: started.consent } : { runId: started.runId };
  },
  /** The person saw a flow file's scripts (`consent.scripts`) and allowed them: kept by its hash. */
  allowFlowScripts: async ({ hash }) => ({ allowed: await allowFlowScripts(String(hash ?? '')) }),
  /** The panel's Stop: whatever fails in it reaches the panel as `stop_failed` (the panel words it), its cause in this console. */
  async stop({ runId }) {
    try {
      return { stopped: await self.sightline.stop(runId) };
    } catch (e) {
      console.error('stopping a run failed', e);
      throw Object.assign(new Error(`stopping the run failed: ${e?.message ?? e}`), { code: 'stop_failed' });
    }
  },
  answer: ({ runId, answer }) => ({ answered: answerRun(runId, answer) }),
  cacheInfo: async () => ({ entries: await cacheSize() }),
  exportCache: async () => ({ json: await self.sightline.exportCache() }),
  importCache: async ({ json }) => ({ entries: await self.sightline.importCache(json) }),
  clearCache: async () => ({ entries: await self.sightline.clearCache() }),
  runs: async () => {
    await orphansClosed;
    return { runs: await listRuns() };
  },
  runDetails: async ({ runId }) => ({ run: await fullRun(runId) }),
  searchRuns: async ({ query }) => {
    await orphansClosed;
    return { ids: await searchRuns(query) };
  },
  deleteRun: async ({ runId }) => ({ deleted: await deleteRun(runId) }),
  /** Screenshots of kept runs by reference (a few at a time: each is hundreds of KB). */
  images: async ({ refs }) => ({ images: await getImages((Array.isArray(refs) ? refs : []).slice(0, 8).map(String)) }),
  saveTrajectory: async ({ runId }) => ({ json: await saveTrajectory(runId) }),
  exportRun: ({ runId, format }) => exportRun(runId, String(format)),
  startRecording: async ({ tabId, title }) => ({ runId: await startRecording(tabId, title) }),
  stopRecording: async ({ tabId }) => ({ run: lean((await stopRecording(tabId)) ?? { steps: [] }) }),
  /** While recording: the next click on the page picks the element a check (text, value, visible) is about. */
  async recordCheck({ tabId, check }) {
    if (!(await recordingTabs()).includes(tabId)) return { picking: false };
    return { picking: (await pickCheck(tabId, String(check))) === true };
  },
  loadTrajectory: async ({ json }) => ({ run: lean(await loadTrajectory(String(json ?? ''))) }),
  async replay({ tabId, runId, json, dialogs }) {
    const { runId: id } = await replayRun(tabId, json != null ? String(json) : String(runId), { dialogs: dialogs || undefined });
    return { runId: id };
  },
  async target({ tabId }) {
    const tab = await chrome.tabs.get(tabId).catch(() => null);
    if (!tab) return { error: `tab ${tabId} no longer exists` };
    const startPage = (await core()).isStartPage(tab.url || tab.pendingUrl || '');
    return { tab: { id: tab.id, title: tab.title, url: tab.url }, restricted: startPage ? null : await restriction(tab.url), startPage };
  },
  /** Allow agents: `{enabled, connected, agent, token, address, extensionId, port, refused}`. */
  agentsStatus: async () => ({ status: await agentsStatus() }),
  setAgents: async ({ enabled, port }) => ({ status: await setAgents({ enabled, port }) }),
  revokeAgents: async () => ({ status: await revokeAgents() }),
  async settings() {
    const s = withoutSecretValues(await getSettings());
    const masked = (m) => ({ ...m, apiKey: '', apiKeyMask: maskKey(m.apiKey) });
    return { settings: { ...s, model: masked(s.model), planner: masked(s.planner) } };
  },
  /** Every kind of AI task with its fields, for the task form. */
  taskSchema: async () => ({ schema: (await core()).taskSchema() }),
  presets: async () => ({ presets: (await core()).providerPresets(), pairings: (await core()).modelPairings() }),
  priceText: async ({ prices }) => ({ text: (await core()).priceTableText(prices ?? undefined) }),
  knowledgeText: async ({ knowledge }) => ({ text: (await core()).knowledgeText(knowledge ?? []) }),
  /** Reads the site knowledge text into entries, or answers {error} naming the entry. */
  parseKnowledge: async ({ text }) => ({ knowledge: (await core()).parseKnowledge(String(text ?? '')) }),
  /** A pasted block of Midscene's MIDSCENE_MODEL_* / OPENAI_* variables, read into settings fields. */
  envSettings: async ({ text }) => ({ settings: (await core()).settingsFromEnv(String(text ?? '')) }),
  /** Reads edited price text into rows, or answers {error} naming the line. */
  parsePrices: async ({ text }) => ({ prices: (await core()).parsePriceTable(String(text ?? '')) }),
  /** `role: "planner"`: the form's planning model over the saved one (its own key). */
  checkModel: async ({ model, role }) => ({ check: await checkModel(model, role) }),
  /** Whether the saved key (the planner's with `role: "planner"`) would be sent to `baseUrl`: `{saved, fits, enteredFor}` (an origin). */
  async keyFits({ baseUrl, role }) {
    const settings = await getSettings();
    const { apiKey, apiKeyFor } = role === 'planner' ? settings.planner : settings.model;
    if (!apiKey) return { saved: false, fits: true, enteredFor: '' };
    return { saved: true, ...(await core()).apiKeyFits(apiKeyFor, String(baseUrl ?? '')) };
  },
};

chrome.runtime.onMessage.addListener((message, sender, sendResponse) => {
  // The recorder in a recorded tab's page (our content script, top frame): the person's input.
  if (message?.type === 'sightline/recorded' && sender.id === chrome.runtime.id && sender.tab && sender.frameId === 0) {
    recordEvent(sender.tab.id, message.event ?? {});
    return false;
  }
  if (sender.id !== chrome.runtime.id || !sender.url?.startsWith(OWN_PAGES)) return false;
  const name = typeof message?.type === 'string' && message.type.startsWith('sightline/') ? message.type.slice(10) : null;
  const handler = name && Object.hasOwn(handlers, name) ? handlers[name] : null;
  if (!handler) return false;
  Promise.resolve()
    .then(() => handler(message))
    .then(sendResponse, async (e) => sendResponse({ error: String(e?.message ?? e), code: e?.code, advice: await adviceFor(e, name, message) }));
  return true; // answer asynchronously
});

/**
 * The core's advice for a failed request, by language (`{en, zh_CN}`): a request that loads a
 * saved run file (`loadTrajectory`, a `replay` of one) failed on that file. None where the core
 * itself cannot load.
 */
async function adviceFor(e, request, message) {
  try {
    const fromFile = request === 'loadTrajectory' || (request === 'replay' && message?.json != null);
    const on = fromFile ? 'savedRunFile' : 'instruction';
    return (await core()).advice(String(e?.code ?? 'internal'), typeof e?.cause === 'string' ? e.cause : undefined, on);
  } catch {
    return null;
  }
}

// Addresses the person opens in a recorded tab (typed, a bookmark, reload, back/forward) are
// steps; a navigation a click or a form caused is not: the click is the step.
const OPENED_BY_PERSON = new Set(['typed', 'auto_bookmark', 'generated', 'keyword', 'keyword_generated', 'reload']);
chrome.webNavigation.onCommitted.addListener(async ({ tabId, frameId, url, transitionType, transitionQualifiers }) => {
  if (frameId !== 0 || !(await recordingTabs()).includes(tabId)) return;
  const qualifiers = transitionQualifiers ?? [];
  if (OPENED_BY_PERSON.has(transitionType) || qualifiers.includes('forward_back') || qualifiers.includes('from_address_bar')) {
    recordEvent(tabId, { kind: 'navigate', url });
  }
});

// A recorded tab that loads a new page gets its recorder back.
chrome.tabs.onUpdated.addListener(async (tabId, change) => {
  if (change.status !== 'complete' || !(await recordingTabs()).includes(tabId)) return;
  setRecording(tabId, true).catch((e) => console.error('re-arming the recorder failed', e));
});
