// Self-test for the test support pieces: run with
//   node --test tests/support/self-test.mjs
// Proves the mock model and static server behave as the e2e tests assume.
import { test, before, after, beforeEach } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import { startMockModel, todoPlanReply } from './mock-model.mjs';
import { startStaticServer } from './static-server.mjs';

const SAMPLE_DESCRIPTION = [
  'Page: Sightline test · todos (http://127.0.0.1/todo.html)',
  '[1] h1 "todos"',
  '[2] checkbox "Mark all as complete"',
  '[3] input placeholder="What needs to be done?"',
  '[4] link "All"',
].join('\n');

const stripFence = (s) => s.replace(/^\s*```(?:json)?\s*\n?/, '').replace(/\n?```\s*$/, '');

// Parse an SSE body back into its data payloads (ignoring [DONE]).
function parseSse(text) {
  const events = text.split('\n\n').filter(Boolean).map((block) => {
    assert.match(block, /^data: /, `bad SSE block: ${block}`);
    return block.slice('data: '.length);
  });
  assert.equal(events.at(-1), '[DONE]');
  return events.slice(0, -1).map((e) => JSON.parse(e));
}

// Raw GET that does not normalize the path (fetch would resolve "..").
function rawGet(origin, rawPath) {
  const { hostname, port } = new URL(origin);
  return new Promise((resolve, reject) => {
    http.get({ hostname, port, path: rawPath }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode));
    }).on('error', reject);
  });
}

let mock;
before(async () => { mock = await startMockModel(); });
after(async () => { await mock.close(); });
beforeEach(() => mock.reset());

const chat = (body, headers = {}) => fetch(`${mock.baseUrl}/chat/completions`, {
  method: 'POST',
  headers: { 'Content-Type': 'application/json', ...headers },
  body: JSON.stringify(body),
});

test('baseUrl shape', () => {
  assert.match(mock.baseUrl, /^http:\/\/127\.0\.0\.1:\d+\/v1$/);
});

test('non-streaming answer is a chat.completion and the request is recorded', async () => {
  mock.script('hello there');
  const res = await chat(
    { model: 'gpt-test', messages: [{ role: 'user', content: 'hi' }] },
    { Authorization: 'Bearer sk-test' },
  );
  assert.equal(res.status, 200);
  assert.equal(res.headers.get('access-control-allow-origin'), '*');
  const json = await res.json();
  assert.equal(json.object, 'chat.completion');
  assert.equal(json.model, 'gpt-test');
  assert.ok(json.id && Number.isInteger(json.created));
  assert.deepEqual(json.choices[0].message, { role: 'assistant', content: 'hello there' });
  assert.equal(json.choices[0].finish_reason, 'stop');
  const u = json.usage;
  assert.ok(u.prompt_tokens > 0 && u.completion_tokens > 0);
  assert.equal(u.total_tokens, u.prompt_tokens + u.completion_tokens);

  assert.equal(mock.requests.length, 1);
  const r = mock.requests[0];
  assert.equal(r.method, 'POST');
  assert.equal(r.path, '/v1/chat/completions');
  assert.equal(r.headers.authorization, 'Bearer sk-test');
  assert.equal(r.body.messages[0].content, 'hi');
  assert.equal(typeof r.receivedAt, 'number');
});

test('replies are FIFO, then fallback, then 500 on empty queue', async () => {
  mock.script('one', { content: 'two', usage: { prompt_tokens: 1, completion_tokens: 2, total_tokens: 3 } });
  const a = await (await chat({ model: 'm', messages: [] })).json();
  const b = await (await chat({ model: 'm', messages: [] })).json();
  assert.equal(a.choices[0].message.content, 'one');
  assert.equal(b.choices[0].message.content, 'two');
  assert.deepEqual(b.usage, { prompt_tokens: 1, completion_tokens: 2, total_tokens: 3 });

  const empty = await chat({ model: 'm', messages: [] });
  assert.equal(empty.status, 500);
  assert.deepEqual(await empty.json(), {
    error: { message: 'mock model: no scripted reply left', type: 'server_error' },
  });

  mock.setFallback('always');
  const c = await (await chat({ model: 'm', messages: [] })).json();
  assert.equal(c.choices[0].message.content, 'always');
  mock.setFallback(null);
  assert.equal((await chat({ model: 'm', messages: [] })).status, 500);
  assert.equal(mock.requests.length, 5);
});

