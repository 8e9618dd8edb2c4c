// The built WASM core loaded in Node, for differential tests of its pure functions; with the
// image codec module it calls, found as the worker finds it (extension/background/wasm.js).
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { DIST } from './browser.mjs';

const glue = await import(path.join(DIST, 'wasm/sightline.js'));
glue.initSync({ module: readFileSync(path.join(DIST, 'wasm/sightline_bg.wasm')) });
const codec = await import(path.join(DIST, 'wasm/codec.js'));
codec.initSync({ module: readFileSync(path.join(DIST, 'wasm/codec_bg.wasm')) });
globalThis.sightlineCodec = codec;

export const core = glue;
