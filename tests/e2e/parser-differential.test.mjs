// Differential tests of the reply parsers (the WASM core loaded in Node) against npm
// references: jsonrepair on broken JSON, @ui-tars/action-parser on UI-TARS replies. Each case
// gives the same result, or is listed below with the reason we differ.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { jsonrepair } from 'jsonrepair';
import { actionParser } from '@ui-tars/action-parser';
import { core } from '../support/core-node.mjs';

const BROKEN_JSON = [
  '{"a": 1,}',
  '[1, 2, 3,]',
  "{'a': 'b'}",
  '{a: 1, b: 2}',
  '{"a": 1 "b": 2}',
  '{"a": [1, 2}',
  '{"text": "cut off',
  '{"a": {"b": [1, 2',
  '{"a": 1, // comment\n"b": 2}',
  '{"a": /* block */ 1}',
  '{"ok": True, "no": False, "x": None}',
  '{"a": "line\nbreak"}',
  '{“a”: “b”}',
  '{"a": 1,\n\n}',
  '{"actions": [{"type": "Tap", "target": 3}, ], "done": true}',
  '{"thought": "it\'s fine", "done": false}',
  "{'thought': 'type \"milk\"', 'actions': []}",
  '[{"a": 1} {"b": 2}]',
  '{"a": -1.5e3, "b": 0.25}',
  '{"nested": {"deep": {"er": [true, false, null,]}}}',
  '{"a": "x",, "b": "y"}',
  '{"key": "value"}',
];

// Where we choose to differ from jsonrepair, and why.
const JSON_DIFFERENCES = {
  // jsonrepair refuses a doubled comma ("Object key expected"); a model's stutter loses
  // nothing here, so we drop the empty slot and read the object.
  '{"a": "x",, "b": "y"}': { a: 'x', b: 'y' },
};

test('JSON repair agrees with jsonrepair', () => {
  for (const text of BROKEN_JSON) {
    const ours = JSON.parse(core.repairJson(text));
    let theirs;
    try {
      theirs = JSON.parse(jsonrepair(text));
    } catch (e) {
      theirs = { jsonrepairError: String(e.message) };
    }
    const expected = JSON_DIFFERENCES[text] ?? theirs;
    assert.deepEqual(ours, expected, `repairing ${JSON.stringify(text)}`);
  }
});

const SCREEN = { width: 1280, height: 800 };
const UI_TARS_REPLIES = [
  "Thought: Click the search box.\nAction: click(start_box='(100,200)')",
  "Thought: Double click it.\nAction: left_double(start_box='(500,500)')",
  "Thought: Context menu.\nAction: right_single(start_box='[300,300,400,400]')",
  "Thought: Drag the slider.\nAction: drag(start_box='(100,100)', end_box='(900,100)')",
  "Thought: Copy.\nAction: hotkey(key='ctrl c')",
  "Thought: Type the query.\nAction: type(content='hello world')",
  "Thought: Scroll down.\nAction: scroll(start_box='(500,500)', direction='down')",
  "Thought: Wait for it.\nAction: wait()",
  "Thought: All done.\nAction: finished(content='done')",
  "Reflection: the page did not change\nAction_Summary: click again\nAction: click(start_box='(10,20)')",
  "Thought: full-width colon\nAction：click(start_box='(250,750)')",
  "Thought: point tags\nAction: click(point='<point>400 600</point>')",
  "Thought: bbox tags\nAction: click(start_box='<bbox>100 100 200 200</bbox>')",
  "Thought: box tokens\nAction: click(start_box='<|box_start|>(640,360)<|box_end|>')",
  "Thought: two actions\nAction: click(start_box='(100,100)')\n\ntype(content='abc')",
  "Thought: ask\nAction: call_user()",
];

// Our action names → the reference's.
const NAME = { TapAt: (a) => (a.button === 'right' ? 'right_single' : a.clicks === 2 ? 'left_double' : 'click'), DragAt: () => 'drag', KeyPress: () => 'hotkey', Type: () => 'type', ScrollAt: () => 'scroll', Wait: () => 'wait', AskUser: () => 'call_user', HoverAt: () => 'hover' };

test('UI-TARS 1.0 replies read as @ui-tars/action-parser reads them', async () => {
  for (const reply of UI_TARS_REPLIES) {
    const ours = core.parseReply('ui-tars-1.0', reply, { ...SCREEN, dpr: 1 });
    assert.ok(!ours.error, `${reply}: ${ours.error}`);
    const { parsed } = actionParser({ prediction: reply, factor: 1000, screenContext: SCREEN });
    const theirs = parsed.filter((p) => p.action_type !== 'finished');
    assert.equal(ours.actions.length, theirs.length, reply);
    assert.equal(ours.done, parsed.some((p) => p.action_type === 'finished'), reply);
    assert.equal(ours.thought.split('\n')[0], parsed[0].thought, reply);
    ours.actions.forEach((a, i) => {
      const t = theirs[i];
      const oursName = NAME[a.type](a);
      const theirsName = t.action_type === 'left_single' ? 'click' : t.action_type;
      assert.equal(oursName, theirsName, reply);
      const point = a.type === 'DragAt' ? a.from : 'x' in a ? [a.x, a.y] : null;
      if (point && t.action_inputs.start_coords) {
        // Same point within a pixel (they round to a thousandth of the screen).
        assert.ok(Math.abs(point[0] - t.action_inputs.start_coords[0]) <= 1 && Math.abs(point[1] - t.action_inputs.start_coords[1]) <= 1,
          `${reply}: ours ${point}, theirs ${t.action_inputs.start_coords}`);
      }
      if (a.type === 'DragAt') {
        assert.ok(Math.abs(a.to[0] - t.action_inputs.end_coords[0]) <= 1 && Math.abs(a.to[1] - t.action_inputs.end_coords[1]) <= 1);
      }
      if (a.type === 'Type') assert.equal(a.value, t.action_inputs.content);
      if (a.type === 'KeyPress') assert.equal(a.key, t.action_inputs.key.split(' ').join('+'));
    });
  }
});
