// The tabs seam of a run's host (crate/web/src/host/tabs.rs): the window's tabs and the tab's
// history, and going where the core decided, with chrome.tabs and CDP.
import { cdp } from '../debugger.js';
import { tabLoaded } from '../page.js';

/** The tab methods of the host for the run of `entry`. */
export function tabHost(entry) {
  return {
    /**
     * The tabs of the run's window: `[{id, title, url, current, opener, followed}]` (`followed`:
     * the order in which the run went on it, null for a tab it has not been on).
     */
    async tabs() {
      const now = await chrome.tabs.get(entry.tabId).catch(() => null);
      if (!now) return [];
      const followed = [...entry.tabs];
      return (await chrome.tabs.query({ windowId: now.windowId })).map((t) => ({
        id: t.id,
        title: t.title ?? '',
        url: t.url || t.pendingUrl || '',
        current: t.id === entry.tabId,
        opener: t.openerTabId ?? null,
        followed: followed.includes(t.id) ? followed.indexOf(t.id) : null,
      }));
    },
    /**
     * Where a step back or forward in the tab's history, or a reload, would go (`Go`): the
     * address of that entry of the tab's history, or null when the browser does not say.
     */
    async historyTarget(to) {
      const history = await cdp(entry.tabId, 'Page.getNavigationHistory').catch(() => null);
      if (!history?.entries) return null;
      const step = { back: -1, forward: 1 }[to.kind] ?? 0;
      return history.entries[history.currentIndex + step]?.url ?? null;
    },
    /** Goes where the core decided (`Go`), with chrome.tabs; the next settle reports where the run is. */
    async go(to) {
      await entry.beforeInput();
      const tabId = entry.tabId;
      const committed = () => new Promise((resolve) => {
        const done = () => {
          clearTimeout(timer);
          chrome.webNavigation.onCommitted.removeListener(onCommitted);
          resolve();
        };
        const onCommitted = (d) => d.tabId === tabId && d.frameId === 0 && done();
        const timer = setTimeout(done, 10_000);
        chrome.webNavigation.onCommitted.addListener(onCommitted);
      });
      switch (to.kind) {
        case 'address': {
          const loaded = committed();
          await chrome.tabs.update(tabId, { url: to.url });
          await loaded;
          break;
        }
        case 'back': case 'forward': case 'reload': {
          const loaded = committed();
          if (to.kind === 'back') await chrome.tabs.goBack(tabId);
          else if (to.kind === 'forward') await chrome.tabs.goForward(tabId);
          else await chrome.tabs.reload(tabId);
          await loaded;
          break;
        }
        case 'openTab': {
          const from = await chrome.tabs.get(tabId);
          const opened = await chrome.tabs.create({ url: to.url, windowId: from.windowId, openerTabId: tabId, active: true });
          await entry.follow(opened.id);
          await tabLoaded(opened.id, 30_000);
          break;
        }
        case 'switchTab': {
          const target = await chrome.tabs.get(to.tab).catch(() => null);
          if (!target) throw new Error(`there is no tab ${to.tab} any more`);
          await entry.follow(target.id);
          break;
        }
        case 'closeOtherTab': {
          // Another tab of the window: an agent's `tabs close`, or the one the run was on once
          // the core has moved it to the tab it chose (its close of the run's tab).
          if (to.tab === tabId) throw new Error('that is the tab the run is on');
          await chrome.tabs.remove(to.tab);
          entry.tabs.delete(to.tab);
          break;
        }
        default:
          throw new Error(`unknown move ${to.kind}`);
      }
    },
  };
}
