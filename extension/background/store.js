// Runs and their screenshots, kept in the worker's IndexedDB: each step's report writes one
// record (not the whole history), and screenshots (hundreds of KB each) stay out of
// chrome.storage.local. Image references are `<run id>/<n>`, so a run's images go with it.
// The vault holds the API key and the secrets' values: the extension origin's IndexedDB is
// open to its own pages and worker only, never to content scripts (they run in the page's
// origin), on every Chrome version. The cache keeps one record per entry, so remembering an
// element writes that entry alone (cache.js).
const DB_NAME = 'sightline';
const DB_VERSION = 3;
const RUNS = 'runs';
const IMAGES = 'images';
const VAULT = 'vault';
const CACHE = 'cache';
const LEGACY_KEY = 'runs'; // where chrome.storage.local held runs before

let opening = null;

function request(req) {
  return new Promise((resolve, reject) => {
    req.onsuccess = () => resolve(req.result);
    req.onerror = () => reject(req.error);
  });
}

function db() {
  opening ??= new Promise((resolve, reject) => {
    const req = indexedDB.open(DB_NAME, DB_VERSION);
    req.onupgradeneeded = ({ oldVersion }) => {
      const d = req.result;
      if (oldVersion < 1) {
        d.createObjectStore(RUNS, { keyPath: 'id' }).createIndex('startedMs', 'startedMs');
        d.createObjectStore(IMAGES);
      }
      if (oldVersion < 2) d.createObjectStore(VAULT);
      if (oldVersion < 3) d.createObjectStore(CACHE, { keyPath: 'key' }).createIndex('updatedMs', 'updatedMs');
    };
    req.onsuccess = () => {
      // A newer version opening the database (an update) gets it: this connection lets go.
      req.result.onversionchange = () => {
        req.result.close();
        opening = null;
      };
      resolve(req.result);
    };
    req.onerror = () => reject(req.error);
  }).then(async (d) => {
    await moveLegacyRuns(d);
    return d;
  });
  opening.catch(() => { opening = null; }); // a later call tries again
  return opening;
}

/** Runs stored by an earlier version in chrome.storage.local move here once. */
async function moveLegacyRuns(d) {
  const { [LEGACY_KEY]: old } = await chrome.storage.local.get(LEGACY_KEY);
  if (!Array.isArray(old)) return;
  const tx = d.transaction(RUNS, 'readwrite');
  for (const run of old) if (run?.id) tx.objectStore(RUNS).put(run);
  await done(tx);
  await chrome.storage.local.remove(LEGACY_KEY);
}

function done(tx) {
  return new Promise((resolve, reject) => {
    tx.oncomplete = () => resolve();
    tx.onerror = () => reject(tx.error);
    tx.onabort = () => reject(tx.error ?? new Error('the storage transaction was aborted'));
  });
}

export async function putRun(run) {
  const tx = (await db()).transaction(RUNS, 'readwrite');
  tx.objectStore(RUNS).put(run);
  await done(tx);
}

export async function getRun(id) {
  return (await request((await db()).transaction(RUNS).objectStore(RUNS).get(String(id)))) ?? null;
}

/** All runs, newest first. */
export async function allRuns() {
  const runs = await request((await db()).transaction(RUNS).objectStore(RUNS).index('startedMs').getAll());
  return runs.reverse();
}

/** Deletes all but the newest `keep` runs, with their images. */
export async function pruneRuns(keep) {
  const d = await db();
  const ids = (await request(d.transaction(RUNS).objectStore(RUNS).index('startedMs').getAllKeys())).reverse();
  const gone = ids.slice(keep);
  if (!gone.length) return;
  const tx = d.transaction([RUNS, IMAGES], 'readwrite');
  for (const id of gone) {
    tx.objectStore(RUNS).delete(id);
    tx.objectStore(IMAGES).delete(IDBKeyRange.bound(`${id}/`, `${id}/\uffff`));
  }
  await done(tx);
}

/** Deletes run `id` with its images. */
export async function deleteRun(id) {
  const tx = (await db()).transaction([RUNS, IMAGES], 'readwrite');
  tx.objectStore(RUNS).delete(String(id));
  tx.objectStore(IMAGES).delete(IDBKeyRange.bound(`${id}/`, `${id}/\uffff`));
  await done(tx);
}

export async function putImage(ref, dataUrl) {
  const tx = (await db()).transaction(IMAGES, 'readwrite');
  tx.objectStore(IMAGES).put(dataUrl, ref);
  await done(tx);
}

/** The images named by `refs`, as { ref: dataUrl }; missing ones are left out. */
export async function getImages(refs) {
  const store = (await db()).transaction(IMAGES).objectStore(IMAGES);
  const found = await Promise.all(refs.map((ref) => request(store.get(ref)).then((url) => [ref, url])));
  return Object.fromEntries(found.filter(([, url]) => typeof url === 'string'));
}

const VAULT_KEY = 'settings';

/** The vault: `{apiKey, apiKeyFor, secrets}` (empty when nothing was saved). */
export async function getVault() {
  return (await request((await db()).transaction(VAULT).objectStore(VAULT).get(VAULT_KEY))) ?? {};
}

export async function putVault(vault) {
  const tx = (await db()).transaction(VAULT, 'readwrite');
  tx.objectStore(VAULT).put(vault, VAULT_KEY);
  await done(tx);
}

/**
 * Keeps cache records (`{key, updatedMs, entry}`, the core's), each replacing the one with its
 * key, then drops the oldest past `limit`, in one transaction. Resolves to how many are kept.
 */
export async function putCacheRecords(records, limit) {
  const tx = (await db()).transaction(CACHE, 'readwrite');
  const store = tx.objectStore(CACHE);
  for (const record of records) store.put(record);
  let kept = 0;
  store.count().onsuccess = ({ target }) => {
    let extra = target.result - limit;
    kept = Math.min(target.result, limit);
    if (extra <= 0) return;
    store.index('updatedMs').openCursor().onsuccess = ({ target: { result: cursor } }) => {
      if (!cursor || extra-- <= 0) return;
      cursor.delete();
      cursor.continue();
    };
  };
  await done(tx);
  return kept;
}

/** Every cache entry (the records' `entry`). */
export async function allCacheEntries() {
  return (await request((await db()).transaction(CACHE).objectStore(CACHE).getAll())).map((r) => r.entry);
}

export async function countCacheRecords() {
  return request((await db()).transaction(CACHE).objectStore(CACHE).count());
}

export async function clearCacheRecords() {
  const tx = (await db()).transaction(CACHE, 'readwrite');
  tx.objectStore(CACHE).clear();
  await done(tx);
}
