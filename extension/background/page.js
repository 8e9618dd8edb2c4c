// Reading a tab: screenshot through CDP, elements through the content script's WASM, or —
// where the page's CSP refuses WebAssembly in content scripts — through CDP DOMSnapshot fed
// to the same Rust classifier.
import { busyWith, cdp, leaveDialogsToPerson, networkIdle, remoteFrames, watchDialogs } from './debugger.js';
import { core } from './wasm.js';
import '../shared/element-at-path.js'; // defines globalThis.sightlineElementAtPath

/** Why Sightline cannot work on this URL (`{code, reason}`: the core's list), or null. */
export async function restriction(url) {
  return (await core()).restriction(url ?? '');
}

export async function assertUsable(tabId) {
  const tab = await chrome.tabs.get(tabId).catch(() => null);
  if (!tab) throw new Error(`tab ${tabId} no longer exists`);
  const restricted = await restriction(tab.url || tab.pendingUrl);
  // The code is what the core and the panel key on (RunError's page_restricted).
  if (restricted) throw Object.assign(new Error(`Sightline cannot work on ${tab.url}: ${restricted.reason}.`), { code: 'page_restricted' });
  return tab;
}

// The build's stamp, as content.js stamps itself (scripts/build writes version_name).
const VERSION = chrome.runtime.getManifest().version_name ?? chrome.runtime.getManifest().version;

// Injections under way, by document: callers that find the same fresh document without
// Sightline at once (a recorded tab's recorder re-armed on load, and a step's photo) share one,
// rather than each evaluating the 440 KB reader again. (An injection lands in the tab's current
// document: after a navigation mid-injection a caller may inject again, which content.js bears.)
const injecting = new Map();

/**
 * Runs `name(arg)` from content/content.js in the tab's isolated world, injecting it (after
 * the page reader it uses) only where it is not loaded yet (a new tab, or after a navigation).
 */
async function inPage(tabId, name, arg) {
  const target = { tabId };
  // A content script of another build (one left in the tab by an update or a rebuild) counts as none.
  const call = () =>
    chrome.scripting.executeScript({
      target,
      func: (fn, a, v) => (globalThis.__sightline?.version === v ? globalThis.__sightline[fn](a) : { sightlineNotLoaded: true }),
      args: [name, arg ?? null, VERSION],
    });
  let [frame] = await call();
  if (frame?.result?.sightlineNotLoaded) {
    const key = frame.documentId ?? `tab ${tabId}`;
    let injection = injecting.get(key);
    if (!injection) {
      injection = chrome.scripting
        .executeScript({ target, files: ['wasm/reader.js', 'shared/element-at-path.js', 'content/content.js'] })
        .finally(() => injecting.delete(key));
      injecting.set(key, injection);
    }
    await injection;
    [frame] = await call();
  }
  return frame?.result;
}

/** Switches "record my steps" listeners on or off in the tab's page. */
export async function setRecording(tabId, on) {
  await assertUsable(tabId);
  leaveDialogsToPerson(tabId, on); // while the person acts, their dialogs are theirs to answer
  await inPage(tabId, 'record', { on });
}

/** While recording `tabId`: the person's next click on the page picks the element of a check. */
export async function pickCheck(tabId, check) {
  await assertUsable(tabId);
  return inPage(tabId, 'pickCheck', { check });
}

/**
 * How long Sightline waits for the page to answer a read: in the page, 30 s (200,000 nodes
 * take about 2 s); a DOMSnapshot, 60 s (the same page: about 8 s). A page silent for that long
 * is blocked: by a dialog that was open before Sightline attached (dialogs opening later are
 * answered), or by a script that never yields. The read then fails saying so, instead of waiting
 * for ever.
 */
const PAGE_DEADLINE_MS = 30_000;
const SNAPSHOT_DEADLINE_MS = 60_000;

function withinDeadline(work, ms, what) {
  let timer;
  const late = new Promise((_, reject) => {
    timer = setTimeout(() => reject(new Error(
      `${what} got no answer within ${ms / 1000} s: the page is not responding. ` +
      'A dialog (alert, confirm, prompt) that was open before Sightline took over the tab, or a script that never ' +
      'stops, may be blocking it; close the dialog or reload the page and try again.',
    )), ms);
  });
  return Promise.race([work, late]).finally(() => clearTimeout(timer));
}

/** The page's elements and description, as JS objects (tooling: `self.sightline.extract`). */
export async function extract(tabId, opts = {}) {
  return parseReading(await read(tabId, opts));
}

