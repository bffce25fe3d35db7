// The transcript page: settings, the prompt, the sessions sidebar, and the run's events folded
// into the transcript (transcript.js) as they stream from POST /loopl/v1/runs.
import { Transcript } from './transcript.js';

const $ = (id) => document.getElementById(id);
const state = { transcript: new Transcript(), session: sessionStorage.getItem('loopl.session'), run: null, toolsOn: false };

/** Asks the server, adding the key when one was given; a 401 asks for the key once and tries again. */
async function api(path, options = {}) {
  const send = () => {
    const headers = { ...(options.headers || {}) };
    const key = sessionStorage.getItem('loopl.key');
    if (key) headers.Authorization = `Bearer ${key}`;
    return fetch(path, { ...options, headers });
  };
  let response = await send();
  if (response.status === 401) {
    await askKey();
    response = await send();
  }
  return response;
}

/** Shows the key dialog once, however many requests were refused. */
let keyAsked = null;
function askKey() {
  keyAsked ??= new Promise((resolve) => {
    $('key-form').onsubmit = () => {
      sessionStorage.setItem('loopl.key', $('key').value);
      keyAsked = null;
      resolve();
    };
    $('key-dialog').showModal();
  });
  return keyAsked;
}

async function json(path, options) {
  const response = await api(path, options);
  const body = await response.json();
  if (!response.ok) throw new Error(body.error ? body.error.message : `HTTP ${response.status}`);
  return body;
}

function element(tag, className, text) {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (text !== undefined) node.textContent = text;
  return node;
}

function pretty(value) {
  if (typeof value === 'string') {
    try { return JSON.stringify(JSON.parse(value), null, 2); } catch { return value; }
  }
  return JSON.stringify(value, null, 2);
}

function toolCard(item) {
  const card = element('details', 'tool');
  const summary = element('summary');
  const fn = item.call.function || {};
  summary.append(element('span', 'name', fn.name || item.call.name || 'tool'), ' ');
  if (item.result) {
    summary.append(element('span', item.result.isError ? 'bad' : 'ok', item.result.isError ? '✗' : '✓'));
    if (item.result.durationMs !== undefined) summary.append(' ', element('span', 'time', `${Math.round(item.result.durationMs)} ms`));
  } else {
    summary.append(element('span', 'time', '…'));
  }
  card.append(summary, element('h3', '', 'Arguments'), element('pre', 'arguments', pretty(fn.arguments ?? {})));
  if (item.result) card.append(element('h3', '', 'Result'), element('pre', 'result', pretty(item.result.content)));
  return card;
}

const decisions = { once: 'Approved', run: 'Approved for this run', deny: 'Denied' };

/** A call that waits for approval: its arguments, and Approve / Deny buttons until it is decided. */
function approvalCard(item) {
  const card = element('div', 'approval');
  const fn = item.call.function || {};
  const head = element('div', 'head');
  head.append(element('span', 'name', fn.name || 'tool'), ' ',
              element('span', 'decision', item.decision ? decisions[item.decision] || item.decision : 'waits for your approval'));
  card.append(head, element('pre', 'arguments', pretty(fn.arguments ?? {})));
  if (item.decision === null && state.run) {
    const buttons = element('div', 'buttons');
    for (const [decision, label] of [['once', 'Approve'], ['run', 'Approve for this run'], ['deny', 'Deny']]) {
      const button = element('button', decision, label);
      button.type = 'button';
      button.onclick = () => decide(item, decision, buttons);
      buttons.append(button);
    }
    card.append(buttons);
  }
  return card;
}

/** Sends the decision on a waiting call; the run's approvalAnswered event then marks the card. */
async function decide(item, decision, buttons) {
  for (const button of buttons.children) button.disabled = true;
  const path = `/loopl/v1/runs/${encodeURIComponent(state.run)}/approvals/${encodeURIComponent(item.call.id)}`;
  try {
    await json(path, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ decision }) });
  } catch (error) {
    handle({ error: { message: String(error.message || error) } });
  }
}

