// Side panel: pick the target tab, send instructions, render runs as the worker reports them.
import { language, loadLanguage, t, translate } from '../shared/i18n.js';
import { personsTab } from '../shared/persons-tab.js';

const $ = (id) => document.getElementById(id);
const params = new URLSearchParams(location.search);
const pinnedTab = params.has('tab') ? Number(params.get('tab')) : null; // tests and tools open the panel as a tab

let targetTabId = null;
let targetUrl = '';
let shownRunId = null;
let runs = [];
let found = null; // the history search's {query, ids: Set} (the core decided which runs); null with no query
let searching = 0; // the latest search's number: an older answer arriving late is dropped
let liveText = { runId: null, steps: 0, text: '' }; // the model's answer while it streams
let checkPicking = null; // a check being added: {runId, steps} of its recording when asked

function send(type, payload = {}) {
  return chrome.runtime.sendMessage({ type: `sightline/${type}`, ...payload }).then((reply) => {
    if (reply?.error) throw Object.assign(new Error(reply.error), { code: reply.code, advice: reply.advice });
    return reply;
  }, (cause) => {
    // No worker to answer (it failed to start, stopped before it replied, or this panel outlived
    // an update of the extension): said in our words, not Chrome's ("Could not establish connection…").
    throw Object.assign(new Error(t('workerNoAnswer')), { code: 'worker_no_answer', cause });
  });
}

/** The pinned tab, else the active tab of this window, else the most recent normal tab. */
async function resolveTarget() {
  if (pinnedTab != null) return pinnedTab;
  return (await personsTab())?.id ?? null;
}

async function refreshTarget() {
  targetTabId = await resolveTarget();
  const notice = [];
  if (targetTabId == null) {
    $('target-title').textContent = t('noTab');
    notice.push(escape(t('noTabHelp')));
  } else {
    const { tab, restricted, startPage } = await send('target', { tabId: targetTabId });
    if (tab.url !== targetUrl) {
      targetUrl = tab.url;
      renderHistory();
    }
    $('target-title').textContent = tab.title || tab.url;
    $('target-title').title = tab.url;
    if (restricted) notice.push(escape(t('restricted', t(`restricted_${restricted.code}`))));
    if (startPage) notice.push(escape(t('startPage')));
  }
  const { settings } = await send('settings');
  if (!settings.model.baseUrl || !settings.model.model) {
    notice.push(`${escape(t('noModel'))} <a href="#" id="notice-settings">${escape(t('noModelLink'))}</a>`);
  }
  showTabState(notice);
  updateButtons();
}

/**
 * The notice holds two things: what the target tab's state means (no tab, restricted page, start
 * page, no model), which `refreshTarget` rewrites whenever the tab changes, and the failure of the
 * person's last action, which stays until they dismiss it or start the next action.
 */
let tabStateHtml = null; // what showTabState last wrote (innerHTML reads back re-serialised)
function showTabState(lines) {
  const el = $('notice-state');
  const html = lines.map((l) => `<div>${l}</div>`).join(''); // each line escaped by its maker
  // Rewritten only when it says something else: a rewrite is announced again by the status
  // region and takes keyboard focus off the settings link.
  if (html !== tabStateHtml) {
    tabStateHtml = html;
    el.innerHTML = html;
    el.querySelector('#notice-settings')?.addEventListener('click', (e) => {
      e.preventDefault();
      showSettings(true);
    });
  }
  el.hidden = lines.length === 0;
  showNoticeBox();
}

/**
 * Shows a failure, or clears the shown one (null). Each action the person starts in the panel (a
 * run, run again, replay, a flow, recording, stop, answering, loading, saving or exporting a run,
 * Allow agents) clears it first: the notice speaks of the last action. A failure is what it is,
 * not its words: `key` and `args` name our message in _locales, `err` the error behind it (its
 * message as it came, its code for the advice), or `because` our message saying why in its
 * place, so a change of language rewords it.
 */
let failure = null; // {key, args?: [], err?: Error, because?: key}
function showFailure(shown) {
  failure = shown;
  renderFailure();
}

let failureHtml = ''; // what renderFailure last wrote: the alert region is rewritten only when it says something else
function renderFailure() {
  let html = '';
  if (failure) {
    const say = t(failure.key, ...(failure.args ?? []));
    if (failure.err) html = escape(`${say}: ${failure.err.message}${advice(failure.err)}`);
    else html = escape(failure.because ? `${say}: ${t(failure.because)}` : say);
  }
  if (html !== failureHtml) {
    failureHtml = html;
    $('notice-failure-text').innerHTML = html;
  }
  $('notice-failure').hidden = !failure;
  showNoticeBox();
}

function showNoticeBox() {
  $('notice').hidden = $('notice-state').hidden && $('notice-failure').hidden;
}

$('notice-dismiss').addEventListener('click', () => {
  showFailure(null);
  $('instruction').focus(); // the button is gone: keep the keyboard in the panel
});

