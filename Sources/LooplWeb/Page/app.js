// The transcript page: settings, the prompt, the sessions sidebar, and the run's events folded
// into the transcript (transcript.js) as they stream from POST /loopl/v1/runs (api.js), drawn
// as they change (view.js).
import { api, json, postJSON, readEvents } from './api.js';
import { Transcript } from './transcript.js';
import { TranscriptView, element, showMetrics } from './view.js';

const $ = (id) => document.getElementById(id);
const state = { transcript: new Transcript(), session: sessionStorage.getItem('loopl.session'), run: null, toolsOn: false };
const view = new TranscriptView($('transcript'));

/** Draws what changed in the transcript. */
function render() {
  view.render(state.transcript.items, { running: Boolean(state.run), decide });
}

/** Sends the decision on a waiting call; the run's approvalAnswered event then marks the card. */
async function decide(item, decision, buttons) {
  for (const button of buttons.children) button.disabled = true;
  const path = `/loopl/v1/runs/${encodeURIComponent(state.run)}/approvals/${encodeURIComponent(item.call.id)}`;
  try {
    await json(path, postJSON({ decision }));
  } catch (error) {
    handle({ error: { message: String(error.message || error) } });
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

/** True while some thinking is open: the next event that is not thinking closes it, and its line changes. */
function thinkingOpen() {
  return state.transcript.items.some((item) => item.kind === 'reasoning' && item.started !== undefined && item.ended === undefined);
}

/** Folds one event (or an error) into the transcript and draws it when the transcript changed. */
function handle(event) {
  if (event.error) {
    state.transcript.note(`error: ${event.error.message}`);
    state.transcript.items[state.transcript.items.length - 1].error = true;
    render();
    return;
  }
  const open = thinkingOpen();
  const changed = state.transcript.apply(event);
  if (event.event === 'metrics') showMetrics(event.metrics);
  if (event.event === 'finished') $('status').textContent = `${event.reason} after ${event.iterations} iteration${event.iterations === 1 ? '' : 's'}`;
  if (changed || (open && !thinkingOpen())) render();
}

async function send(prompt) {
  if (!prompt.trim() || state.run !== null) return;
  state.run = '';
  setRunning(true);
  $('status').textContent = 'running';
  state.transcript.user(prompt);
  render();
  try {
    const response = await api('/loopl/v1/runs', postJSON(settingsBody(prompt)));
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
    await readEvents(response, handle);
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

/** The settings form: the models, and a checkbox for each built-in tool set and MCP server the server offers. */
function showSettings(settings, models) {
  showModels(models);
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
}

/** One option per model, each saying where the model is in its life: "llama (unloaded)". */
function showModels(models) {
  const options = [...$('model').options];
  for (const model of models.data) {
    let option = options.find((known) => known.value === model.id);
    if (!option) {
      option = element('option');
      option.value = model.id;
      $('model').append(option);
    }
    option.textContent = model.state ? `${model.id} (${model.state})` : model.id;
    option.title = model.error || '';
  }
}

async function start() {
  const [settings, models] = await Promise.all([json('/loopl/v1/settings'), json('/v1/models')]);
  showSettings(settings, models);
  // Models load and unload as the server goes: their states are read again when the picker is used.
  $('model').onfocus = () => json('/v1/models').then(showModels).catch(() => {});
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
