// Mock OpenAI-compatible chat-completions server for tests.
// No real model is reachable in CI, so tests script the replies they expect
// and inspect the requests the extension actually sent.
import http from 'node:http';
import fs from 'node:fs';
import { fileURLToPath } from 'node:url';

// CORS on every response: the caller is an extension service worker, and
// preflights (custom Authorization / Content-Type headers) must succeed.
const CORS_HEADERS = {
  'Access-Control-Allow-Origin': '*',
  'Access-Control-Allow-Headers': '*',
  'Access-Control-Allow-Methods': 'GET, POST, OPTIONS',
};

// Rough token estimate (~4 chars per token) so usage blocks look plausible.
const estimateTokens = (text) => Math.max(1, Math.ceil(String(text ?? '').length / 4));

function send(res, status, body, headers = {}) {
  const isString = typeof body === 'string' || Buffer.isBuffer(body);
  const payload = isString ? body : JSON.stringify(body);
  res.writeHead(status, {
    ...CORS_HEADERS,
    'Content-Type': isString ? 'text/plain; charset=utf-8' : 'application/json',
    ...headers,
  });
  res.end(payload);
}

function openAiError(message, type = 'server_error') {
  return { error: { message, type } };
}

function readBody(req) {
  return new Promise((resolve, reject) => {
    const chunks = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

// Resolve reply functions (possibly async, possibly returning other functions)
// down to a plain object form, so the answering code handles one shape only.
async function normalizeReply(reply, body, request) {
  let r = reply;
  for (let depth = 0; typeof r === 'function' && depth < 8; depth++) {
    r = await r(body, request);
  }
  if (typeof r === 'string') return { content: r };
  if (r == null) return { content: '' };
  if (typeof r === 'object') return r;
  return { content: String(r) };
}

// Split content into a few deltas so clients really have to reassemble it.
function splitContent(content, parts = 4) {
  if (!content) return [''];
  const size = Math.max(1, Math.ceil(content.length / parts));
  const out = [];
  for (let i = 0; i < content.length; i += size) out.push(content.slice(i, i + size));
  return out;
}

function promptText(body) {
  const msgs = Array.isArray(body?.messages) ? body.messages : [];
  return msgs.map((m) => messageText(m)).join('\n');
}

/** Text of one chat message; content may be a string or an array of parts. */
export function messageText(message) {
  const c = message?.content;
  if (typeof c === 'string') return c;
  if (Array.isArray(c)) {
    return c
      .filter((p) => p && p.type === 'text' && typeof p.text === 'string')
      .map((p) => p.text)
      .join('\n');
  }
  return '';
}

/** The check after a model says done: its system prompt's first words (crate/core/src/prompt/check.rs). */
function isSuccessCheck(body) {
  const system = Array.isArray(body?.messages) ? body.messages.find((m) => m.role === 'system') : null;
  const text = system ? messageText(system) : typeof body?.system === 'string' ? body.system : '';
  return text.startsWith("You verify a web agent's work.");
}

let idCounter = 0;

/** Waits `ms`, or less if the caller hangs up first (a stopped run must not keep timers alive). */
function delayUnlessClosed(res, ms) {
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, ms);
    res.on('close', () => {
      clearTimeout(timer);
      resolve();
    });
  });
}

/**
 * What both wires answer alike: a delay, a verbatim body (garbage or truncated JSON for the
 * client), an error in the wire's own shape. True when the reply was answered here.
 */
async function answeredAlike(res, reply, errorBody) {
  if (reply.delayMs) await delayUnlessClosed(res, reply.delayMs);
  if (res.destroyed) return true;
  // `reset`: the connection drops before any answer (a proxy or server crash).
  if (reply.reset) {
    res.socket?.destroy();
    return true;
  }
  const status = reply.status ?? 200;
  const headers = reply.headers ?? {};
  if (reply.rawBody !== undefined) {
    send(res, status, String(reply.rawBody), headers);
    return true;
  }
  if (reply.error !== undefined) {
    send(res, status === 200 ? 500 : status, errorBody(String(reply.error)), headers);
    return true;
  }
  return false;
}

