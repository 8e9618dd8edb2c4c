// scripts/bench [dom|vision|step|crossing]: benchmarks (figures, not pass/fail tests).
import { benchDom } from './bench-dom.mjs';
import { benchVision } from './bench-vision.mjs';
import { benchStep } from './bench-step.mjs';
import { benchCrossing } from './bench-crossing.mjs';

const suites = { dom: benchDom, vision: benchVision, step: benchStep, crossing: benchCrossing };
const wanted = process.argv.slice(2);
const names = wanted.length ? wanted : Object.keys(suites);
for (const name of names) {
  if (!suites[name]) {
    console.error(`unknown benchmark "${name}"; known: ${Object.keys(suites).join(', ')}`);
    process.exit(2);
  }
  await suites[name]();
}
