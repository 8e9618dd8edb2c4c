// The side panel as a person uses it: the timeline's screenshots open large, each step shows
// its cost, and the history lists this site's runs, each runnable again.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { userMessage } from '../support/browser.mjs';
import { todoPlanReply } from '../support/mock-model.mjs';
import { modelSuite } from '../support/suite.mjs';

let browser, mock, site;

modelSuite((env) => ({ browser, mock, site } = env), {
  model: (m) => ({ baseUrl: m.baseUrl, model: 'mock-model', apiKey: 'sk-test-panel', family: 'generic' }),
});

test('screenshots in the timeline open large; steps show their cost; history is per site and re-runnable', async () => {
  await browser.sw.evaluate(() => self.sightline.setSettings({ prices: [{ model: 'mock-model', input: 2, output: 8 }] }));
  // A run on another site first: it must not be listed for this one.
  const other = await browser.context.newPage();
  await other.goto(site.url('/todo.html?site=other').replace('127.0.0.1', 'localhost'));
  await other.waitForSelector('.new-todo');
  mock.script(todoPlanReply());
  const elsewhere = await browser.sw.evaluate((id) => self.sightline.act(id, "add a todo 'elsewhere'"), await browser.tabIdOf(other));
  assert.equal(elsewhere.status, 'succeeded', elsewhere.error);

  const page = await browser.context.newPage();
  await page.goto(site.url('/todo.html?site=this'));
  await page.waitForSelector('.new-todo');
  const panel = await browser.openPanel(await browser.tabIdOf(page));
  mock.script(todoPlanReply());
  await panel.fill('#instruction', 'add a todo ‘buy milk’');
  await panel.click('#run-button');
  await panel.waitForSelector('#run-status.succeeded', { timeout: 30_000 });

  // Three screenshots: what the model saw (plan), the page after the round (last action) and what the check after "done" saw.
  await panel.waitForFunction(() => [...document.querySelectorAll('#steps .shot img')].filter((i) => i.complete && i.naturalWidth > 0).length === 3);
  assert.match(await panel.textContent('#steps .step:first-child .meta'), /tok · \$0\.\d{4}/);
  await panel.focus('#steps .shot');
  await panel.keyboard.press('Enter');
  await panel.waitForFunction(() => document.getElementById('shot-dialog').open && document.getElementById('shot-large').naturalWidth === 1280);
  assert.match(await panel.textContent('#shot-caption'), /what the model saw/);
  await panel.screenshot({ path: 'out/e2e-panel-screenshot-open.png' });
  await panel.keyboard.press('Escape');
  await panel.waitForFunction(() => !document.getElementById('shot-dialog').open);

  // History: this site only, until "all sites" is ticked.
  const host = new URL(site.url('/')).host;
  assert.equal(await panel.textContent('#history-title'), `Recent runs on ${host}`);
  const listed = () => panel.$$eval('#history .open-run', (b) => b.map((x) => x.textContent));
  assert.deepEqual(await listed(), ['add a todo ‘buy milk’']);
  await panel.check('#history-all');
  assert.deepEqual(await listed(), ['add a todo ‘buy milk’', "add a todo 'elsewhere'"]);
  await panel.uncheck('#history-all');

  // Run again: the same instruction, asking the model again.
  mock.reset();
  mock.script(todoPlanReply());
  await panel.click('#history li:first-child .again');
  await panel.waitForFunction(() => document.querySelectorAll('#history .open-run').length === 2);
  await panel.waitForSelector('#run-status.succeeded', { timeout: 30_000 });
  assert.equal(mock.requests.length, 1);
  assert.deepEqual(await page.evaluate(() => window.todoApp.items().map((i) => i.title)), ['buy milk', 'buy milk']);
  await panel.screenshot({ path: 'out/e2e-panel-history.png', fullPage: true });
  await Promise.all([panel.close(), page.close(), other.close()]);
});

/**
 * A todo page, and the panel as the side panel opens: not pinned to a tab, following the active
 * one (here the page, the most recent normal tab), its target line showing the page's title.
 */
async function todoWithFollowingPanel(query) {
  const page = await browser.context.newPage();
  await page.goto(site.url(`/todo.html?${query}`));
  await page.waitForSelector('.new-todo');
  const title = await page.title();
  const panel = await browser.openPanel();
  await panel.waitForFunction((t) => document.getElementById('target-title').textContent === t, title);
  return { page, panel };
}

