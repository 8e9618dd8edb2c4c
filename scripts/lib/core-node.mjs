// The built WASM core loaded in Node, for differential tests of its pure functions.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { DIST } from './browser.mjs';

const glue = await import(path.join(DIST, 'wasm/sightline.js'));
glue.initSync({ module: readFileSync(path.join(DIST, 'wasm/sightline_bg.wasm')) });

export const core = glue;