test('error, rawBody, delay and async function replies', async () => {
  mock.script(
    { status: 429, error: 'rate limited' },
    { rawBody: 'not json at all' },
    { delayMs: 60, content: 'late' },
    async (body) => `echo ${body.messages[0].content}`,
  );
  const e = await chat({ model: 'm', messages: [] });
  assert.equal(e.status, 429);
  assert.equal((await e.json()).error.message, 'rate limited');

  const g = await chat({ model: 'm', messages: [] });
  assert.equal(g.status, 200);
  assert.equal(await g.text(), 'not json at all');

  const t0 = Date.now();
  const d = await (await chat({ model: 'm', messages: [] })).json();
  assert.ok(Date.now() - t0 >= 50);
  assert.equal(d.choices[0].message.content, 'late');

  const f = await (await chat({ model: 'm', messages: [{ role: 'user', content: 'ping' }] })).json();
  assert.equal(f.choices[0].message.content, 'echo ping');
});

test('streaming answer is SSE that reassembles to the full content', async () => {
  const content = 'The quick brown fox jumps over the lazy dog.';
  mock.script(content);
  const res = await chat({
    model: 'stream-model', stream: true, stream_options: { include_usage: true },
    messages: [{ role: 'user', content: 'go' }],
  });
  assert.equal(res.status, 200);
  assert.match(res.headers.get('content-type'), /^text\/event-stream/);
  const chunks = parseSse(await res.text());
  chunks.forEach((c) => {
    assert.equal(c.object, 'chat.completion.chunk');
    assert.equal(c.model, 'stream-model');
  });
  const deltas = chunks.filter((c) => c.choices.length && c.choices[0].delta.content !== undefined);
  assert.ok(deltas.length > 1, 'content should be split into several deltas');
  assert.equal(deltas[0].choices[0].delta.role, 'assistant');
  assert.equal(deltas.map((c) => c.choices[0].delta.content).join(''), content);
  const stop = chunks.find((c) => c.choices[0]?.finish_reason === 'stop');
  assert.ok(stop);
  const usage = chunks.at(-1);
  assert.deepEqual(usage.choices, []);
  assert.ok(usage.usage.total_tokens > 0);
});

test('streaming without include_usage has no usage chunk', async () => {
  mock.script('abc def ghi');
  const chunks = parseSse(await (await chat({ model: 'm', stream: true, messages: [] })).text());
  assert.ok(chunks.every((c) => !c.usage));
  assert.equal(chunks.at(-1).choices[0].finish_reason, 'stop');
});

test('GET /v1/models and CORS preflight', async () => {
  const models = await fetch(`${mock.baseUrl}/models`);
  assert.deepEqual(await models.json(), { object: 'list', data: [{ id: 'mock-model', object: 'model' }] });
  const pre = await fetch(`${mock.baseUrl}/chat/completions`, {
    method: 'OPTIONS',
    headers: { Origin: 'chrome-extension://abc', 'Access-Control-Request-Method': 'POST' },
  });
  assert.ok(pre.status === 204 || pre.status === 200);
  assert.equal(pre.headers.get('access-control-allow-origin'), '*');
  assert.equal(pre.headers.get('access-control-allow-headers'), '*');
  assert.equal(pre.headers.get('access-control-allow-methods'), 'GET, POST, OPTIONS');
});

