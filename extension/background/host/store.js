// The store seam of a run's host (crate/web/src/host/store.rs): where the record goes — each
// report's changes, cache entries, screenshots — with what it says of the tab and its console.
import { keepCacheRecord } from '../cache.js';
import { consoleSince } from '../debugger.js';
import { putImage } from '../store.js';

/**
 * The store methods of the host for the run of `entry`. `keep(changes)`: applies a report's
 * changes to the record, stores and shows it, and returns it; `onReport(run)`: the caller's.
 */
export function storeHost(entry, keep, onReport) {
  return {
    remember: (record) => keepCacheRecord(record).catch((e) => console.error('keeping a cache entry failed', e)),
    keepImage(dataUrl) {
      const ref = `${entry.id}/${entry.images++}`;
      putImage(ref, dataUrl).catch((e) => console.error('keeping a screenshot failed', e));
      return ref;
    },
    /** What the run's tab reported since the last report, for the step just recorded. */
    takeConsole() {
      if (entry.consoleAt == null) return []; // the watch has not started yet
      const { entries, next } = consoleSince(entry.tabId, entry.consoleAt);
      entry.consoleAt = next;
      return entries;
    },
    tab: entry.tabFacts,
    /** The record's changes, as the core holds it: applied, stored and shown as is. */
    report(changes) {
      const run = keep(changes);
      onReport?.(run);
    },
  };
}