async function answerCompletion(res, reply, body) {
  if (await answeredAlike(res, reply, (m) => openAiError(m))) return;
  const status = reply.status ?? 200;
  const extraHeaders = reply.headers ?? {};

  const content = String(reply.content ?? '');
  // [{name, arguments}] answered in the API's tool-calling field (arguments as JSON text).
  const toolCalls = (reply.toolCalls ?? []).map((c, i) => ({
    index: i, id: `call_${i}`, type: 'function',
    function: { name: c.name, arguments: typeof c.arguments === 'string' ? c.arguments : JSON.stringify(c.arguments ?? {}) },
  }));
  const model = body?.model ?? 'mock-model';
  const id = `chatcmpl-mock-${++idCounter}`;
  const created = Math.floor(Date.now() / 1000);
  const promptTokens = estimateTokens(promptText(body));
  const completionTokens = estimateTokens(content);
  // `usage: null` answers without any, as some local servers do.
  const usage = reply.usage === null ? undefined : reply.usage ?? {
    prompt_tokens: promptTokens,
    completion_tokens: completionTokens,
    total_tokens: promptTokens + completionTokens,
  };

  if (body?.stream === true) {
    res.writeHead(status, {
      ...CORS_HEADERS,
      'Content-Type': 'text/event-stream',
      'Cache-Control': 'no-cache',
      Connection: 'keep-alive',
      ...extraHeaders,
    });
    const chunk = (delta, finishReason = null) => ({
      id, object: 'chat.completion.chunk', created, model,
      choices: [{ index: 0, delta, finish_reason: finishReason }],
    });
    const write = (obj) => res.write(`data: ${JSON.stringify(obj)}\n\n`);
    const pieces = splitContent(content);
    for (const [i, piece] of pieces.entries()) {
      // `truncateAfter: n`: the stream breaks off after n deltas, with no end event.
      if (reply.truncateAfter === i) {
        // Let what was written reach the client first: the answer is cut, not missing.
        await delayUnlessClosed(res, 200);
        res.socket?.destroy();
        return;
      }
      // Only the first delta carries the role, as OpenAI does.
      write(chunk(i === 0 ? { role: 'assistant', content: piece } : { content: piece }));
      if (reply.chunkDelayMs) await delayUnlessClosed(res, reply.chunkDelayMs);
      if (res.destroyed) return;
    }
    for (const call of toolCalls) {
      // Name first, then the arguments in two halves, as real servers split them.
      const args = call.function.arguments;
      const half = Math.ceil(args.length / 2);
      write(chunk({ tool_calls: [{ ...call, function: { name: call.function.name, arguments: args.slice(0, half) } }] }));
      write(chunk({ tool_calls: [{ index: call.index, function: { arguments: args.slice(half) } }] }));
    }
    write(chunk({}, toolCalls.length ? 'tool_calls' : 'stop'));
    if (body?.stream_options?.include_usage && usage) {
      write({ id, object: 'chat.completion.chunk', created, model, choices: [], usage });
    }
    res.write('data: [DONE]\n\n');
    res.end();
    return;
  }

  send(res, status, {
    id,
    object: 'chat.completion',
    created,
    model,
    choices: [{
      index: 0,
      message: { role: 'assistant', content: toolCalls.length && !content ? null : content, ...(toolCalls.length ? { tool_calls: toolCalls.map(({ index, ...c }) => c) } : {}) },
      finish_reason: toolCalls.length ? 'tool_calls' : 'stop',
    }],
    usage,
  }, extraHeaders);
}