test('a failure in the notice stays through title changes and tab switches until dismissed or replaced', async () => {
  const { page, panel } = await todoWithFollowingPanel('notice');
  const failure = /Could not run bad\.yaml: .*sleep needs a number of milliseconds/s;
  const notice = () => panel.textContent('#notice');
  const badFlow = { name: 'bad.yaml', mimeType: 'text/yaml', buffer: Buffer.from('tasks:\n  - flow:\n      - sleep: soon\n') };
  await panel.setInputFiles('#run-flow-file', badFlow);
  await panel.waitForSelector('#notice:not([hidden])');
  assert.match(await notice(), failure);

  // The page renames itself: the panel's target line follows, the failure stays.
  await page.evaluate(() => { document.title = 'renamed during the run'; });
  await panel.waitForFunction(() => document.getElementById('target-title').textContent === 'renamed during the run');
  assert.match(await notice(), failure, 'a title change took the failure away');

  // Another tab, one Sightline cannot work on: its line joins the failure.
  const restricted = await browser.context.newPage();
  await restricted.goto('chrome://version');
  await restricted.bringToFront();
  await panel.waitForFunction(() => /Chrome does not let extensions act on its own pages/.test(document.getElementById('notice').textContent));
  assert.match(await notice(), failure, 'activating another tab took the failure away');
  await panel.screenshot({ path: 'out/e2e-panel-notice.png' });

  // Dismissed from the keyboard: the failure goes, the tab's own line stays.
  await panel.focus('#notice-dismiss');
  assert.equal(await panel.getAttribute('#notice-dismiss', 'aria-label'), 'Dismiss this message');
  await panel.keyboard.press('Enter');
  await panel.waitForFunction(() => !/bad\.yaml/.test(document.getElementById('notice').textContent));
  assert.equal(await panel.evaluate(() => document.activeElement?.id), 'instruction', 'the keyboard left the panel');
  assert.match(await notice(), /Sightline can't work on this page: Chrome does not let extensions act on its own pages\./);
  assert.ok(await panel.isVisible('#notice'));

  // Back on the page: nothing to say, so no notice.
  await page.bringToFront();
  await panel.waitForSelector('#notice', { state: 'hidden' });

  // A failure again; starting the next run replaces it.
  await panel.setInputFiles('#run-flow-file', badFlow);
  await panel.waitForSelector('#notice:not([hidden])');
  assert.match(await notice(), failure);
  mock.script(todoPlanReply());
  await panel.fill('#instruction', 'add a todo ‘after the failure’');
  await panel.click('#run-button');
  await panel.waitForSelector('#notice', { state: 'hidden' });
  await panel.waitForSelector('#run-status.succeeded', { timeout: 30_000 });
  await Promise.all([panel.close(), page.close(), restricted.close()]);
});

test('a refresh that changes nothing leaves the notice alone, and the keyboard where it was', async () => {
  const saved = await browser.sw.evaluate(() => self.sightline.getSettings());
  await browser.sw.evaluate(() => self.sightline.setSettings({ model: { baseUrl: '', model: '', apiKey: '' } }));
  try {
    const { page, panel } = await todoWithFollowingPanel('focus');
    await panel.waitForSelector('#notice-settings');
    await panel.focus('#notice-settings');
    // The page renames itself: the target line follows; the notice says the same and is not rewritten.
    await page.evaluate(() => { document.title = 'renamed with the keyboard on the link'; });
    await panel.waitForFunction(() => document.getElementById('target-title').textContent === 'renamed with the keyboard on the link');
    assert.equal(await panel.evaluate(() => document.activeElement?.id), 'notice-settings', 'the refresh took the focus off the link');
    await Promise.all([panel.close(), page.close()]);
  } finally {
    await browser.sw.evaluate((s) => self.sightline.setSettings(s), saved);
  }
});

/**
 * From now on the panel's messages of `type` get `reply` as the worker's answer, in the shape
 * the worker's dispatcher answers (the handler's result, or `{error, code}` for what it threw),
 * and the worker never sees them; `reply` null puts the real sending back. For the failures a
 * test cannot make the worker have on demand.
 */
async function workerAnswers(panel, type, reply) {
  await panel.evaluate(([name, answer]) => {
    window.realSendMessage ??= chrome.runtime.sendMessage;
    const real = window.realSendMessage;
    chrome.runtime.sendMessage = answer == null ? real
      : (message, ...rest) => (message?.type === `sightline/${name}` ? Promise.resolve(answer) : real.call(chrome.runtime, message, ...rest));
  }, [type, reply]);
}

const failureText = (panel) => panel.evaluate(() => (document.getElementById('notice-failure').hidden ? '' : document.getElementById('notice-failure-text').textContent));

test('a Stop the worker refuses or fails on says so in the notice, in our words by its code, never a JS error\'s; the run goes on until a Stop takes', async () => {
  const { page, panel } = await todoWithFollowingPanel('stop-refused');
  mock.script({ delayMs: 60_000, content: '{"actions":[],"done":true}' });
  await panel.fill('#instruction', 'add a todo ‘never’');
  await panel.click('#run-button');
  await panel.waitForSelector('#run-status.running');
  await panel.waitForFunction(() => !document.getElementById('stop').disabled);

  // Refused: the worker has nothing of this run going (as between an agent's calls).
  await workerAnswers(panel, 'stop', { stopped: false });
  await panel.click('#stop');
  await panel.waitForFunction(() => !document.getElementById('notice-failure').hidden);
  assert.equal(await failureText(panel), 'The run was not stopped: Sightline has nothing of it going on to stop (it may have just ended).');

  // Failed: the worker answers with an error of no code the panel knows: said as a failed Stop, not in its words.
  const failedStop = 'Could not stop the run: Sightline\'s background worker failed while stopping it. Press Stop again; if the run goes on, reload the extension on chrome://extensions';
  await workerAnswers(panel, 'stop', { error: 'TypeError: the worker dropped the stop' });
  await panel.click('#stop');
  await panel.waitForFunction(() => /Could not stop the run/.test(document.getElementById('notice-failure-text').textContent));
  assert.equal(await failureText(panel), failedStop);
  assert.equal(await panel.getAttribute('#run-status', 'class'), 'pill running');

  // The worker's own Stop throwing (a JS error in it): the worker answers `stop_failed`, worded so.
  await workerAnswers(panel, 'stop', null);
  await browser.sw.evaluate(() => {
    self.e2eRealStop = self.sightline.stop;
    self.sightline.stop = () => { throw new TypeError('Cannot read properties of undefined (reading \'e2e\')'); };
  });
  try {
    await panel.evaluate(() => { document.getElementById('notice-failure').hidden = true; });
    await panel.click('#stop');
    await panel.waitForFunction(() => !document.getElementById('notice-failure').hidden, null, { timeout: 5_000 });
    assert.equal(await failureText(panel), failedStop);
  } finally {
    await browser.sw.evaluate(() => { self.sightline.stop = self.e2eRealStop; });
  }
  assert.equal(await panel.getAttribute('#run-status', 'class'), 'pill running');

  // No answer at all (a listener that replied nothing): reading it fails, and that failure is the
  // Stop's, shown (it was thrown in the success handler of `.then(ok, err)`, unhandled, unseen).
  await panel.evaluate(() => {
    const real = window.realSendMessage;
    chrome.runtime.sendMessage = (message, ...rest) => (message?.type === 'sightline/stop' ? Promise.resolve(undefined) : real.call(chrome.runtime, message, ...rest));
  });
  await panel.click('#stop');
  await panel.waitForFunction(() => !document.getElementById('notice-failure').hidden, null, { timeout: 5_000 });
  const unread = 'Could not stop the run: the background worker\'s answer could not be read. Press Stop again; if the run goes on, reload the extension on chrome://extensions';
  assert.equal(await failureText(panel), unread);
  assert.equal(await panel.getAttribute('#run-status', 'class'), 'pill running');
  // Worded again in a newly chosen language, all of it ours.
  try {
    await browser.sw.evaluate(() => self.sightline.setSettings({ ui: { language: 'zh_CN' } }));
    await panel.waitForFunction(() => document.getElementById('run-button').textContent === '运行');
    assert.equal(await failureText(panel), '无法停止运行: 无法读取后台服务的答复。请再按一次“停止”；如果运行仍在继续，请在 chrome://extensions 重新加载扩展');
  } finally {
    await browser.sw.evaluate(() => self.sightline.setSettings({ ui: { language: 'auto' } }));
  }
  await panel.waitForFunction(() => document.getElementById('run-button').textContent === 'Run');
  assert.equal(await failureText(panel), unread);

  // No worker to answer (Chrome rejects the message): said in our words, not Chrome's.
  await panel.evaluate(() => {
    const real = window.realSendMessage;
    chrome.runtime.sendMessage = (message, ...rest) => (message?.type === 'sightline/stop'
      ? Promise.reject(new Error('Could not establish connection. Receiving end does not exist.')) : real.call(chrome.runtime, message, ...rest));
  });
  await panel.click('#stop');
  await panel.waitForFunction(() => /could not be reached/.test(document.getElementById('notice-failure-text').textContent), null, { timeout: 5_000 });
  assert.equal(await failureText(panel), 'Could not stop the run: Sightline\'s background worker could not be reached: close and open this panel again, and if that does not help, reload the extension on chrome://extensions');

  // The worker's own Stop: the run ends stopped, the failure goes with the new action.
  await workerAnswers(panel, 'stop', null);
  await panel.click('#stop');
  await panel.waitForSelector('#run-status.stopped', { timeout: 5_000 });
  assert.equal(await failureText(panel), '');
  await Promise.all([panel.close(), page.close()]);
});

test('an answer the worker does not take leaves the question, with what was typed, to answer again', async () => {
  const { page, panel } = await todoWithFollowingPanel('answer-again');
  mock.script(
    '{"thought": "I need the text", "actions": [{"type": "AskUser", "question": "What should the todo say?"}], "done": false}',
    (body) => {
      const { text } = userMessage(body);
      const answer = text.match(/they answered "([^"]*)"/)?.[1] ?? 'NO ANSWER';
      const input = Number(text.match(/^\s*\[(\d+)\][^\n]*What needs to be done\?/m)[1]);
      return JSON.stringify({ thought: 'type it', actions: [{ type: 'Input', target: input, value: answer }, { type: 'KeyPress', key: 'Enter' }], done: true });
    },
  );
  await panel.fill('#instruction', 'add the todo I tell you');
  await panel.click('#run-button');
  await panel.waitForSelector('#question-form:not([hidden])', { timeout: 30_000 });

  // The worker answers with an error: the failure shows, the form stays with the typed text.
  await workerAnswers(panel, 'answer', { error: 'the worker went away' });
  await panel.fill('#answer', 'oat milk');
  await panel.click('#answer-send');
  await panel.waitForFunction(() => !document.getElementById('notice-failure').hidden);
  assert.equal(await failureText(panel), 'Could not send the answer: the worker went away');
  assert.ok(await panel.isVisible('#question-form'), 'the form went with the failed answer');
  assert.equal(await panel.inputValue('#answer'), 'oat milk');

  // Refused (`answered: false`): said so, the form stays.
  await workerAnswers(panel, 'answer', { answered: false });
  await panel.click('#answer-send');
  await panel.waitForFunction(() => /not taken/.test(document.getElementById('notice-failure-text').textContent));
  assert.match(await failureText(panel), /^The answer was not taken: the run is not waiting for one any more/);
  assert.ok(await panel.isVisible('#question-form'));
  assert.equal(await panel.inputValue('#answer'), 'oat milk');

  // Sent again to the worker, twice before its reply (a double Enter): taken once, the second
  // not sent (the worker would refuse it), and the run goes on with it.
  await workerAnswers(panel, 'answer', null);
  await panel.evaluate(() => {
    const form = document.getElementById('question-form');
    form.requestSubmit();
    form.requestSubmit();
  });
  await panel.waitForSelector('#run-status.succeeded', { timeout: 30_000 });
  assert.ok(await panel.isHidden('#question-form'));
  assert.equal(await failureText(panel), '');
  assert.deepEqual(await page.evaluate(() => window.todoApp.items().map((i) => i.title)), ['oat milk']);
  await Promise.all([panel.close(), page.close()]);
});