/**
 * The page as read, for the core to decode once: `{json, inPageMs}` (the content script's
 * extraction text as it arrived) or `{cdp, opts, captureMs}` (the CDP results in one JSON text).
 */
export async function read(tabId, opts = {}) {
  await assertUsable(tabId);
  return readUsable(tabId, opts);
}

/**
 * `read` of a tab its caller has just found usable (a run's observe asks for the tab once, for both
 * reads). `besideCapture`: a screenshot of the tab is under way, so the walk starts once the page
 * has drawn its next frame (the capture waits for one).
 */
export function readUsable(tabId, opts = {}, { besideCapture = false } = {}) {
  return busyWith(tabId, () => readPage(tabId, opts, besideCapture));
}

// What the content script's reader answers when visible frames hold documents only CDP reads.
const REMOTE_FRAMES = '{"remoteFrames":';

async function readPage(tabId, opts, besideCapture = false) {
  const reply = await withinDeadline((async () => {
    // Attached first, so a dialog the page opens before the read gets to run is reported, and
    // answered (the read is in flight) instead of holding it up.
    await watchDialogs(tabId);
    return inPage(tabId, besideCapture ? 'extractAfterFrame' : 'extract', opts);
  })(), PAGE_DEADLINE_MS, 'reading the page');
  if (typeof reply?.json === 'string') {
    // Visible cross-origin frames: only CDP reads every document of the page.
    if (reply.json.startsWith(REMOTE_FRAMES)) return readViaCdp(tabId, opts);
    return { json: reply.json, inPageMs: reply.inPageMs };
  }
  if (reply?.error?.code !== 'wasm-blocked') {
    throw Object.assign(new Error(`reading the page failed: ${reply?.error?.message ?? 'no answer from the page'}`), { code: 'page_unreadable' });
  }
  return readViaCdp(tabId, opts);
}

/** A reading (`read`) as JS objects: `{url, title, elements, description, timings, source, …}`. */
async function parseReading(reading) {
  const wasm = await core();
  // The readers send elements as columns; the core writes them as objects again, as it writes an Element.
  if (reading.cdp != null) return JSON.parse(wasm.readingWithElements(wasm.describeCdpSnapshot(reading.cdp, reading.opts, reading.captureMs)));
  const result = JSON.parse(wasm.readingWithElements(reading.json));
  result.timings.inPageMs = reading.inPageMs;
  return result;
}

/**
 * The CDP page reader: strict-CSP pages and pages with cross-origin frames. Also callable
 * directly (tests compare it with the content-script path).
 */
export async function extractViaCdp(tabId, opts = {}) {
  return parseReading(await busyWith(tabId, () => readViaCdp(tabId, opts)));
}

/** The CDP results of one reading, stringified once: `{cdp: '{capture, metrics, frames}', opts, captureMs}`. */
async function readViaCdp(tabId, opts) {
  const wasm = await core();
  const t0 = performance.now();
  const params = wasm.cdpSnapshotParams();
  const snapshot = cdp(tabId, 'DOMSnapshot.captureSnapshot', params);
  const capture = trimStrings(await withinDeadline(snapshot, SNAPSHOT_DEADLINE_MS, 'reading the page through the debugger'));
  const metrics = await cdp(tabId, 'Page.getLayoutMetrics');
  const frames = [];
  for (const { sessionId, frameId } of await remoteFrames(tabId)) {
    try {
      const { backendNodeId } = await cdp(tabId, 'DOM.getFrameOwner', { frameId });
      const frameSnapshot = cdp(tabId, 'DOMSnapshot.captureSnapshot', params, sessionId);
      const frameCapture = trimStrings(await withinDeadline(frameSnapshot, SNAPSHOT_DEADLINE_MS, 'reading a frame'));
      frames.push({ ownerBackendNodeId: backendNodeId, capture: frameCapture });
    } catch {
      // A frame that went away while being read, one nested in another remote frame, or one
      // that does not answer.
    }
  }
  return { cdp: JSON.stringify({ capture, metrics, frames }), opts, captureMs: performance.now() - t0 };
}

/**
 * The core keeps 10,000 characters of any text or value (`snapshot::MAX_READ_CHARS`, from the
 * first word): a capture's strings are cut to ten times that here, so the megabytes of one
 * text node are not copied into WebAssembly memory (which never shrinks) only to be dropped.
 */