/** Anthropic Messages: the same scripted replies, in its JSON or its named stream events. */
async function answerMessages(res, reply, body) {
  if (await answeredAlike(res, reply, (message) => ({ type: 'error', error: { type: 'api_error', message } }))) return;
  const status = reply.status ?? 200;
  const extraHeaders = reply.headers ?? {};
  const content = String(reply.content ?? '');
  const tools = (reply.toolCalls ?? []).map((c, i) => ({ type: 'tool_use', id: `toolu_${i}`, name: c.name, input: typeof c.arguments === 'string' ? JSON.parse(c.arguments) : (c.arguments ?? {}) }));
  const system = typeof body?.system === 'string' ? body.system : '';
  const inputTokens = estimateTokens(system + promptText(body));
  const outputTokens = estimateTokens(content);
  const id = `msg_mock_${++idCounter}`;
  if (body?.stream === true) {
    res.writeHead(status, { ...CORS_HEADERS, 'Content-Type': 'text/event-stream', 'Cache-Control': 'no-cache', ...extraHeaders });
    const ev = (name, data) => res.write(`event: ${name}\ndata: ${JSON.stringify({ type: name, ...data })}\n\n`);
    ev('message_start', { message: { id, type: 'message', role: 'assistant', content: [], model: body.model, usage: { input_tokens: inputTokens, output_tokens: 1 } } });
    ev('content_block_start', { index: 0, content_block: { type: 'text', text: '' } });
    ev('ping', {});
    for (const piece of splitContent(content)) {
      ev('content_block_delta', { index: 0, delta: { type: 'text_delta', text: piece } });
      if (reply.chunkDelayMs) await delayUnlessClosed(res, reply.chunkDelayMs);
      if (res.destroyed) return;
    }
    ev('content_block_stop', { index: 0 });
    tools.forEach((t, i) => {
      const json = JSON.stringify(t.input);
      ev('content_block_start', { index: i + 1, content_block: { ...t, input: {} } });
      ev('content_block_delta', { index: i + 1, delta: { type: 'input_json_delta', partial_json: json.slice(0, 5) } });
      ev('content_block_delta', { index: i + 1, delta: { type: 'input_json_delta', partial_json: json.slice(5) } });
      ev('content_block_stop', { index: i + 1 });
    });
    ev('message_delta', { delta: { stop_reason: tools.length ? 'tool_use' : 'end_turn' }, usage: { output_tokens: outputTokens } });
    ev('message_stop', {});
    res.end();
    return;
  }
  send(res, status, {
    id, type: 'message', role: 'assistant', model: body?.model,
    content: [...(content ? [{ type: 'text', text: content }] : []), ...tools],
    stop_reason: tools.length ? 'tool_use' : 'end_turn',
    usage: reply.usage ?? { input_tokens: inputTokens, output_tokens: outputTokens },
  }, extraHeaders);
}

/**
 * Start the mock on 127.0.0.1.
 * @returns {Promise<{baseUrl:string, requests:object[], checks:object[], script:(...replies:any[])=>void,
 *   scriptCheck:(...replies:any[])=>void,
 *   setFallback:(reply:any)=>void, reset:()=>void, close:()=>Promise<void>}>}
 */
export async function startMockModel({ port = 0 } = {}) {
  const requests = [];
  const queue = [];
  let fallback = null;
  const checks = [];
  const checkQueue = [];

  const server = http.createServer(async (req, res) => {
    try {
      const path = new URL(req.url, 'http://127.0.0.1').pathname;
      if (req.method === 'OPTIONS') {
        res.writeHead(204, { ...CORS_HEADERS, 'Access-Control-Max-Age': '600' });
        res.end();
        return;
      }
      if (req.method === 'GET' && path === '/v1/models') {
        send(res, 200, { object: 'list', data: [{ id: 'mock-model', object: 'model' }] });
        return;
      }
      const route = { '/v1/chat/completions': answerCompletion, '/v1/messages': answerMessages }[path];
      if (req.method === 'POST' && route) {
        const raw = await readBody(req);
        let body;
        try {
          body = JSON.parse(raw);
        } catch {
          // Record it anyway so tests can see what the client sent.
          requests.push({ method: req.method, path, headers: req.headers, body: raw, receivedAt: Date.now() });
          send(res, 400, openAiError('mock model: request body is not valid JSON', 'invalid_request_error'));
          return;
        }
        const request = { method: req.method, path, headers: req.headers, body, receivedAt: Date.now() };
        // The check after "done" has a script of its own, so scripts of planning replies stay
        // as they were; unscripted, it confirms (as a model does when the page shows the goal).
        if (isSuccessCheck(body)) {
          checks.push(request);
          const reply = await normalizeReply(checkQueue.length > 0 ? checkQueue.shift() : 'yes: the page shows it', body, request);
          await route(res, reply, body);
          return;
        }
        requests.push(request);

        let next;
        if (queue.length > 0) next = queue.shift();
        else if (fallback !== null) next = fallback;
        else {
          send(res, 500, openAiError('mock model: no scripted reply left'));
          return;
        }
        const reply = await normalizeReply(next, body, request);
        await route(res, reply, body);
        return;
      }
      send(res, 404, openAiError(`mock model: no route for ${req.method} ${path}`, 'invalid_request_error'));
    } catch (err) {
      // A throwing reply function must surface as a 500, not hang the client.
      if (!res.headersSent) send(res, 500, openAiError(`mock model: ${err?.message ?? err}`));
      else res.end();
    }
  });

  await new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', resolve);
  });
  const baseUrl = `http://127.0.0.1:${server.address().port}/v1`;

  return {
    baseUrl,
    requests,
    checks,
    script(...replies) { queue.push(...replies); },
    /** Replies to the check after "done" ('yes: …' / 'no: …'), in order. */
    scriptCheck(...replies) { checkQueue.push(...replies); },
    setFallback(reply) { fallback = reply ?? null; },
    reset() { queue.length = 0; requests.length = 0; fallback = null; checks.length = 0; checkQueue.length = 0; },
    close() {
      return new Promise((resolve) => {
        // Drop keep-alive sockets so close() does not wait on idle clients.
        server.closeAllConnections?.();
        server.close(() => resolve());
      });
    },
  };
}