function escape(text) {
  return String(text).replace(/[&<>"]/g, (c) => `&#${c.charCodeAt(0)};`);
}

function currentRun() {
  return runs.find((r) => r.id === shownRunId) ?? null;
}

function updateButtons() {
  const running = currentRun()?.status === 'running';
  const recording = running && !!currentRun()?.recorded;
  $('record').textContent = t(recording ? 'recordStop' : 'recordStart');
  $('record').classList.toggle('recording', recording);
  $('record').disabled = (running && !recording) || targetTabId == null;
  $('run-button').disabled = running || targetTabId == null;
  $('stop').disabled = !running;
  $('replay').disabled = running || targetTabId == null;
  $('run-flow').disabled = running || targetTabId == null;
  $('save-run').disabled = running;
  $('export-menu').classList.toggle('disabled', running);
  if (running) $('export-menu').open = false;
}

function fmtCost(usd) {
  return `$${usd < 0.01 ? usd.toFixed(4) : usd.toFixed(2)}`;
}

// Screenshots come from the worker by reference, once each.
const images = new Map(); // ref → Promise<dataUrl | null>
function imageOf(ref) {
  if (!images.has(ref)) images.set(ref, send('images', { refs: [ref] }).then((r) => r.images[ref] ?? null, () => null));
  return images.get(ref);
}

/** The step's screenshot, small; a click shows it large. */
function thumbnail(step) {
  const button = el('button', 'shot');
  button.type = 'button';
  const what = t(step.kind === 'plan' ? 'shotPlan' : 'shotAfter');
  button.setAttribute('aria-label', t('shotOpen', what));
  const img = el('img');
  img.alt = '';
  button.append(img);
  imageOf(step.screenshot).then((url) => {
    if (url) img.src = url;
    else button.replaceWith(el('span', 'muted', t('shotGone')));
  });
  button.addEventListener('click', async () => {
    const url = await imageOf(step.screenshot);
    if (!url) return;
    $('shot-large').src = url;
    $('shot-large').alt = t('shotAlt', what);
    $('shot-caption').textContent = `${step.action || t('step')} — ${what}`;
    $('shot-dialog').showModal();
  });
  return button;
}

function fmtMs(ms) {
  return ms >= 1000 ? `${(ms / 1000).toFixed(1)} s` : `${Math.round(ms)} ms`;
}

function el(tag, cls, text) {
  const node = document.createElement(tag);
  if (cls) node.className = cls;
  if (text != null) node.textContent = text;
  return node;
}

/** A step's badge when no model found its element: [text, title] message keys by the core's `foundBy`. */
const FOUND_BADGES = { cache: ['cached', 'cachedTitle'], xpath: ['foundXpath', 'foundXpathTitle'], number: ['foundNumber', 'foundNumberTitle'] };

function renderRun() {
  const run = currentRun();
  $('run-card').hidden = !run;
  updateButtons();
  if (!run) return;
  $('run-status').textContent = t(`status_${run.status}`);
  $('run-status').className = `pill ${run.status}`;
  $('run-instruction').textContent = run.instruction;
  renderResult(run);
  const asking = renderQuestion(run);
  // The check after the model's "done": confirmed, or done but not confirmed (and why).
  $('run-check').hidden = !run.check;
  $('run-check').className = `check ${run.check?.confirmed ? 'checked' : 'unconfirmed'}`;
  $('run-check').textContent = run.check ? t(run.check.confirmed ? 'checkConfirmed' : 'checkUnconfirmed', run.check.reason) : '';
  const error = runError(run);
  $('run-error').hidden = !error;
  $('run-error').textContent = error ? `${error.message}${advice(error)}` : '';
  $('run-stopped').hidden = run.status !== 'stopped' || !!run.error;
  const output = run.flow?.flow?.output;
  $('download-output').hidden = !output || run.status === 'running';
  if (output) $('download-output').textContent = t('downloadOutput', output.split(/[\\/]/).pop());
  const warnings = run.flow?.flow?.warnings ?? [];
  $('flow-warnings').hidden = !warnings.length;
  $('flow-warning-list').replaceChildren(...warnings.map((w) => el('li', '', w)));
  const list = $('steps');
  list.replaceChildren(
    ...run.steps.map((step) => {
      const li = el('li', `step ${step.status}`);
      li.append(el('span', 'icon', step.status === 'ok' ? '✓' : '✗'), el('span', 'what', step.action));
      // A run with a planning model: which model made this call.
      if (step.role) li.querySelector('.what').append(' ', el('span', 'badge role', t(step.role === 'planner' ? 'rolePlanner' : 'roleActor')));
      // Found without the model: by the flow's XPath, an agent's element number, or the cache (an earlier run).
      const found = step.foundBy === 'xpath' || step.foundBy === 'number' ? step.foundBy : step.cached ? 'cache' : null;
      if (found) {
        const badge = el('span', `badge ${found === 'cache' ? 'cached' : `found-${found}`}`, t(FOUND_BADGES[found][0]));
        badge.title = t(FOUND_BADGES[found][1]);
        li.querySelector('.what').append(' ', badge);
      }
      const approx = step.usage?.estimated ? '≈' : '';
      const tokens = step.usage ? ` · ${t('stepTokens', `${approx}${step.usage.promptTokens + step.usage.completionTokens}`)}` : '';
      const cost = step.cost != null ? ` · ${approx}${fmtCost(step.cost)}` : '';
      // Recorded steps take no time of their own: no meta to show.
      const took = step.durationMs > 0 ? fmtMs(step.durationMs) : '';
      li.append(el('span', 'meta', `${took}${took ? tokens : tokens.replace(/^ · /, '')}${cost}`));
      if (step.thought) li.append(el('span', 'thought', step.thought));
      if (step.notes) li.append(el('span', 'memo', t('stepNotes', step.notes)));
      if (step.nextGoal) li.append(el('span', 'memo', t('stepNextGoal', step.nextGoal)));
      if (step.target) li.append(el('span', 'target-el', `→ ${step.target.summary}`));
      if (step.error) li.append(el('span', 'step-error', step.error));
      if (step.note) li.append(el('span', 'step-note', step.note));
      if (step.console?.length) li.append(consoleList(step.console, step.consoleDropped ?? 0));
      if (step.screenshot) li.append(thumbnail(step));
      return li;
    }),
  );
  const live = liveText.runId === run.id && liveText.steps === run.steps.length && run.status === 'running' ? liveText.text : '';
  $('live-text').hidden = !live;
  $('live-text').textContent = live;
  // While nothing streams, say that work goes on (reading the page, waiting for the model).
  $('working').hidden = run.status !== 'running' || !!live || asking || !!run.recorded;
  $('recording-hint').hidden = !(run.status === 'running' && run.recorded);
  $('record-checks').hidden = $('recording-hint').hidden;
  // Picking ends with the check's step (or the recording's end).
  if (checkPicking && (checkPicking.runId !== run.id || run.steps.length > checkPicking.steps || run.status !== 'running')) checkPicking = null;
  $('record-check-picking').hidden = !checkPicking;
  const took = run.endedMs ? ` · ${fmtMs(run.endedMs - run.startedMs)}` : '';
  const tok = run.usage.promptTokens + run.usage.completionTokens;
  const approx = run.usage.estimated ? '≈' : '';
  const cost = run.cost != null ? ` · ${approx}${fmtCost(run.cost)}` : '';
  $('run-totals').textContent = `${t('totals', run.modelCalls, `${approx}${tok}`)}${cost}${took}`;
  // Each model's share beside the total, priced by its own name (runs with a planning model).
  $('run-models').replaceChildren(...(run.models ?? []).map((m) => {
    const mine = m.usage.estimated ? '≈' : '';
    const price = m.cost != null ? ` · ${mine}${fmtCost(m.cost)}` : '';
    const role = t(m.role === 'planner' ? 'rolePlanner' : 'roleActor');
    return el('li', `model-share ${m.role}`, `${t('modelShare', role, m.model, m.calls, `${mine}${m.usage.promptTokens + m.usage.completionTokens}`)}${price}`);
  }));
}

/** What the page reported during a step (console errors and warnings, failed requests), folded. */
function consoleList(entries, dropped) {
  const details = el('details', 'step-console');
  details.append(el('summary', '', t('stepConsole', String(entries.length))));
  const list = el('ul', '');
  for (const e of entries) list.append(el('li', e.level === 'error' ? 'step-error' : 'step-note', `[${e.level}] ${e.text}${e.url ? ` (${e.url})` : ''}`));
  if (dropped) list.append(el('li', 'step-note', t('stepConsoleDropped', String(dropped))));
  details.append(list);
  return details;
}

let shownQuestion = ''; // the question on the form (run, question, language), so a re-render keeps what is typed

/**
 * The question the run waits on, shown by kind: the model's (a text answer), the page's
 * dialog (OK / Cancel, and a prompt's text), or files a file wants uploaded (Allow / Refuse).
 * Returns whether one is shown.
 */
function renderQuestion(run) {
  const raw = run.status === 'running' ? run.question : null;
  // Runs saved before questions had kinds kept the model's question as a string.
  const q = typeof raw === 'string' ? { kind: 'text', text: raw } : raw;
  $('question-form').hidden = !q;
  const key = q ? JSON.stringify([run.id, q, language()]) : '';
  if (key === shownQuestion) return !!q;
  shownQuestion = key;
  if (!q) return false;
  const dialog = q.kind === 'pageDialog' ? q.dialog : null;
  const typing = q.kind === 'text' || dialog?.type === 'prompt';
  const leaving = dialog?.type === 'beforeunload';
  $('question-text').textContent =
    q.kind === 'text' ? t('modelAsks', q.text)
      : q.kind === 'upload' ? t('uploadAsks')
        : dialog.message ? t(`pageDialog_${dialog.type}`, dialog.message) : t(`pageDialogBare_${dialog.type}`);
  $('question-paths').hidden = q.kind !== 'upload';
  $('question-paths').replaceChildren(...(q.kind === 'upload' ? q.paths.map((p) => el('li', null, p)) : []));
  $('question-reply').hidden = !typing;
  $('answer').value = dialog?.defaultPrompt ?? '';
  $('answer-send').hidden = q.kind !== 'text';
  $('question-choice').hidden = q.kind === 'text';
  $('question-yes').textContent = t(q.kind === 'upload' ? 'uploadAllow' : leaving ? 'dialogLeave' : 'dialogOk');
  $('question-no').textContent = t(q.kind === 'upload' ? 'uploadRefuse' : leaving ? 'dialogStay' : 'dialogCancel');
  (typing ? $('answer') : $('question-no')).focus();
  return true;
}

let answering = false; // an answer on its way to the worker

/** Sends the answer to the question the shown run waits on. */
async function answerQuestion(yes) {
  const run = currentRun();
  const q = run?.question;
  if (!q) return;
  const kind = typeof q === 'string' ? 'text' : q.kind;
  let answer;
  if (kind === 'text') {
    const text = $('answer').value.trim();
    if (!text) return;
    answer = { kind: 'text', text };
  } else if (kind === 'upload') {
    answer = { kind: 'upload', allow: yes };
  } else {
    answer = { kind: 'dialog', accept: yes, ...(yes && q.dialog.type === 'prompt' ? { text: $('answer').value } : {}) };
  }
  // The form stays until the worker takes the answer: refused or failed, it is there to try again.
  if (answering) return; // one answer on its way: a second click would be refused
  answering = true;
  showFailure(null);
  try {
    const asked = shownQuestion;
    const { answered } = await send('answer', { runId: run.id, answer });
    if (!answered) showFailure({ key: 'answerRefused' });
    else if (shownQuestion === asked) $('question-form').hidden = true; // unless the run asks again already
  } finally {
    answering = false;
  }
}

/** The run's error as `{code, message}`; runs saved before errors had codes kept the message alone. */
function runError(run) {
  if (!run.error) return null;
  return typeof run.error === 'string' ? { code: 'uncoded', message: run.error } : run.error;
}

/**
 * What to do next, after an error's message: the core's advice, which came with the error — a
 * run's record in the run's language, as its message is; a failed request's reply in each
 * language, so a notice is worded again when the language changes. Where the core itself could
 * not load, it cannot advise: the panel says how to get it back.
 */
function advice(error) {
  if (error?.code === 'module_load') return ` \u2014 ${t('advice_module_load')}`;
  const said = typeof error?.advice === 'string' ? error.advice : error?.advice?.[language()];
  return said ? ` \u2014 ${said}` : '';
}

/** The kinds of AI task by type, with their fields: the core's schema (`taskSchema`). */
const taskKinds = new Map();
const GROUP_LABELS = { act: 'groupOneAction', read: 'groupRead', check: 'groupCheck' };
// Fields the person writes in a box (the rest are the mode, direction and edge controls).
const WRITTEN = new Set(['description', 'text', 'key', 'paths', 'data']);

/** Lists the task kinds in the task menu, by group, after the instruction (translatePanel names them). */
async function loadTaskKinds() {
  const { schema } = await send('taskSchema');
  const menu = $('task-type');
  const groups = new Map();
  for (const kind of schema) {
    taskKinds.set(kind.type, kind);
    if (!groups.has(kind.group)) {
      const group = document.createElement('optgroup');
      group.dataset.i18nAttr = `label:${GROUP_LABELS[kind.group]}`;
      groups.set(kind.group, menu.appendChild(group));
    }
    const option = document.createElement('option');
    option.value = kind.type;
    option.dataset.i18n = `task_${kind.type}`;
    groups.get(kind.group).append(option);
  }
}

/**
 * What a task asks of the form: the main box fills its first written field, the second box
 * the next one, if any. Their prompts are the messages `hint_<type>` and `hintValue_<type>`.
 * `optional`: the task works with an empty main box (a page scroll).
 */
function taskForm(type) {
  const kind = taskKinds.get(type);
  if (!kind) return { field: 'instruction' };
  const [main, second] = kind.fields.filter((f) => WRITTEN.has(f.kind));
  const has = (name) => kind.fields.some((f) => f.name === name);
  return {
    field: main.name,
    optional: !main.required,
    value: second?.name,
    typed: second?.kind === 'text',
    list: second?.kind === 'paths',
    mode: has('mode'),
    direction: has('direction'),
    edge: has('scrollType'),
  };
}

function updateTaskForm() {
  const type = $('task-type').value;
  const form = taskForm(type);
  $('instruction').placeholder = t(`hint_${type || 'plan'}`);
  $('instruction').required = !form.optional;
  $('task-value').hidden = !form.value;
  $('task-value').placeholder = form.value ? t(`hintValue_${type}`) : '';
  $('task-mode').hidden = !form.mode;
  $('task-direction').hidden = !form.direction;
  $('task-edge-label').hidden = !form.edge;
}

/** The form as a request: an instruction string, or a task object. */
function formRequest() {
  const type = $('task-type').value;
  const text = $('instruction').value.trim();
  if (!type) return { instruction: text };
  const form = taskForm(type);
  const task = { type };
  if (text) task[form.field] = text;
  const value = $('task-value').value;
  // Typed text is sent as written; element descriptions and paths are trimmed.
  if (form.value && value.trim()) task[form.value] = form.typed ? value : value.trim();
  if (form.list) task[form.value] = value.split(';').map((p) => p.trim()).filter(Boolean);
  if (form.mode) task.mode = $('task-mode').value;
  if (form.direction) task.direction = $('task-direction').value;
  if (form.edge) task.scrollType = $('task-edge').checked ? 'untilEdge' : 'once';
  return { task };
}

function renderResult(run) {
  const has = run.result !== undefined && run.result !== null;
  $('run-result').hidden = !has;
  $('run-result').textContent = !has ? '' : typeof run.result === 'string' ? run.result : JSON.stringify(run.result, null, 2);
}

function siteOf(url) {
  try {
    const u = new URL(url);
    return /^https?:$/.test(u.protocol) ? u.host : u.protocol === 'file:' ? t('localFiles') : '';
  } catch {
    return '';
  }
}

/** Runs on the target tab's site (or all), newest first; each can be opened or run again. */
function renderHistory() {
  const list = $('history');
  const site = siteOf(targetUrl);
  const all = $('history-all').checked || !site;
  const shown = runs.filter((r) => (all || siteOf(r.url) === site) && (!found || found.ids.has(r.id))).slice(0, 20);
  $('history-title').textContent = all ? t('historyAll') : t('historySite', site);
  $('history-empty').textContent = found ? t('historyNoMatch', found.query) : all ? t('historyEmptyAll') : t('historyEmptySite', site);
  $('history-empty').hidden = shown.length > 0;
  list.replaceChildren(
    ...shown.map((run) => {
      const li = el('li');
      const pill = el('span', `pill ${run.status}`, t(`status_${run.status}`));
      const open = el('button', 'open-run', run.instruction);
      open.type = 'button';
      open.title = `${t('openRunTitle')}\n${run.url ?? ''}`;
      open.addEventListener('click', () => {
        shownRunId = run.id;
        renderRun();
      });
      const again = el('button', 'ghost again', '↻');
      again.type = 'button';
      again.title = t('againTitle');
      again.setAttribute('aria-label', t('againLabel', run.instruction));
      again.addEventListener('click', () => rerun(run));
      const remove = el('button', 'ghost delete', '🗑');
      remove.type = 'button';
      remove.disabled = run.status === 'running';
      remove.title = t(remove.disabled ? 'deleteRunRunning' : 'deleteRunTitle');
      remove.setAttribute('aria-label', t('deleteRunLabel', run.instruction));
      remove.addEventListener('click', () => removeRun(run));
      li.append(pill, open, el('span', 'when', new Date(run.startedMs).toLocaleTimeString(language().replace('_', '-'))), again, remove);
      return li;
    }),
  );
}

/** Why a delete failed, by its code: the _locales message saying so (any other code: `delete_failed`'s). */
const DELETE_FAILURES = new Map([
  ['delete_failed', 'error_delete_failed'],
  ['run_still_running', 'error_run_still_running'],
  ['worker_no_answer', 'workerNoAnswer'],
]);

/** Deletes a kept run through the worker's store; the worker tells every panel it is gone. */
async function removeRun(run) {
  showFailure(null);
  try {
    const { deleted } = await send('deleteRun', { runId: run.id });
    if (deleted !== false) dropRun(run.id);
  } catch (err) {
    showFailure({ key: 'couldNotDelete', because: DELETE_FAILURES.get(err?.code) ?? DELETE_FAILURES.get('delete_failed') });
  }
}

/** A deleted run leaves this panel's list (and the run card when it was shown). */
function dropRun(runId) {
  runs = runs.filter((r) => r.id !== runId);
  if (found) found.ids.delete(runId);
  if (shownRunId === runId) shownRunId = null;
  renderRun();
  renderHistory();
}

// The history search: the worker's core decides which runs a query finds.
async function searchHistory() {
  const query = $('history-search').value.trim();
  const mine = ++searching;
  if (!query) {
    found = null;
    renderHistory();
    return;
  }
  try {
    const { ids } = await send('searchRuns', { query });
    if (mine !== searching) return;
    found = { query, ids: new Set(ids) };
    renderHistory();
  } catch (err) {
    if (mine === searching) failed('couldNotSearch', err);
  }
}
let searchTimer = null;
$('history-search').addEventListener('input', () => {
  clearTimeout(searchTimer);
  searchTimer = setTimeout(() => searchHistory(), 150);
});

/** The same request as an earlier run (its instruction, or its task) on the target tab. */
async function rerun(run) {
  if (targetTabId == null || currentRun()?.status === 'running') return;
  showFailure(null);
  try {
    // An earlier run's upload paths are a record's (perhaps a loaded file's): they need an Allow.
    const request = run.task ? { task: run.task, fromRun: true } : { instruction: run.instruction };
    const { runId } = await send('run', { tabId: targetTabId, dialogs: $('dialog-answer').value, ...request });
    showStarted(runId, run.instruction);
  } catch (err) {
    failed('couldNotStart', err);
  }
}

function upsert(run) {
  runs = [run, ...runs.filter((r) => r.id !== run.id)].sort((a, b) => b.startedMs - a.startedMs);
}

$('prompt-form').addEventListener('submit', async (e) => {
  e.preventDefault();
  const request = formRequest();
  const instruction = request.instruction ?? request.task.type;
  if ((request.instruction === '' || targetTabId == null)) return;
  $('run-button').disabled = true;
  showFailure(null);
  try {
    // The person's background for this run (Midscene's aiActionContext), fenced in the prompt.
    const context = $('run-context').value.trim() || undefined;
    const { runId } = await send('run', { tabId: targetTabId, dialogs: $('dialog-answer').value, context, ...request });
    showStarted(runId, instruction);
  } catch (err) {
    failed('couldNotStart', err);
  }
});

// Enter in the field answers: the model's question with the text, a page's prompt with OK.
$('question-form').addEventListener('submit', (e) => {
  e.preventDefault();
  answerQuestion(true).catch((err) => failed('couldNotAnswer', err));
});
$('question-yes').addEventListener('click', () => answerQuestion(true).catch((err) => failed('couldNotAnswer', err)));
$('question-no').addEventListener('click', () => answerQuestion(false).catch((err) => failed('couldNotAnswer', err)));

$('task-type').addEventListener('change', updateTaskForm);
$('history-all').addEventListener('change', renderHistory);

$('instruction').addEventListener('keydown', (e) => {
  if (e.key === 'Enter' && (e.ctrlKey || e.metaKey)) $('prompt-form').requestSubmit();
});
/** Why a Stop failed, by the code it failed with: the _locales message saying so (any other code: `stop_failed`'s). */
const STOP_FAILURES = new Map([
  ['stop_failed', 'error_stop_failed'], // the worker failed, or answered an error of no code we know
  ['stop_reply_unreadable', 'error_stop_reply_unreadable'],
  ['worker_no_answer', 'workerNoAnswer'],
]);
$('stop').addEventListener('click', async () => {
  const run = currentRun();
  if (!run) return;
  showFailure(null);
  if (run.recorded) {
    try {
      await send('stopRecording', { tabId: run.tabId });
    } catch (err) {
      failed('couldNotRecord', err);
    }
    return;
  }
  // `stopped: false`: the worker has no such run going (it has just ended). An agent session's run stops too.
  try {
    const reply = await send('stop', { runId: run.id });
    if (typeof reply?.stopped !== 'boolean') throw Object.assign(new Error('an unreadable answer to stop'), { code: 'stop_reply_unreadable' });
    if (!reply.stopped) showFailure({ key: 'stopRefused' });
  } catch (err) {
    // Said by its code in our words, never an error's own text (a worker's JS error, one of reading its answer).
    showFailure({ key: 'couldNotStop', because: STOP_FAILURES.get(err?.code) ?? STOP_FAILURES.get('stop_failed') });
    updateButtons();
  }
});

/** "Record my steps": the person's own clicks and typing on the page become a run. */
$('record').addEventListener('click', async () => {
  const run = currentRun();
  showFailure(null);
  try {
    if (run?.recorded && run.status === 'running') {
      await send('stopRecording', { tabId: run.tabId });
      return;
    }
    if (targetTabId == null) return;
    const title = t('recordedTitle', $('target-title').textContent);
    const { runId } = await send('startRecording', { tabId: targetTabId, title });
    showStarted(runId, title);
    const shown = currentRun();
    if (shown && shown.id === runId) shown.recorded = true;
    updateButtons();
  } catch (err) {
    failed('couldNotRecord', err);
  }
});

for (const button of document.querySelectorAll('#record-checks [data-check]')) {
  button.addEventListener('click', async () => {
    const run = currentRun();
    if (!run?.recorded || run.status !== 'running') return;
    showFailure(null);
    try {
      const { picking } = await send('recordCheck', { tabId: run.tabId, check: button.dataset.check });
      checkPicking = picking ? { runId: run.id, steps: run.steps.length } : null;
      $('record-check-picking').hidden = !checkPicking;
    } catch (err) {
      failed('couldNotCheck', err);
    }
  });
}

/** Starts a run and shows it at once (the worker's reports fill it in). */
function showStarted(runId, instruction) {
  shownRunId = runId;
  if (!currentRun()) {
    upsert({ id: runId, instruction, url: targetUrl, tabId: targetTabId, status: 'running', steps: [], startedMs: Date.now(), modelCalls: 0, usage: { promptTokens: 0, completionTokens: 0 } });
  }
  renderRun();
  renderHistory();
}

/**
 * Shows `err` as the failure of what the message `key` says (filled with `args`, worded again on a
 * change of language), with the core's advice that came with it.
 */
function failed(key, err, { args = [] } = {}) {
  showFailure({ key, args, err });
  updateButtons();
}

$('replay').addEventListener('click', async () => {
  const run = currentRun();
  if (!run || targetTabId == null) return;
  $('replay').disabled = true;
  showFailure(null);
  try {
    const { runId } = await send('replay', { tabId: targetTabId, runId: run.id, dialogs: $('dialog-answer').value });
    showStarted(runId, run.instruction);
  } catch (err) {
    failed('couldNotReplay', err);
  }
});

$('save-run').addEventListener('click', async () => {
  const run = currentRun();
  if (!run) return;
  showFailure(null);
  try {
    const { json } = await send('saveTrajectory', { runId: run.id });
    download(json, `sightline-run-${new Date(run.startedMs).toISOString().slice(0, 19).replace(/[:T]/g, '-')}.json`, 'application/json');
  } catch (err) {
    failed('couldNotSave', err);
  }
});

/** Downloads text (or a data: URL's content) as a file. */
function download(text, filename, mime) {
  const link = el('a');
  link.href = text.startsWith('data:') ? text : URL.createObjectURL(new Blob([text], { type: mime }));
  link.download = filename;
  link.click();
  setTimeout(() => URL.revokeObjectURL(link.href), 10_000);
}

for (const item of document.querySelectorAll('#export-menu [data-format]')) {
  item.addEventListener('click', async () => {
    const run = currentRun();
    $('export-menu').open = false;
    if (!run) return;
    showFailure(null);
    try {
      const { text, filename, mime } = await send('exportRun', { runId: run.id, format: item.dataset.format });
      download(text, filename, mime);
    } catch (err) {
      failed('couldNotExport', err);
    }
  });
}

$('load-run').addEventListener('click', () => $('load-run-file').click());
$('load-run-file').addEventListener('change', async () => {
  const file = $('load-run-file').files[0];
  $('load-run-file').value = '';
  if (!file) return;
  showFailure(null);
  try {
    const { run } = await send('loadTrajectory', { json: await file.text() });
    upsert(run);
    shownRunId = run.id;
    renderRun();
    renderHistory();
  } catch (err) {
    failed('couldNotLoad', err, { args: [file.name] });
  }
});
$('run-flow').addEventListener('click', () => $('run-flow-file').click());
/** A flow file waiting on the person's Allow for its javascript steps: `{name, yaml, hash}`. */
let awaitingConsent = null;
/**
 * Runs a flow file's text on the target tab. One with javascript steps the worker has not
 * been allowed to run for this file answers `{consent}`: its code is shown (as text) with
 * Allow / Cancel, and nothing runs until Allow.
 */
async function runFlowFile(name, yaml) {
  showFailure(null);
  try {
    const reply = await send('runFlow', { tabId: targetTabId, yaml, dialogs: $('dialog-answer').value });
    if (reply.consent) return showConsent(name, yaml, reply.consent);
    showStarted(reply.runId, name);
  } catch (err) {
    failed('couldNotRunFlow', err, { args: [name] });
  }
}
function showConsent(name, yaml, consent) {
  awaitingConsent = { name, yaml, hash: consent.hash };
  $('script-consent-title').textContent = t('scriptConsentTitle', name);
  $('script-consent-warning').textContent = consent.warning?.[language()] ?? consent.warning?.en ?? '';
  $('script-consent-list').replaceChildren(...consent.scripts.map((s) => {
    const li = el('li', 'script');
    li.append(el('span', 'muted', t('scriptConsentStep', s.task, String(s.step))));
    if (s.name) li.append(' · ', el('span', 'muted', t('scriptConsentNamed', s.name)));
    li.append(el('pre', 'script-code', s.code)); // textContent: the file's code is never markup
    return li;
  }));
  $('script-consent').hidden = false;
  $('script-consent-allow').focus();
}
function hideConsent() {
  awaitingConsent = null;
  $('script-consent').hidden = true;
  $('script-consent-list').replaceChildren();
}
$('script-consent-allow').addEventListener('click', async () => {
  const waiting = awaitingConsent;
  hideConsent();
  if (!waiting || targetTabId == null) return;
  try {
    await send('allowFlowScripts', { hash: waiting.hash });
  } catch (err) {
    return failed('couldNotRunFlow', err, { args: [waiting.name] });
  }
  await runFlowFile(waiting.name, waiting.yaml);
});
$('script-consent-cancel').addEventListener('click', hideConsent);
$('run-flow-file').addEventListener('change', async () => {
  const file = $('run-flow-file').files[0];
  $('run-flow-file').value = '';
  if (!file || targetTabId == null) return;
  hideConsent();
  await runFlowFile(file.name, await file.text());
});
$('download-output').addEventListener('click', () => {
  const run = currentRun();
  const output = run?.flow?.flow?.output;
  if (!output) return;
  // The file's path is a name for the download only: the browser asks where it goes.
  const blob = new Blob([`${JSON.stringify(run.result ?? {}, null, 2)}\n`], { type: 'application/json' });
  const a = document.createElement('a');
  a.href = URL.createObjectURL(blob);
  a.download = output.split(/[\\/]/).pop();
  a.click();
  setTimeout(() => URL.revokeObjectURL(a.href), 10_000);
});
/** Settings open in the panel, in place of the work view; the same button goes back. */
function showSettings(open) {
  // The pinned tab goes along: a new secret's sites start as the site of the person's tab.
  if (open && !$('settings-frame').src) $('settings-frame').src = `../options/options.html?embedded=1${pinnedTab != null ? `&tab=${pinnedTab}` : ''}`;
  $('settings-view').hidden = !open;
  $('work-view').hidden = open;
  $('open-settings').textContent = t(open ? 'panelBack' : 'panelSettings');
  $('open-settings').setAttribute('aria-expanded', String(open));
}
$('open-settings').addEventListener('click', () => showSettings($('settings-view').hidden));

/** Allow agents: the toggle, the token and address to pair sightline-mcp with, the agent connected. */
let agents = null;
function renderAgents() {
  if (!agents) return;
  $('agents-enabled').checked = agents.enabled;
  $('agents-details').hidden = !agents.enabled;
  if (!agents.enabled) return;
  // Not connected: waiting, or something on the port that could not prove it knows the token.
  $('agents-state').textContent = !agents.connected ? (agents.refused ? t('agentsUnpaired', String(agents.port)) : t('agentsWaiting'))
    : agents.agent ? t('agentsConnectedAgent', agents.agent) : t('agentsConnected');
  $('agents-token').textContent = agents.token;
  $('agents-extension-id').textContent = agents.extensionId;
  $('agents-address').textContent = agents.address;
  if (document.activeElement !== $('agents-port')) $('agents-port').value = String(agents.port);
  const client = $('agents-client').value;
  $('agents-command').textContent = agentsSnippet(client, ['--stdio', '--port', String(agents.port), '--extension-id', agents.extensionId]);
  $('agents-client-hint').textContent = t(AGENTS_CLIENTS[client].hint);
}
/** The ways to start sightline-mcp the panel gives ready to paste: a command, or an MCP client's config. */
const AGENTS_CLIENTS = {
  terminal: { hint: 'agentsHintTerminal' },
  claude: { hint: 'agentsHintClaude' },
  'mcp-json': { hint: 'agentsHintMcpJson' },
  vscode: { hint: 'agentsHintVscode' },
};
/**
 * sightline-mcp with `args` in the form `client` takes. The token is in none of them (ps shows a
 * command line, people commit .mcp.json): the person saves it once with --save-token.
 */
function agentsSnippet(client, args) {
  const command = ['sightline-mcp', ...args].join(' ');
  if (client === 'claude') return `claude mcp add sightline -- ${command}`;
  if (client === 'mcp-json') return JSON.stringify({ mcpServers: { sightline: { command: 'sightline-mcp', args } } }, null, 2);
  if (client === 'vscode') return JSON.stringify({ servers: { sightline: { type: 'stdio', command: 'sightline-mcp', args } } }, null, 2);
  return command;
}
async function loadAgents() {
  ({ status: agents } = await send('agentsStatus'));
  renderAgents();
}
/** Changes Allow agents (`type`: setAgents, revokeAgents); a failure is worded by its code. */
async function changeAgents(type, payload) {
  showFailure(null);
  try {
    ({ status: agents } = await send(type, payload));
  } catch (err) {
    // The bridge glue's own codes have their words in _locales; any other error shows as it came.
    if (AGENTS_ERRORS.has(err.code)) showFailure({ key: `error_${err.code}` });
    else failed('agentsCouldNotChange', err);
  }
  renderAgents();
}
const AGENTS_ERRORS = new Set(['agents_port_invalid']);
$('agents-enabled').addEventListener('change', (e) => changeAgents('setAgents', { enabled: e.target.checked }));
$('agents-port').addEventListener('change', (e) => changeAgents('setAgents', { enabled: true, port: Number(e.target.value) }));
$('agents-revoke').addEventListener('click', () => changeAgents('revokeAgents'));
$('agents-client').addEventListener('change', renderAgents);
for (const [button, source, said] of [['agents-copy', 'agents-command', 'agentsCopied'], ['agents-copy-token', 'agents-token', 'agentsCopiedToken'], ['agents-copy-save', 'agents-save', 'agentsCopiedSave']]) {
  $(button).addEventListener('click', async () => {
    const copied = await navigator.clipboard.writeText($(source).textContent).then(() => true, () => false);
    $('agents-copied').textContent = t(copied ? said : 'agentsCopyFailed');
    $('agents-copied').classList.toggle('failed', !copied);
  });
}

chrome.runtime.onMessage.addListener((message) => {
  if (message?.type === 'sightline/agents-status') {
    agents = message.status;
    renderAgents();
    return;
  }
  if (message?.type === 'sightline/run-text') {
    const run = runs.find((r) => r.id === message.runId);
    liveText = { runId: message.runId, steps: run?.steps.length ?? 0, text: String(message.text ?? '') };
    if (message.runId === shownRunId) renderRun();
    return;
  }
  if (message?.type === 'sightline/run-deleted') {
    dropRun(message.runId);
    return;
  }
  if (message?.type !== 'sightline/run-update') return;
  // While the runs are read, the read may predate these changes: they are applied again after it.
  if (reading) reading.meanwhile.push(message.changes);
  const run = applyChanges(message.changes);
  if (!run) {
    // Changes to steps this panel never had (it opened mid-run, or missed one): read the runs again.
    loadRuns().catch((e) => console.error('reloading the runs failed', e));
    return;
  }
  const isNew = !runs.some((r) => r.id === run.id);
  upsert(run);
  if (!shownRunId || run.id === shownRunId || run.tabId === targetTabId) shownRunId = run.id;
  renderRun();
  renderHistory();
  if (isNew && found) searchHistory(); // a new run: does the search find it?
});

/** The run after the worker's `{head, from, steps}`: the steps this panel has up to `from`, then the new ones; null when it lacks some. */
function applyChanges({ head, from, steps }) {
  const before = runs.find((r) => r.id === head.id);
  const kept = before?.steps ?? [];
  if (kept.length < from) return null;
  return { ...head, steps: kept.slice(0, from).concat(steps) };
}

if (pinnedTab == null) {
  chrome.tabs.onActivated.addListener(() => refreshTarget());
  chrome.tabs.onUpdated.addListener((id, change) => id === targetTabId && change.title && refreshTarget());
}
chrome.storage.onChanged.addListener(async (changes) => {
  if (!changes.settings) return;
  const before = changes.settings.oldValue?.ui?.language;
  if (changes.settings.newValue?.ui?.language !== before) {
    await loadLanguage();
    translatePanel();
  }
  refreshTarget();
});

/** Every string on the panel in the current language: the fixed ones and the rendered ones. */
function translatePanel() {
  translate();
  $('open-settings').textContent = t($('settings-view').hidden ? 'panelSettings' : 'panelBack');
  updateTaskForm();
  renderRun();
  renderHistory();
  renderAgents();
  renderFailure();
}

/** Reloads the runs from the worker: at start, and after the worker was stopped and restarted. */
let reading = null; // the runs' read under way: {done, meanwhile (changes that came during it)}
async function loadRuns() {
  if (reading) return reading.done; // one read at a time: the changes meanwhile are applied after it
  reading = { meanwhile: [] };
  reading.done = send('runs').then((answer) => {
    ({ runs } = answer);
    for (const changes of reading.meanwhile) {
      const run = applyChanges(changes);
      if (run) upsert(run);
    }
  }).finally(() => { reading = null; });
  await reading.done;
  if (!runs.some((r) => r.id === shownRunId)) shownRunId = null;
  // The latest run on this tab, still live if it is running.
  shownRunId ??= runs.find((r) => r.tabId === targetTabId)?.id ?? null;
  renderRun();
  renderHistory();
}

/** A port to the worker whose closing says the worker stopped; reconnecting starts a new one. */
function watchWorker() {
  const port = chrome.runtime.connect({ name: 'sightline/panel' });
  port.onDisconnect.addListener(() => {
    setTimeout(() => {
      watchWorker();
      loadRuns().catch((e) => console.error('reloading the runs failed', e));
      loadAgents().catch((e) => console.error('reloading Allow agents failed', e));
    }, 300);
  });
}

(async () => {
  await loadLanguage().catch((e) => console.error('loading the chosen language failed', e));
  await loadTaskKinds().catch((e) => failed('couldNotStart', e));
  translatePanel();
  await refreshTarget();
  await loadRuns();
  await loadAgents().catch((e) => console.error('loading Allow agents failed', e));
  watchWorker();
})();
