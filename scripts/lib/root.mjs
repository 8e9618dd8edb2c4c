// The checkout's root folder, for the scripts' paths (tests/fixtures, out/, dist/, …).
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
