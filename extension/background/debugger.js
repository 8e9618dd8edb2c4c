// chrome.debugger sessions, one per tab, attached on first use. CDP gives trusted input,
// screenshots and DOMSnapshot (the CDP page reader). Frames Chrome renders in another process
// (cross-site iframes) get sessions of their own through auto-attach. JavaScript dialogs
// (alert, confirm, prompt, beforeunload) that block Sightline's work on a tab are handled here.
const attached = new Set();
/** tabId → Map(sessionId → targetId) of the tab's cross-process frames. */
const frameSessions = new Map();

/** tabId → { inflight: Map(requestId → startedAt), lastActivity }: requests the page has open. */
const network = new Map();

chrome.debugger.onDetach.addListener(({ tabId }) => forget(tabId));
chrome.tabs.onRemoved.addListener((tabId) => {
  forget(tabId);
  consoleLog.delete(tabId);
});
chrome.debugger.onEvent.addListener(({ tabId, sessionId }, method, params) => {
  if (tabId == null) return;
  if (method === 'Page.javascriptDialogOpening') {
    dialogOpened(tabId, sessionId, params);
  } else if (method === 'Page.javascriptDialogClosed') {
    dialogs.get(tabId)?.open.delete(sessionId ?? '');
  } else if (method === 'Target.attachedToTarget' && params.targetInfo?.type === 'iframe') {
    if (!frameSessions.has(tabId)) frameSessions.set(tabId, new Map());
    frameSessions.get(tabId).set(params.sessionId, params.targetInfo.targetId);
  } else if (method === 'Target.detachedFromTarget') {
    frameSessions.get(tabId)?.delete(params.sessionId);
  } else if (method === 'Runtime.consoleAPICalled' || method === 'Runtime.exceptionThrown' || method === 'Log.entryAdded') {
    noteConsole(tabId, method, params);
  } else if (method.startsWith('Network.')) {
    const net = network.get(tabId);
    if (!net) return;
    net.lastActivity = Date.now();
    if (method === 'Network.requestWillBeSent' && !LONG_LIVED.has(params.type)) net.inflight.set(params.requestId, Date.now());
    else if (method === 'Network.loadingFinished' || method === 'Network.loadingFailed') net.inflight.delete(params.requestId);
  }
});

// Connections that stay open by design never count against idleness.
const LONG_LIVED = new Set(['WebSocket', 'EventSource']);
/** A request open longer than this is a long poll or a stream: idleness ignores it. */
const STUCK_MS = 4000;

/**
 * Resolves once the tab has had no request start or end for `quietMs` (ignoring long-lived
 * ones), or after `maxMs`. Resolves to true when idle was reached.
 */
export async function networkIdle(tabId, { quietMs = 400, maxMs = 5000 } = {}) {
  await attach(tabId);
  const started = Date.now();
  for (;;) {
    const net = network.get(tabId);
    const now = Date.now();
    if (!net) return true;
    const open = [...net.inflight.values()].filter((t) => now - t < STUCK_MS).length;
    if (open === 0 && now - net.lastActivity >= quietMs) return true;
    if (now - started >= maxMs) return false;
    await new Promise((r) => setTimeout(r, 50));
  }
}

function forget(tabId) {
  attached.delete(tabId);
  frameSessions.delete(tabId);
  network.delete(tabId);
  dialogs.get(tabId)?.open.clear();
}

// JavaScript dialogs block the page's main thread: no script runs, no DOMSnapshot is taken, an
// input command that caused one does not return, until it is answered. While Sightline works
// on a tab (a CDP command or a read in flight), the dialogs that open are handled:
//   - a run holding the tab's dialogs (`holdDialogs`) takes those its action raised (confirm,
//     prompt, beforeunload): the run's core decides, and `answerDialog` gives its answer;
//   - alerts only inform: OK; any other dialog Sightline did not cause by an action it is
//     carrying out (one that opens while it reads the page) gets Cancel: no silent yes.
// A dialog that opens while Sightline is idle on the tab is left to the person until Sightline
// next needs the tab; dialogs on a tab whose steps are being recorded are always the person's.
// Only dialogs that open while the debugger is attached are reported to it: one already showing
// when Sightline attaches cannot be answered (reads then fail after their deadline).

/** How Sightline answers, on its own, a dialog of `type` (`Page.handleJavaScriptDialog` params). */
export function dialogAnswer(type) {
  return { accept: type === 'alert' };
}