const MAX_CAPTURE_STRING = 100_000;
function trimStrings(capture) {
  if (!Array.isArray(capture?.strings)) return capture;
  capture.strings = capture.strings.map((s) => {
    if (typeof s !== 'string' || s.length <= MAX_CAPTURE_STRING) return s;
    const start = Math.max(0, s.search(/\S/) - 1);
    return s.slice(start, start + MAX_CAPTURE_STRING);
  });
  return capture;
}

/**
 * The tab's screenshot as CDP gives it, for the core to take in once as bytes: `{bytes
 * (Uint8Array), metrics (Page.getLayoutMetrics), fullPage}`. CDP's base64 is decoded here, by
 * the browser's native decoder: a 1280×800 capture at DPR 2 (608 KB of base64) takes about
 * 1 ms to decode and copy into WASM memory, against about 16 ms for copying the text in and
 * decoding it in WebAssembly; and a quarter fewer bytes cross.
 */
export async function shoot(tabId, opts = {}) {
  await assertUsable(tabId);
  return shootUsable(tabId, opts);
}

/**
 * `shoot` of a tab its caller has just found usable (see `readUsable`). `image`: the image
 * options a full-page capture will be fitted by (`{}`: the defaults), which choose its scale
 * (`full_page_scale`); none: device pixels, as it came.
 */
export async function shootUsable(tabId, { fullPage = false, image = null } = {}) {
  const wasm = await core();
  // Within the read's deadline: CDP answers neither while a dialog holds the page.
  return withinDeadline((async () => {
    if (fullPage) {
      // The clip is the document's size: the metrics first.
      const metrics = await cdp(tabId, 'Page.getLayoutMetrics');
      const { data } = await cdp(tabId, 'Page.captureScreenshot', wasm.captureParams(JSON.stringify(metrics), true, image));
      return { bytes: fromBase64(data), metrics, fullPage };
    }
    // The viewport's capture needs no metrics: both asked at once. The metrics wait for the
    // page's main thread (busy with a read taken at the same time), the capture does not.
    const [metrics, { data }] = await Promise.all([
      cdp(tabId, 'Page.getLayoutMetrics'),
      cdp(tabId, 'Page.captureScreenshot', wasm.captureParams(null, false, null)),
    ]);
    return { bytes: fromBase64(data), metrics, fullPage };
  })(), PAGE_DEADLINE_MS, 'capturing the page');
}

// Chrome 140 and later decode natively; older ones through atob, about as fast as decoding in
// WebAssembly was (Uint8Array.from with a mapping function would be ten times slower).
const fromBase64 = Uint8Array.fromBase64?.bind(Uint8Array) ?? ((text) => {
  const binary = atob(text);
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  return bytes;
});

/**
 * The tab as CDP captures it (viewport, or the whole page): `{base64, devicePixelRatio, origin}`
 * (tooling); a full page at device pixels unless `image` says how it will be fitted (`shoot`).
 */
export async function capture(tabId, { fullPage = false, image = null } = {}) {
  const { bytes, metrics } = await shoot(tabId, { fullPage, image });
  return (await core()).captureFromCdp(bytes, JSON.stringify(metrics), fullPage);
}

/**
 * The screenshot a model would be sent: fitted per `opts.image` and marked with the numbers of
 * the elements the description lists. `{dataUrl, mapping, bytes, labels, ms}`.
 */
export async function screenshot(tabId, { fullPage = false, markers = true, image } = {}) {
  // Markers are drawn on what is in view: the rest of the page need not be read. The reading
  // and the capture's bytes cross into the core once each, as a run's observation does; the
  // marked image comes out once.
  const page = markers ? await read(tabId, { viewportOnly: true }) : null;
  const shot = await shoot(tabId, { fullPage, image: image ?? {} });
  return (await core()).markObserved({ page, shot }, image);
}

/** The tab's screenshot with overlays (highlight / bbox / point, CSS pixels) drawn on it. */
export async function overlay(tabId, overlays, { fullPage = false, image } = {}) {
  const shot = await capture(tabId, { fullPage, image: image ?? {} });
  const wasm = await core();
  return wasm.drawOverlays(shot, overlays, image);
}

/**
 * Chooses option `index` of the `<select>` at `element.xpath` as a person's choice does (the
 * option selected, input and change fired): resolves to `{text, value}` of the option.
 */
export async function choose(tabId, element, index) {
  const chosen = await busyWith(tabId, () => inPage(tabId, 'choose', { xpath: element.xpath, index }));
  if (!chosen) throw new Error('the page did not answer while choosing an option');
  if (chosen.error) throw new Error(chosen.error);
  return chosen;
}

