// What the page draws: the transcript's items as cards (text, thinking, tool calls, approvals,
// notes), redrawn item by item as they change, and the token meter.

const $ = (id) => document.getElementById(id);

export function element(tag, className, text) {
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

/** A call that waits for approval: its arguments, and Approve / Deny buttons until it is decided
 *  while the run goes on; a button calls `decide(item, decision, buttons)`. */
function approvalCard(item, { running, decide }) {
  const card = element('div', 'approval');
  const fn = item.call.function || {};
  const head = element('div', 'head');
  head.append(element('span', 'name', fn.name || 'tool'), ' ',
              element('span', 'decision', item.decision ? decisions[item.decision] || item.decision : 'waits for your approval'));
  card.append(head, element('pre', 'arguments', pretty(fn.arguments ?? {})));
  if (item.decision === null && running) {
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

function thinking(item, open) {
  const details = element('details', 'thinking');
  details.open = open;
  const seconds = item.ended !== undefined ? ((item.ended - item.started) / 1000).toFixed(1) : null;
  const done = item.ended !== undefined || item.started === undefined;
  details.append(element('summary', '', done ? (seconds ? `Thought for ${seconds} s` : 'Thought') : 'Thinking…'),
                 element('div', '', item.text));
  return details;
}

/** One item's card; `open` keeps a card the user opened open when it is drawn again. */
function card(item, open, context) {
  switch (item.kind) {
    case 'user': return element('div', 'user', item.text);
    case 'assistant': return element('div', 'assistant', item.text);
    case 'reasoning': return thinking(item, open);
    case 'toolCall': { const node = toolCard(item); node.open = open; return node; }
    case 'approval': return approvalCard(item, context);
    case 'warning': return element('div', 'warning', `⚠ ${item.text}`);
    default: return element('div', item.error ? 'note error' : 'note', item.text);
  }
}

/** The transcript drawn into `#transcript`: each item's nodes (a line before a new iteration,
 *  then its card) stay as they are until the item changes, so that only what changed is drawn. */
export class TranscriptView {
  constructor(root) {
    this.root = root;
    this.rows = [];
  }

  /** Draws `items`; `context` is `{ running, decide }` for the approval cards. */
  render(items, context) {
    const view = this.root;
    const stick = view.scrollTop + view.clientHeight >= view.scrollHeight - 8;
    const rows = [];
    let iteration = 0;
    items.forEach((item, index) => {
      if (item.kind === 'user') iteration = 0;
      const separated = item.iteration > 1 && item.iteration !== iteration;
      if (item.kind !== 'user') iteration = item.iteration;
      const drawn = JSON.stringify([item, separated, item.kind === 'approval' && context.running]);
      const old = this.rows[index];
      if (old && old.item === item && old.drawn === drawn) {
        rows.push(old);
        return;
      }
      const nodes = this.nodes(item, separated, Boolean(old && old.item === item && old.card.open), context);
      if (old) {
        old.nodes[0].before(...nodes);
        for (const node of old.nodes) node.remove();
      } else {
        view.append(...nodes);
      }
      rows.push({ item, drawn, nodes, card: nodes[nodes.length - 1] });
    });
    for (const old of this.rows.slice(items.length)) for (const node of old.nodes) node.remove();
    this.rows = rows;
    if (stick) view.scrollTop = view.scrollHeight;
  }

  nodes(item, separated, open, context) {
    const nodes = [];
    if (separated) {
      const line = element('hr', 'iteration');
      line.setAttribute('aria-label', `iteration ${item.iteration}`);
      nodes.push(line);
    }
    nodes.push(card(item, open, context));
    return nodes;
  }
}

/** The meter: time to first token, speed, and how full the context is. */
export function showMetrics(metrics) {
  if (!metrics) return;
  if (metrics.ttftMs !== undefined) $('ttft').textContent = Math.round(metrics.ttftMs);
  if (metrics.tokensPerSecond !== undefined) $('speed').textContent = metrics.tokensPerSecond.toFixed(1);
  if (metrics.contextMax) {
    $('context').max = metrics.contextMax;
    $('context').value = metrics.contextUsed;
    $('context-text').textContent = `${metrics.contextUsed} / ${metrics.contextMax}`;
  }
}
