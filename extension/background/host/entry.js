// The runs under way, each with its tab state: the tab it follows and those it has been on, what
// an input changed, where its console watch is, the action a page dialog holds up. Every seam
// of a run's host (the other files here) reads and changes that one entry; `release` lets it go.
import { answerDialog, detach, holdDialogs, unwatchConsole, watchConsole } from '../debugger.js';

/** Run id → its entry (`openEntry`). */
export const active = new Map();
let keepAlive = null;

/** Chrome stops an idle worker after ~30 s; an extension API call every 20 s resets that clock. */
function updateKeepAlive() {
  if (active.size && !keepAlive) keepAlive = setInterval(() => chrome.runtime.getPlatformInfo(), 20_000);
  if (!active.size && keepAlive) {
    clearInterval(keepAlive);
    keepAlive = null;
  }
}

// A tab opened by the tab a run is acting on (a target=_blank link, window.open).
chrome.tabs.onCreated.addListener((tab) => {
  for (const entry of active.values()) if (tab.openerTabId === entry.tabId) entry.opened = tab.id;
});
// A new document in the top frame of a run's tab: a navigation even where the address stays the same.
chrome.webNavigation.onCommitted.addListener(({ tabId, frameId }) => {
  if (frameId !== 0) return;
  for (const entry of active.values()) if (entry.tabId === tabId) entry.loaded = true;
});

/** Run `id` on tab `tabId` (`tab`: as it was at the start) is under way: its entry. */
export function openEntry(id, tabId, tab) {
  const controller = new AbortController();
  // The run follows its tab: a link that opens a new tab moves it there (entry.tabId).
  const entry = {
    id, controller, tabId, title: tab.title, tabs: new Set([tabId]), opened: null, loaded: false, switched: false, settled: true, images: 0,
  };
  /** The tab the run acts on now, for its record (`url`: where it started, until the core reads the page). */
  entry.tabFacts = () => ({ id: entry.tabId, title: entry.title ?? '', url: tab.url ?? '' });
  active.set(id, entry);
  updateKeepAlive();
  // What the page reports while the run acts (console errors, failed requests) goes on its steps.
  // Not waited for before the run starts: the first observation's read and capture wait only
  // for the attachment the watch starts with (they share it), not for its Runtime and Log
  // domains, which wait for the page's main thread; any input waits for it (`beforeInput`).
  // Until the watch has its place (`consoleAt`), there is nothing after it to report: what the
  // page said before is replayed to the watch and falls before that place.
  entry.consoleAt = null;
  const watching = watchConsole(tabId, id).catch(() => 0).then((at) => {
    entry.consoleAt ??= at; // unless a tab the run followed has its own place already
  });
  entry.watching = watching;

  /**
   * What `settle` reports against, taken at the first input after a settle (an action's
   * commands may come in parts): the address before it; no document loaded, no tab opened yet.
   * No input goes before the console watch has its place: what the page reports in answer to
   * the run's own input is always after it.
   */
  entry.beforeInput = async () => {
    await watching;
    if (!entry.settled) return;
    entry.settled = false;
    entry.urlBefore = (await chrome.tabs.get(entry.tabId).catch(() => null))?.url ?? '';
    entry.opened = null;
    entry.loaded = false;
    entry.switched = false;
  };
  /** The run follows tab `next` from now on (opened, switched to, or left after a close). */
  entry.follow = async (next) => {
    entry.tabId = next;
    entry.tabs.add(next);
    entry.switched = true;
    entry.holdDialogsOn(next);
    await chrome.tabs.update(next, { active: true }).catch(() => {});
  };

  // The page's dialogs during an action are the core's to answer. The input or wait a dialog
  // interrupts resolves early (`acting`); its work goes on once the dialog is answered.
  const held = { dialog: null, work: null, wake: null };
  entry.held = held;
  const take = (dialog) => {
    if (!held.work || held.dialog) return false; // not during an action: debugger.js answers it
    held.dialog = dialog;
    held.wake?.();
    return true;
  };
  /** Hands the page's dialogs on tab `t` to this run while it acts (a tab it follows from now on). */
  entry.holdDialogsOn = (t) => holdDialogs(t, take);
  entry.holdDialogsOn(tabId);
  /** Resolves to the held work's value once it is done, or to null as soon as a dialog is held. */
  entry.untilDoneOrDialog = () => new Promise((resolve, reject) => {
    const work = held.work;
    if (!work || held.dialog) return resolve(null);
    held.wake = () => resolve(null);
    work.then(resolve, reject);
  });
  entry.acting = (start) => {
    // Held before it starts: a dialog already open is offered to `take` as the work begins.
    const work = Promise.resolve().then(start).finally(() => { if (held.work === work) held.work = null; });
    work.catch(() => {}); // its error reaches whoever waits on it
    held.work = work;
    return entry.untilDoneOrDialog();
  };

  /** The run is over: its tabs' dialogs, console watches and (where no other run is on them) debugger let go. */
  entry.release = async () => {
    // A watch still attaching would leave the tab attached after the run: waited for, but not
    // past 2 s. Its Runtime and Log domains never answer while a dialog holds the page (the
    // run failed saying so), and the detach below ends them.
    await Promise.race([watching, new Promise((resolve) => setTimeout(resolve, 2000))]);
    active.delete(id);
    updateKeepAlive();
    for (const t of entry.tabs) holdDialogs(t, null, take);
    if (held.dialog) await answerDialog(held.dialog, false); // the core ended without answering it
    for (const t of entry.tabs) {
      await unwatchConsole(t, id, true);
      // Not waited for: the run's caller has its record a few ms sooner (the next attachment
      // to the tab waits for this detachment).
      if (![...active.values()].some((r) => r.tabs.has(t))) detach(t);
    }
  };
  return entry;
}
