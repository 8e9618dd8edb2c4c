// The page reader's JS half: crate/reader/src/dom.rs (the walker) calls these, about one call per
// node; the walker decides what is read, skipped and entered.
const VISIBLE = { opacityProperty: true, visibilityProperty: true };
const box = new Float64Array(6);
let recorded = new Set();
// Content scripts may open closed shadow roots; elsewhere (tests) only open ones are seen.
const dom = globalThis.chrome?.dom;
// Only custom elements and these may host a shadow root (DOM spec, attachShadow). Asking
// anything else costs time for nothing: the shadowRoot getter is slow on form controls.
const HOSTS = new Set(['article', 'aside', 'blockquote', 'body', 'div', 'footer', 'h1', 'h2', 'h3', 'h4', 'h5', 'h6',
  'header', 'main', 'nav', 'p', 'section', 'span']);
function shadowOf(el) {
  const tag = el.localName;
  const custom = tag.includes('-');
  if (!custom && !HOSTS.has(tag)) return null;
  return el.shadowRoot ?? (dom && custom ? dom.openOrClosedShadowRoot(el) : null) ?? null;
}
// "\0" separates the packed fields, so it may not appear inside one.
const clean = (s) => (s.includes('\0') ? s.replaceAll('\0', '\uFFFD') : s);
// Longest text, value or attribute value read (snapshot::MAX_READ_CHARS, set per walk): a 10 MB
// text node costs one slice instead of a 10 MB copy into WASM. From the first word, with one
// separating space before it kept (as snapshot::cut_read does).
let readLimit = 10000;
export function setReadLimit(n) { readLimit = n; }
function cut(s) {
  if (s.length <= readLimit) return s;
  const first = s.search(/\S/);
  const start = first > 0 ? first - 1 : 0;
  return s.slice(start, start + readLimit);
}
const ranges = new WeakMap();
// The nodes of the current walk; the walker refers to them by index.
let nodes = [];
// Shadow roots and frames the current walk entered: a page watch (below) cannot see into them.
let entered = 0;
// With viewportOnly, the table indices of the walk's roots (the document's, each entered frame's):
// every other node is judged in or out of view by appendChildren, with its siblings.
let roots = [];
// The form fields the current walk read (input, textarea, select) and its custom elements: a
// field's live state is no attribute, and a custom element defined later (or given a shadow
// root) changes with neither a mutation record nor an event.
let fields = [];
let customs = [];
export function beginWalk(root) { nodes = [root]; entered = 0; roots = [0]; reaches = new Map(); fields = []; customs = []; }
export function endWalk() { nodes = []; reaches = new Map(); rangeDoc = null; range = null; fields = []; customs = []; }
export function indexOfNode(n) { return nodes.indexOf(n); }
let viewportOnly = false;
let margin = 0; // in viewports, each way (snapshot::IN_VIEW_MARGIN)
export function setViewportOnly(on, viewports) { viewportOnly = on; margin = viewports; }
// Per document of the walk: the edges of its viewport with the margin around it,
// [left, top, right, bottom] (the viewport does not change while a walk runs).
let reaches = new Map();
function reachOf(doc) {
  let reach = reaches.get(doc);
  if (!reach) {
    const root = doc.documentElement;
    const w = root.clientWidth, h = root.clientHeight;
    reach = [-w * margin, -h * margin, w * (1 + margin), h * (1 + margin)];
    reaches.set(doc, reach);
  }
  return reach;
}
// For viewportOnly: true when an element with children lies, with its overflow, entirely
// outside its document's viewport and the margin around it, so nothing beneath it can show there.
// The box alone decides unless it lies above or left of that area: only then can its overflow
// (scrollWidth, scrollHeight: right and down) reach in, and only then are they read.
function outsideViewport(el) {
  if (!el.firstElementChild && el.localName !== 'iframe') return false;
  const r = el.getBoundingClientRect();
  const [minX, minY, maxX, maxY] = reachOf(el.ownerDocument);
  if (r.top >= maxY || r.left >= maxX) return true;
  if (r.bottom > minY && r.right > minX) return false;
  const right = r.left + Math.max(r.width, el.scrollWidth);
  const bottom = r.top + Math.max(r.height, el.scrollHeight);
  return bottom <= minY || right <= minX;
}
export function setRecordedAttributes(names) { recorded = new Set(names); }
// What readNode says is the last character of the string it returns, so no view of the
// walker's memory is made per node and the walker drops it without moving the rest (a text's
// data is kept as it came): TEXT after a text's data, BLANK alone for whitespace only;
// for an element, FLAGS plus bits (dom.rs, `ElementRead`): its state (0 no layout box,
// display:none; 1 hidden by visibility or opacity; 2 visible), 4 when it hosts a shadow root,
// 8 when viewportOnly may skip it, 16 when form text follows, 32 when checked or selected.
const TEXT = '#';
const BLANK = '!';
const FLAGS = 0x40;
// Element → "tag", then "\0name\0value" for each recorded attribute, then the flags.
// Form controls also carry their live state, read here to save crossings: "\0" + the value
// (input, textarea) or selected option's text (select) at the end, and checked (input) or
// selected (option).
// A select's form text: its selected option's text, then every option's (at most
// MAX_OPTIONS, each cut), all separated by U+0001: options have no box of their own, so the
// walker never reaches them.
const MAX_OPTIONS = 200;
const optionText = (o) => clean(cut(o.textContent ?? '')).replaceAll('\u0001', ' ').slice(0, 500);
function selectText(node) {
  let text = node.selectedOptions[0] ? optionText(node.selectedOptions[0]) : '';
  const options = node.options;
  for (let k = 0; k < options.length && k < MAX_OPTIONS; k++) text += '\u0001' + optionText(options[k]);
  return text;
}
// Text → its data + TEXT, or BLANK when it has no non-space character. Anything else → undefined.
export function readNode(i) {
  const node = nodes[i];
  const type = node.nodeType;
  if (type === 1) {
    const state = node.checkVisibility(VISIBLE) ? 2 : node.checkVisibility() ? 1 : 0;
    let flags = state;
    if (shadowOf(node)) flags |= 4;
    // Other nodes were judged with their siblings (appendChildren), where pruned ones stayed out.
    if (viewportOnly && state !== 0 && roots.includes(i) && outsideViewport(node)) flags |= 8;
    const tag = node.localName;
    if (tag.includes('-')) customs.push(node);
    let packed = tag;
    if (node.hasAttributes()) {
      for (const name of node.getAttributeNames()) {
        if (!recorded.has(name)) continue;
        const value = node.getAttribute(name);
        packed += '\0' + name + '\0' + clean(name === 'id' ? value : cut(value)); // ids anchor XPaths: whole
      }
    }
    switch (tag) {
      case 'input': flags |= 16 | (node.checked ? 32 : 0); packed += '\0' + clean(cut(node.value)); fields.push(node); break;
      case 'textarea': flags |= 16; packed += '\0' + clean(cut(node.value)); fields.push(node); break;
      case 'select': flags |= 16; packed += '\0' + selectText(node); fields.push(node); break;
      case 'option': flags |= 16 | (node.selected ? 32 : 0); packed += '\0'; break;
    }
    return packed + String.fromCharCode(FLAGS | flags);
  }
  if (type === 3) {
    const data = node.data;
    return /\S/.test(data) ? cut(data) + TEXT : BLANK;
  }
  return undefined;
}
// The runs appendChildren is writing, and the table's length at the end of the last run.
let left = '';
let leftAfter = 0;
// How appendChildren packs its counts into the one number it returns: a page holds far fewer
// than 2^26 nodes (each costs the browser more than a hundred bytes), and the packed number
// stays below 2^53, exact in a double.
const COUNT_BITS = 2 ** 26;
// Appends node i's children to the table, after what is there, a shadow root's first. Returns
// one number, so no view of WASM memory is made per call: (inShadow × 2^26 + count) × 2 + left,
// where inShadow is how many came from the shadow root, count how many in all, and left is 1
// when some were left out (then `takeLeftOut` has them).
// With viewportOnly, children lying outside the view and its margin (outsideViewport) are left
// out of the table, and described instead by `takeLeftOut`, for XPath positions (which count
// every sibling): runs of them, each as four fields ending in "\0": how many appended children
// precede the run (since the previous run), 1 if it is in the shadow root (else 0), the tag,
// and how many of that tag in a row.
export function appendChildren(i, hostsShadow) {
  const node = nodes[i];
  const start = nodes.length;
  const root = hostsShadow ? shadowOf(node) : null;
  left = '';
  leftAfter = start;
  if (root) { entered++; appendFrom(root.firstChild, '1'); }
  const inShadow = nodes.length - start;
  appendFrom(node.firstChild, '0');
  const count = nodes.length - start;
  return (inShadow * COUNT_BITS + count) * 2 + (left === '' ? 0 : 1);
}
// The runs the last appendChildren left out.
export function takeLeftOut() { const runs = left; left = ''; return runs; }
function appendFrom(first, tree) {
  if (!viewportOnly) {
    for (let c = first; c; c = c.nextSibling) nodes.push(c);
    return;
  }
  let tag = null, count = 0;
  const endRun = () => {
    if (count === 0) return;
    left += `${nodes.length - leftAfter}\0${tree}\0${tag}\0${count}\0`;
    leftAfter = nodes.length;
    count = 0;
  };
  for (let c = first; c; c = c.nextSibling) {
    // Pruned here as readNode did one by one: an element (nodeType 1) outside the view. Unlike
    // readNode this asks no checkVisibility: an element without a box (display:none) was left out
    // there too, and one with display:contents has an empty box at the viewport's origin, never outside.
    if (c.nodeType === 1 && outsideViewport(c)) {
      if (count > 0 && c.localName !== tag) endRun();
      tag = c.localName;
      count++;
    } else {
      endRun();
      nodes.push(c);
    }
  }
  endRun();
}
// A same-origin frame's document, or null (cross-origin, sandboxed, not loaded).
function frameDocument(el) {
  try { return el.contentDocument?.documentElement ? el.contentDocument : null; } catch { return null; }
}
// Appends the root of frame i's document to the table and returns its index, or -1 when
// this page may not read it. out[2], out[3]: where the frame's content starts.
export function enterFrame(i, out) {
  const el = nodes[i];
  const doc = frameDocument(el);
  if (!doc) return -1;
  readFrameOrigin(el, out);
  entered++;
  nodes.push(doc.documentElement);
  roots.push(nodes.length - 1);
  return nodes.length - 1;
}
// The web origin of the document in frame i (entered with enterFrame): "null" when opaque.
export function frameDocumentOrigin(i) {
  try { return frameDocument(nodes[i])?.defaultView?.origin ?? 'null'; } catch { return 'null'; }
}
// Where a frame's content starts in its document's viewport: out[2], out[3].
function readFrameOrigin(el, out) {
  const r = el.getBoundingClientRect();
  const cs = el.ownerDocument.defaultView.getComputedStyle(el);
  out[2] = r.x + el.clientLeft + (parseFloat(cs.paddingLeft) || 0);
  out[3] = r.y + el.clientTop + (parseFloat(cs.paddingTop) || 0);
}
// A node's box (a Range measures text). The Range of the last text's document is at hand:
// a page's texts are mostly in one document, and a WeakMap lookup per text cost more than the
// check.
let rangeDoc = null;
let range = null;
function boxOf(node) {
  if (node.nodeType !== 3) return node.getBoundingClientRect();
  const doc = node.ownerDocument;
  if (doc !== rangeDoc) {
    range = ranges.get(doc);
    if (!range) { range = doc.createRange(); ranges.set(doc, range); }
    rangeDoc = doc;
  }
  range.selectNodeContents(node);
  return range.getBoundingClientRect();
}
// The boxes of many nodes in one call: out[4k..4k+4] = x, y, width, height of node which[k].
export function readBoxes(which, out) {
  for (let k = 0; k < which.length; k++) {
    const r = boxOf(nodes[which[k]]);
    const at = 4 * k;
    out[at] = r.x; out[at + 1] = r.y; out[at + 2] = r.width; out[at + 3] = r.height;
  }
}
const STYLE_SETS = [
  ['background-color', 'background-image', 'font-family'],
  ['overflow-x', 'overflow-y'],
  ['position'],
  ['display', 'visibility'],
];
// Computed values of one preset list, joined by "\n".
export function readStyle(i, set) {
  const el = nodes[i];
  const cs = el.ownerDocument.defaultView.getComputedStyle(el);
  return STYLE_SETS[set].map((p) => cs.getPropertyValue(p)).join('\n');
}
// For each node which[k] (an element with an id), out[k] = 1 when another element of its tree
// (document or shadow root) has that id too, read or not. The tree's id index answers: an element
// that is not the first with its id shares it; for the first, a query by the id says whether a
// second exists, from the index in standards mode. Where thousands of ids were read (a whole
// page), one pass over each tree's elements with an id counts them instead (measured on the 5,000
// ids of the 70k-element form table: queries 23-34 ms, about 5 µs each, a pass 16-26 ms, of which
// 7-14 the traversal itself). So in quirks mode too, where CSS matches ids without case (no index).
const QUERIED_IDS = 2048;
export function sharedIds(which, out) {
  const counted = new Map(); // root → Map(id → count)
  const countIn = (root) => {
    let counts = counted.get(root);
    if (!counts) {
      counts = new Map();
      for (const e of root.querySelectorAll('[id]')) {
        const v = e.getAttribute('id');
        counts.set(v, (counts.get(v) ?? 0) + 1);
      }
      counted.set(root, counts);
    }
    return counts;
  };
  for (let k = 0; k < which.length; k++) {
    const el = nodes[which[k]];
    const id = el.getAttribute('id');
    const root = el.getRootNode();
    if (!id || typeof root.getElementById !== 'function' || root.getElementById(id) !== el) {
      out[k] = 1;
      continue;
    }
    let count;
    if (which.length > QUERIED_IDS || el.ownerDocument.compatMode === 'BackCompat') {
      count = countIn(root).get(id) ?? 1;
    } else {
      try {
        count = root.querySelectorAll(`#${CSS.escape(id)}`).length;
      } catch {
        count = 2; // no answer: no anchor
      }
    }
    out[k] = count > 1 ? 1 : 0;
  }
}
// Composed parent: through shadow roots to their host, and out of a frame to its <iframe>.
function up(n) {
  const p = n.parentNode;
  if (!p) return null;
  if (p.nodeType === 11) return p.host ?? null;
  if (p.nodeType === 9) { try { return p.defaultView?.frameElement ?? null; } catch { return null; } }
  return p;
}
function holds(a, b) { for (let n = b; n; n = up(n)) if (n === a) return true; return false; }
// The topmost element at a viewport point, looking into shadow roots and same-origin frames.
function deepElementFromPoint(x, y) {
  let ox = 0, oy = 0;
  let el = document.elementFromPoint(x, y);
  for (let depth = 0; el && depth < 64; depth++) {
    const root = shadowOf(el);
    if (root) {
      const inner = root.elementFromPoint(x - ox, y - oy);
      if (inner && inner !== el) { el = inner; continue; }
    }
    if (el.localName === 'iframe' || el.localName === 'frame') {
      const doc = frameDocument(el);
      if (doc) {
        readFrameOrigin(el, box);
        const inner = doc.elementFromPoint(x - ox - box[2], y - oy - box[3]);
        if (inner) { ox += box[2]; oy += box[3]; el = inner; continue; }
      }
    }
    break;
  }
  return el;
}
// True when the topmost element at (x, y) is not the node, its ancestor or its descendant.
export function coveredAt(i, x, y) {
  const node = nodes[i];
  const target = node.nodeType === 1 ? node : up(node);
  const hit = deepElementFromPoint(x, y);
  if (!hit || !target) return false;
  return !(holds(target, hit) || holds(hit, target));
}

