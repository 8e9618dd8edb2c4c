// The release files (scripts/package): the zip, dist/ as the Chrome Web Store and "Load unpacked"
// take it, manifest.json at the zip's root, after the checks of the store's that can be made
// offline; and the npm tarball of @sightline/playwright (scripts/lib/playwright) with that same
// built extension inside it. `node scripts/lib/package.mjs [--dist DIR] [--out DIR]` checks and
// writes out/sightline-<version>.zip and out/sightline-playwright-<version>.tgz.
import { execFileSync } from 'node:child_process';
import { cpSync, readFileSync, readdirSync, rmSync, statSync, existsSync, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { deflateRawSync } from 'node:zlib';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

/** Every file under `dir`, as sorted `/`-separated paths relative to it. */
export function filesUnder(dir) {
  const found = [];
  const walk = (rel) => {
    for (const entry of readdirSync(path.join(dir, rel), { withFileTypes: true })) {
      const child = rel ? `${rel}/${entry.name}` : entry.name;
      if (entry.isDirectory()) walk(child);
      else if (entry.isFile()) found.push(child);
    }
  };
  walk('');
  return found.sort();
}

// CRC-32 (IEEE), the checksum each zip entry carries.
const CRC_TABLE = Array.from({ length: 256 }, (_, n) => {
  let c = n;
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  return c >>> 0;
});
function crc32(bytes) {
  let c = 0xffffffff;
  for (const b of bytes) c = CRC_TABLE[(c ^ b) & 0xff] ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}

/**
 * A zip of `files` ([{name, bytes}]), deflated, every entry dated 1980-01-01 so the same files
 * make the same zip. Written here, not by `zip`, which a fresh Debian lacks.
 */
export function zip(files) {
  const locals = [];
  const centrals = [];
  let offset = 0;
  const DOS_DATE = (0 << 9) | (1 << 5) | 1; // 1980-01-01, the format's first day
  for (const { name, bytes } of files) {
    const nameBytes = Buffer.from(name, 'utf8');
    const packed = deflateRawSync(bytes, { level: 9 });
    const stored = packed.length >= bytes.length; // a PNG or wasm that deflate cannot shrink goes as it is
    const data = stored ? bytes : packed;
    const crc = crc32(bytes);
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(20, 4); // version needed: 2.0 (deflate)
    local.writeUInt16LE(0x0800, 6); // names in UTF-8
    local.writeUInt16LE(stored ? 0 : 8, 8);
    local.writeUInt16LE(0, 10);
    local.writeUInt16LE(DOS_DATE, 12);
    local.writeUInt32LE(crc, 14);
    local.writeUInt32LE(data.length, 18);
    local.writeUInt32LE(bytes.length, 22);
    local.writeUInt16LE(nameBytes.length, 26);
    local.writeUInt16LE(0, 28);
    const central = Buffer.alloc(46);
    central.writeUInt32LE(0x02014b50, 0);
    central.writeUInt16LE((3 << 8) | 20, 4); // made on Unix, so the mode below is read
    central.writeUInt16LE(20, 6);
    central.writeUInt16LE(0x0800, 8);
    central.writeUInt16LE(stored ? 0 : 8, 10);
    central.writeUInt16LE(0, 12);
    central.writeUInt16LE(DOS_DATE, 14);
    central.writeUInt32LE(crc, 16);
    central.writeUInt32LE(data.length, 20);
    central.writeUInt32LE(bytes.length, 24);
    central.writeUInt16LE(nameBytes.length, 28);
    central.writeUInt32LE(((0o100644 << 16) >>> 0), 38); // a regular file, rw-r--r--
    central.writeUInt32LE(offset, 42);
    locals.push(local, nameBytes, data);
    centrals.push(central, nameBytes);
    offset += local.length + nameBytes.length + data.length;
  }
  const directory = Buffer.concat(centrals);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(files.length, 8);
  end.writeUInt16LE(files.length, 10);
  end.writeUInt32LE(directory.length, 12);
  end.writeUInt32LE(offset, 16);
  return Buffer.concat([...locals, directory, end]);
}

/** A PNG's width and height from its IHDR chunk; null when the bytes are no PNG. */
function pngSize(bytes) {
  const signature = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];
  if (bytes.length < 24 || signature.some((b, i) => bytes[i] !== b) || bytes.toString('latin1', 12, 16) !== 'IHDR') return null;
  return { width: bytes.readUInt32BE(16), height: bytes.readUInt32BE(20) };
}

