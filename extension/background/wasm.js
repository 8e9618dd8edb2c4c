// Loads the Rust core once per service-worker life. Top-level await is not allowed in a
// service worker, so callers await `core()`.
import init, * as exports from '../wasm/sightline.js';

let ready = null;

export function core() {
  ready ??= init({ module_or_path: new URL('../wasm/sightline_bg.wasm', import.meta.url) }).then(() => exports);
  return ready;
}
