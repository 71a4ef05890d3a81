// An end-to-end PvP session of two agents over HTTP, refereed by a god.
import t from 'tap';
import { until } from '../helpers/bridge.ts';
import { agent, startAgents } from './helpers.ts';

t.setTimeout(180_000);

t.test('two rivals take turns, talk, and a pulsed power stops when its turn ends', async (t) => {
  const { as, b } = await startAgents(
    t,
    {
      scenario: 'pvp',
      turn_based: true,
      turn_order: ['athena', 'ares'],
      agents: [
        agent('athena', 'faction_player', {
          kingdom_claim: 'auto:0',
          objectives: [{ id: 'win', label: 'Outlast ares', kind: 'wipe_kingdom', target: 'auto:1' }],
        }),
        agent('ares', 'faction_player', { kingdom_claim: 'auto:1' }),
        agent('zeus', 'god'),
      ],
    },
    { config: { fps: 10 } },
  );
  const actor = (await as('athena', 'list_actors')).body.result.items.find((a: { race: string }) => a.race === 'human')?.id ?? 'human';
  const land = async () => {
    // a land tile to spawn on
    for (let y = 10; y < 250; y += 7)
      for (let x = 10; x < 250; x += 7) {
        const tile = (await as('zeus', 'get_tile', { x, y })).body.result;
        if (!/water|ocean|lava/.test(tile.tile_id)) return { x, y };
      }
    throw new Error('no land');
  };
  const spot = await land();

  t.equal((await as('athena', 'session_info')).body.result.current_turn, 'athena');
  t.equal((await as('athena', 'spawn', { entity_id: actor, x: spot.x, y: spot.y })).status, 200, 'athena acts on her turn');
  const blocked = await as('ares', 'spawn', { entity_id: actor, x: spot.x, y: spot.y });
  t.equal(blocked.status, 409);
  t.match(blocked.body.error, { code: 'TURN_NOT_YOURS', message: /athena's turn/ });
  t.equal((await as('ares', 'get_world_state')).status, 200, 'reads are never gated');
  t.equal((await as('ares', 'dismiss_window')).status, 200, 'dismiss_window is exempt');
  t.equal((await as('ares', 'invoke_power', { power_id: 'lightning', x: 5, y: 5 })).status, 403, 'permission is checked before the turn');

  t.same((await as('athena', 'send_message', { to: 'ares', content: 'your move' })).body.result, { seq: 1, recipients: ['ares'], broadcast: false });
  t.same((await as('athena', 'turn_advance')).body.result, { previous: 'athena', next: 'ares', forced_by_god: false });
  const inbox = (await as('ares', 'recv_messages')).body.result;
  t.same(
    inbox.items.map((m: { content: string; from: string }) => [m.from, m.content]),
    [['athena', 'your move']],
  );
  t.equal((await as('ares', 'spawn', { entity_id: actor, x: spot.x, y: spot.y })).status, 200, "now it is ares's turn");
  t.equal((await as('athena', 'turn_advance')).status, 409, 'athena cannot pass a turn she does not hold');
  t.same((await as('zeus', 'turn_advance')).body.result, { previous: 'ares', next: 'athena', forced_by_god: true }, 'a god can force it');

  const objectives = (await as('athena', 'objective_status')).body.result;
  t.match(objectives.agents[0], { agent_id: 'athena', objectives: [{ id: 'win', kind: 'wipe_kingdom', status: /done|pending/ }] });
  t.ok(objectives.kingdoms.length > 0);
  t.equal(b.bridge.stats().slotsInUse, 0);
});

t.test('a pulsed invoke_power stops with stopped: "turn_ended" when its caller\'s turn ends', async (t) => {
  const { as, b } = await startAgents(
    t,
    {
      scenario: 'pvp',
      turn_based: true,
      agents: [
        agent('mage', 'faction_player', { kingdom_claim: 'auto:0', permissions: ['read_own_faction', 'action_global', 'advance_time'] }),
        agent('rival', 'faction_player', { kingdom_claim: 'auto:1' }),
        agent('zeus', 'god'),
      ],
    },
    { config: { fps: 10 } },
  );
  const power = (await as('zeus', 'list_powers')).body.result.items.find((p: { is_toggle?: boolean }) => !p.is_toggle).id;
  const pulsed = as('mage', 'invoke_power', { power_id: power, x: 10, y: 10, x2: 60, y2: 60, pulses: 100 });
  // The run is on the game thread (drained, not answered), and a frame has ended since: its first
  // pulse lands in the frame that registers it. A fixed sleep could end before that on a loaded machine.
  await until(() => b.bridge.stats().dispatcherPending === 1 && b.bridge.stats().queued === 0, 30_000, 'the run to start');
  const frames = b.bridge.stats().frames.frames;
  await until(() => b.bridge.stats().frames.frames >= frames + 2, 30_000, 'a frame or two of pulses');
  t.same((await as('zeus', 'turn_advance')).body.result, { previous: 'mage', next: 'rival', forced_by_god: true });
  const result = (await pulsed).body.result;
  t.equal(result.stopped, 'turn_ended');
  t.ok(result.pulses_applied > 0 && result.pulses_applied < 100, `${result.pulses_applied} pulses before the turn ended`);
});