// Quote pairs accepted around the todo text: ‘ ’, ' ', " ", “ ”. The quote must
// follow "todo" on the same line, so element lines in the page description
// (e.g. `[1] h1 "todos"`) are not mistaken for the instruction.
const TODO_TEXT_RE = /\btodo\b[^‘'"“\n]*?(?:‘([^’]*)’|'([^']*)'|"([^"]*)"|“([^”]*)”)/i;
const TODO_INPUT_LINE_RE = /^\s*\[(\d+)\][^\n]*What needs to be done\?/m;

/**
 * Reply function that plays a planner: finds the todo input's id in the page
 * description and the todo text in the instruction, and answers a fenced JSON
 * plan (the fence exercises the client's fence stripping).
 * @param {string} [instructionText] fallback instruction, used only when the
 *   user message holds no quoted todo text
 */
export function todoPlanReply(instructionText) {
  return (body) => {
    const msgs = Array.isArray(body?.messages) ? body.messages : [];
    const userText = msgs.filter((m) => m?.role === 'user').map(messageText).join('\n');

    const idMatch = userText.match(TODO_INPUT_LINE_RE);
    if (!idMatch) {
      return JSON.stringify({
        thought: 'cannot find the todo input', actions: [], done: true, error: 'todo input not found',
      });
    }
    const m = userText.match(TODO_TEXT_RE) ?? String(instructionText ?? '').match(TODO_TEXT_RE);
    const value = m ? (m[1] ?? m[2] ?? m[3] ?? m[4]) : '';
    const id = Number(idMatch[1]);
    const plan = {
      thought: `type "${value}" into the todo input [${id}] and press Enter`,
      actions: [
        { type: 'Input', target: id, value },
        { type: 'KeyPress', key: 'Enter' },
      ],
      done: true,
    };
    return '```json\n' + JSON.stringify(plan, null, 2) + '\n```';
  };
}

// CLI: node tests/support/mock-model.mjs --port 8787 [--reply-file F.json]
if (process.argv[1] && fileURLToPath(import.meta.url) === fs.realpathSync(process.argv[1])) {
  const args = process.argv.slice(2);
  const opt = (name) => {
    const i = args.indexOf(name);
    return i >= 0 ? args[i + 1] : undefined;
  };
  const port = Number(opt('--port') ?? 8787);
  const replyFile = opt('--reply-file');
  const mock = await startMockModel({ port });
  if (replyFile) {
    const replies = JSON.parse(fs.readFileSync(replyFile, 'utf8'));
    if (!Array.isArray(replies)) throw new Error(`${replyFile}: expected a JSON array of replies`);
    mock.script(...replies);
  }
  console.log(`mock model listening on ${mock.baseUrl}`);
  const stop = () => mock.close().then(() => process.exit(0));
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
}
