// Content script (isolated world), injected on demand after the page reader
// (wasm/reader.js: the global `sightlineReader`, the core's reading part with its module bytes
// inside). It answers the service worker. Where the page's CSP refuses WebAssembly it says so,
// and the service worker reads the page through CDP instead.
(() => {
  // Which build of Sightline injected it (scripts/build stamps version_name): after an update or a
  // rebuild, a tab may still hold the last build's script (its readings in a form the new core
  // refuses); the worker injects its own in its place.
  const manifest = chrome.runtime.getManifest();
  const version = manifest.version_name ?? manifest.version;
  if (globalThis.__sightline?.version === version) return;
  // A script left by another build retires: it stops recording (its listeners would send each
  // event again) and lets go of the page (its reader's page watch would keep that module and its
  // memory alive). Builds before `retire` can only stop recording.
  try {
    const old = globalThis.__sightline;
    Promise.resolve(old?.retire ? old.retire() : old?.record?.({ on: false })).catch(() => {});
  } catch {
    // nothing more to ask of it
  }

  // The reader injected with this script. Should both files be injected twice (the worker shares
  // one injection per document, but not across a navigation mid-injection or a worker restart),
  // the second reader.js replaces the global with a reader not yet compiled, while this script
  // (kept, the second returns above) may be compiling its own.
  const reader = sightlineReader;
  let corePromise = null;
  let wasmMemory = null;
  /**
   * The reader, compiled once per document from the bytes injected with it: no file of the
   * extension is web-accessible, so a page cannot fetch one to learn Sightline is installed.
   */
  function loadCore() {
    corePromise ??= (async () => {
      wasmMemory = (await reader.init({ module_or_path: reader.moduleBytes })).memory;
      return reader;
    })();
    return corePromise;
  }

  function failure(code, e) {
    return { error: { code, message: String(e?.message ?? e) } };
  }

  globalThis.__sightline = {
    version,
    async extract(opts) {
      let core;
      try {
        core = await loadCore();
      } catch (e) {
        return failure('wasm-blocked', e);
      }
      try {
        const started = performance.now();
        const json = core.extractPage(opts ?? {});
        // Everything the page paid, including handing the result over.
        return { json, inPageMs: performance.now() - started };
      } catch (e) {
        return failure('extract-failed', e);
      }
    },

    /**
     * `extract` once the page has drawn its next frame: a screenshot asked for at the same time
     * waits for a frame from the page's main thread, which the walk would hold until it ends.
     * A hidden page draws no frames (nor is it photographed from them): read at once; a frame
     * that does not come within 100 ms is not waited for longer.
     */
    async extractAfterFrame(opts) {
      if (document.visibilityState === 'visible') {
        await new Promise((resolve) => {
          const timer = setTimeout(resolve, 100);
          requestAnimationFrame(() => {
            // The frame is drawn after this callback, in the same task; a message runs after it.
            const channel = new MessageChannel();
            channel.port1.onmessage = () => {
              clearTimeout(timer);
              resolve();
            };
            channel.port2.postMessage(null);
          });
        });
      }
      return this.extract(opts);
    },

    /**
     * Brings an element into view: found by its XPath (into frames and shadow roots, as every
     * lookup follows one), else by scrolling the page by its box (a cross-origin frame, a
     * closed shadow root).
     */
    reveal({ xpath, rect }) {
      // Its scrolling reaches the page watch only with the next frame: the kept readings go now.
      corePromise?.then((core) => core.forgetReadings(), () => {});
      const node = sightlineElementAtPath(xpath);
      const el = node?.nodeType === Node.TEXT_NODE ? node.parentElement : node;
      // An element of a same-origin frame is of the frame's realm: no `instanceof Element` here.
      if (el?.nodeType === Node.ELEMENT_NODE) {
        el.scrollIntoView({ block: 'center', inline: 'center', behavior: 'instant' });
        return 'element';
      }
      const cx = rect.x + rect.width / 2 - innerWidth / 2;
      const cy = rect.y + rect.height / 2 - innerHeight / 2;
      scrollBy({ left: cx, top: cy, behavior: 'instant' });
      return 'page';
    },

    /**
     * Chooses option `index` of the select at `xpath` as a person's choice does: selected,
     * then input and change fired (bubbling). `{text, value}`, or `{error}`.
     */
    choose({ xpath, index }) {
      const el = sightlineElementAtPath(xpath);
      // A select in a same-origin frame is its window's HTMLSelectElement, not this one's.
      if (el?.localName !== 'select') return { error: 'the element to choose in is not a select on this page any more (or lies in a cross-origin frame or closed shadow root)' };
      const option = el.options[index];
      if (!option) return { error: `the select has no option number ${index + 1} any more` };
      if (option.disabled || el.disabled) return { error: `the option \u201c${option.text.trim()}\u201d cannot be chosen: it is disabled` };
      el.focus({ preventScroll: true });
      if (!option.selected) {
        option.selected = true;
        el.dispatchEvent(new Event('input', { bubbles: true, composed: true }));
        el.dispatchEvent(new Event('change', { bubbles: true }));
      }
      return { text: option.text.trim(), value: option.value };
    },

    /** Resolves once the DOM has had no mutations for quietMs, or after maxMs. */
    settle({ quietMs = 150, maxMs = 3000 } = {}) {
      return new Promise((resolve) => {
        let timer = setTimeout(done, quietMs);
        const cap = setTimeout(done, maxMs);
        const observer = new MutationObserver(() => {
          clearTimeout(timer);
          timer = setTimeout(done, quietMs);
        });
        observer.observe(document, { subtree: true, childList: true, attributes: true, characterData: true });
        function done() {
          observer.disconnect();
          clearTimeout(timer);
          clearTimeout(cap);
          resolve(true);
        }
      });
    },

    /** For tests: bytes of WebAssembly memory the core holds in this page (it never shrinks). */
    memory() {
      return { wasmBytes: wasmMemory?.buffer.byteLength ?? 0 };
    },

    /** "Record my steps": reports the person's own trusted input to the worker while on. */
    async record({ on }) {
      if (on) await recorder.start();
      else recorder.stop();
      return true;
    },

    /** While recording: the next click picks the element a check (`text`, `value`, `visible`) is about. */
    pickCheck({ check }) {
      return recorder.pickCheck(check);
    },

    /** Replaced by another build's script: stop recording and let go of the page. */
    async retire() {
      try {
        recorder.stop(); // its last events are sent, which an orphaned script may fail to do
      } finally {
        if (corePromise) (await corePromise).retire();
      }
      return true;
    },
  };

  // What the core decides an element's locators from (`LocatorData`), read in the page at once
  // when a gesture starts: by the time a step reaches the worker the page may have hidden the
  // element (an edit field shown in its place) or removed it (a deleted row). Roles and names
  // are read as Playwright's getByRole computes them (implicit ARIA roles, accessible names
  // from labels, aria-*, alt, title, content with ::before/::after), which is what exports
  // write. Facts only: which of them names the element is the core's choice.
  const locating = (() => {
    const INPUT_ROLES = { button: 'button', submit: 'button', reset: 'button', image: 'button', checkbox: 'checkbox', radio: 'radio', range: 'slider', number: 'spinbutton', search: 'searchbox' };
    const TAG_ROLES = { button: 'button', textarea: 'textbox', li: 'listitem', ul: 'list', ol: 'list', nav: 'navigation', option: 'option', tr: 'row', td: 'cell', th: 'columnheader', dialog: 'dialog', progress: 'progressbar', meter: 'meter', h1: 'heading', h2: 'heading', h3: 'heading', h4: 'heading', h5: 'heading', h6: 'heading' };
    // Roles whose accessible name comes from their content (ARIA's "name from content").
    const FROM_CONTENT = new Set(['button', 'checkbox', 'radio', 'link', 'heading', 'option', 'cell', 'gridcell', 'columnheader', 'rowheader', 'tab', 'menuitem', 'menuitemcheckbox', 'menuitemradio', 'treeitem', 'switch', 'row', 'tooltip']);
    // Ancestors a repeated control is told apart by (a todo's checkbox by its todo's text).
    const ROW_ROLES = new Set(['listitem', 'row', 'treeitem', 'article']);
    // Past this many elements the document's role and text lists are not read: they are read
    // synchronously as the person presses, and a name costs a style read per descendant.
    const MAX_ELEMENTS = 5_000;
    const norm = (s) => (s ?? '').replace(/\s+/g, ' ').trim();
    function roleOf(el) {
      const explicit = el.getAttribute('role')?.trim().split(/\s+/)[0];
      if (explicit) return explicit;
      const tag = el.localName;
      if (tag === 'a' || tag === 'area') return el.hasAttribute('href') ? 'link' : null;
      if (tag === 'input') {
        const type = (el.getAttribute('type') ?? 'text').toLowerCase();
        if (type === 'hidden') return null;
        if (INPUT_ROLES[type]) return INPUT_ROLES[type];
        return el.hasAttribute('list') ? 'combobox' : 'textbox';
      }
      if (tag === 'select') return el.multiple || el.size > 1 ? 'listbox' : 'combobox';
      if (tag === 'img') return el.getAttribute('alt') === '' ? 'presentation' : 'img';
      return TAG_ROLES[tag] ?? null;
    }
    const hiddenStyle = (el) => {
      const style = getComputedStyle(el);
      return style.display === 'none' || style.visibility === 'hidden';
    };
    const shown = (el) => el.checkVisibility?.({ visibilityProperty: true }) ?? el.getClientRects().length > 0;
    const pseudo = (el, which) => {
      const content = getComputedStyle(el, which).content;
      const quoted = /^"(.*)"$/.exec(content ?? '');
      return quoted ? quoted[1] : '';
    };
    // The element's own hiding is not looked at: a hidden element's name is read too (the
    // delete buttons of rows not hovered), only hidden parts inside it are left out.
    function contentText(node, depth = 0) {
      if (node.nodeType === Node.TEXT_NODE) return node.data;
      if (node.nodeType !== Node.ELEMENT_NODE || depth > 30) return '';
      if (depth > 0 && (node.getAttribute('aria-hidden') === 'true' || hiddenStyle(node))) return '';
      if (/^(script|style|template)$/.test(node.localName)) return '';
      if (node.localName === 'img') return node.getAttribute('alt') ?? '';
      const inner = Array.from(node.childNodes, (c) => contentText(c, depth + 1)).join('');
      return `${pseudo(node, '::before')}${inner}${pseudo(node, '::after')}`;
    }
    function nameOf(el, role) {
      const doc = el.ownerDocument;
      const by = el.getAttribute('aria-labelledby');
      if (by) {
        const named = by.split(/\s+/).map((id) => doc.getElementById(id)).filter(Boolean).map((e) => contentText(e)).join(' ');
        if (norm(named)) return norm(named);
      }
      const aria = norm(el.getAttribute('aria-label'));
      if (aria) return aria;
      if (el.localName === 'input' && ['button', 'submit', 'reset'].includes(el.type)) return norm(el.value) || (el.type === 'submit' ? 'Submit' : el.type === 'reset' ? 'Reset' : '');
      if (el.labels?.length) return norm(Array.from(el.labels, (l) => contentText(l)).join(' '));
      if (el.localName === 'img' || (el.localName === 'input' && el.type === 'image')) {
        const alt = norm(el.getAttribute('alt'));
        if (alt) return alt;
      }
      // A form control's rendering (a styled checkbox's ✔) is not content.
      if (FROM_CONTENT.has(role) && !/^(input|textarea|select)$/.test(el.localName)) {
        const text = norm(contentText(el));
        if (text) return text;
      }
      return norm(el.getAttribute('title')) || (role === 'textbox' || role === 'searchbox' || role === 'combobox' ? norm(el.getAttribute('placeholder')) : '');
    }
    /** The visible elements of `root`'s tree with role `role`, in document order. */
    const withRole = (all, role) => all.filter((e) => roleOf(e) === role && shown(e));
    /** Texts as Playwright's `hasText` reads an element: its whole text content. */
    const rowText = (el) => norm(Array.from(el.querySelectorAll('script, style')).reduce((t, s) => t.replace(s.textContent, ''), el.textContent));
    function rowFacts(el, role, all) {
      let row = el;
      while (row && !(row.nodeType === Node.ELEMENT_NODE && ROW_ROLES.has(roleOf(row)))) row = row.parentElement;
      if (!row) return null;
      const rowRole = roleOf(row);
      const rows = withRole(all, rowRole);
      const facts = { role: rowRole, text: rowText(row), texts: rows.map(rowText), index: Math.max(0, rows.indexOf(row)) };
      if (row === el) return facts;
      if (!role) return { ...facts, inner: { role: '', name: '', names: [], index: null } };
      const inside = withRole(Array.from(row.querySelectorAll('*')), role);
      return { ...facts, inner: { role, name: nameOf(el, role), names: inside.map((e) => nameOf(e, role)), index: inside.includes(el) ? inside.indexOf(el) : null } };
    }
    /**
     * The element an ancestor's `:hover` rule shows (a row's delete button): that ancestor, or
     * null. Read from the document's style rules that match the element now, while hovered.
     */
    function revealedBy(el) {
      const doc = el.ownerDocument;
      const selectors = [];
      const walk = (rules) => {
        for (const rule of rules) {
          if (rule.cssRules?.length && !rule.selectorText) walk(rule.cssRules);
          else if (rule.selectorText?.includes(':hover')) selectors.push(...rule.selectorText.split(',').filter((s) => s.includes(':hover')));
        }
      };
      for (const sheet of doc.styleSheets) {
        try {
          walk(sheet.cssRules);
        } catch {
          // another origin's sheet cannot be read
        }
      }
      for (const selector of selectors) {
        // `… li:hover .destroy`: the compound holding `:hover` (its own hover not counted) must
        // match an ancestor of the element, and the whole selector the element or one of its
        // ancestors below that one.
        const at = selector.indexOf(':hover');
        const after = selector.slice(at + ':hover'.length);
        if (!/^[^\s>+~]*[\s>+~]/.test(after)) continue;
        const compound = selector.slice(0, at).replace(/:hover/g, '') + after.slice(0, after.search(/[\s>+~]/)).replace(/:hover/g, '');
        let matched = null;
        try {
          for (let e = el; e && !matched; e = e.parentElement) if (e.matches(selector)) matched = e;
          if (!matched) continue;
          for (let a = el.parentElement; a; a = a.parentElement) {
            if (a.matches(`${compound.trim() || '*'}:hover`) && a.contains(matched)) return a;
          }
        } catch {
          // a selector this engine does not take
        }
      }
      return null;
    }
    function facts(el) {
      const doc = el.ownerDocument;
      const all = Array.from(doc.getElementsByTagName('*'));
      const big = all.length > MAX_ELEMENTS;
      const values = (selector, attribute) => Array.from(doc.querySelectorAll(selector), (e) => e.getAttribute(attribute));
      const role = roleOf(el);
      // A form control's content (a select's options) is not text a person reads on the page.
      const ownText = /^(select|input|textarea|option)$/.test(el.localName) ? '' : norm(contentText(el));
      const data = {
        testId: el.getAttribute('data-testid'),
        testIds: values('[data-testid]', 'data-testid'),
        placeholder: el.getAttribute('placeholder'),
        placeholders: values('[placeholder]', 'placeholder'),
        label: el.getAttribute('aria-label') ?? (el.labels?.[0] ? norm(contentText(el.labels[0])) : null),
        labels: [...Array.from(doc.querySelectorAll('label'), (l) => norm(contentText(l))), ...values('[aria-label]', 'aria-label')],
        text: ownText && ownText.length <= 200 ? ownText : null,
        // A tap on a checked radio leaves it checked: only an unchecked one's state is told.
        checked: el.localName === 'input' && (el.type === 'checkbox' || (el.type === 'radio' && !el.checked)) ? el.checked : null,
      };
      if (big) return data;
      if (role) {
        const same = all.filter((e) => roleOf(e) === role);
        const visible = same.filter(shown);
        Object.assign(data, {
          role,
          name: nameOf(el, role),
          roleNames: visible.map((e) => nameOf(e, role)),
          roleIndex: visible.includes(el) ? visible.indexOf(el) : null,
          hiddenRoleNames: same.filter((e) => !visible.includes(e)).map((e) => nameOf(e, role)),
        });
      }
      if (data.text) {
        const walker = doc.createTreeWalker(doc.body ?? doc.documentElement, NodeFilter.SHOW_TEXT);
        const texts = [];
        for (let n = walker.nextNode(); n; n = walker.nextNode()) {
          const t = norm(n.data);
          if (t && n.parentElement && shown(n.parentElement) && !/^(script|style)$/.test(n.parentElement.localName)) texts.push(t);
        }
        data.texts = texts;
      }
      data.row = rowFacts(el, role, all);
      return data;
    }
    return { facts, revealedBy };
  })();

  // The recorder is glue: it names the element under each event with the core's
  // `describeTarget` (the same classifier the model's description uses) and sends the event on;
  // the worker's core turns events into steps. Where WebAssembly is refused, it sends the point
  // and the worker finds the element through CDP.
  const recorder = (() => {
    let core = null;
    let active = false;
    let pendingInput = null; // {node, target, timer}: typing is sent once the person pauses
    // Scrolling: only what the person's own gesture moved the page is recorded. A page that
    // scrolls itself (an anchor, a script) fires trusted scroll events too; its moves only
    // shift the baseline. A key's scroll is its key step, which replays it.
    let scrolledTo = null; // where the page was at the last scroll event
    let scrolled = null; // {dx, dy}: the person's scrolling not sent yet
    let scrollTimer = null;
    let gestureUntil = 0; // a wheel turn or a lifted finger moves the page until then (momentum)
    let touching = false;
    let draggingScrollbar = false;

    const send = (event) => chrome.runtime.sendMessage({ type: 'sightline/recorded', event }).catch(() => {});
    const describe = (node) => {
      try {
        return core ? core.describeTarget(node) : null;
      } catch {
        return null;
      }
    };
    /**
     * The element the core lists for `node`, described with its locator facts, as the page is now.
     * The facts are taken of the element the description names (its text's holder for a text).
     */
    const pick = (node, point) => {
      let target = describe(node);
      if (!target && point) {
        // Pressed on an element the description does not list (a label): the text under the
        // pointer is what it lists.
        const text = document.caretRangeFromPoint?.(point.x, point.y)?.startContainer;
        if (text?.nodeType === Node.TEXT_NODE && node.contains(text)) target = describe(text);
      }
      if (!target) return null;
      try {
        const found = sightlineElementAtPath(target.xpath);
        const el = found?.nodeType === Node.TEXT_NODE ? found.parentElement : found;
        if (el?.nodeType === Node.ELEMENT_NODE) target.facts = locating.facts(el);
      } catch {
        // no facts: the worker reads them through CDP
      }
      return target;
    };
    /** The ancestor whose hover shows `node` (a row's delete button), described, or null. */
    const hoverOf = (node) => {
      try {
        const el = node.nodeType === Node.ELEMENT_NODE ? node : node.parentElement;
        const row = el && locating.revealedBy(el);
        if (!row || !core) return null;
        const box = row.getBoundingClientRect();
        const target = core.describeNode(row, box.x, box.y, box.width, box.height, row.textContent ?? '');
        if (target) target.facts = locating.facts(row);
        return target;
      } catch {
        return null;
      }
    };
    // What the person pressed, described as they pressed it (`{target, hovered, at}`): the click
    // and double-click that follow name it, however the page reacted in between.
    let pressed = null;
    const PRESS_KEPT_MS = 2000;
    /** The event's real target (inside open shadow roots) and where it happened. */
    const origin = (e) => ({ node: e.composedPath()[0] ?? e.target, point: { x: e.clientX, y: e.clientY } });
    /** Sends the scrolling so far: after a pause, or before the next step so the order holds. */
    function flushScroll() {
      clearTimeout(scrollTimer);
      if (!scrolled) return;
      const { dx, dy } = scrolled;
      scrolled = null;
      send({ kind: 'scroll', dx, dy });
    }
    const act = (kind, e) => {
      if (picking) return;
      flushScroll();
      flushInput();
      const { node, point } = origin(e);
      const press = pressed && performance.now() - pressed.at < PRESS_KEPT_MS ? pressed : null;
      const target = press ? press.target : pick(node, point);
      send({ kind, target, hovered: press?.hovered ?? undefined, point: target ? undefined : point });
    };
    const valueOf = (node) => ('value' in node ? String(node.value) : node.isContentEditable ? node.textContent : '');
    function flushInput() {
      if (!pendingInput) return;
      const { node, target } = pendingInput;
      clearTimeout(pendingInput.timer);
      pendingInput = null;
      const r = node.getBoundingClientRect?.();
      if (node instanceof HTMLSelectElement) {
        // A choice, by the chosen option's text (what a person reads) and value (what a replay sets).
        const option = node.selectedOptions[0];
        send({ kind: 'select', target, option: option?.text.trim() ?? '', value: option?.value ?? '', point: target || !r ? undefined : { x: r.x + r.width / 2, y: r.y + r.height / 2 } });
        return;
      }
      send({ kind: 'input', target, value: valueOf(node), point: target || !r ? undefined : { x: r.x + r.width / 2, y: r.y + r.height / 2 } });
    }
    // Picking the element a check is about (the panel's Check buttons): the page gets none of
    // the picking click, and the recorder records the check instead of a tap. What the element
    // reads then is the worker's core's to read, as a replay reads it.
    let picking = null; // {check, box}
    const pickListeners = {
      mousemove: (e) => {
        const node = e.composedPath()[0];
        const el = node?.nodeType === Node.ELEMENT_NODE ? node : node?.parentElement;
        if (!el || !picking) return;
        const r = el.getBoundingClientRect();
        Object.assign(picking.box.style, { left: `${r.x}px`, top: `${r.y}px`, width: `${r.width}px`, height: `${r.height}px`, display: 'block' });
      },
      click: (e) => {
        if (!e.isTrusted || e.button !== 0) return;
        swallow(e);
        const { check } = picking;
        stopPicking();
        const { node, point } = origin(e);
        const target = pick(node, point);
        send({ kind: 'check', check, target, point: target ? undefined : point });
      },
      // No key reaches the page while picking (Enter or Space would press what has focus).
      keydown: (e) => {
        swallow(e);
        if (e.key === 'Escape') stopPicking();
      },
    };
    // The press and release around the picking click are the page's no more than the click is.
    for (const type of ['pointerdown', 'mousedown', 'pointerup', 'mouseup', 'dblclick', 'contextmenu', 'auxclick']) {
      pickListeners[type] = (e) => e.isTrusted && swallow(e);
    }
    function swallow(e) {
      e.preventDefault();
      e.stopImmediatePropagation();
    }
    function stopPicking() {
      if (!picking) return;
      picking.box.remove();
      picking = null;
      for (const [type, fn] of Object.entries(pickListeners)) removeEventListener(type, fn, { capture: true });
    }
    const KEYS = new Set(['Enter', 'Tab', 'Escape', 'ArrowUp', 'ArrowDown', 'ArrowLeft', 'ArrowRight', 'PageUp', 'PageDown', 'Home', 'End']);
    const listeners = {
      // detail 0: a click the keyboard made (Enter submitting a form, Space on a button), which
      // replays from the recorded key instead.
      click: (e) => e.isTrusted && e.button === 0 && e.detail > 0 && act('tap', e),
      dblclick: (e) => e.isTrusted && act('doubleClick', e),
      contextmenu: (e) => e.isTrusted && act('rightClick', e),
      input: (e) => {
        if (!e.isTrusted) return;
        const { node } = origin(e);
        if (['checkbox', 'radio', 'file'].includes(node.type)) return; // the click is the step
        if (pendingInput && pendingInput.node !== node) flushInput();
        clearTimeout(pendingInput?.timer);
        // The field is named as the typing starts: this listener runs before the page's, which
        // may re-render its row from the new value (a todo's label bound to its edit field).
        const target = pendingInput ? pendingInput.target : pick(node);
        pendingInput = { node, target, timer: setTimeout(flushInput, 500) };
      },
      change: (e) => e.isTrusted && pendingInput && flushInput(),
      keydown: (e) => {
        if (!e.isTrusted || picking || ['Control', 'Shift', 'Alt', 'Meta'].includes(e.key)) return;
        const chord = e.ctrlKey || e.metaKey || e.altKey;
        const editing = e.composedPath()[0]?.isContentEditable || /^(input|textarea|select)$/i.test(e.composedPath()[0]?.localName ?? '');
        // Keys that move through a select's options are part of the choice, recorded as one.
        if (!chord && e.composedPath()[0]?.localName === 'select' && /^(Arrow|Page|Home$|End$)/.test(e.key)) return;
        const space = e.key === ' ' && !editing; // Space on a button or checkbox presses it
        if (!chord && !KEYS.has(e.key) && !space) return; // characters arrive as input
        flushScroll();
        flushInput();
        const name = space ? 'Space' : e.key.length === 1 ? e.key.toUpperCase() : e.key;
        const key = [e.ctrlKey && 'Control', e.altKey && 'Alt', e.metaKey && 'Meta', e.shiftKey && chord && 'Shift', name]
          .filter(Boolean).join('+');
        // The focused element, named before the page reacts to the key.
        const focused = e.composedPath()[0];
        const target = focused?.nodeType === Node.ELEMENT_NODE && focused !== document.body && focused !== document.documentElement ? pick(focused) : null;
        send({ kind: 'key', key, target: target ?? undefined });
      },
      wheel: (e) => {
        if (e.isTrusted) gestureUntil = performance.now() + 600;
      },
      touchstart: (e) => {
        if (e.isTrusted) touching = true;
      },
      touchend: (e) => {
        if (!e.isTrusted) return;
        touching = false;
        gestureUntil = performance.now() + 1500;
      },
      touchcancel: () => {
        touching = false;
      },
      mousedown: (e) => {
        if (!e.isTrusted || picking || (e.button !== 0 && e.button !== 2)) return;
        // The second press of a double-click keeps the first's description: the page may
        // have reacted to the first click already.
        if (e.detail >= 2 && pressed && performance.now() - pressed.at < PRESS_KEPT_MS) return;
        flushScroll();
        flushInput();
        const { node, point } = origin(e);
        pressed = { target: pick(node, point), hovered: hoverOf(node), at: performance.now() };
      },
      pointerdown: (e) => {
        // The page's own scrollbar lies outside the root's client area.
        const root = document.scrollingElement ?? document.documentElement;
        if (e.isTrusted && (e.clientX >= root.clientWidth || e.clientY >= root.clientHeight)) draggingScrollbar = true;
      },
      pointerup: () => {
        if (!draggingScrollbar) return;
        draggingScrollbar = false;
        gestureUntil = performance.now() + 300;
      },
      scroll: (e) => {
        if (!e.isTrusted || e.target !== document) return; // a scroll box's own scroll is not the page's
        const from = scrolledTo ?? { x: scrollX, y: scrollY };
        scrolledTo = { x: scrollX, y: scrollY };
        if (!(touching || draggingScrollbar || performance.now() <= gestureUntil)) return;
        scrolled ??= { dx: 0, dy: 0 };
        scrolled.dx += scrollX - from.x;
        scrolled.dy += scrollY - from.y;
        clearTimeout(scrollTimer);
        scrollTimer = setTimeout(flushScroll, 300);
      },
    };
    return {
      async start() {
        if (active) return;
        active = true;
        try {
          core = await loadCore();
        } catch {
          core = null;
        }
        // Stopped (or retired) while the core compiled: its listeners must not be added now,
        // since no later stop would remove them.
        if (!active) return;
        scrolledTo = { x: scrollX, y: scrollY };
        for (const [type, fn] of Object.entries(listeners)) addEventListener(type, fn, { capture: true, passive: true });
      },
      /** The next click picks the element of a `check`; false when not recording. */
      pickCheck(check) {
        if (!active || !['text', 'value', 'visible'].includes(check)) return false;
        stopPicking();
        flushScroll();
        flushInput();
        const box = document.createElement('div');
        box.setAttribute('aria-hidden', 'true');
        Object.assign(box.style, {
          position: 'fixed', display: 'none', pointerEvents: 'none', zIndex: '2147483647', boxSizing: 'border-box',
          outline: '2px solid #c62828', background: 'rgba(198, 40, 40, 0.12)',
        });
        document.documentElement.append(box);
        picking = { check, box };
        // On the window, capturing: the page's listeners below it get none of the picking; the
        // recorder's own (added before these) skip events while picking.
        for (const [type, fn] of Object.entries(pickListeners)) addEventListener(type, fn, { capture: true });
        return true;
      },
      stop() {
        if (!active) return;
        stopPicking();
        flushScroll();
        flushInput();
        active = false;
        pressed = null;
        for (const [type, fn] of Object.entries(listeners)) removeEventListener(type, fn, { capture: true });
      },
    };
  })();
})();