test('a failure in the notice is worded again in a newly chosen language; the error\'s own message is not', async () => {
  const { page, panel } = await todoWithFollowingPanel('failure-language');
  const yaml = 'tasks:\n  - flow:\n      - sleep: soon\n';
  const message = await browser.sw.evaluate((y) => self.sightline.parseFlow(y).then(() => null, (e) => e.message), yaml);
  assert.match(message, /sleep needs a number of milliseconds/);
  await panel.setInputFiles('#run-flow-file', { name: 'bad.yaml', mimeType: 'text/yaml', buffer: Buffer.from(yaml) });
  await panel.waitForFunction(() => !document.getElementById('notice-failure').hidden);
  const english = await failureText(panel);
  assert.ok(english.startsWith(`Could not run bad.yaml: ${message}`), english);
  assert.ok(english.endsWith(' — edit the flow file and run it again.'), `the advice fits a flow file: ${english}`);
  try {
    await browser.sw.evaluate(() => self.sightline.setSettings({ ui: { language: 'zh_CN' } }));
    await panel.waitForFunction(() => document.getElementById('run-button').textContent === '运行');
    const chinese = await failureText(panel);
    assert.ok(chinese.startsWith(`无法运行 bad.yaml: ${message}`), chinese);
    // The advice after the message, if any, is ours: in Chinese too.
    assert.doesNotMatch(chinese.slice(`无法运行 bad.yaml: ${message}`.length), /[A-Za-z]{3}/);
    assert.ok(chinese.endsWith(' — 请修改流程文件后再运行。'), chinese);
    await panel.screenshot({ path: 'out/e2e-panel-failure-zh.png' });
  } finally {
    await browser.sw.evaluate(() => self.sightline.setSettings({ ui: { language: 'auto' } }));
  }
  await panel.waitForFunction(() => document.getElementById('run-button').textContent === 'Run');
  assert.equal(await failureText(panel), english);
  await Promise.all([panel.close(), page.close()]);
});
