// The page seam of a run's host (crate/web/src/host/page.rs): reads, input, settling, focus,
// scrolling, choices and file choosers, on the tab the run follows.
import { cdp, chooseFiles, evaluateScript, focusedField, takeDialogs, watchConsole } from '../debugger.js';
import { assertUsable, choose, locatorData, readUsable, restriction, reveal, settle, shootUsable, tabLoaded } from '../page.js';

/** The page methods of the host for the run of `entry` (`options`: its run options). */
export function pageHost(entry, options) {
  /**
   * Waits for the page, following a tab the input opened: `{urlBefore, url, loaded, followedTab}`
   * (the core decides what that means for the run).
   */
  const settleAndFollow = async () => {
    await settle(entry.tabId);
    let followedTab = false;
    if (entry.opened != null) {
      const next = entry.opened;
      entry.opened = null;
      await tabLoaded(next, 10_000);
      const opened = await assertUsable(next).catch(() => null);
      if (opened) {
        entry.tabId = next;
        entry.tabs.add(next);
        entry.consoleAt = await watchConsole(next, entry.id).catch(() => 0);
        entry.holdDialogsOn(next);
        await chrome.tabs.update(next, { active: true }).catch(() => {});
        await settle(next);
        followedTab = true;
      }
    }
    const now = await chrome.tabs.get(entry.tabId).catch(() => null);
    if (now) entry.title = now.title;
    return { urlBefore: entry.urlBefore ?? '', url: now?.url ?? '', loaded: entry.loaded, followedTab: followedTab || entry.switched };
  };
  return {
    /**
     * The page as the browser gives it, `{page, shot}`, each a promise (shot: null when no
     * screenshot is wanted) that the core awaits and decodes once; or `{unreadable}`.
     * `opts`: how much of the page to read, as the core decided (`Reach`).
     */
    async observe(opts) {
      // A page no extension may read: the core decides (a start page is an empty page).
      const now = await chrome.tabs.get(entry.tabId).catch(() => null);
      if (!now) throw new Error(`tab ${entry.tabId} no longer exists`);
      const url = now.url || now.pendingUrl || '';
      const restricted = await restriction(url);
      if (restricted) return { unreadable: { url, title: now.title ?? '', reason: restricted.reason } };
      // The reading and the capture at once: each waits mostly on the page's process, and the
      // page has settled before any observation, so the markers drawn from this reading fit.
      // The capture is asked for first: its metrics wait for the page's main thread, which
      // the read then occupies.
      // The tab was found usable above: neither asks chrome.tabs for it again.
      // Handed over unsettled: the core decodes the capture while the read goes on.
      // `screenshot: false`: the core only aims (`Reach::Aiming`); the reader gets the rest, so
      // a page unchanged since the step's read is answered from its kept reading.
      const { screenshot, ...reading } = opts ?? {};
      const shooting = options.includeScreenshot === false || screenshot === false ? null : shootUsable(entry.tabId);
      const page = readUsable(entry.tabId, reading, { besideCapture: shooting != null });
      // The core awaits the capture first. A read that fails fails the capture too, as one
      // observation: its error (and advice) reaches the run at once, and a capture held up by
      // what made the read fail (a dialog over the page) cannot keep the run waiting.
      const shot = shooting && Promise.race([shooting, page.then(() => shooting)]);
      // Whichever fails, the core hears of it through the one it awaits: the other is not news.
      for (const p of [page, shot]) p?.catch(() => {});
      return { page, shot };
    },
    async dispatch(commands) {
      await entry.beforeInput();
      const tabId = entry.tabId;
      await entry.acting(async () => {
        for (const { method, params } of commands) await cdp(tabId, method, params);
      });
    },
    async chooseFiles(click, files) {
      await entry.beforeInput();
      const tabId = entry.tabId;
      await entry.acting(() => chooseFiles(tabId, click, files));
    },
    /** Waits for the page: what happened since the input (`Settled`), dialogs answered on the tab it left included. */
    async settle() {
      const acted = entry.tabId;
      const settled = await entry.acting(settleAndFollow);
      // Cut short by a dialog the core must answer: what is known so far. The input is not
      // over yet: once the dialog is answered, the core settles again against the same start.
      if (settled) entry.settled = true;
      const now = settled ?? {
        urlBefore: entry.urlBefore ?? '', url: (await chrome.tabs.get(entry.tabId).catch(() => null))?.url ?? '', loaded: entry.loaded, followedTab: false,
      };
      const dialogs = (await Promise.all([...new Set([acted, entry.tabId])].map((t) => takeDialogs(t)))).flat()
        .map(({ type, message, accepted }) => ({ type, message: String(message ?? ''), accepted }));
      return { ...now, dialogs };
    },
    focusedField: (selectors) => focusedField(entry.tabId, selectors),
    async reveal(element) {
      await entry.watching; // it scrolls: what the page says to that is the run's, as after an input
      return reveal(entry.tabId, element);
    },
    /** What the core decides the element's locators from (`LocatorData`), or null. */
    locatorData: (xpath, textCheck) => locatorData(entry.tabId, xpath, textCheck),
    async choose(element, index) {
      await entry.beforeInput();
      return choose(entry.tabId, element, index);
    },
    /** A flow's script the core allowed, in the run's tab: `{value}` (a dialog it opens is the run's, as after input). */
    async evaluate(code) {
      await entry.beforeInput();
      const tabId = entry.tabId;
      return entry.acting(() => evaluateScript(tabId, code));
    },
  };
}
