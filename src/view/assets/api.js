// Every data call of the viewer: the bridge's ordinary API, the token in a header (never in a URL).

const TOKEN_KEY = 'gcb.viewer.token';

export const token = {
  get: () => sessionStorage.getItem(TOKEN_KEY),
  set: (value) => sessionStorage.setItem(TOKEN_KEY, value),
  clear: () => sessionStorage.removeItem(TOKEN_KEY),
};

/** A failed call, with the bridge's error code when it sent one. */
export class ApiError extends Error {
  constructor(status, code, message) {
    super(message);
    this.status = status;
    this.code = code;
  }
}

const headers = (secret, extra = {}) => ({ authorization: `Bearer ${secret}`, ...extra });

async function failure(res) {
  let code = `HTTP_${res.status}`;
  let message = res.statusText;
  try {
    const body = await res.json();
    code = body.error?.code ?? code;
    message = body.error?.message ?? message;
  } catch {
    // not JSON: keep the status line
  }
  return new ApiError(res.status, code, message);
}

/** POST /cmd: the command's result, or an ApiError. */
export async function cmd(secret, name, args = {}) {
  const res = await fetch('/cmd', { method: 'POST', headers: headers(secret, { 'content-type': 'application/json' }), body: JSON.stringify({ name, args }) });
  if (!res.ok) throw await failure(res);
  return (await res.json()).result;
}

export async function getJson(secret, path) {
  const res = await fetch(path, { headers: headers(secret) });
  if (!res.ok) throw await failure(res);
  return res.json();
}

export async function getText(secret, path) {
  const res = await fetch(path, { headers: headers(secret) });
  if (!res.ok) throw await failure(res);
  return res.text();
}

/**
 * GET /events read with fetch streaming, so the token goes in the Authorization header (an
 * EventSource cannot send one). Reconnects with Last-Event-ID after a drop; `onEvent(kind, data)`
 * per event, `onState(text)` when the connection changes. Returns a stop function.
 */
export function streamEvents(secret, { onEvent, onState }) {
  let stopped = false;
  let controller = null;
  let lastId = null;
  const run = async () => {
    while (!stopped) {
      controller = new AbortController();
      try {
        const extra = lastId === null ? {} : { 'last-event-id': String(lastId) };
        const res = await fetch('/events', { headers: headers(secret, extra), signal: controller.signal });
        if (!res.ok) {
          const error = await failure(res);
          onState(`events: ${error.code}`);
          if (res.status === 401 || res.status === 403) return;
        } else {
          onState('live');
          await readStream(res.body, (id, kind, data) => {
            if (id !== null) lastId = id;
            onEvent(kind, data);
          });
          if (!stopped) onState('reconnecting');
        }
      } catch {
        if (stopped) return;
        onState('reconnecting');
      }
      await new Promise((done) => setTimeout(done, 1000));
    }
  };
  void run();
  return () => {
    stopped = true;
    controller?.abort();
  };
}

async function readStream(body, deliver) {
  const reader = body.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = '';
  for (;;) {
    const { value, done } = await reader.read();
    if (done) return;
    buffer += value;
    let end;
    while ((end = buffer.indexOf('\n\n')) !== -1) {
      const block = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      let id = null;
      let kind = 'message';
      let data = '';
      for (const line of block.split('\n')) {
        if (line.startsWith('id: ')) id = Number(line.slice(4));
        else if (line.startsWith('event: ')) kind = line.slice(7);
        else if (line.startsWith('data: ')) data += line.slice(6);
      }
      if (data === '') continue; // a keep-alive comment
      try {
        deliver(id, kind, JSON.parse(data));
      } catch {
        // a malformed block is skipped, the stream goes on
      }
    }
  }
}

/** The Prometheus text format, as far as the viewer needs it: name{labels} value. */
export function parseMetrics(text) {
  const series = [];
  for (const line of text.split('\n')) {
    if (line === '' || line.startsWith('#')) continue;
    const match = /^([a-zA-Z_:][\w:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!match) continue;
    const labels = {};
    if (match[2]) for (const pair of match[2].matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)) labels[pair[1]] = pair[2];
    series.push({ name: match[1], labels, value: Number(match[3]) });
  }
  return series;
}

export function sumOf(series, name, filter = () => true) {
  let total = 0;
  for (const s of series) if (s.name === name && filter(s.labels)) total += s.value;
  return total;
}