/** Scrolls an element (`{xpath, rect}` from an extraction) into view. */
export async function reveal(tabId, element) {
  const how = await busyWith(tabId, () => inPage(tabId, 'reveal', { xpath: element.xpath, rect: element.rect }));
  if (!how) throw new Error('the page did not answer while scrolling an element into view');
}

/**
 * Waits for the page to react to input: the DOM quiet, a navigation loaded, the network idle,
 * each capped so a busy page cannot stall a run.
 */
export async function settle(tabId) {
  // Sightline's own wait: a dialog the action causes meanwhile (beforeunload on leaving) is answered.
  await busyWith(tabId, async () => {
    try {
      // The page's own cap is 3 s; a page that cannot answer at all (blocked) is not waited for.
      await Promise.race([inPage(tabId, 'settle', { quietMs: 150, maxMs: 3000 }), new Promise((r) => setTimeout(r, 5000))]);
    } catch {
      // A navigation dropped the content script: the load wait below covers it.
    }
    await tabLoaded(tabId, 10_000);
    await networkIdle(tabId, { quietMs: 400, maxMs: 5000 }).catch(() => {});
  });
}

/** Resolves once the tab is no longer loading, or after `maxMs`. */
export function tabLoaded(tabId, maxMs) {
  return new Promise((resolve) => {
    let timer = null;
    const done = () => {
      clearTimeout(timer);
      chrome.tabs.onUpdated.removeListener(onUpdated);
      resolve();
    };
    const onUpdated = (id, change) => id === tabId && change.status === 'complete' && done();
    chrome.tabs.onUpdated.addListener(onUpdated);
    timer = setTimeout(done, maxMs);
    chrome.tabs.get(tabId).then((t) => t.status !== 'loading' && done(), done);
  });
}

// Runs in the page (CDP Runtime.evaluate): the element at a Sightline XPath (extension/shared).
const elementAtPath = globalThis.sightlineElementAtPath;

// Runs on the element (CDP Runtime.callFunctionOn): its attributes, those of its document,
// and the frames on its way (name, title, index among the parent's frames).
function attributesForLocators() {
  const doc = this.ownerDocument;
  const values = (selector, attribute) => Array.from(doc.querySelectorAll(selector), (e) => e.getAttribute(attribute));
  const frames = [];
  for (let w = doc.defaultView; w && w !== w.top; w = w.parent) {
    const owner = w.frameElement;
    if (!owner) break;
    const siblings = Array.from({ length: w.parent.frames.length }, (_, i) => w.parent.frames[i]);
    frames.unshift({ name: owner.getAttribute('name'), title: owner.getAttribute('title'), index: Math.max(0, siblings.indexOf(w)) });
  }
  const labels = this.labels ? Array.from(this.labels, (l) => l.innerText) : [];
  const text = (this.innerText ?? '').trim();
  return {
    elements: doc.getElementsByTagName('*').length,
    frames,
    testId: this.getAttribute('data-testid'),
    testIds: values('[data-testid]', 'data-testid'),
    placeholder: this.getAttribute('placeholder'),
    placeholders: values('[placeholder]', 'placeholder'),
    label: this.getAttribute('aria-label') ?? labels[0] ?? null,
    labels: [...Array.from(doc.querySelectorAll('label'), (l) => l.innerText), ...values('[aria-label]', 'aria-label')],
    text: text && text.length <= 200 ? text : null,
  };
}

// Runs on the element (CDP Runtime.callFunctionOn) with the core's `TextPathCheck`: whether
// `path` finds it and nothing else, and `holder` (for a text) the element holding it. Last
// segments are searched in the element's own tree, as `elementAtPath` reaches it.
function namesAlone({ path, holder, tag, maxTagged }) {
  const doc = this.ownerDocument;
  if (doc.getElementsByTagName(tag).length > maxTagged) return false;
  const alone = (p, node) => {
    const found = doc.evaluate(p.split(' >>> ').at(-1), this, null, XPathResult.ORDERED_NODE_SNAPSHOT_TYPE, null);
    return found.snapshotLength === 1 && found.snapshotItem(0) === node;
  };
  try {
    return alone(path, this) && (holder == null || alone(holder, this.parentNode));
  } catch {
    return false; // a tag XPath cannot name (a prefixed one): no text path
  }
}

// Runs on a text node: where a script acting on the element holding it clicks (`HolderPoint`):
// the centre of the text's first line (a wrapped text's whole box can centre on a link beside
// it) from the element's border-box top-left, and its borders. Null at a shadow root's top.
function holderPoint() {
  const holder = this.parentElement;
  if (!holder) return null;
  const range = this.ownerDocument.createRange();
  range.selectNodeContents(this);
  const line = Array.from(range.getClientRects()).find((r) => r.width > 0 && r.height > 0);
  if (!line) return null;
  const box = holder.getBoundingClientRect();
  return { x: line.x + line.width / 2 - box.x, y: line.y + line.height / 2 - box.y, borderLeft: holder.clientLeft, borderTop: holder.clientTop };
}

