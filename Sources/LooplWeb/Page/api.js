// The page's requests to `loopl serve`: the API key (asked for once, kept for the tab) and the
// server-sent events of a run.

const $ = (id) => document.getElementById(id);

/** Asks the server, adding the key when one was given; a 401 asks for the key once and tries again. */
export async function api(path, options = {}) {
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

/** The JSON body of an answer; an error answer throws its message. */
export async function json(path, options) {
  const response = await api(path, options);
  const body = await response.json();
  if (!response.ok) throw new Error(body.error ? body.error.message : `HTTP ${response.status}`);
  return body;
}

/** The request options that POST `body` as JSON. */
export function postJSON(body) {
  return { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body) };
}

/** Reads the server-sent events of a run, giving each event's data, parsed, to `onEvent`. */
export async function readEvents(response, onEvent) {
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
      if (data) onEvent(JSON.parse(data));
    }
  }
}