/** tabId → { busy: count of Sightline's calls in flight, open: Map(sessionId|'' → params), answered: [] } */
const dialogs = new Map();
/** Tabs whose dialogs are the person's to answer ("record my steps"). */
const personal = new Set();
/** tabId → take(dialog): a run's handler; true when it takes the dialog to answer itself. */
const holders = new Map();
const MAX_DIALOG_LOG = 20;

function dialogState(tabId) {
  if (!dialogs.has(tabId)) dialogs.set(tabId, { busy: 0, open: new Map(), answered: [], answering: new Set() });
  return dialogs.get(tabId);
}

function dialogOpened(tabId, sessionId, params) {
  const state = dialogState(tabId);
  state.open.set(sessionId ?? '', params);
  if (state.busy > 0) answerOpenDialogs(tabId);
}

function answerOpenDialogs(tabId) {
  const state = dialogs.get(tabId);
  if (!state || personal.has(tabId)) return;
  for (const [sessionId, params] of state.open) {
    state.open.delete(sessionId);
    const dialog = { tabId, sessionId, type: params.type, message: String(params.message ?? ''), defaultPrompt: String(params.defaultPrompt ?? ''), url: params.url ?? '' };
    if (params.type !== 'alert' && holders.get(tabId)?.(dialog)) continue;
    const answer = dialogAnswer(params.type);
    // The input the dialog held up can return before this answer's reply arrives: takeDialogs
    // waits for answers in flight, so the step that caused the dialog is the one that notes it.
    const answering = answerDialog(dialog, answer.accept).then((answered) => {
      state.answering.delete(answering);
      if (!answered) return;
      state.answered.push({ type: params.type, message: dialog.message.slice(0, 200), url: dialog.url, accepted: answer.accept, at: Date.now() });
      if (state.answered.length > MAX_DIALOG_LOG) state.answered.shift();
    });
    state.answering.add(answering);
  }
}

/**
 * Answers a dialog (as given to a holder) with OK or Cancel; `promptText`: what a prompt gets
 * (absent: its default text). Resolves to false when it had closed meanwhile (the person
 * answered it, or a navigation took it away).
 */
export function answerDialog({ tabId, sessionId, type, defaultPrompt }, accept, promptText) {
  const target = sessionId ? { tabId, sessionId } : { tabId };
  const params = { accept: !!accept };
  if (accept && type === 'prompt') params.promptText = String(promptText ?? defaultPrompt ?? '');
  return chrome.debugger.sendCommand(target, 'Page.handleJavaScriptDialog', params).then(() => true, () => false);
}

/**
 * While a run acts on `tabId`, the dialogs that open there (alerts aside) go to `take(dialog)`
 * first: when it returns true, the run answers them through `answerDialog`.
 * `holdDialogs(tabId, null, take)` ends it, if `take` still holds the tab.
 */
export function holdDialogs(tabId, take, owner) {
  if (take) holders.set(tabId, take);
  else if (holders.get(tabId) === owner) holders.delete(tabId);
}

/**
 * Runs `work` as Sightline's own work on the tab: dialogs that are open, or open meanwhile,
 * are answered (see above).
 */
export async function busyWith(tabId, work) {
  const state = dialogState(tabId);
  state.busy++;
  try {
    answerOpenDialogs(tabId);
    return await work();
  } finally {
    state.busy--;
  }
}

/**
 * The dialogs Sightline answered on the tab since the last call (answers in flight included),
 * oldest first: `[{type, message, url, accepted, at}]` (a run can note them on its step).
 */
export async function takeDialogs(tabId) {
  const state = dialogs.get(tabId);
  if (!state) return [];
  await Promise.all(state.answering);
  return state.answered.splice(0);
}

/** While on, dialogs on the tab are left to the person ("record my steps"). */
export function leaveDialogsToPerson(tabId, on) {
  if (on) personal.add(tabId);
  else personal.delete(tabId);
}

