// The person seam of a run's host (crate/web/src/host/person.rs): a question shown in the
// panel and its answer awaited (`answerRun` gives it); the model's reply shown as it streams.

/** The person's methods of the host for the run of `entry` (`opts`: the run's, `interactive`). */
export function personHost(entry, opts) {
  const { controller } = entry;
  return {
    // The question is on the run record (reported just before); the panel answers with answerRun.
    // opts.interactive === false: nobody will answer, the core then does what it says it does.
    ask: (question) => (opts.interactive === false || controller.signal.aborted ? Promise.resolve(null) : new Promise((resolve) => {
      entry.asking = question;
      entry.answer = (answer) => {
        entry.asking = null;
        entry.answer = null;
        resolve(answer);
      };
      controller.signal.addEventListener('abort', () => entry.answer?.(null), { once: true });
    })),
    // The model's reply while it streams: for the panel only, at most ~8 updates a second.
    modelText: throttle((text) => broadcastText(entry.id, text), 120),
  };
}

function broadcastText(runId, text) {
  chrome.runtime.sendMessage({ type: 'sightline/run-text', runId, text }).catch(() => {});
}

/** Calls `fn` with the latest arguments at most once per `ms`, always delivering the last. */
function throttle(fn, ms) {
  let last = 0;
  let timer = null;
  let pending = null;
  return (...args) => {
    pending = args;
    const wait = last + ms - Date.now();
    if (wait <= 0) {
      last = Date.now();
      fn(...pending);
    } else if (!timer) {
      timer = setTimeout(() => {
        timer = null;
        last = Date.now();
        fn(...pending);
      }, wait);
    }
  };
}
