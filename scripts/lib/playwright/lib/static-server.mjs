// Minimal static file server for flows (`web.serve`), and for the repo's tests and benchmarks
// (scripts/lib/static-server.mjs gives it their default folder): serves one folder over real
// HTTP (content scripts do not run on file:// without extra flags), and
// mirrors every file under /strict/ with a strict CSP to reproduce pages where
// WebAssembly compilation is refused, and under /trusted/ and /trusted-wasm/ with Trusted Types.
import http from 'node:http';
import fs from 'node:fs';
import path from 'node:path';

const CONTENT_TYPES = {
  '.html': 'text/html; charset=utf-8',
  '.htm': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.png': 'image/png',
  '.svg': 'image/svg+xml',
  '.wasm': 'application/wasm', // required for WebAssembly.instantiateStreaming
  '.txt': 'text/plain; charset=utf-8',
  '.ico': 'image/x-icon',
};

// No 'unsafe-eval' / 'wasm-unsafe-eval': this is what blocks wasm compile.
const STRICT_CSP = "script-src 'self'; object-src 'none'";
const STRICT_PREFIX = '/strict';
// Trusted Types on top of the strict policy: the page may assign no string to an HTML or script
// sink. Under /trusted-wasm/ WebAssembly is allowed, so the content script reads the page
// under Trusted Types; under /trusted/ it is refused, so the read goes through CDP.
const TRUSTED_CSP = "require-trusted-types-for 'script'; trusted-types 'none'; script-src 'self'; object-src 'none'";
const TRUSTED_PREFIXES = {
  '/trusted': TRUSTED_CSP,
  '/trusted-wasm': TRUSTED_CSP.replace("script-src 'self'", "script-src 'self' 'wasm-unsafe-eval'"),
};

/**
 * Serves the folder `root` on 127.0.0.1 (`port` 0: any free one).
 * @param {{root: string, port?: number}} options
 * @returns {Promise<{origin: string, url: (p?: string) => string, close: () => Promise<void>}>}
 */
export async function startStaticServer({ root, port = 0 }) {
  if (!root) throw new Error('startStaticServer: say which folder to serve ({root})');
  const rootDir = path.resolve(root);
  // What a request may reach: files whose real path (symlinks resolved) lies in the root's.
  const realRoot = await fs.promises.realpath(rootDir).catch(() => rootDir);
  const inRoot = (p) => p === realRoot || p.startsWith(realRoot.endsWith(path.sep) ? realRoot : realRoot + path.sep);

  const server = http.createServer((req, res) => {
    const reply = (status, text, headers = {}) => {
      res.writeHead(status, { 'Content-Type': 'text/plain; charset=utf-8', ...headers });
      res.end(req.method === 'HEAD' ? undefined : text);
    };
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      return reply(405, 'method not allowed', { Allow: 'GET, HEAD' });
    }

    // Check traversal on the raw path as well as the decoded one: URL parsing
    // normalizes plain "..", but not encoded forms like %2e%2e or %2F.
    const rawPath = req.url.split('?')[0].split('#')[0];
    let pathname;
    try {
      pathname = decodeURIComponent(rawPath);
    } catch {
      return reply(400, 'bad request');
    }
    if (pathname.split(/[\\/]/).includes('..') || pathname.includes('\0')) {
      return reply(403, 'forbidden');
    }

    // /slow?ms=N answers after N ms: pages that fetch, for waits on network idle.
    if (pathname === '/slow') {
      const ms = Math.min(Number(new URL(req.url, 'http://x').searchParams.get('ms')) || 1000, 10_000);
      const timer = setTimeout(() => reply(200, `slow answer after ${ms} ms`, { 'Cache-Control': 'no-store' }), ms);
      res.on('close', () => clearTimeout(timer));
      return;
    }
    const headers = { 'Cache-Control': 'no-store' };
    if (pathname === STRICT_PREFIX || pathname.startsWith(STRICT_PREFIX + '/')) {
      pathname = pathname.slice(STRICT_PREFIX.length) || '/';
      headers['Content-Security-Policy'] = STRICT_CSP;
    }
    for (const [prefix, csp] of Object.entries(TRUSTED_PREFIXES)) {
      if (pathname.startsWith(prefix + '/')) {
        pathname = pathname.slice(prefix.length);
        headers['Content-Security-Policy'] = csp;
        break;
      }
    }
    if (pathname.endsWith('/')) pathname += 'index.html';

    const filePath = path.resolve(rootDir, '.' + pathname);
    // Belt and braces: never serve anything outside the root.
    if (filePath !== rootDir && !filePath.startsWith(rootDir + path.sep)) {
      return reply(403, 'forbidden');
    }

    // A symlink in the root leading out of it is not followed: the real path decides (one
    // realpath(3) call per request, the native one).
    fs.realpath.native(filePath, (gone, realPath) => {
      if (gone) return reply(404, 'not found', headers);
      if (!inRoot(realPath)) return reply(403, 'forbidden');
      fs.stat(realPath, (err, stat) => {
        if (err || !stat.isFile()) return reply(404, 'not found', headers);
        const type = CONTENT_TYPES[path.extname(filePath).toLowerCase()] ?? 'application/octet-stream';
        res.writeHead(200, { ...headers, 'Content-Type': type, 'Content-Length': stat.size });
        if (req.method === 'HEAD') return res.end();
        fs.createReadStream(realPath).pipe(res);
      });
    });
  });

  await new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', resolve);
  });
  const origin = `http://127.0.0.1:${server.address().port}`;

  return {
    origin,
    url: (p = '/') => origin + (p.startsWith('/') ? p : '/' + p),
    close() {
      return new Promise((resolve) => {
        server.closeAllConnections?.();
        server.close(() => resolve());
      });
    },
  };
}
