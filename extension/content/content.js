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

  // The recorder is glue: it names the element under each event with the core's
  // `describeTarget` (the same classifier the model's description uses) and sends the event on;
  // the worker's core turns events into steps. Where WebAssembly is refused, it sends the point
  // and the worker finds the element through CDP.
  const recorder = (() => {
    let core = null;
    let active = false;
    let pendingInput = null; // {node, timer}: typing is sent once the person pauses
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
      flushScroll();
      flushInput();
      const { node, point } = origin(e);
      const target = describe(node);
      send({ kind, target, point: target ? undefined : point });
    };
    const valueOf = (node) => ('value' in node ? String(node.value) : node.isContentEditable ? node.textContent : '');
    function flushInput() {
      if (!pendingInput) return;
      const { node } = pendingInput;
      clearTimeout(pendingInput.timer);
      pendingInput = null;
      const target = describe(node);
      const r = node.getBoundingClientRect?.();
      if (node instanceof HTMLSelectElement) {
        // A choice, by the chosen option's text (what a person reads) and value (what a replay sets).
        const option = node.selectedOptions[0];
        send({ kind: 'select', target, option: option?.text.trim() ?? '', value: option?.value ?? '', point: target || !r ? undefined : { x: r.x + r.width / 2, y: r.y + r.height / 2 } });
        return;
      }
      send({ kind: 'input', target, value: valueOf(node), point: target || !r ? undefined : { x: r.x + r.width / 2, y: r.y + r.height / 2 } });
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
        pendingInput = { node, timer: setTimeout(flushInput, 500) };
      },
      change: (e) => e.isTrusted && pendingInput && flushInput(),
      keydown: (e) => {
        if (!e.isTrusted || ['Control', 'Shift', 'Alt', 'Meta'].includes(e.key)) return;
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
        send({ kind: 'key', key });
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
      stop() {
        if (!active) return;
        flushScroll();
        flushInput();
        active = false;
        for (const [type, fn] of Object.entries(listeners)) removeEventListener(type, fn, { capture: true });
      },
    };
  })();
})();