// Attachments under way, by tab: callers at the same time (a reading and a capture) share one,
// and each waits for all of it (a CDP read needs the tab's cross-process frames, announced
// before Target.setAutoAttach answers), not only for chrome.debugger.attach.
const attaching = new Map();
// Detachments under way, by tab: an attachment waits for the tab's to end (attaching while
// still attached would find it "already attached", and the detachment then end it).
const detaching = new Map();
function attach(tabId) {
  if (!attaching.has(tabId)) {
    if (attached.has(tabId)) return Promise.resolve();
    attaching.set(tabId, attachNow(tabId).finally(() => attaching.delete(tabId)));
  }
  return attaching.get(tabId);
}
async function attachNow(tabId) {
  await detaching.get(tabId);
  try {
    await chrome.debugger.attach({ tabId }, '1.3');
  } catch (e) {
    if (!/already attached/i.test(e.message)) {
      throw Object.assign(new Error(`cannot control this tab: ${e.message}. Close DevTools on it and try again.`, { cause: e }), { code: 'page_debugger' });
    }
  }
  attached.add(tabId);
  network.set(tabId, { inflight: new Map(), lastActivity: 0 });
  // Dialogs are reported from the moment the browser side has this, and its answer waits for
  // the page: not awaited, so a page already blocked cannot hold up the rest.
  chrome.debugger.sendCommand({ tabId }, 'Page.enable').catch(() => {});
  // Small buffers: we only count requests, never read bodies.
  await chrome.debugger
    .sendCommand({ tabId }, 'Network.enable', { maxTotalBufferSize: 100_000, maxResourceBufferSize: 10_000 })
    .catch(() => network.delete(tabId));
  // Existing cross-process frames are announced before this command answers.
  await chrome.debugger
    .sendCommand({ tabId }, 'Target.setAutoAttach', { autoAttach: true, waitForDebuggerOnStart: false, flatten: true })
    .catch(() => {});
}

/**
 * tabId → what the page reported while watched: `{owners, entries, next}`, each entry `{seq,
 * level, source, text, url}`: console errors and warnings (console API and the browser's own,
 * failed requests among them: Log source "network") and uncaught exceptions. Several readers
 * (a run's steps, an agent's console_messages) each keep their own place (`seq`).
 */
const consoleLog = new Map();
const MAX_CONSOLE = 500;
const CONSOLE_LEVELS = { error: 'error', warning: 'warning', warn: 'warning', assert: 'error' };

function noteConsole(tabId, method, params) {
  const log = consoleLog.get(tabId);
  if (!log) return;
  let entry = null;
  if (method === 'Runtime.consoleAPICalled' && CONSOLE_LEVELS[params.type]) {
    const text = (params.args ?? []).map((a) => (a.value !== undefined ? String(a.value) : a.description ?? a.type)).join(' ');
    const frame = params.stackTrace?.callFrames?.[0];
    entry = { level: CONSOLE_LEVELS[params.type], source: 'console', text, url: frame?.url ?? '' };
  } else if (method === 'Runtime.exceptionThrown') {
    const d = params.exceptionDetails ?? {};
    entry = { level: 'error', source: 'exception', text: d.exception?.description ?? d.text ?? 'uncaught exception', url: d.url ?? '' };
  } else if (method === 'Log.entryAdded' && CONSOLE_LEVELS[params.entry?.level]) {
    const e = params.entry;
    entry = { level: CONSOLE_LEVELS[e.level], source: e.source ?? 'browser', text: e.text ?? '', url: e.url ?? '' };
  }
  if (!entry) return;
  entry.text = entry.text.slice(0, 2000);
  log.entries.push({ seq: log.next++, ...entry });
  if (log.entries.length > MAX_CONSOLE) log.entries.splice(0, log.entries.length - MAX_CONSOLE);
}

/**
 * Keeps the tab's console errors, warnings and failed requests for `owner` (a run id, the
 * agents bridge) until it lets go; resolves to the place to read from (`consoleSince`).
 */
export async function watchConsole(tabId, owner) {
  if (!consoleLog.has(tabId)) consoleLog.set(tabId, { owners: new Set(), entries: [], next: 0 });
  const log = consoleLog.get(tabId);
  const fresh = !log.owners.size;
  log.owners.add(owner);
  await attach(tabId);
  if (fresh) {
    // Both at once: each waits for the page's main thread, which a busy page holds up (what
    // each replays of earlier messages falls before the place returned, so order does not matter).
    await Promise.all([cdp(tabId, 'Runtime.enable').catch(() => {}), cdp(tabId, 'Log.enable').catch(() => {})]);
  }
  return log.next;
}

/** What the tab reported from place `since` on: `{entries: [{level, source, text, url}], next}`. */
export function consoleSince(tabId, since = 0) {
  const log = consoleLog.get(tabId);
  if (!log) return { entries: [], next: since };
  const entries = log.entries.filter((e) => e.seq >= since).map(({ seq, ...e }) => e);
  return { entries, next: log.next };
}

