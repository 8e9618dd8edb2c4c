// Content script (isolated world), injected on demand. It loads the Rust core and answers
// the service worker. Where the page's CSP refuses WebAssembly it says so, and the service
// worker reads the page through CDP instead.
(() => {
  if (globalThis.__sightline) return;

  let corePromise = null;
  function loadCore() {
    corePromise ??= (async () => {
      const mod = await import(chrome.runtime.getURL('wasm/sightline.js'));
      await mod.default({ module_or_path: chrome.runtime.getURL('wasm/sightline_bg.wasm') });
      return mod;
    })();
    return corePromise;
  }

  function failure(code, e) {
    return { error: { code, message: String(e?.message ?? e) } };
  }

  globalThis.__sightline = {
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
     * Brings an element into view: found by its XPath, else by scrolling the page by its box
     * (XPaths into shadow roots or frames do not resolve with document.evaluate).
     */
    reveal({ xpath, rect }) {
      let node = null;
      try {
        node = document.evaluate(xpath, document, null, XPathResult.FIRST_ORDERED_NODE_TYPE, null).singleNodeValue;
      } catch { /* not an XPath this document can read */ }
      const el = node?.nodeType === Node.TEXT_NODE ? node.parentElement : node;
      if (el instanceof Element) {
        el.scrollIntoView({ block: 'center', inline: 'center', behavior: 'instant' });
        return 'element';
      }
      const cx = rect.x + rect.width / 2 - innerWidth / 2;
      const cy = rect.y + rect.height / 2 - innerHeight / 2;
      scrollBy({ left: cx, top: cy, behavior: 'instant' });
      return 'page';
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
  };
})();
