// The locate and plan cache (the core's cache entries): survives restarts; exported and
// imported as JSON. Stored in IndexedDB one record per entry, under the key the core gives
// it (store.js), so remembering one element writes one record, not the whole cache.
import { allCacheEntries, clearCacheRecords, countCacheRecords, putCacheRecords } from './store.js';
import { core } from './wasm.js';

const LEGACY_KEY = 'cache'; // where chrome.storage.local held the whole cache as one array before

let moved = null;
/**
 * An earlier version's cache moves out of chrome.storage.local once, before this worker's first
 * cache read or write. An entry the core cannot read is dropped (and said so): the cache is
 * what the model found, and is found again.
 */
function moveLegacyCache() {
  moved ??= (async () => {
    const { [LEGACY_KEY]: old } = await chrome.storage.local.get(LEGACY_KEY);
    if (old === undefined) return;
    if (Array.isArray(old)) {
      const wasm = await core();
      const records = old.flatMap((entry) => {
        try {
          return wasm.cacheRecords([entry]);
        } catch (e) {
          console.warn(`a cache entry could not be moved: ${e.message}`);
          return [];
        }
      });
      await putCacheRecords(records, wasm.cacheLimit());
    }
    await chrome.storage.local.remove(LEGACY_KEY);
  })().catch((e) => {
    console.error('moving the cache out of chrome.storage.local failed; the next use of the cache tries again', e);
    moved = null;
  });
  return moved;
}

/** Every entry, for a run to use. */
export async function loadCache() {
  await moveLegacyCache();
  return allCacheEntries();
}

/** Keeps one entry the core remembered (its record: `{key, updatedMs, entry}`). */
export async function keepCacheRecord(record) {
  await moveLegacyCache();
  return putCacheRecords([record], (await core()).cacheLimit());
}

/** Merges an exported cache (parsed JSON); throws saying what is wrong with it. Resolves to the entry count. */
export async function importCache(parsed) {
  await moveLegacyCache();
  const wasm = await core();
  return putCacheRecords(wasm.cacheRecords(parsed), wasm.cacheLimit());
}

/** Empties the cache; resolves to the entry count (0). */
export async function clearCache() {
  await moveLegacyCache();
  await clearCacheRecords();
  return countCacheRecords();
}

export async function cacheSize() {
  await moveLegacyCache();
  return countCacheRecords();
}
