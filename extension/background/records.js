// The run records the worker's glue holds, each as the core last handed it over. The core
// sends a held run's changes (`{head, from, steps, closed}`: its own fields, and its steps
// from `from` on), never the whole record, so what crosses per step stays flat however long
// the run; they are applied here as they come, with no decision of their own.

const held = new Map(); // run id → record

/** The record after `changes` (the core's), kept until the core lets go of the run. */
export function absorb(changes) {
  const { head, from, steps, closed } = changes;
  const before = held.get(head.id);
  if (!before && from > 0) console.error(`run ${head.id}: changes from step ${from} for a record not held`);
  const kept = before ? before.steps.slice(0, from) : [];
  const run = { ...head, steps: kept.concat(steps) };
  if (closed) held.delete(head.id);
  else held.set(head.id, run);
  return run;
}

/** A stored record the core holds again (read back after a restart): its changes start from it. */
export function holdStored(run) {
  held.set(run.id, run);
}
