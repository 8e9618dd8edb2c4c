// The clock seam of a run's host (crate/web/src/host/clock.rs): waits and the person's Stop
// (also the signal the model's requests are cancelled with).

/** The clock methods of the host for the run of `entry`. */
export function clockHost(entry) {
  const { signal } = entry.controller;
  return {
    wait: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
    stopRequested: () => signal.aborted,
    stopSignal: () => signal,
  };
}
