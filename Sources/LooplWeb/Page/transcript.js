// What the page shows of an agent run: the run's events (docs/events.md) folded into items,
// exactly as Transcript.apply does in Swift. Unknown event kinds change nothing.

export class Transcript {
  constructor() { this.clear(); }

  /** Removes everything. */
  clear() {
    this.items = [];
    this.metrics = null;
    this.iteration = 0;
    this.isRunning = false;
    this.lastItemOpen = false;
    this.iterationStart = 0;
  }

  /** Adds the user's message and marks the run started. */
  user(text) {
    this.items.push({ kind: 'user', text, iteration: 0 });
    this.isRunning = true;
    this.iteration = 0;
    this.lastItemOpen = false;
  }

  /** Adds a program note. */
  note(text) {
    this.items.push({ kind: 'note', text, iteration: this.iteration });
    this.lastItemOpen = false;
  }

  /** Folds one event in; returns true when the items changed. */
  apply(event, now = Date.now()) {
    if (event.event !== 'reasoning' && event.event !== 'metrics') this.endThinking(now);
    switch (event.event) {
      case 'iterationStarted':
        this.iteration = event.iteration;
        this.iterationStart = this.items.length;
        this.lastItemOpen = false;
        return false;
      case 'retrying':
        this.retry(event.iteration, event.reason);
        return true;
      case 'text':
        return this.append(event.text, 'assistant', now);
      case 'reasoning':
        return this.append(event.text, 'reasoning', now);
      case 'metrics':
        this.metrics = event.metrics;
        return false;
      case 'assistantMessage':
        this.lastItemOpen = false;
        return false;
      case 'toolStarted':
        this.items.push({ kind: 'toolCall', call: event.toolCall, result: null, iteration: this.iteration });
        this.lastItemOpen = false;
        return true;
      case 'toolFinished':
        return this.attach(event.result);
      case 'approvalRequested':
        this.items.push({ kind: 'approval', call: event.toolCall, decision: null, iteration: this.iteration });
        this.lastItemOpen = false;
        return true;
      case 'approvalAnswered':
        return this.decide(event.callId, event.decision);
      case 'warning':
        this.items.push({ kind: 'warning', text: event.message, iteration: this.iteration });
        this.lastItemOpen = false;
        return true;
      case 'finished':
        this.isRunning = false;
        this.lastItemOpen = false;
        return false;
      default:
        return false;
    }
  }

  /** The turn starts again: its partial text and thinking are withdrawn, its warnings stay. */
  retry(n, reason) {
    const start = Math.min(this.iterationStart, this.items.length);
    const kept = this.items.slice(start).filter((item) => item.kind !== 'assistant' && item.kind !== 'reasoning');
    this.items = this.items.slice(0, start).concat(kept);
    this.items.push({ kind: 'note', text: `retrying turn ${n}: ${reason}`, iteration: this.iteration });
    this.iterationStart = this.items.length;
    this.lastItemOpen = false;
  }

  /** Adds a delta of text or thinking: to the last item when it is open and of that kind. */
  append(delta, kind, now) {
    if (!delta) return false;
    const last = this.items[this.items.length - 1];
    if (this.lastItemOpen && last && last.kind === kind) {
      last.text += delta;
    } else {
      const item = { kind, text: delta, iteration: this.iteration };
      if (kind === 'reasoning') item.started = now;
      this.items.push(item);
      this.lastItemOpen = true;
    }
    return true;
  }

  /** Marks the thinking that is still open as done, for its "Thought for N s" line. */
  endThinking(now) {
    for (const item of this.items) {
      if (item.kind === 'reasoning' && item.started !== undefined && item.ended === undefined) item.ended = now;
    }
  }

  /** Gives the decision to the last approval still waiting for it. */
  decide(callId, decision) {
    const item = this.last((item) => item.kind === 'approval' && item.decision === null && item.call.id === callId);
    if (!item) return false;
    item.decision = decision;
    return true;
  }

  /** Gives the result to the last call still waiting for it; a call that never started (denied,
   *  or cancelled while it waited for approval) comes after its approval, with the result. */
  attach(result) {
    const open = this.last((item) => item.kind === 'toolCall' && item.result === null && item.call.id === result.callId);
    if (open) {
      open.result = result;
      return true;
    }
    const approval = this.last((item) => item.kind === 'approval' && item.call.id === result.callId);
    if (this.last((item) => item.kind === 'toolCall' && item.call.id === result.callId) || !approval) return false;
    this.items.push({ kind: 'toolCall', call: approval.call, result, iteration: this.iteration });
    this.lastItemOpen = false;
    return true;
  }

  /** The last item that `matches`, or undefined. */
  last(matches) {
    for (let i = this.items.length - 1; i >= 0; i--) {
      if (matches(this.items[i])) return this.items[i];
    }
    return undefined;
  }

  /** A saved conversation (OpenAI-style messages) as items; tool results find their calls. */
  static fromMessages(messages) {
    const transcript = new Transcript();
    for (const message of messages) {
      const text = typeof message.content === 'string' ? message.content : '';
      if (message.role === 'user') {
        transcript.user(text);
      } else if (message.role === 'assistant') {
        transcript.iteration += 1;
        const thought = message.reasoning_content;
        if (thought) transcript.items.push({ kind: 'reasoning', text: thought, iteration: transcript.iteration });
        if (text) transcript.items.push({ kind: 'assistant', text, iteration: transcript.iteration });
        for (const call of message.tool_calls || []) {
          transcript.items.push({ kind: 'toolCall', call, result: null, iteration: transcript.iteration });
        }
      } else if (message.role === 'tool') {
        transcript.attach({ callId: message.tool_call_id, name: message.name, content: text,
                            isError: text.startsWith('Error:') });
      }
    }
    transcript.isRunning = false;
    return transcript;
  }
}

/** The items as Swift's Transcript.Item compares them: kind, text, call, result and decision. */
export function comparable(items) {
  return items.map((item) => {
    if (item.kind === 'toolCall') return { kind: item.kind, call: item.call, result: item.result };
    if (item.kind === 'approval') return { kind: item.kind, call: item.call, decision: item.decision };
    return { kind: item.kind, text: item.text };
  });
}
