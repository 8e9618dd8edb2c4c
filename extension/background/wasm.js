// Loads the Rust core once per service-worker life. Top-level await is not allowed in a
// service worker, so callers await `core()`.
// Two modules: the core (built for size) and the image codecs it calls (built for speed;
// crate/codec/src/lib.rs), which the core's calls find under the global `sightlineCodec`.
import init, * as exports from '../wasm/sightline.js';
import initCodec, * as codec from '../wasm/codec.js';

let ready = null;

export function core() {
  ready ??= Promise.all([
    init({ module_or_path: new URL('../wasm/sightline_bg.wasm', import.meta.url) }),
    initCodec({ module_or_path: new URL('../wasm/codec_bg.wasm', import.meta.url) }),
  ]).then(() => {
    self.sightlineCodec = codec;
    return exports;
  });
  return ready;
}