/** The permissions docs/DECISIONS.md justifies: its "## Permissions" table, each backticked name of a row's first cell, with the row's reason. */
export function justifiedPermissions(decisionsText) {
  const section = decisionsText.split(/^## /m).find((s) => s.startsWith('Permissions'));
  const reasons = new Map();
  for (const line of (section ?? '').split('\n')) {
    const cells = line.split('|').map((c) => c.trim());
    if (cells.length < 4 || !cells[1].includes('`')) continue;
    for (const [, name] of cells[1].matchAll(/`([^`]+)`/g)) reasons.set(name, cells[2]);
  }
  return reasons;
}

// What an MV3 page may load scripts from: its own files only (the store refuses remote code).
const LOCAL_SCRIPT_SOURCES = new Set(["'self'", "'wasm-unsafe-eval'", "'none'"]);
// The Web Store's length limits for the listing's name and description (in every language).
const LIMITS = { name: 75, short_name: 12, description: 132 };
// Files that are for developers, not for Chrome: none may ship.
const DEV_FILE = /(^|\/)\.|\.map$|\.md$|\.ts$|\.rs$|\.test\.|(^|\/)(tests?|node_modules)\//;

/**
 * What the Chrome Web Store would refuse in the extension folder `dir`, as far as it can be
 * told offline: an empty list when nothing. `decisionsText`: docs/DECISIONS.md, whose table
 * must justify each permission asked for (the store's form asks why for each).
 */
export function storeProblems(dir, decisionsText) {
  const problems = [];
  const files = filesUnder(dir);
  const has = (rel) => files.includes(rel);
  if (!has('manifest.json')) return ['manifest.json is missing'];
  let manifest;
  try {
    manifest = JSON.parse(readFileSync(path.join(dir, 'manifest.json'), 'utf8'));
  } catch (e) {
    return [`manifest.json is not JSON: ${e.message}`];
  }
  if (manifest.manifest_version !== 3) problems.push(`manifest_version is ${manifest.manifest_version}, not 3`);
  const parts = String(manifest.version ?? '').split('.');
  if (parts.length > 4 || !parts.every((p) => /^(0|[1-9]\d{0,4})$/.test(p) && Number(p) <= 65535)) {
    problems.push(`version ${JSON.stringify(manifest.version)} is not 1 to 4 dot-separated whole numbers up to 65535`);
  }
  for (const field of ['key', 'update_url']) if (field in manifest) problems.push(`manifest.json has "${field}", which the store refuses`);

  // Every __MSG_name__ resolves in every locale, within the listing's limits.
  const locales = has(`_locales/${manifest.default_locale}/messages.json`)
    ? [...new Set(files.filter((f) => /^_locales\/[^/]+\/messages\.json$/.test(f)).map((f) => f.split('/')[1]))]
    : [];
  if (!locales.length) problems.push(`default_locale ${JSON.stringify(manifest.default_locale)} has no _locales/…/messages.json`);
  for (const locale of locales) {
    let messages;
    try {
      messages = JSON.parse(readFileSync(path.join(dir, '_locales', locale, 'messages.json'), 'utf8'));
    } catch (e) {
      problems.push(`_locales/${locale}/messages.json is not JSON: ${e.message}`);
      continue;
    }
    const text = (value) => String(value ?? '').replace(/^__MSG_(\w+)__$/, (_, k) => messages[k]?.message ?? `\0${k}`);
    const words = { name: manifest.name, short_name: manifest.short_name, description: manifest.description,
      'action.default_title': manifest.action?.default_title, ...Object.fromEntries(Object.entries(manifest.commands ?? {}).map(([k, c]) => [`commands.${k}.description`, c.description])) };
    for (const [field, value] of Object.entries(words)) {
      if (value === undefined) continue;
      const resolved = text(value);
      if (resolved.startsWith('\0')) problems.push(`${field}: message ${resolved.slice(1)} is missing from _locales/${locale}`);
      else if (LIMITS[field] && [...resolved].length > LIMITS[field]) problems.push(`${field} in ${locale} is ${[...resolved].length} characters, over the store's ${LIMITS[field]}`);
      else if (!resolved.trim() && (field === 'name' || field === 'description')) problems.push(`${field} is empty in ${locale}`);
    }
  }

  // Icons: the store needs the 128 px one; each declared icon is a PNG of the size it claims.
  if (!manifest.icons?.['128']) problems.push('icons has no 128 px icon (the store needs one)');
  for (const [where, icons] of [['icons', manifest.icons], ['action.default_icon', manifest.action?.default_icon]]) {
    for (const [size, rel] of Object.entries(icons ?? {})) {
      if (!has(rel)) {
        problems.push(`${where}.${size}: ${rel} is missing`);
        continue;
      }
      const dims = pngSize(readFileSync(path.join(dir, rel)));
      if (!dims) problems.push(`${where}.${size}: ${rel} is not a PNG`);
      else if (dims.width !== Number(size) || dims.height !== Number(size)) problems.push(`${where}.${size}: ${rel} is ${dims.width}×${dims.height}`);
    }
  }

  // The pages and worker the manifest names are there.
  for (const rel of [manifest.background?.service_worker, manifest.side_panel?.default_path, manifest.options_page, manifest.action?.default_popup,
    ...(manifest.content_scripts ?? []).flatMap((c) => [...(c.js ?? []), ...(c.css ?? [])])]) {
    if (rel && !has(rel)) problems.push(`the manifest names ${rel}, which is missing`);
  }

  // No remote code: the pages' CSP and their <script> tags load the extension's own files only.
  const csp = manifest.content_security_policy?.extension_pages ?? '';
  const scriptSrc = csp.split(';').map((d) => d.trim().split(/\s+/)).find(([d]) => d === 'script-src') ?? [];
  for (const source of scriptSrc.slice(1)) if (!LOCAL_SCRIPT_SOURCES.has(source)) problems.push(`the CSP's script-src allows ${source}: remote code`);
  for (const rel of files.filter((f) => f.endsWith('.html'))) {
    for (const [, src] of readFileSync(path.join(dir, rel), 'utf8').matchAll(/<script\b[^>]*\bsrc\s*=\s*["']?([^"'\s>]+)/gi)) {
      if (/^([a-z][a-z0-9+.-]*:|\/\/)/i.test(src)) problems.push(`${rel} loads a script from ${src}: remote code`);
    }
  }

  // Every permission asked for is justified, and the table justifies none that is not asked for.
  const asked = [...(manifest.permissions ?? []), ...(manifest.optional_permissions ?? []), ...(manifest.host_permissions ?? []), ...(manifest.optional_host_permissions ?? [])];
  const reasons = justifiedPermissions(decisionsText);
  for (const p of asked) if (!reasons.get(p)) problems.push(`permission ${p} is not justified in docs/DECISIONS.md's permissions table`);
  for (const p of reasons.keys()) if (!asked.includes(p)) problems.push(`docs/DECISIONS.md justifies ${p}, which the manifest does not ask for`);

  for (const rel of files) if (DEV_FILE.test(rel)) problems.push(`${rel} is a developer's file, not the extension's`);
  return problems;
}

/**
 * Checks the built extension in `dist` and writes `<out>/sightline-<version>.zip`; resolves to
 * `{file, entries, bytes}`. Throws, listing them, when the store would refuse something.
 */
export function packageExtension({ dist = path.join(ROOT, 'dist'), out = path.join(ROOT, 'out'), decisions = path.join(ROOT, 'docs/DECISIONS.md') } = {}) {
  if (!existsSync(path.join(dist, 'manifest.json'))) throw new Error(`${dist} holds no built extension: run scripts/build`);
  const problems = storeProblems(dist, readFileSync(decisions, 'utf8'));
  if (problems.length) throw new Error(`the Chrome Web Store would refuse ${dist}:\n  ${problems.join('\n  ')}`);
  const { version } = JSON.parse(readFileSync(path.join(dist, 'manifest.json'), 'utf8'));
  const entries = filesUnder(dist);
  const bytes = zip(entries.map((name) => ({ name, bytes: readFileSync(path.join(dist, name)) })));
  mkdirSync(out, { recursive: true });
  const file = path.join(out, `sightline-${version}.zip`);
  writeFileSync(file, bytes);
  return { file, entries, bytes: bytes.length };
}

const PACKAGE = path.join(ROOT, 'scripts/lib/playwright');

/**
 * `npm pack` of @sightline/playwright with the built extension in it: the package's own files
 * (its package.json `files`) and `dist` as its extension/ folder, staged in a folder of their
 * own under `out` (the checkout's package folder never holds a copy), packed into `out`.
 * Resolves to `{file, entries}`: the tarball and the paths it holds (`package/…`).
 */
export function packageNpm({ dist = path.join(ROOT, 'dist'), out = path.join(ROOT, 'out') } = {}) {
  if (!existsSync(path.join(dist, 'manifest.json'))) throw new Error(`${dist} holds no built extension: run scripts/build`);
  const meta = JSON.parse(readFileSync(path.join(PACKAGE, 'package.json'), 'utf8'));
  mkdirSync(out, { recursive: true });
  const stage = mkdtempSync(path.join(out, 'npm-stage-'));
  try {
    cpSync(path.join(PACKAGE, 'package.json'), path.join(stage, 'package.json'));
    for (const entry of meta.files.filter((f) => f !== 'extension/')) {
      const from = path.join(PACKAGE, entry);
      if (existsSync(from)) cpSync(from, path.join(stage, entry), { recursive: true });
    }
    cpSync(dist, path.join(stage, 'extension'), { recursive: true });
    const [packed] = JSON.parse(execFileSync('npm', ['pack', '--json', '--pack-destination', out], {
      cwd: stage, encoding: 'utf8', timeout: 120_000, stdio: ['ignore', 'pipe', 'pipe'],
    }));
    // npm names a scoped package's tarball <scope>-<name>-<version>.tgz: sightline-playwright-0.1.0.tgz.
    return { file: path.join(out, packed.filename), entries: packed.files.map((f) => `package/${f.path}`).sort() };
  } finally {
    rmSync(stage, { recursive: true, force: true });
  }
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const arg = (name) => {
    const i = process.argv.indexOf(name);
    return i > 0 ? path.resolve(process.argv[i + 1]) : undefined;
  };
  try {
    const { file, entries, bytes } = packageExtension({ dist: arg('--dist'), out: arg('--out') });
    const unpacked = entries.reduce((sum, e) => sum + statSync(path.join(arg('--dist') ?? path.join(ROOT, 'dist'), e)).size, 0);
    const shown = path.relative(process.cwd(), file);
    console.log(`${shown.startsWith('..') ? file : shown}: ${entries.length} files, ${bytes} bytes (${unpacked} unpacked); the store's offline checks passed`);
    const npm = packageNpm({ dist: arg('--dist'), out: arg('--out') });
    const npmShown = path.relative(process.cwd(), npm.file);
    console.log(`${npmShown.startsWith('..') ? npm.file : npmShown}: @sightline/playwright, ${npm.entries.length} files, the extension inside (npm i -D ${npmShown.startsWith('..') ? npm.file : `./${npmShown}`})`);
  } catch (e) {
    console.error(`[package] ${e.message}`);
    process.exit(1);
  }
}