/** `owner` no longer needs the tab's console; once nobody does, the tab is detached unless `busy`. */
export async function unwatchConsole(tabId, owner, busy = false) {
  const log = consoleLog.get(tabId);
  if (!log) return;
  log.owners.delete(owner);
  if (log.owners.size) return;
  consoleLog.delete(tabId);
  if (!busy) await detach(tabId);
}

/** Attaches to the tab, so the dialogs it opens from now on are reported (and answered while Sightline works there). */
export async function watchDialogs(tabId) {
  await attach(tabId);
}

export async function cdp(tabId, method, params = {}, sessionId) {
  return busyWith(tabId, async () => {
    await attach(tabId);
    try {
      return await chrome.debugger.sendCommand(sessionId ? { tabId, sessionId } : { tabId }, method, params);
    } catch (e) {
      throw new Error(`${method} failed: ${e.message}`, { cause: e });
    }
  });
}

/** The longest a flow's script may run in the page before its step fails. */
const SCRIPT_MS = 60_000;

/**
 * Runs a flow's script (one the core says the person allowed) in the tab's top document as
 * Midscene's evaluateJavaScript does: an expression, its promise awaited (top-level `await`
 * works); code written as a function body (`return …`) runs as one. Resolves to `{value}`, the
 * value as JSON (undefined: null); rejects with the page's exception.
 */
export async function evaluateScript(tabId, code) {
  // replMode: top-level await and the last expression's value; a function body runs as a
  // plain expression (under replMode its promise would come back unawaited).
  const run = async (expression, replMode = true) => {
    const { result, exceptionDetails } = await cdp(tabId, 'Runtime.evaluate', {
      expression, awaitPromise: true, returnByValue: true, replMode, userGesture: true,
    });
    if (exceptionDetails) {
      const thrown = exceptionDetails.exception?.description ?? exceptionDetails.exception?.value ?? exceptionDetails.text;
      return { thrown: String(thrown ?? 'the script threw') };
    }
    return { value: result?.value ?? null };
  };
  const timeout = new Promise((_, reject) => setTimeout(() => reject(new Error(`the script did not finish within ${SCRIPT_MS / 1000} s`)), SCRIPT_MS));
  const attempt = async () => {
    const first = await run(code);
    // A function body: `return` outside a function is a syntax error of the expression form.
    if (first.thrown && /^SyntaxError: Illegal return statement/.test(first.thrown)) return run(`(async () => {\n${code}\n})()`, false);
    return first;
  };
  const outcome = await Promise.race([attempt(), timeout]);
  if (outcome.thrown) throw new Error(outcome.thrown.split('\n    at ')[0]);
  return { value: outcome.value };
}

/** The tab's cross-process frames: `[{sessionId, frameId}]`. */
export async function remoteFrames(tabId) {
  await attach(tabId);
  return [...(frameSessions.get(tabId) ?? new Map())].map(([sessionId, frameId]) => ({ sessionId, frameId }));
}

/**
 * Lets go of the tab; resolves once Chrome has. Who need not wait (a run that ended) may go on:
 * the next attachment to the tab waits for this one to end.
 */
export async function detach(tabId) {
  // A tab whose console is kept stays attached (until unwatchConsole).
  if (!attached.has(tabId) || consoleLog.has(tabId)) return;
  forget(tabId);
  const going = chrome.debugger.detach({ tabId }).catch(() => {}).finally(() => {
    if (detaching.get(tabId) === going) detaching.delete(tabId);
  });
  detaching.set(tabId, going);
  await going;
}

/**
 * Sends `click` (CDP input commands) with Chrome's file chooser intercepted, then answers the
 * chooser the click opened with `files` (absolute paths). Under chrome.debugger,
 * DOM.setFileInputFiles is allowed only as that answer (crbug.com/928255).
 */
export async function chooseFiles(tabId, click, files, { timeoutMs = 5000 } = {}) {
  await attach(tabId);
  let opened;
  const chooser = new Promise((resolve) => { opened = resolve; });
  const listener = (source, method, params) => {
    if (source.tabId === tabId && !source.sessionId && method === 'Page.fileChooserOpened') opened(params);
  };
  chrome.debugger.onEvent.addListener(listener);
  try {
    await cdp(tabId, 'Page.enable');
    await cdp(tabId, 'Page.setInterceptFileChooserDialog', { enabled: true });
    for (const { method, params } of click) await cdp(tabId, method, params);
    const event = await Promise.race([chooser, new Promise((resolve) => setTimeout(resolve, timeoutMs, null))]);
    if (!event) throw new Error('the click opened no file chooser: name the file field or the button that opens it');
    if (event.backendNodeId == null) throw new Error('the page opened a file picker that is not a file field; it cannot be answered');
    if (event.mode === 'selectSingle' && files.length > 1) throw new Error(`this field takes one file, and ${files.length} were given`);
    await cdp(tabId, 'DOM.setFileInputFiles', { files, backendNodeId: event.backendNodeId });
  } finally {
    chrome.debugger.onEvent.removeListener(listener);
    await cdp(tabId, 'Page.setInterceptFileChooserDialog', { enabled: false }).catch(() => {});
  }
}

