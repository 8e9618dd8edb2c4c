// The tab the person works in, as the side panel and Settings both find it (Settings framed in
// the panel, or open in a tab of its own, looks past the extension's own pages).

/**
 * `pinned` (the tab a page was opened for, `?tab=N`) when given, else this window's active tab
 * unless it is one of the extension's own pages, else the most recently used other tab; null
 * when there is none.
 */
export async function personsTab(pinned = null) {
  if (pinned != null) return chrome.tabs.get(pinned).catch(() => null);
  const own = chrome.runtime.getURL('');
  const [active] = await chrome.tabs.query({ active: true, currentWindow: true });
  if (active && !active.url?.startsWith(own)) return active;
  const others = (await chrome.tabs.query({})).filter((t) => !t.url?.startsWith(own));
  others.sort((a, b) => (b.lastAccessed ?? 0) - (a.lastAccessed ?? 0));
  return others[0] ?? null;
}