// The page watch behind the kept readings (crate/reader, `kept`): from the end of a walk,
// whether anything since may have changed what a walk reads. Mutation records say what the DOM
// did; what changes styles, boxes or form state without one (typing, focus, hover, a wheel or
// scrolling, a resize, an image or font loading, a popover or details toggled, an animation or
// transition) is caught by its event, and asked at check time: the page's animations (running
// now, or started, finished or cancelled since), the
// address, the window's scroll offsets, viewport size, zoom, the live state of the fields the
// walk read (a page script may set a value or a selection with neither) and of its custom
// elements (defined since, or given a shadow root). Shadow roots and frames keep their own
// records and events, so a walk that entered any keeps nothing. Any change ends the watch and
// every mark with it; each kept reading (one per slot: the in-view one, the whole page) holds
// a mark from the end of its walk while nothing has changed.
const CHANGING_EVENTS = ['input', 'change', 'focusin', 'focusout', 'pointerover', 'pointerout', 'pointerdown', 'pointerup',
  'keydown', 'keyup', 'wheel', 'scroll', 'load', 'error', 'beforetoggle', 'toggle', 'transitionrun', 'transitionend',
  'transitioncancel', 'animationstart', 'animationend', 'animationcancel', 'play', 'loadedmetadata'];
// Heard on the document as well as the window: a `load` or `error` event at an image or a
// script stops at the document and never reaches the window (DOM spec, "get the parent" of a
// Document). (A page's own capture listener on the window can still stop an event before both.)
let watch = null; // { observer, slots: [mark | null, mark | null] }
function stopWatching() {
  if (!watch) return;
  watch.observer.disconnect();
  for (const type of CHANGING_EVENTS) for (const at of [window, document]) at.removeEventListener(type, stopWatching, true);
  removeEventListener('resize', stopWatching, true);
  document.fonts?.removeEventListener('loadingdone', stopWatching);
  watch = null;
}
function startWatching() {
  const observer = new MutationObserver(stopWatching);
  observer.observe(document, { subtree: true, childList: true, attributes: true, characterData: true });
  for (const type of CHANGING_EVENTS) for (const at of [window, document]) at.addEventListener(type, stopWatching, { capture: true, passive: true });
  addEventListener('resize', stopWatching, { capture: true, passive: true });
  document.fonts?.addEventListener('loadingdone', stopWatching);
  watch = { observer, slots: [null, null] };
}
// Records not yet delivered to the observer's callback: a change all the same.
function changedUndelivered() {
  if (watch && watch.observer.takeRecords().length > 0) stopWatching();
  return !watch;
}
const where = () => [location.href, scrollX, scrollY, innerWidth, innerHeight, devicePixelRatio].join(' ');
function fieldState(el) {
  switch (el.localName) {
    case 'input': return `${el.checked ? 1 : 0}${el.value}`;
    case 'select': return Array.from(el.selectedOptions, (o) => o.index).join(); // several in a listbox
    default: return el.value;
  }
}
const customState = (el) => `${el.matches(':defined') ? 1 : 0}${shadowOf(el) ? 1 : 0}`;
// Script animations (el.animate) fire no events as they start, finish or are cancelled: the
// page's animations and their states, compared whole.
const animationStates = () => document.getAnimations().map((a) => [a, a.playState]);
const sameAnimations = (was) => {
  const now = animationStates();
  return now.length === was.length && now.every(([a, state], k) => a === was[k][0] && state === was[k][1] && state !== 'running');
};
// Marks the page as the walk just ended left it, for the reading kept in `slot`; false (and no
// watch) when the walk entered a shadow root or a frame. Called while the walk's table lives.
export function watchPage(slot) {
  if (entered > 0) { stopWatching(); return false; }
  // Changes before this walk: it saw them; the other slot's mark did not.
  if (changedUndelivered()) startWatching();
  watch.slots[slot] = {
    at: where(),
    fields: fields.map((el) => [el, fieldState(el)]),
    customs: customs.map((el) => [el, customState(el)]),
    animations: animationStates(),
  };
  return true;
}
// Drops the mark of `slot` (its reading is not kept), and the watch with the last mark.
export function forgetSlot(slot) {
  if (!watch) return;
  watch.slots[slot] = null;
  if (watch.slots.every((s) => s === null)) stopWatching();
}
// True when nothing a walk reads can have changed since watchPage(slot). A hidden page draws no
// frames, so scroll events of elements scrolled meanwhile wait: it is read again.
export function pageUnchanged(slot) {
  if (changedUndelivered() || !watch.slots[slot]) return false;
  const mark = watch.slots[slot];
  const same = document.visibilityState === 'visible' && where() === mark.at &&
    mark.fields.every(([el, state]) => fieldState(el) === state) &&
    mark.customs.every(([el, state]) => customState(el) === state) &&
    sameAnimations(mark.animations);
  if (!same) stopWatching();
  return same;
}
export function forgetPage() { stopWatching(); }