// Locators are read before every action, so they are held to a step's budget. Chrome's
// accessibility queries walk the whole document (measured: 1.5 s on a 14k-element page, 40 s
// on a 70k one, and the renderer stays busy after a deadline), so they are skipped on pages
// with more elements than this: the role and text locators are then left out and exports use
// the test id, label or placeholder where those name the element alone, else its XPath.
const LOCATOR_DEADLINE_MS = 1000;
const AX_ELEMENT_LIMIT = 2000;

/**
 * What the core decides an element's locators from (`LocatorData`): the element at `xpath`,
 * its attributes and its document's, and, from Chrome's accessibility tree, its role and name
 * and the names of every element of that role in its document; the path of `textCheck` (the
 * core's `TextPathCheck`, or null) is kept as `textPath` where the page confirms it; for a text
 * node, `holderPoint`. Null where the element cannot be reached (a cross-origin frame, a closed
 * shadow root, gone) or the page does not answer in time: the exports then use XPaths.
 */
export async function locatorData(tabId, xpath, textCheck = null) {
  const group = 'sightline-locators';
  const read = async () => {
    const found = await cdp(tabId, 'Runtime.evaluate', { expression: `(${elementAtPath})(${JSON.stringify(xpath)})`, objectGroup: group });
    const objectId = found.result?.objectId;
    if (!objectId || found.result.subtype !== 'node') return null;
    const onNode = async (fn, args = []) => (await cdp(tabId, 'Runtime.callFunctionOn', {
      objectId, functionDeclaration: String(fn), arguments: args.map((value) => ({ value })), returnByValue: true,
    })).result?.value;
    const confirmed = textCheck && (await onNode(namesAlone, [textCheck])) === true ? { textPath: textCheck.path } : {};
    // A text node (or CDATA) has no attributes or role of its own: its text path and place are what it has.
    if (found.result.className === 'Text' || found.result.className === 'CDATASection') {
      return { ...confirmed, holderPoint: await onNode(holderPoint) };
    }
    const own = await cdp(tabId, 'Runtime.callFunctionOn', { objectId, functionDeclaration: String(attributesForLocators), returnByValue: true });
    if (own.exceptionDetails) return Object.keys(confirmed).length ? confirmed : null;
    const { elements, ...data } = { ...own.result.value, ...confirmed };
    if (elements > AX_ELEMENT_LIMIT) return data;
    const doc = await cdp(tabId, 'Runtime.callFunctionOn', { objectId, functionDeclaration: 'function () { return this.ownerDocument; }', objectGroup: group });
    const { node } = await cdp(tabId, 'DOM.describeNode', { objectId });
    const { node: docNode } = await cdp(tabId, 'DOM.describeNode', { objectId: doc.result.objectId });
    const { nodes } = await cdp(tabId, 'Accessibility.getPartialAXTree', { backendNodeId: node.backendNodeId, fetchRelatives: false });
    const ax = nodes.find((n) => n.backendDOMNodeId === node.backendNodeId);
    const shown = async (role) => (await cdp(tabId, 'Accessibility.queryAXTree', { backendNodeId: docNode.backendNodeId, role })).nodes.filter((n) => !n.ignored);
    if (ax && !ax.ignored && ax.role?.value) {
      const same = await shown(ax.role.value);
      const at = same.findIndex((n) => n.backendDOMNodeId === node.backendNodeId);
      Object.assign(data, {
        role: ax.role.value,
        name: ax.name?.value ?? '',
        roleNames: same.map((n) => n.name?.value ?? ''),
        roleIndex: at >= 0 ? at : null,
      });
    }
    if (data.text) data.texts = (await shown('StaticText')).map((n) => n.name?.value ?? '');
    return data;
  };
  let timer;
  const late = new Promise((resolve) => { timer = setTimeout(() => resolve(null), LOCATOR_DEADLINE_MS); });
  try {
    return await Promise.race([busyWith(tabId, read), late]);
  } catch (e) {
    console.warn('reading locators failed', e);
    return null;
  } finally {
    clearTimeout(timer);
    cdp(tabId, 'Runtime.releaseObjectGroup', { objectGroup: group }).catch(() => {});
  }
}
