// scripts/run FLOW.yaml [--headed] [--report DIR] [--live] [--upload-dir DIR] [--dialogs accept|dismiss]:
// one flow file, headless by default.
// Exit code 0 when every step passed, 1 otherwise (a bad file, a failed step, no browser).
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { launchWithExtension } from './playwright/lib/browser.mjs';
import { modelsFromEnv, openFlow, reportFileName, runFlowIn, secretsFromEnv, summary, writeOutput } from './playwright/lib/flow-runner.mjs';

const USAGE = `usage: scripts/run FLOW.yaml [--headed] [--report DIR] [--live] [--upload-dir DIR] [--dialogs accept|dismiss]
  --headed          show the browser window
  --report DIR      write DIR/<flow>.report.html (steps, screenshots, model I/O), or the name
                    the flow's agent: reportFileName gives
The flow's javascript steps run in the page (your own file on your machine); its named results
are written as JSON to its output: (web: output), a .json file beside the flow file.
  --live            find every element by its description (the model), not the file's XPaths
  --upload-dir DIR  the folder the flow's uploads may come from; a path outside it is refused
                    before the run (a flow that uploads needs it)
  --dialogs ANSWER  answer the page's dialogs (confirm, prompt, leave the page?) with OK
                    (accept) or Cancel (dismiss); else as the flow's web: dialogs says, and a
                    dialog with no answer set fails its step
Model (needed for steps the XPaths and cache cannot answer): SIGHTLINE_BASE_URL,
SIGHTLINE_MODEL, SIGHTLINE_API_KEY, SIGHTLINE_FAMILY, SIGHTLINE_PROVIDER; or Midscene's
MIDSCENE_MODEL_BASE_URL, MIDSCENE_MODEL_API_KEY, MIDSCENE_MODEL_NAME, MIDSCENE_MODEL_FAMILY
(OPENAI_API_KEY, OPENAI_BASE_URL).
Planning model (optional: it plans each step and describes what to act on; the model above
then only finds each element): SIGHTLINE_PLANNER_BASE_URL, SIGHTLINE_PLANNER_MODEL,
SIGHTLINE_PLANNER_API_KEY, SIGHTLINE_PLANNER_FAMILY, SIGHTLINE_PLANNER_PROVIDER; or
MIDSCENE_PLANNING_MODEL_BASE_URL, _API_KEY, _NAME, _FAMILY.
Secrets: SIGHTLINE_SECRET_<NAME>=value is typed where the flow says <secret>name</secret>, only
on the sites SIGHTLINE_SECRET_<NAME>_SITES names (comma-separated, e.g. example.com; required:
a secret without it is refused before the run).`;

function parseArgs(argv) {
  const args = { file: null, headed: false, report: null, live: false, uploadDir: null, dialogs: null };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === '--headed') args.headed = true;
    else if (a === '--live') args.live = true;
    else if (a === '--report') {
      args.report = argv[++i];
      if (!args.report) throw new Error('--report needs a folder');
    } else if (a === '--upload-dir') {
      args.uploadDir = argv[++i];
      if (!args.uploadDir) throw new Error('--upload-dir needs a folder');
    } else if (a === '--dialogs') {
      args.dialogs = argv[++i];
      if (args.dialogs !== 'accept' && args.dialogs !== 'dismiss') throw new Error('--dialogs takes accept or dismiss (nobody is there to ask)');
    } else if (a === '-h' || a === '--help') args.help = true;
    else if (a.startsWith('-')) throw new Error(`unknown option ${a}`);
    else if (args.file) throw new Error(`one flow file at a time (got ${args.file} and ${a})`);
    else args.file = a;
  }
  if (!args.file && !args.help) throw new Error('no flow file given');
  return args;
}

async function main() {
  let args;
  try {
    args = parseArgs(process.argv.slice(2));
  } catch (e) {
    console.error(`${e.message}\n${USAGE}`);
    return 1;
  }
  if (args.help) {
    console.log(USAGE);
    return 0;
  }
  let model, planner;
  try {
    ({ model, planner } = modelsFromEnv());
    secretsFromEnv(); // read again by the run; here so that a bad one fails before the browser starts
  } catch (e) {
    console.error(e.message);
    return 1;
  }
  if (args.live && !model) {
    console.error('--live needs a model: set SIGHTLINE_BASE_URL and SIGHTLINE_MODEL');
    return 1;
  }
  let opened;
  try {
    opened = await openFlow(args.file, { uploadDir: args.uploadDir });
  } catch (e) {
    console.error(e.message);
    return 1;
  }
  const { flow, url } = opened;
  console.log(`${flow.tasks.map((t) => t.name).join(' · ')}: ${url}`);
  console.log(model ? `model: ${model.model} at ${model.baseUrl}` : 'model: none (steps the XPaths and the cache cannot answer will fail; see --help)');
  if (planner) console.log(`planner: ${planner.model} at ${planner.baseUrl}`);
  const browser = await launchWithExtension({ headless: !args.headed, ...(flow.viewport ? { viewport: flow.viewport } : {}) });
  try {
    const { run } = await runFlowIn(browser, { ...opened, model, planner, live: args.live, dialogs: args.dialogs });
    let { text, code } = summary(run);
    console.log(text);
    try {
      const written = await writeOutput(args.file, flow, run);
      if (written) console.log(`output: ${written}`);
    } catch (e) {
      console.error(e.message);
      code = 1;
    }
    if (args.report) {
      await mkdir(args.report, { recursive: true });
      const html = await browser.sw.evaluate((id) => self.sightline.exportRun(id, 'report'), run.id);
      const file = path.join(args.report, reportFileName(args.file, flow));
      await writeFile(file, html);
      console.log(`report: ${file}`);
    }
    return code;
  } finally {
    await browser.close().catch(() => {});
    await opened.close();
  }
}

process.exitCode = await main().catch((e) => {
  console.error(`scripts/run: ${e.stack ?? e}`);
  return 1;
});
