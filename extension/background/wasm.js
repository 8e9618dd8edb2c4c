// Loads the Rust core once per service-worker life. Top-level await is not allowed in a
// service worker, so callers await `core()`.
// Two modules: the core (built for size) and the image codecs it calls (built for speed;
// crate/codec/src/lib.rs), which the core's calls find under the global `sightlineCodec`.
import init, * as exports from '../wasm/sightline.js';
import initCodec, * as codec from '../wasm/codec.js';

let ready = null;

/** A module that did not load says which it was (code `module_load`); the next `core()` tries again. */
function loading(what, promise) {
  return promise.catch((err) => {
    throw Object.assign(new Error(`could not load ${what}: ${err?.message ?? err}`), { code: 'module_load' });
  });
}

export function core() {
  ready ??= Promise.all([
    loading('the core module', init({ module_or_path: new URL('../wasm/sightline_bg.wasm', import.meta.url) })),
    loading('the image codec module', initCodec({ module_or_path: new URL('../wasm/codec_bg.wasm', import.meta.url) })),
  ]).then(
    () => {
      self.sightlineCodec = codec;
      return exports;
    },
    (err) => {
      ready = null;
      throw err;
    },
  );
  return ready;
}
