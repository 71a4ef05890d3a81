// decisions §8 and §13: batch's own hooks, each alone, over the real catalogue. precheck checks
// every item once (name, args, then permission and turn); checkAccess checks again only what may
// change while the batch waits for its slot; keepsTurn is true only when a turn-gated item
// succeeded; the frame step runs the items through FrameEnv.runFrame.
import t from 'tap';
import batch from '../../src/commands/action/batch.ts';
import type { BatchResult } from '../../src/commands/action/batch/schema.ts';
import type { CheckContext, FrameEnv } from '../../src/commands/define.ts';
import { COMMANDS } from '../../src/commands/index.ts';
import { CommandRegistry } from '../../src/commands/registry.ts';
import type { Outcome } from '../../src/errors/bridge-error.ts';
import { turnNotYoursFailure } from '../../src/errors/failures.ts';
import { PERMISSIONS } from '../../src/auth/permissions.ts';
import type { CallerContext } from '../../src/shared/caller.ts';
import { captureLog } from '../helpers/log.ts';

const player: CallerContext = {
  agentId: 'p1',
  agentIndex: 1,
  role: 'faction_player',
  permissions: PERMISSIONS.read_own_faction | PERMISSIONS.action_faction | PERMISSIONS.advance_time,
  claimedKingdomId: 1,
  scenario: 'pvp',
  partialIntel: false,
  turnBased: true,
  legacyMode: false,
};

function checksWith(holder: { id: string }): { checks: CheckContext; turnChecks: string[] } {
  const binds = new Set(COMMANDS.flatMap((def) => def.binds));
  const registry = new CommandRegistry(COMMANDS, binds, captureLog().log);
  const turnChecks: string[] = [];
  const checks: CheckContext = {
    commands: registry,
    checkTurn: (def, caller) => {
      turnChecks.push(def.name);
      return def.turnGated && caller.agentId !== holder.id ? turnNotYoursFailure(`it is ${holder.id}'s turn; '${def.name}' waits for your turn`) : null;
    },
  };
  return { checks, turnChecks };
}

const spawn = { name: 'spawn', args: { entity_id: 'sheep', x: 10, y: 10 } };
const tile = { name: 'get_tile', args: { x: 1, y: 1 } };

t.test('precheck: names and args of every item first, then each permission and turn, naming the item', async (t) => {
  const holder = { id: 'p1' };
  const { checks, turnChecks } = checksWith(holder);
  t.equal(batch.precheck!({ commands: [tile, spawn] }, player, checks), null);
  t.same(turnChecks, ['get_tile', 'spawn'], 'each item gets its turn check');

  // A bad item anywhere is 400 before any item's permission or turn is asked.
  turnChecks.length = 0;
  const denied = { name: 'invoke_power', args: { power_id: 'rain', x: 5, y: 5 } };
  t.match(batch.precheck!({ commands: [denied, { name: 'spawn', args: { x: 1 } }] }, player, checks), {
    code: 'BAD_ARGS',
    message: /^commands\[1\]: args must have required property/,
  });
  t.same(turnChecks, []);
  t.match(batch.precheck!({ commands: [tile, denied] }, player, checks), { code: 'PERMISSION_DENIED', message: /^commands\[1\]: agent 'p1'/ });
  holder.id = 'p2';
  t.match(batch.precheck!({ commands: [tile, spawn] }, player, checks), { code: 'TURN_NOT_YOURS', message: /^commands\[1\]: it is p2's turn/ });
  t.match(batch.precheck!({ commands: [{ name: 'batch', args: { commands: [tile] } }] }, player, checks), {
    code: 'BAD_ARGS',
    message: /^commands\[0\]: a batch cannot contain a batch/,
  });
  t.match(batch.precheck!({ commands: [{ name: 'spwan' }] }, player, checks), {
    code: 'BAD_ARGS',
    did_you_mean: ['spawn'],
    message: /^commands\[0\]: unknown command 'spwan'/,
  });
});

t.test('checkAccess: the turn and the permissions as they are with the slot held, nothing else', async (t) => {
  const holder = { id: 'p1' };
  const { checks, turnChecks } = checksWith(holder);
  const request = { commands: [tile, spawn] };
  t.equal(batch.precheck!(request, player, checks), null, 'allowed while waiting for a slot');
  holder.id = 'p2'; // the turn passes while it waits
  turnChecks.length = 0;
  t.match(batch.checkAccess!(request, player, checks), { code: 'TURN_NOT_YOURS', message: /^commands\[1\]: it is p2's turn; 'spawn' waits/ });
  t.same(turnChecks, ['get_tile', 'spawn'], 'the items are looked up again, not re-validated');
  t.equal(batch.checkAccess!({ commands: [tile, { name: 'list_kingdoms' }] }, player, checks), null, 'reads are not turn-gated');
  // A reload took the caller's action permission while it waited.
  const demoted = { ...player, permissions: PERMISSIONS.read_own_faction };
  holder.id = 'p1';
  t.match(batch.checkAccess!(request, demoted, checks), { code: 'PERMISSION_DENIED', message: /^commands\[1\]: .*action_faction or action_global/ });
});

t.test('keepsTurn: only when a turn-gated item succeeded in the game', async (t) => {
  const { checks } = checksWith({ id: 'p1' });
  const ok = { ok: true as const, result: {} };
  const failed = { ok: false as const, error: { code: 'OUT_OF_BOUNDS', message: 'x' } };
  const skipped = { ok: false as const, skipped: true as const };
  const cases: Array<[what: string, commands: Array<{ name: string }>, results: BatchResult['results'], keeps: boolean]> = [
    ['a failed read, its spawn skipped', [tile, spawn], [failed, skipped], false],
    ['a spawn that ran, then a failed read', [spawn, tile], [ok, failed], true],
    ['a spawn the game refused', [spawn], [failed], false],
    ['reads only', [tile, { name: 'list_kingdoms' }], [ok, ok], false],
    ['a control (pause) that ran', [tile, { name: 'pause' }], [ok, ok], true],
  ];
  for (const [what, commands, results, keeps] of cases) {
    const result = { results, completed: 0, failed: 0, skipped: 0 };
    t.equal(batch.keepsTurn!({ commands }, result, checks), keeps, what);
  }
});

t.test('the frame step runs each item through FrameEnv.runFrame with its args', async (t) => {
  const ran: Array<[string, unknown]> = [];
  const env = {
    args: { commands: [tile, { name: 'list_kingdoms' }] },
    runFrame: (name: string, args: Record<string, unknown>): Outcome<unknown> => (ran.push([name, args]), { ok: true, value: name }),
  } as unknown as FrameEnv<{ commands: Array<{ name: string; args?: Record<string, unknown> }> }>;
  t.same(batch.frame!(env as never), {
    results: [
      { ok: true, result: 'get_tile' },
      { ok: true, result: 'list_kingdoms' },
    ],
    completed: 2,
    failed: 0,
    skipped: 0,
  });
  t.same(ran, [
    ['get_tile', { x: 1, y: 1 }],
    ['list_kingdoms', {}],
  ]);
});