function thinking(item, open) {
  const details = element('details', 'thinking');
  details.open = open;
  const seconds = item.ended !== undefined ? ((item.ended - item.started) / 1000).toFixed(1) : null;
  const done = item.ended !== undefined || item.started === undefined;
  details.append(element('summary', '', done ? (seconds ? `Thought for ${seconds} s` : 'Thought') : 'Thinking…'),
                 element('div', '', item.text));
  return details;
}

/** Draws the transcript from its items, keeping the cards the user opened open. */
function render() {
  const view = $('transcript');
  const opened = new Set([...view.querySelectorAll('details[open]')].map((node) => node.dataset.index));
  const stick = view.scrollTop + view.clientHeight >= view.scrollHeight - 8;
  view.replaceChildren();
  let iteration = 0;
  state.transcript.items.forEach((item, index) => {
    if (item.kind === 'user') iteration = 0;
    if (item.iteration > 1 && item.iteration !== iteration) {
      const line = element('hr', 'iteration');
      line.setAttribute('aria-label', `iteration ${item.iteration}`);
      view.append(line);
    }
    if (item.kind !== 'user') iteration = item.iteration;
    let node;
    switch (item.kind) {
      case 'user': node = element('div', 'user', item.text); break;
      case 'assistant': node = element('div', 'assistant', item.text); break;
      case 'reasoning': node = thinking(item, opened.has(String(index))); break;
      case 'toolCall': node = toolCard(item); node.open = opened.has(String(index)); break;
      case 'approval': node = approvalCard(item); break;
      case 'warning': node = element('div', 'warning', `⚠ ${item.text}`); break;
      default: node = element('div', item.error ? 'note error' : 'note', item.text);
    }
    node.dataset.index = String(index);
    view.append(node);
  });
  if (stick) view.scrollTop = view.scrollHeight;
}

function showMetrics(metrics) {
  if (!metrics) return;
  if (metrics.ttftMs !== undefined) $('ttft').textContent = Math.round(metrics.ttftMs);
  if (metrics.tokensPerSecond !== undefined) $('speed').textContent = metrics.tokensPerSecond.toFixed(1);
  if (metrics.contextMax) {
    $('context').max = metrics.contextMax;
    $('context').value = metrics.contextUsed;
    $('context-text').textContent = `${metrics.contextUsed} / ${metrics.contextMax}`;
  }
}

function setRunning(running) {
  $('send').disabled = running;
  $('stop').disabled = !running;
}

function selectedTools() {
  return [...document.querySelectorAll('#tools input:checked')].map((box) => box.value);
}

function settingsBody(prompt) {
  const body = {
    model: $('model').value || undefined,
    messages: [{ role: 'user', content: prompt }],
    toolChoice: $('tool-choice').value,
    temperature: Number($('temperature').value),
    maxTokens: Number($('max-tokens').value),
    tools: selectedTools().filter((name) => !name.startsWith('mcp:')),
    mcp: selectedTools().filter((name) => name.startsWith('mcp:')).map((name) => name.slice(4)),
  };
  if (state.session) body.session = state.session;
  return body;
}

/** Reads the server-sent events of a run and folds each into the transcript. */
async function readEvents(response) {
  const reader = response.body.getReader();
  const decoder = new TextDecoder();
  let buffer = '';
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    buffer += decoder.decode(value, { stream: true });
    let end;
    while ((end = buffer.indexOf('\n\n')) >= 0) {
      const block = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      const data = block.split('\n').filter((line) => line.startsWith('data: ')).map((line) => line.slice(6)).join('\n');
      if (data) handle(JSON.parse(data));
    }
  }
}

function handle(event) {
  if (event.error) {
    state.transcript.note(`error: ${event.error.message}`);
    state.transcript.items[state.transcript.items.length - 1].error = true;
  } else {
    state.transcript.apply(event);
    if (event.event === 'metrics') showMetrics(event.metrics);
    if (event.event === 'finished') $('status').textContent = `${event.reason} after ${event.iterations} iteration${event.iterations === 1 ? '' : 's'}`;
  }
  render();
}

