// Runs a flow file (Midscene YAML) in Chromium with the built extension, through
// self.sightline.runFlow, printing each item as it ends. Used by scripts/run and scripts/demo.
// The flow is read by the extension's own core (loaded in Node) before Chromium starts, so a
// bad file fails fast and the window can take the flow's viewport.
import { lstat, mkdir, readFile, realpath, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { core } from './core-node.mjs';
import { startStaticServer } from './static-server.mjs';

/**
 * The models from the environment (README: "Run a flow headless"): `{model, planner}`, each
 * settings for a run or null. The model: SIGHTLINE_* first, else Midscene's MIDSCENE_MODEL_* /
 * OPENAI_* variables. The optional planning model (it plans, the model then only finds what
 * it describes): SIGHTLINE_PLANNER_* first, else MIDSCENE_PLANNING_MODEL_*. Midscene's
 * variables are read by the core as the Settings page reads a pasted block (a Midscene family
 * name is taken as ours). Throws a readable error for a family nobody knows, a planner named
 * without its address or name, or a planner without a model to find its targets.
 */
export function modelsFromEnv(env = process.env) {
  const own = ownModel(env, 'SIGHTLINE_');
  const ownPlanner = ownModel(env, 'SIGHTLINE_PLANNER_');
  // Midscene's variables as far as they are still needed: all of them without our model,
  // else only the planning model's (the rest would not be used).
  const needed = own ? (ownPlanner ? null : /^MIDSCENE_PLANNING_MODEL_/) : /^(MIDSCENE_|OPENAI_)/;
  const block = Object.entries(env)
    .filter(([k, v]) => needed?.test(k) && v !== undefined)
    .map(([k, v]) => `${k}=${JSON.stringify(v)}`)
    .join('\n');
  const midscene = block ? core.settingsFromEnv(block) : {}; // throws a readable error
  const model = own ?? midsceneModel(midscene.model);
  const planner = ownPlanner ?? midsceneModel(midscene.planner);
  // A planner half named would silently plan with the acting model: say what is missing.
  const half = (named, base, name) => named && !planner && `${base} and ${name} go together: set both to plan with a separate model`;
  const missing = half(env.SIGHTLINE_PLANNER_BASE_URL || env.SIGHTLINE_PLANNER_MODEL, 'SIGHTLINE_PLANNER_BASE_URL', 'SIGHTLINE_PLANNER_MODEL')
    || half(midscene.planner, 'MIDSCENE_PLANNING_MODEL_BASE_URL', 'MIDSCENE_PLANNING_MODEL_NAME');
  if (missing) throw new Error(missing);
  if (planner && !model) {
    throw new Error(`the planning model ${planner.model} needs a model to find the elements it describes: set SIGHTLINE_BASE_URL and SIGHTLINE_MODEL (or MIDSCENE_MODEL_*)`);
  }
  return { model, planner };
}

/** `<prefix>BASE_URL`, `MODEL`, `API_KEY`, `FAMILY`, `PROVIDER`; null unless the first two are set. */
function ownModel(env, prefix) {
  const get = (name) => env[`${prefix}${name}`];
  if (!get('BASE_URL') || !get('MODEL')) return null;
  return {
    baseUrl: get('BASE_URL'),
    model: get('MODEL'),
    apiKey: get('API_KEY') ?? '',
    family: get('FAMILY') ?? 'generic',
    provider: get('PROVIDER') ?? 'custom', // e.g. anthropic for its Messages API
  };
}

/** One model as the core read it from Midscene's variables; null unless they give its address and name. */
function midsceneModel(read) {
  if (!read?.baseUrl || !read?.model) return null;
  return { baseUrl: read.baseUrl, model: read.model, apiKey: read.apiKey ?? '', family: read.family ?? 'generic', provider: 'custom' };
}

const SECRET_PREFIX = 'SIGHTLINE_SECRET_';
const SITES_SUFFIX = '_SITES';

/**
 * Secrets for a headless run: SIGHTLINE_SECRET_SITE_PASSWORD=… is typed where the flow says
 * <secret>site_password</secret> (the names the Playwright export reads too), and only on the
 * sites SIGHTLINE_SECRET_SITE_PASSWORD_SITES names (comma-separated, as allowed sites are
 * written: example.com, 127.0.0.1:8080). A `…_SITES` variable is always a secret's sites, never
 * a secret. Throws, before anything runs, naming the variables to set for a secret without its
 * sites (the core would type it nowhere) and sites given for no secret (a misspelt name).
 */
export function secretsFromEnv(env = process.env) {
  const named = Object.entries(env)
    .filter(([k, v]) => k.startsWith(SECRET_PREFIX) && k.length > SECRET_PREFIX.length && v !== undefined)
    .map(([k, v]) => [k.slice(SECRET_PREFIX.length), v]);
  const isSites = (rest) => rest.endsWith(SITES_SUFFIX) && rest.length > SITES_SUFFIX.length;
  const sitesOf = new Map(named.filter(([rest]) => isSites(rest)).map(([rest, v]) => [rest.slice(0, -SITES_SUFFIX.length), v]));
  const secrets = named.filter(([rest]) => !isSites(rest)).map(([rest, value]) => ({
    name: rest.toLowerCase(),
    value,
    sites: (sitesOf.get(rest) ?? '').split(/[\s,]+/).filter(Boolean),
    selector: '',
    variable: `${SECRET_PREFIX}${rest}`,
  }));
  const unsited = secrets.filter((s) => !s.sites.length).map((s) => s.variable);
  if (unsited.length) {
    const which = unsited.map((v) => `${v}${SITES_SUFFIX}`).join(', ');
    throw new Error(`refused before the run: ${unsited.join(', ')} ${unsited.length > 1 ? 'are' : 'is'} bound to no site, so Sightline would type ${unsited.length > 1 ? 'them' : 'it'} nowhere: set ${which} to the sites ${unsited.length > 1 ? 'each' : 'it'} may be typed on (comma-separated, as allowed sites are written, e.g. example.com,127.0.0.1:8080)`);
  }
  const stray = [...sitesOf.keys()].filter((rest) => !secrets.some((s) => s.variable === `${SECRET_PREFIX}${rest}`));
  if (stray.length) {
    throw new Error(`refused before the run: ${stray.map((r) => `${SECRET_PREFIX}${r}${SITES_SUFFIX}`).join(', ')} gives the sites of ${stray.map((r) => `${SECRET_PREFIX}${r}`).join(', ')}, which is not set (a misspelt name?)`);
  }
  return secrets.map(({ variable, ...secret }) => secret);
}

/**
 * What the flow's `${NAME}`s may be filled from (the core's `FlowVars`): the `.env` file beside
 * it, and the environment variables the person lists in SIGHTLINE_FLOW_ENV (comma-separated).
 * The core decides what each name stands for (a secret's placeholder, a value, or a refusal).
 */
export async function flowVars(file, env = process.env) {
  const dotenv = await readFile(path.join(path.dirname(file), '.env'), 'utf8').catch((e) => {
    if (e.code === 'ENOENT') return null;
    throw new Error(`cannot read the .env file beside ${file}: ${e.message}`);
  });
  const listed = (env.SIGHTLINE_FLOW_ENV ?? '').split(/[\s,]+/).filter(Boolean);
  return { dotenv, env: Object.fromEntries(listed.filter((k) => env[k] !== undefined).map((k) => [k, env[k]])) };
}

/**
 * Reads and checks a flow file; serves its `web.serve` folder when it has one. `uploadDir`:
 * the folder the flow's upload paths must lie in (`--upload-dir`). `batch`: the batch index
 * file the flow runs from, `{file, web}` (`web` from `parseBatch`): its keys win over the
 * flow's (the core's `applyBatchWeb`), and a `serve` it gives is relative to the index file.
 * Resolves to { yaml, flow, url, uploadDir, close }; throws a readable error before anything runs.
 */
export async function openFlow(file, { uploadDir, batch } = {}) {
  const yaml = await readFile(file, 'utf8').catch((e) => {
    throw new Error(`cannot read ${file}: ${e.code === 'ENOENT' ? 'no such file' : e.message}`);
  });
  let flow;
  let vars;
  try {
    vars = await flowVars(file);
    // The secrets' names only (a secret without its sites is refused by runFlowIn, as before).
    let secrets = [];
    try {
      secrets = secretsFromEnv().map((s) => s.name);
    } catch {
      // said when the run starts
    }
    flow = core.parseFlow(yaml, { ...vars, secrets });
    if (batch?.web) flow = core.applyBatchWeb(flow, batch.web);
  } catch (e) {
    throw new Error(`${file}: ${e.message ?? e}`, { cause: e });
  }
  const folder = await checkUploads(flow, uploadDir).catch((e) => {
    throw new Error(`${file}: ${e.message}`);
  });
  let server = null;
  let url = flow.url;
  if (flow.serve) {
    // The index's own `serve` is relative to the index file, as its globs are.
    const root = await servedFolder(batch?.web?.serve ? batch.file : file, flow.serve).catch((e) => {
      throw new Error(`${file}: ${e.message}`);
    });
    server = await startStaticServer({ root });
    url = new URL(flow.url ?? '/', server.url('/')).href;
  }
  try {
    if (!url) throw new Error('web.url is missing: say which page the flow starts on');
    // The extension's own check (http and https only), before a browser starts.
    core.checkOpen(url, []);
  } catch (e) {
    await server?.close();
    throw new Error(`${file}: ${e.message ?? e}`, { cause: e });
  }
  return { yaml, flow, url, vars, uploadDir: folder, close: async () => server?.close() };
}

/** True when `p` is `root` or lies inside it (both absolute, resolved). */
const within = (root, p) => {
  const rel = path.relative(root, p);
  return rel !== '..' && !rel.startsWith(`..${path.sep}`) && !path.isAbsolute(rel);
};

/**
 * The folder a flow's `web.serve` names, checked on this machine: the core refused absolute
 * paths and `..` when it read the file; here symlinks are resolved, and a folder whose real
 * path leaves the flow file's own folder is refused. Resolves to the folder's real path.
 */
export async function servedFolder(file, serve) {
  const base = await realpath(path.dirname(path.resolve(file)));
  const asked = path.resolve(base, serve);
  const real = await realpath(asked).catch(() => null);
  if (!real || !(await stat(real)).isDirectory()) throw new Error(`web.serve ${serve}: no such folder next to the flow file (${asked})`);
  if (!within(base, real)) {
    throw new Error(`refused before the run: web.serve ${serve} leads to ${real} (symlinks resolved), outside the flow file's folder ${base}: a flow serves only its own folder and the folders in it`);
  }
  return real;
}

/** The paths a flow's steps upload (`aiTap` with `fileChooserAccept`). */
export function uploadPaths(flow) {
  return flow.tasks.flatMap((t) => t.steps).filter((s) => s.kind === 'task' && s.task.type === 'aiUpload').flatMap((s) => s.task.files);
}

/**
 * The flow's upload paths checked against the upload folder before anything runs: each must
 * lie inside it as written and once symlinks and `..` are resolved. Resolves to the folder
 * (absolute; the core checks each path against it again, by its text); throws naming the
 * paths that do not.
 */
export async function checkUploads(flow, uploadDir) {
  const paths = uploadPaths(flow);
  if (!uploadDir) {
    if (paths.length) throw new Error(`the flow uploads ${paths.join(', ')}: give the folder they lie in with --upload-dir DIR (nothing outside it is uploaded)`);
    return undefined;
  }
  const dir = path.resolve(uploadDir);
  const realDir = await realpath(dir).catch(() => null);
  if (!realDir || !(await stat(realDir)).isDirectory()) throw new Error(`--upload-dir ${uploadDir}: no such folder`);
  const outside = [];
  const missing = [];
  for (const p of paths) {
    const real = path.isAbsolute(p) ? await realpath(p).catch(() => null) : null;
    if (path.isAbsolute(p) && !real && core.insideFolder(p, dir)) missing.push(p);
    else if (!core.insideFolder(p, dir) || !real || real === realDir || !within(realDir, real)) outside.push(p);
  }
  if (outside.length) throw new Error(`refused before the run: ${outside.join(', ')} ${outside.length > 1 ? 'lie' : 'lies'} outside the upload folder ${dir} (symlinks and .. resolved)`);
  if (missing.length) throw new Error(`cannot upload ${missing.join(', ')}: no such file`);
  return dir;
}

const seconds = (ms) => `${(ms / 1000).toFixed(1)} s`;

/** How an item found its element: the file's XPath, the cache, or the model. */
function how(run, item) {
  const steps = run.steps.slice(item.firstStep, item.firstStep + item.steps);
  const calls = steps.filter((s) => s.usage || s.exchange || s.reply).length;
  if (calls) return `${calls} model call${calls > 1 ? 's' : ''}`;
  // foundBy: the core's word for it; runs kept before it said so had cached and the XPath note.
  if (steps.some((s) => s.foundBy === 'xpath' || (s.cached && s.note?.includes('XPath')))) return 'by XPath';
  if (steps.some((s) => s.cached)) return 'from the cache';
  return '';
}

/** One line per item: ✓/✗, position, title, time, how it found its element, its answer or error. */
export function itemLine(run, item, index, total) {
  const mark = { succeeded: '✓', unconfirmed: '?', failed: '✗', stopped: '■', running: '…' }[item.status] ?? '?';
  const extra = [seconds(item.durationMs), how(run, item)].filter(Boolean).join(', ');
  let line = `  ${mark} [${index + 1}/${total}] ${item.title} (${extra})`;
  if (item.error) line += `\n      ${item.error.message}`;
  else if (item.result !== undefined && item.result !== null) line += `\n      → ${JSON.stringify(item.result)}`;
  return line;
}

/**
 * Runs the flow on a new tab of `browser` (from launchWithExtension) at `url`, printing items
 * as they end through `log`. `model`: settings for this run only (not stored); `planner`: a
 * planning model for this run (modelsFromEnv), else the extension's saved one; `live`: find
 * every element by its description; `uploadDir`: the folder uploads may come from; `dialogs`:
 * how the page's dialogs are answered (else as the flow says; nobody is there to ask); `page`:
 * a page to use instead of a new one. Resolves to { run, page, tabId }.
 */
export async function runFlowIn(browser, { yaml, flow, url, vars, model, planner, live = false, uploadDir, dialogs, log = console.log, page: given }) {
  const secrets = secretsFromEnv(); // a secret without its sites: refused before the page opens
  const page = given ?? (await browser.context.newPage());
  if (page.url() !== url) await page.goto(url);
  const tabId = await browser.tabIdOf(page);
  const total = flow.tasks.reduce((n, t) => n + t.steps.length, 0);
  // What the file asks that is not honoured, each with its line: said before anything runs.
  for (const note of flow.warnings ?? []) log(`  ! ${note}`);
  // The person's own file on their own machine: its javascript steps run (the panel asks first).
  const opts = {
    interactive: false, allowScripts: true, ...(model ? { model } : {}), ...(planner ? { planner } : {}), ...(live ? { flowXpaths: false, useCache: false } : {}), ...(secrets.length ? { secrets } : {}),
    ...(uploadDir ? { uploadDir } : {}), ...(dialogs ? { dialogs } : {}), ...(vars ? { vars } : {}),
  };
  const finished = browser.sw.evaluate(({ tabId, yaml, opts }) => self.sightline.runFlow(tabId, yaml, opts), { tabId, yaml, opts });
  // Progress: the run as the worker keeps it, polled while the flow runs.
  let printed = 0;
  const printNew = (run) => {
    const items = run?.flow?.items ?? [];
    for (; printed < items.length && items[printed].status !== 'running'; printed++) log(itemLine(run, items[printed], printed, total));
  };
  let done = false;
  const poll = (async () => {
    while (!done) {
      await new Promise((r) => setTimeout(r, 300));
      const run = await browser.sw.evaluate((tab) => self.sightline.runs().then((all) => all.find((r) => r.tabId === tab && r.flow)), tabId).catch(() => null);
      if (!done) printNew(run);
    }
  })();
  try {
    const run = await finished;
    done = true;
    await poll;
    printNew(run);
    return { run, page, tabId };
  } finally {
    done = true;
  }
}

/**
 * Where a flow's `output:` (its named results as JSON) is written: the path the core checked
 * (relative, no `..`, a .json file), resolved against the flow file's folder, its folders made;
 * refused when a symlink on the way leads out of that folder, or the file itself is a symlink.
 */
export async function outputFile(file, output) {
  const base = await realpath(path.dirname(path.resolve(file)));
  const target = path.resolve(base, output);
  if (!within(base, target)) throw new Error(`refused: output ${output} lies outside the flow file's folder ${base}`);
  await mkdir(path.dirname(target), { recursive: true });
  const folder = await realpath(path.dirname(target));
  if (!within(base, folder)) {
    throw new Error(`refused: output ${output} leads to ${folder} (symlinks resolved), outside the flow file's folder ${base}`);
  }
  const existing = await lstat(target).catch(() => null);
  if (existing?.isSymbolicLink() || (existing && !existing.isFile())) throw new Error(`refused: output ${output} is not a plain file (${target})`);
  return target;
}

/**
 * Writes the run's named results (aiQuery, aiBoolean, …, javascript with `name:`) as JSON to
 * the flow's `output:`, as Midscene's runner does, also when the flow failed. Resolves to the
 * path written, or null when the flow names none.
 */
export async function writeOutput(file, flow, run) {
  if (!flow.output) return null;
  const target = await outputFile(file, flow.output);
  await writeFile(target, `${JSON.stringify(run.result ?? {}, null, 2)}\n`);
  return target;
}

/**
 * The report's file name for a flow run: `agent: reportFileName` (a name the core checked: no
 * folder), else the flow file's name; `.html` added where it has none.
 */
export function reportFileName(file, flow) {
  const name = flow.report?.fileName ?? `${path.basename(file).replace(/\.ya?ml$/i, '')}.report`;
  return /\.html?$/i.test(name) ? name : `${name}.html`;
}

/** The closing line of a run and the exit code it means. */
export function summary(run) {
  const items = run.flow?.items ?? [];
  const ok = items.filter((i) => i.status === 'succeeded').length;
  const took = seconds((run.endedMs ?? run.startedMs) - run.startedMs);
  const calls = `${run.modelCalls} model call${run.modelCalls === 1 ? '' : 's'}`;
  if (run.status === 'succeeded') return { text: `passed: ${ok} of ${items.length} steps in ${took}, ${calls}`, code: 0 };
  // Done but not confirmed: the model said done and the page did not show it; a script must not pass on that.
  if (run.status === 'unconfirmed') {
    return { text: `done, not confirmed: ${run.check?.reason ?? 'the page did not show the goal'} (${ok} of ${items.length} steps confirmed, ${calls})`, code: 1 };
  }
  return { text: `${run.status}: ${run.error?.message ?? 'the flow did not finish'} (${ok} of ${items.length} steps passed, ${calls})`, code: 1 };
}
