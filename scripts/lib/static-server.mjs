// The static server of the repo's tests and benchmarks: @sightline/playwright's
// (scripts/lib/playwright/lib/static-server.mjs), serving tests/fixtures unless told another folder.
// CLI: node scripts/lib/static-server.mjs --port 8080 [--root DIR]
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { startStaticServer as serve } from './playwright/lib/static-server.mjs';

const DEFAULT_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..', 'tests', 'fixtures');

/** @param {{root?: string, port?: number}} [options] `root`: tests/fixtures unless given. */
export function startStaticServer({ root = DEFAULT_ROOT, port = 0 } = {}) {
  return serve({ root, port });
}

if (process.argv[1] && fileURLToPath(import.meta.url) === fs.realpathSync(process.argv[1])) {
  const args = process.argv.slice(2);
  const opt = (name) => {
    const i = args.indexOf(name);
    return i >= 0 ? args[i + 1] : undefined;
  };
  const srv = await startStaticServer({ port: Number(opt('--port') ?? 8080), root: opt('--root') ?? DEFAULT_ROOT });
  console.log(srv.origin);
  const stop = () => srv.close().then(() => process.exit(0));
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
}
