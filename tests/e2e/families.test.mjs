// One instruction per model family against the mock server answering in that family's own
// format: choosing the family in settings changes the prompt, the image the model sees and
// the parser used, and the todo gets added every time.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { userMessage } from '../support/browser.mjs';
import { modelSuite } from '../support/suite.mjs';
import { FAMILIES, nativePoint } from '../support/family-points.mjs';

let browser, mock, site;

modelSuite((env) => ({ browser, mock, site } = env));

const native = nativePoint;

function replies(family, index, point) {
  switch (family) {
    case 'generic':
      return [JSON.stringify({ thought: 'type it', actions: [{ type: 'Input', target: index, value: 'buy milk' }, { type: 'KeyPress', key: 'Enter' }], done: true })];
    case 'function-calling':
      return [
        `<thinking>type it</thinking>\n[{"name":"input","arguments":{"target":${index},"value":"buy milk"}},{"name":"key","arguments":{"key":"Enter"}}]`,
        '[{"name":"finished","arguments":{"text":"added"}}]',
      ];
    // Vision agents: one action per turn, each on a fresh screenshot.
    case 'ui-tars-1.5': case 'ui-tars-1.0': case 'doubao-ui-tars':
      return [
        `Thought: The input is at the top.\nAction: click(start_box='${native[family](point)}')`,
        "Thought: Now type.\nAction: type(content='buy milk\\n')",
        "Thought: Added.\nAction: finished(content='added buy milk')",
      ];
    case 'mai-ui':
      return [
        `<thinking>Tap the input.</thinking><tool_call>{"name":"browser_use","arguments":{"action":"click","coordinate":${JSON.stringify(native[family](point))}}}</tool_call>`,
        '<thinking>Type.</thinking><tool_call>{"name":"browser_use","arguments":{"action":"type","text":"buy milk\\n"}}</tool_call>',
        '<thinking>done</thinking><tool_call>{"name":"browser_use","arguments":{"action":"terminate","status":"success"}}</tool_call>',
      ];
    default:
      return [
        `<thinking>tap the input</thinking>\n[{"name":"click","arguments":{"coordinate":${JSON.stringify(native[family](point))}}}]`,
        '<thinking>type</thinking>\n[{"name":"type","arguments":{"text":"buy milk\\n"}}]',
        '[{"name":"finished","arguments":{"text":"added"}}]',
      ];
  }
}

const SYSTEM_MARK = {
  generic: '"actions"', 'function-calling': '"target": 3', 'ui-tars-1.5': "Action: one action", 'ui-tars-1.0': '0 to 1000',
  'doubao-ui-tars': '0 to 1000', 'qwen2.5-vl': 'pixels of the screenshot', 'qwen3-vl': '0 to 1000', gemini: '[ymin, xmin, ymax, xmax]', 'mai-ui': '<tool_call>',
};
const IMAGE_SIZE = { 'ui-tars-1.5': [1288, 812], 'ui-tars-1.0': [1288, 812], 'doubao-ui-tars': [1288, 812], 'qwen2.5-vl': [1288, 812] };

function pngSize(dataUrl) {
  const b = Buffer.from(dataUrl.split(',')[1].slice(0, 40), 'base64');
  return [b.readUInt32BE(16), b.readUInt32BE(20)];
}

for (const family of FAMILIES) {
  test(`family ${family}: its prompt, its image, its parser, and the todo is added`, async () => {
    await browser.sw.evaluate(
      // The model path is under test: no replays from the cache.
      (model) => self.sightline.setSettings({ model, run: { useCache: false } }),
      { baseUrl: mock.baseUrl, model: 'mock-model', apiKey: 'sk-test-families', family },
    );
    const page = await browser.context.newPage();
    await page.goto(site.url(`/todo.html?family=${family}`));
    await page.waitForSelector('.new-todo');
    const tabId = await browser.tabIdOf(page);
    const { elements } = await browser.sw.evaluate((id) => self.sightline.extract(id), tabId);
    const input = elements.find((e) => e.tag === 'input' && e.attributes.some(([k, v]) => k === 'placeholder' && /What needs/.test(v)));
    mock.script(...replies(family, input.index, input.center));

    const run = await browser.sw.evaluate((id) => self.sightline.act(id, "add a todo 'buy milk'"), tabId);
    assert.equal(run.status, 'succeeded', run.error);
    assert.deepEqual(await page.evaluate(() => window.todoApp.items().map((i) => i.title)), ['buy milk']);

    const first = mock.requests[0].body;
    const system = first.messages.find((m) => m.role === 'system');
    const systemText = typeof system.content === 'string' ? system.content : system.content.map((p) => p.text).join('');
    assert.ok(systemText.includes(SYSTEM_MARK[family]), `system prompt of ${family}`);
    const { text, images } = userMessage(first);
    const grounding = !['generic', 'function-calling'].includes(family);
    assert.equal(/\[\d+\] input/.test(text), !grounding, 'element list only for element-numbering families');
    assert.deepEqual(pngSize(images[0]), IMAGE_SIZE[family] ?? [1280, 800]);
    // The second call: grounding models converse (their own reply, then the result with the
    // new screen, the earlier screen kept); the others get the rounds as text.
    const second = mock.requests[1]?.body;
    if (second) {
      const roles = second.messages.map((m) => m.role);
      const shots = second.messages.flatMap((m) => (Array.isArray(m.content) ? m.content : [])).filter((p) => p.type === 'image_url');
      if (grounding) {
        assert.deepEqual(roles, ['system', 'user', 'assistant', 'user']);
        assert.equal(second.messages[2].content[0].text, replies(family, input.index, input.center)[0].trim());
        assert.equal(shots.length, 2);
      } else {
        assert.deepEqual(roles, ['system', 'user']);
        assert.match(userMessage(second).text, /Done so far:\n1\. /);
      }
    }
    await page.close();
  });
}

test('self.sightline.parse reads each family and says what was wrong', async () => {
  const screen = { width: 1280, height: 800, dpr: 1 };
  const tars = await browser.sw.evaluate(([r, s]) => self.sightline.parse('ui-tars-1.0', r, s), ["Thought: x\nAction: click(start_box='(500,500)')", screen]);
  const [tap] = tars.actions;
  assert.deepEqual([tap.type, Math.round(tap.x * 1e6) / 1e6, Math.round(tap.y * 1e6) / 1e6, tap.button, tap.clicks], ['TapAt', 640, 400, 'left', 1]);
  const bad = await browser.sw.evaluate(([r, s]) => self.sightline.parse('mai-ui', r, s), ['<tool_call>{"name":"x","arguments":{"action":"click","coordinate":[5000,1]}}</tool_call>', screen]);
  assert.match(bad.error, /outside 0–999/);
  const plan = await browser.sw.evaluate(([r, s]) => self.sightline.parse('generic', r, s), ["{'actions': [{'type': 'Tap', 'target': 2,}], 'done': True", screen]);
  assert.deepEqual(plan.actions, [{ type: 'Tap', target: 2 }]);
});
