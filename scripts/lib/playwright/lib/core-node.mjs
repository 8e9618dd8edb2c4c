// The built WASM core loaded in Node (the extension's own: its wasm/ folder), which reads flow
// files and Midscene-style calls here as the extension does; with the image codec module it
// calls, found as the worker finds it (extension/background/wasm.js).
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { DIST } from './browser.mjs';

const wasm = path.join(DIST, 'wasm');
if (!existsSync(path.join(wasm, 'sightline.js'))) {
  throw new Error(`no built Sightline extension at ${DIST}: install the packed @sightline/playwright (it carries one), set SIGHTLINE_EXTENSION_PATH to one, or build it in a checkout (scripts/build)`);
}
const glue = await import(pathToFileURL(path.join(wasm, 'sightline.js')).href);
glue.initSync({ module: readFileSync(path.join(wasm, 'sightline_bg.wasm')) });
const codec = await import(pathToFileURL(path.join(wasm, 'codec.js')).href);
codec.initSync({ module: readFileSync(path.join(wasm, 'codec_bg.wasm')) });
globalThis.sightlineCodec = codec;

export const core = glue;
