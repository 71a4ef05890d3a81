// `gcb events [--kinds a,b] [--since N]`: follows GET /events (decisions §7) until Ctrl-C, one line an
// event: JSON on a pipe, a readable one-liner on a terminal. A lost connection is resumed (the
// client's event stream); what happens to the stream goes to stderr, never between the events.
import type { BridgeClient } from '../client/client.ts';
import { BridgeConnectionError } from '../client/errors.ts';
import type { BridgeEvent, StreamNotice } from '../client/events.ts';
import { UsageError } from './args.ts';

export interface EventsRun {
  client: BridgeClient;
  kinds: string | undefined;
  since: string | undefined;
  json: boolean;
  out(text: string): void;
  err(text: string): void;
  /** Ends the run (Ctrl-C): the loop stops and the run returns normally. */
  signal: AbortSignal;
}

/** Streams events until `signal` aborts. Throws what ends it otherwise (a typed error: exit code by gcb). */
export async function followEvents(run: EventsRun): Promise<void> {
  const kinds = run.kinds === undefined ? undefined : run.kinds.split(',').map((kind) => kind.trim());
  if (kinds !== undefined && kinds.every((kind) => kind === '')) throw new UsageError('--kinds needs at least one kind: --kinds war_declared,kingdom_fell');
  let since: number | undefined;
  if (run.since !== undefined) {
    if (!/^\d{1,15}$/.test(run.since)) throw new UsageError(`--since ${run.since} is not allowed: an event seq (a non-negative integer; 0: every event kept)`);
    since = Number(run.since);
  }
  // Until a first connection works, "nobody answers" is an exit code (4), not a reason to wait.
  const local = new AbortController();
  let connected = false;
  let unreachable: Error | undefined;
  const onNotice = (notice: StreamNotice) => {
    if (notice.type === 'connected') {
      if (connected) run.err(`gcb events: reconnected (resuming after seq ${stream.lastSeq ?? 'none'})\n`);
      connected = true;
    } else if (notice.type === 'gap') {
      const then = notice.action === 'history' ? 'going on with the kept events' : 'skipping to live events';
      run.err(`gcb events: events ${notice.from} to ${notice.to} are no longer kept by the bridge; ${then}\n`);
    } else if (!connected && notice.reason === 'unreachable') {
      unreachable = notice.error;
      local.abort();
    } else {
      const why = notice.error ? `${notice.reason}: ${notice.error.message}` : notice.reason;
      run.err(`gcb events: stream lost (${why}); reconnecting in ${(notice.delayMs / 1000).toFixed(1)} s\n`);
    }
  };
  const stream = run.client.events({
    ...(kinds === undefined ? {} : { kinds }),
    ...(since === undefined ? {} : { since }),
    signal: AbortSignal.any([run.signal, local.signal]),
    onNotice,
  });
  for await (const event of stream) run.out(run.json ? `${JSON.stringify(event)}\n` : `${renderEvent(event)}\n`);
  if (unreachable !== undefined) {
    throw unreachable instanceof BridgeConnectionError ? unreachable : new BridgeConnectionError(unreachable.message, run.client.url);
  }
}

const ENVELOPE = new Set(['seq', 'kind', 'tick', 'at_utc', 'kingdom_ids']);
const FIELD_CHARS = 160;

/** `#42 16:04:28 tick 1834 war_declared [1,2] sides=[...]`: one line, long fields shortened. */
export function renderEvent(event: BridgeEvent): string {
  const time = typeof event.at_utc === 'string' ? event.at_utc.slice(11, 19) : '';
  const kingdoms = Array.isArray(event.kingdom_ids) && event.kingdom_ids.length > 0 ? ` [${event.kingdom_ids.join(',')}]` : '';
  const fields: string[] = [];
  for (const [key, value] of Object.entries(event)) {
    if (ENVELOPE.has(key)) continue;
    let text = typeof value === 'string' ? value : JSON.stringify(value);
    if (text.length > FIELD_CHARS) text = `${text.slice(0, FIELD_CHARS)}…`;
    fields.push(`${key}=${/[\s"]/.test(text) && typeof value === 'string' ? JSON.stringify(text) : text}`);
  }
  return `#${event.seq} ${time} tick ${event.tick} ${event.kind}${kingdoms}${fields.length > 0 ? ` ${fields.join(' ')}` : ''}`.replace(/[\r\n]/g, ' ');
}
