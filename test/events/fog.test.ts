// The fog form (docs/events.md): an event naming several kingdoms reaches a faction player under
// partial_intel with its own kingdom alone in kingdom_ids and without the fields the game keeps
// from fog; everyone else gets it whole. Built once per event and claim. Over HTTP: visibility.test.ts.
import pino from 'pino';
import t from 'tap';
import { StoredEvent } from '../../src/events/event.ts';
import { EventHub } from '../../src/events/hub.ts';
import { checkEventFog } from '../../src/events/kinds.ts';
import { SANDBOX_EVENT_FOG, SANDBOX_EVENTS } from '../../src/game/events.ts';
import { caller } from './callers.ts';

const spawned = () =>
  new StoredEvent(
    9,
    'spawned',
    100,
    '2026-11-25T12:00:00.000Z',
    [1, 2],
    { entity_id: 'human', x: 10, y: 12, requested: 2, spawned: 2, failed: 0, names: ['Ada', 'Bo'] },
    null,
    new Set(['names']),
  );

t.test('read_all holders and callers without partial_intel get the event whole', async (t) => {
  const event = spawned();
  for (const who of [caller('zeus', 'god', null), caller('owl', 'observer', null), caller('athena', 'faction_player', 1, false)]) {
    t.equal(event.jsonFor(who), event.json, who.agentId);
    t.equal(event.frameFor(who), event.frame);
  }
  t.match(JSON.parse(event.json), { kingdom_ids: [1, 2], names: ['Ada', 'Bo'] });
});

t.test('a fogged faction player gets its own kingdom alone, without the declared fields', async (t) => {
  const event = spawned();
  const athena = caller('athena', 'faction_player', 1);
  const view = JSON.parse(event.jsonFor(athena));
  t.same(view, {
    seq: 9,
    kind: 'spawned',
    tick: 100,
    at_utc: '2026-11-25T12:00:00.000Z',
    kingdom_ids: [1],
    entity_id: 'human',
    x: 10,
    y: 12,
    requested: 2,
    spawned: 2,
    failed: 0,
    fogged: ['names'],
  });
  t.match(JSON.parse(event.jsonFor(caller('ares', 'faction_player', 2))), { kingdom_ids: [2], fogged: ['names'] }, 'per claim');
  t.equal(event.frameFor(athena), event.frameFor({ ...athena, agentId: 'other' }), 'built once per claim, shared by callers with it');
  t.equal(Buffer.from(event.frameFor(athena)).toString(), `id: 9\nevent: spawned\ndata: ${event.jsonFor(athena)}\n\n`);
  t.notMatch(Buffer.from(event.frameFor(athena)).toString(), /Ada|"2"|\[1,2\]/, 'nothing of kingdom 2 in the frame');
  t.equal(JSON.parse(event.json).names.length, 2, 'the event itself is unchanged');
});

t.test('no declared fields: the list alone is narrowed; one kingdom: no fog form', async (t) => {
  const war = new StoredEvent(3, 'war_declared', 1, 'now', [1, 2], { sides: [{ id: 1 }, { id: 2 }] }, null, null);
  t.match(JSON.parse(war.jsonFor(caller('athena', 'faction_player', 1))), { kingdom_ids: [1], sides: [{ id: 1 }, { id: 2 }], fogged: [] });
  const own = new StoredEvent(4, 'city_founded', 1, 'now', [1], { name: 'Hold' }, null, new Set(['name']));
  t.equal(own.jsonFor(caller('athena', 'faction_player', 1)), own.json, 'an event about its own kingdom only is whole');
  t.notOk('fogged' in JSON.parse(own.json));
});

t.test('the hub stores the declared fields per kind and recv_events answers the fog form', async (t) => {
  const hub = new EventHub({
    history: 100,
    maxStreams: 4,
    multiAgent: true,
    tick: () => 0,
    keepAliveMs: 60_000,
    log: pino({ level: 'silent' }),
    kinds: ['spawned', 'ping'],
  });
  hub.setFog(checkEventFog({ spawned: ['names'] }, ['spawned']).fog);
  hub.publishBatch({
    type: 'events',
    at: Date.now(),
    dropped: 0,
    events: [{ kind: 'spawned', tick: 1, kingdomIds: [1, 2], fields: { names: ['Ada'], spawned: 1 } }],
  });
  const answer = hub.recv({}, caller('athena', 'faction_player', 1), undefined);
  const items = ('ok' in answer ? answer : { ok: false }) as { ok: boolean; value?: { items: string[] } };
  t.ok(items.ok);
  t.match(JSON.parse(items.value!.items[0]!), { kingdom_ids: [1], spawned: 1, fogged: ['names'] });
  t.notOk('names' in JSON.parse(items.value!.items[0]!));
});

t.test('eventFog is checked: unknown kinds and malformed entries are ignored with a reason', async (t) => {
  const { fog, ignored } = checkEventFog({ spawned: ['names'], nope: ['x'], bad: 'names' }, ['spawned', 'bad']);
  t.same([...fog.keys()], ['spawned']);
  t.same(
    ignored.map((i) => i.kind),
    ['nope', 'bad'],
  );
  t.equal(checkEventFog(['names'], ['spawned']).ignored.length, 1, 'not an object');
  t.equal(checkEventFog(undefined, []).fog.size, 0, 'none declared');
});

t.test('the sandbox keeps the spawn names of other kingdoms from fog, and declares only real fields', async (t) => {
  t.same(SANDBOX_EVENT_FOG, { spawned: ['names'] });
  for (const [kind, fields] of Object.entries(SANDBOX_EVENT_FOG)) {
    for (const field of fields) t.ok(field in SANDBOX_EVENTS[kind as keyof typeof SANDBOX_EVENTS].fields, `${kind}.${field} is a field of ${kind}`);
  }
});
