import { Type } from '@sinclair/typebox';
import { LIMITS } from '../../limits.ts';
import { defineCommand } from '../define.ts';

/** What the main loop answers (src/events/hub.ts): the events as JSON text, parsed here, off the main loop. */
interface Received {
  items: string[];
  count: number;
  next_cursor: number;
  oldest_seq: number;
  gap?: { from: number; to: number };
}

export default defineCommand({
  name: 'recv_events',
  category: 'read',
  description:
    'Events that happened after since_seq (the pull form of GET /events), oldest first, filtered by kinds and by what ' +
    'you may see. With wait_ms it answers as soon as one matching event exists, or empty at the deadline, holding no ' +
    'admission slot while it waits. Pass next_cursor as since_seq next time; gap says which events the history no longer holds.',
  args: Type.Object(
    {
      since_seq: Type.Optional(Type.Integer({ minimum: 0, maximum: Number.MAX_SAFE_INTEGER, default: 0, description: 'return events with seq > since_seq' })),
      kinds: Type.Optional(
        Type.Array(Type.String({ minLength: 1, maxLength: 64 }), {
          maxItems: 64,
          description: 'only these kinds (GET /capabilities lists event_kinds); an unknown kind is BAD_ARGS',
        }),
      ),
      max: Type.Optional(Type.Integer({ minimum: 1, maximum: LIMITS.recvEventsMaxMax, default: LIMITS.recvEventsMaxDefault })),
      wait_ms: Type.Optional(
        Type.Integer({ minimum: 0, maximum: LIMITS.recvEventsWaitMaxMs, default: 0, description: 'wait this long for a first matching event' }),
      ),
    },
    { additionalProperties: false },
  ),
  result: Type.Object({
    items: Type.Array(
      Type.Object(
        {
          seq: Type.Integer(),
          kind: Type.String(),
          tick: Type.Integer(),
          at_utc: Type.String(),
          kingdom_ids: Type.Array(Type.Integer()),
        },
        { additionalProperties: true, description: "the event's own fields follow (docs/events.md)" },
      ),
    ),
    count: Type.Integer(),
    next_cursor: Type.Integer({ description: 'since_seq for the next call' }),
    oldest_seq: Type.Integer({ description: 'the oldest seq the history still holds' }),
    gap: Type.Optional(Type.Object({ from: Type.Integer(), to: Type.Integer() }, { description: 'events after since_seq that are no longer kept' })),
  }),
  // Visibility (decisions §7) decides what each caller gets; no permission is needed to ask.
  permission: {},
  binds: [],
  runsOnGameThread: false,
  pool: async (env) => {
    const received = (await env.recvEvents(env.args)) as Received;
    const items = received.items.map((json) => JSON.parse(json) as Record<string, unknown>);
    return { ...received, items };
  },
});