async function send(prompt) {
  if (!prompt.trim() || state.run !== null) return;
  state.run = '';
  setRunning(true);
  $('status').textContent = 'running';
  state.transcript.user(prompt);
  render();
  try {
    const response = await api('/loopl/v1/runs', {
      method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(settingsBody(prompt)),
    });
    if (!response.ok) {
      const body = await response.json().catch(() => ({}));
      handle({ error: { message: body.error ? body.error.message : `HTTP ${response.status}` } });
      $('status').textContent = 'failed';
      return;
    }
    state.run = response.headers.get('Loopl-Run-Id');
    state.session = response.headers.get('Loopl-Session-Id');
    sessionStorage.setItem('loopl.session', state.session);
    loadSessions();
    await readEvents(response);
  } catch (error) {
    handle({ error: { message: String(error.message || error) } });
  } finally {
    if (['running', 'stopping'].includes($('status').textContent)) $('status').textContent = 'ended without finishing';
    state.run = null;
    setRunning(false);
    render();
    loadSessions();
  }
}

async function stop() {
  if (!state.run) return;
  $('status').textContent = 'stopping';
  await api(`/loopl/v1/runs/${encodeURIComponent(state.run)}/cancel`, { method: 'POST' });
}

async function loadSessions() {
  let list;
  try { list = await json('/loopl/v1/sessions'); } catch { return; }
  const ul = $('sessions');
  ul.replaceChildren();
  for (const session of list.data) {
    const li = element('li');
    const open = element('button', 'open', session.title);
    open.type = 'button';
    open.title = `${session.title} · ${session.model} · ${new Date(session.updated * 1000).toLocaleString()}`;
    open.setAttribute('aria-current', String(session.id === state.session));
    open.onclick = () => openSession(session.id);
    const remove = element('button', 'delete', '✕');
    remove.type = 'button';
    remove.setAttribute('aria-label', `Delete ${session.title}`);
    remove.onclick = async () => {
      await api(`/loopl/v1/sessions/${encodeURIComponent(session.id)}`, { method: 'DELETE' });
      if (session.id === state.session) newSession();
      loadSessions();
    };
    li.append(open, remove);
    ul.append(li);
  }
}

async function openSession(id) {
  if (state.run !== null) return;
  try {
    const session = await json(`/loopl/v1/sessions/${encodeURIComponent(id)}`);
    state.session = id;
    sessionStorage.setItem('loopl.session', id);
    state.transcript = Transcript.fromMessages(session.messages);
    if (session.model && [...$('model').options].some((option) => option.value === session.model)) $('model').value = session.model;
  } catch {
    newSession();
  }
  render();
  loadSessions();
}

function newSession() {
  state.session = null;
  sessionStorage.removeItem('loopl.session');
  state.transcript = new Transcript();
  render();
  loadSessions();
}

/** The first tool switched on takes the defaults of scripts/agent: a required call, temperature 0. */
function toolToggled(event) {
  if (event.target.checked && !state.toolsOn) {
    $('tool-choice').value = 'required';
    $('temperature').value = '0';
  }
  state.toolsOn = selectedTools().length > 0;
}

async function start() {
  const [settings, models] = await Promise.all([json('/loopl/v1/settings'), json('/v1/models')]);
  for (const model of models.data) {
    const option = element('option', '', model.id);
    option.value = model.id;
    $('model').append(option);
  }
  if (settings.model) $('model').value = settings.model;
  const tools = settings.tools.map((name) => [name, name]).concat(settings.mcp.map((name) => [`mcp:${name}`, `${name} (MCP)`]));
  for (const [value, label] of tools) {
    const box = element('input');
    box.type = 'checkbox';
    box.value = value;
    box.id = `tool-${value.replace(/[^a-z0-9_-]/gi, '-')}`;
    box.onchange = toolToggled;
    const text = element('label', '', label);
    text.htmlFor = box.id;
    $('tools').append(box, text);
  }
  state.toolsOn = selectedTools().length > 0;
  $('composer').onsubmit = (event) => {
    event.preventDefault();
    const prompt = $('prompt').value;
    $('prompt').value = '';
    send(prompt);
  };
  $('prompt').addEventListener('keydown', (event) => {
    if (event.key === 'Enter' && !event.shiftKey && !event.isComposing) {
      event.preventDefault();
      $('composer').requestSubmit();
    }
  });
  $('stop').onclick = stop;
  $('new-session').onclick = newSession;
  if (state.session) await openSession(state.session); else loadSessions();
}

start().catch((error) => handle({ error: { message: String(error.message || error) } }));