/** Frames within frames the focus lookup follows before it gives up (a page nesting them for ever). */
const MAX_FOCUS_FRAMES = 16;

// Runs in an isolated world (the page's own scripts can neither see nor redefine what it
// reads) on the focused element: what a secret's guard needs to know of it.
const FIELD_FACTS = `function (selectors) {
  const attributes = [];
  for (const name of ['type', 'autocomplete', 'name', 'id', 'aria-label', 'placeholder']) {
    const value = this.getAttribute(name);
    if (value != null) attributes.push([name, value]);
  }
  const tag = this.localName;
  const textInput = tag === 'input' && !['button', 'checkbox', 'color', 'file', 'hidden', 'image', 'radio', 'range', 'reset', 'submit'].includes(this.type);
  return {
    frameUrl: document.URL,
    frameOrigin: self.origin,
    tag,
    attributes,
    editable: !this.disabled && !this.readOnly && (textInput || tag === 'textarea') || this.isContentEditable,
    matches: selectors.map((s) => { try { return this.matches(s); } catch { return false; } }),
  };
}`;

/**
 * The element that has keyboard focus on the tab and the frame it is in: asked right before a
 * secret is typed. Read in isolated worlds, through open and closed shadow roots and into
 * frames, same-process or in a process of their own (each with its own debugger session).
 * `selectors`: CSS selectors to test the element against. Resolves to `{frameUrl, frameOrigin,
 * tag, attributes, editable, matches}`; throws saying where it could not look.
 */
export async function focusedField(tabId, selectors = []) {
  await attach(tabId);
  const remote = new Map((await remoteFrames(tabId)).map(({ sessionId, frameId }) => [frameId, sessionId]));
  const { frameTree } = await cdp(tabId, 'Page.getFrameTree');
  let frameId = frameTree.frame.id;
  let sessionId; // the tab's own session, until focus leads into a frame of another process
  for (let depth = 0; depth < MAX_FOCUS_FRAMES; depth++) {
    const send = (method, params) => cdp(tabId, method, params, sessionId);
    const { executionContextId } = await send('Page.createIsolatedWorld', { frameId, worldName: 'sightline-focus' });
    const call = async (objectId, body, args = []) =>
      (await send('Runtime.callFunctionOn', { objectId, functionDeclaration: body, arguments: args.map((value) => ({ value })), returnByValue: false })).result;
    let { result: focused } = await send('Runtime.evaluate', { expression: 'document.activeElement', contextId: executionContextId });
    // A shadow host stands for the element focused inside its tree; closed trees are reached
    // through the debugger (their roots are not scripts' to see).
    for (let hops = 0; focused?.objectId && hops < MAX_FOCUS_FRAMES; hops++) {
      const { node } = await send('DOM.describeNode', { objectId: focused.objectId, pierce: false, depth: 0 });
      const root = node.shadowRoots?.[0];
      if (!root) break;
      const { object } = await send('DOM.resolveNode', { backendNodeId: root.backendNodeId, executionContextId });
      const inner = await call(object.objectId, 'function () { return this.activeElement; }');
      if (!inner?.objectId) break;
      focused = inner;
    }
    if (!focused?.objectId) throw new Error('the page has no focused element it lets Sightline read');
    const { node } = await send('DOM.describeNode', { objectId: focused.objectId, pierce: false, depth: 0 });
    if (!node.frameId || !['IFRAME', 'FRAME'].includes(node.nodeName)) {
      return (await send('Runtime.callFunctionOn', {
        objectId: focused.objectId, functionDeclaration: FIELD_FACTS, arguments: [{ value: selectors }], returnByValue: true,
      })).result.value;
    }
    // Focus is inside a frame: look again in its document, in its own process if it has one.
    frameId = node.frameId;
    if (remote.has(frameId)) sessionId = remote.get(frameId);
  }
  throw new Error(`the focus is more than ${MAX_FOCUS_FRAMES} frames deep`);
}