test('todoPlanReply: curly quotes, string content', async () => {
  mock.script(todoPlanReply());
  const res = await chat({
    model: 'm',
    messages: [
      { role: 'system', content: 'You are a browser agent. [9] input placeholder="What needs to be done?"' },
      { role: 'user', content: `Instruction: add a todo ‘buy milk’\n\n${SAMPLE_DESCRIPTION}` },
    ],
  });
  const content = (await res.json()).choices[0].message.content;
  assert.match(content, /^```json\n/);
  const plan = JSON.parse(stripFence(content));
  assert.deepEqual(plan.actions, [
    { type: 'Input', target: 3, value: 'buy milk' },
    { type: 'KeyPress', key: 'Enter' },
  ]);
  assert.equal(plan.done, true);
  assert.equal(typeof plan.thought, 'string');
});

test('todoPlanReply: straight quotes, array-of-parts content', async () => {
  const reply = todoPlanReply();
  for (const [instruction, expected] of [
    [`Please add a todo 'walk the dog'`, 'walk the dog'],
    ['add a new todo "call mum"', 'call mum'],
  ]) {
    const body = {
      messages: [{
        role: 'user',
        content: [
          { type: 'text', text: instruction },
          { type: 'image_url', image_url: { url: 'data:image/png;base64,AAAA' } },
          { type: 'text', text: SAMPLE_DESCRIPTION.replace('[3]', '[42]') },
        ],
      }],
    };
    const plan = JSON.parse(stripFence(await reply(body)));
    assert.deepEqual(plan.actions[0], { type: 'Input', target: 42, value: expected });
  }
});

test('todoPlanReply: falls back to its argument, and reports a missing input', async () => {
  const withArg = todoPlanReply('add a todo ‘from arg’');
  const plan = JSON.parse(stripFence(await withArg({
    messages: [{ role: 'user', content: SAMPLE_DESCRIPTION }],
  })));
  assert.equal(plan.actions[0].value, 'from arg');

  const missing = JSON.parse(stripFence(await todoPlanReply()({
    messages: [{ role: 'user', content: 'add a todo ‘x’\n[1] h1 "todos"' }],
  })));
  assert.deepEqual(missing, {
    thought: 'cannot find the todo input', actions: [], done: true, error: 'todo input not found',
  });
});

test('static server: content types, CSP only under /strict/, traversal blocked', async () => {
  const srv = await startStaticServer({});
  try {
    assert.match(srv.origin, /^http:\/\/127\.0\.0\.1:\d+$/);
    assert.equal(srv.url('/todo.html'), `${srv.origin}/todo.html`);

    const plain = await fetch(srv.url('/todo.html'));
    assert.equal(plain.status, 200);
    assert.match(plain.headers.get('content-type'), /^text\/html/);
    assert.equal(plain.headers.get('content-security-policy'), null);
    const html = await plain.text();
    assert.match(html, /What needs to be done\?/);
    assert.doesNotMatch(html, /<script>(?!<\/script>)|\son[a-z]+=/i, 'no inline scripts/handlers');

    const strict = await fetch(srv.url('/strict/todo.html'));
    assert.equal(strict.status, 200);
    assert.equal(strict.headers.get('content-security-policy'), "script-src 'self'; object-src 'none'");
    assert.equal(await strict.text(), html);

    const js = await fetch(srv.url('/strict/todo.js'));
    assert.match(js.headers.get('content-type'), /^text\/javascript/);
    assert.equal(js.headers.get('content-security-policy'), "script-src 'self'; object-src 'none'");
    assert.match((await fetch(srv.url('todo.css'))).headers.get('content-type'), /^text\/css/);
    assert.match((await fetch(srv.origin + '/')).headers.get('content-type'), /^text\/html/);

    assert.equal((await fetch(srv.url('/nope.html'))).status, 404);
    assert.equal(await rawGet(srv.origin, '/../support/self-test.mjs'), 403);
    assert.equal(await rawGet(srv.origin, '/strict/../../etc/passwd'), 403);
    assert.equal(await rawGet(srv.origin, '/%2e%2e/support/self-test.mjs'), 403);
    assert.equal(await rawGet(srv.origin, '/..%2fsupport%2fself-test.mjs'), 403);
  } finally {
    await srv.close();
  }
});
