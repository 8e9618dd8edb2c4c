// scripts/bench [dom|vision|step]: benchmarks (figures, not pass/fail tests).
import { benchDom } from './bench-dom.mjs';
import { benchVision } from './bench-vision.mjs';
import { benchStep } from './bench-step.mjs';

const suites = { dom: benchDom, vision: benchVision, step: benchStep };
const wanted = process.argv.slice(2);
const names = wanted.length ? wanted : Object.keys(suites);
for (const name of names) {
  if (!suites[name]) {
    console.error(`unknown benchmark "${name}"; known: ${Object.keys(suites).join(', ')}`);
    process.exit(2);
  }
  await suites[name]();
}
