// GET /events (decisions §7): Server-Sent Events through hono's streaming helper. Authentication,
// Host and Origin are the app's shared middleware (401 before anything); a stream holds no
// admission slot and the kill switch does not stop it, but streams count toward max_event_streams.
import { Hono } from 'hono';
import { streamSSE } from 'hono/streaming';
import { badArgsFailure, type Failure } from '../errors/failures.ts';
import { header, type AppContext, type Env } from '../http/context.ts';
import { fail, NO_STORE, NOSNIFF } from '../http/respond.ts';
import type { EventHub } from './hub.ts';
import { isFailure } from './stream-leases.ts';
import type { StreamSink } from './subscriber.ts';

const SEQ = /^\d{1,15}$/;

export function eventsRoutes(hub: EventHub): Hono<Env> {
  return new Hono<Env>().get('/events', (c) => {
    const caller = c.get('caller');
    const kinds = hub.parseKinds(c.req.query('kinds')?.split(','), 'kinds');
    if (kinds !== null && 'ok' in kinds) return fail(c, kinds, '', {});
    // Last-Event-ID is what a reconnecting EventSource sends, newer than the since of its URL.
    const since = resumePoint(c);
    if (typeof since === 'object') return fail(c, since, '', {});
    const lease = hub.streamLeases.takeFor(caller);
    if (isFailure(lease)) return fail(c, lease, '', {});
    c.get('line').status = 200;
    c.header('x-request-id', c.get('line').rid);
    // The run and the newest seq this caller may see now (decisions §13: without read_all, the last
    // event it may see): the stream's backlog is what follows `since` up to this seq (a client
    // skipping a backlog after a gap, or resuming with nothing received yet, needs it).
    c.header('x-event-run', hub.run);
    c.header('x-event-seq', String(hub.visibleSeq(caller)));
    const response = streamSSE(c, async (stream) => {
      const outgoing = c.env?.outgoing;
      const sink: StreamSink = {
        write: (chunk) => stream.write(chunk),
        // Stryker disable next-line ArrowFunction: streamSSE closes the stream itself once this callback, which awaits the end, returns
        close: () => stream.close(),
        // A client that stopped reading cannot be ended cleanly: drop its connection.
        destroy: () => (outgoing ? outgoing.destroy() : void stream.abort()),
      };
      const subscriber = hub.subscribe({ caller, kinds, since, sink, lease });
      stream.onAbort(() => subscriber.abort());
      await subscriber.done;
    });
    // decisions §13: the stream carries the headers of every other answer (streamSSE sets
    // Cache-Control: no-cache, which lets a cache keep what only this caller may see).
    response.headers.set('x-content-type-options', NOSNIFF);
    response.headers.set('cache-control', NO_STORE);
    return response;
  });
}

function resumePoint(c: AppContext): number | undefined | Failure {
  const lastEventId = header(c, 'last-event-id');
  const value = lastEventId ?? c.req.query('since');
  if (value === undefined) return undefined;
  if (!SEQ.test(value)) {
    const what = lastEventId === undefined ? 'since' : 'Last-Event-ID';
    const shown = value.length > 32 ? `${value.slice(0, 32)}…` : value;
    return badArgsFailure(`${what} '${shown}' is not a non-negative integer (an event seq)`);
  }
  return Number(value);
}
