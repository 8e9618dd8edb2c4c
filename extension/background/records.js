// The run records the worker's glue holds, each as the core last handed it over. The core
// sends a held run's changes (`{head, from, steps, closed}`: its own fields, and its steps
// from `from` on), never the whole record, so what crosses per step stays flat however long
// the run; they are applied here as they come, with no decision of their own.

const held = new Map(); // run id → record
// The panel is told of a record's changes the same way: the first step it has not been told of
// since the last time (a step the core changed counts as new again), per run id.
const untold = new Map(); // run id → step index

/** The record after `changes` (the core's), kept until the core lets go of the run. */
export function absorb(changes) {
  const { head, from, steps, closed } = changes;
  const before = held.get(head.id);
  if (!before && from > 0) console.error(`run ${head.id}: changes from step ${from} for a record not held`);
  const kept = before ? before.steps.slice(0, from) : [];
  const run = { ...head, steps: kept.concat(steps) };
  untold.set(head.id, Math.min(untold.get(head.id) ?? from, from));
  if (closed) held.delete(head.id);
  else held.set(head.id, run);
  return run;
}

/** A stored record the core holds again (read back after a restart): its changes start from it. */
export function holdStored(run) {
  held.set(run.id, run);
}

/**
 * What the panel has not been told of `run` (`{head, from, steps}`), with `lean` applied to those
 * steps; from then on it has been. A record that came by another way than the core's changes
 * (read back, described) goes whole (`from` 0).
 */
export function untoldChanges(run, lean) {
  const from = Math.min(untold.get(run.id) ?? 0, run.steps.length);
  untold.delete(run.id);
  const { steps, ...head } = run;
  return { head, from, steps: lean(steps.slice(from)) };
}
