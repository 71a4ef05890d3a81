// A command's own hooks in POST /cmd, for any command (batch is one user): precheck runs once,
// before admission, and what it refuses never takes a slot; checkAccess runs with the slot held,
// after the command's permission and turn, before the run; keepsTurn decides whether a 200 keeps
// the turn (by default: the command is turn-gated). cmdRoutes alone, with the slot, the session
// and the run played by fakes that log the order of what happened.
import { Hono } from 'hono';
import { Type } from '@sinclair/typebox';
import t from 'tap';
import type { Admission } from '../../src/admission/semaphore.ts';
import { PERMISSIONS } from '../../src/auth/permissions.ts';
import { defineCommand, NoArgs, type CheckContext, type CommandDef } from '../../src/commands/define.ts';
import { CommandRegistry } from '../../src/commands/registry.ts';
import type { Failure } from '../../src/errors/bridge-error.ts';
import { turnNotYoursFailure } from '../../src/errors/failures.ts';
import type { Env } from '../../src/http/context.ts';
import { cmdRoutes } from '../../src/http/routes/cmd.ts';
import type { CallerContext } from '../../src/shared/caller.ts';
import { createSharedState } from '../../src/shared/layout.ts';
import { captureLog } from '../helpers/log.ts';

const caller: CallerContext = {
  agentId: 'p1',
  agentIndex: 1,
  role: 'faction_player',
  permissions: PERMISSIONS.action_faction,
  claimedKingdomId: null,
  scenario: 'sandbox',
  partialIntel: false,
  turnBased: true,
  legacyMode: false,
};

const HookedArgs = Type.Object(
  {
    refuse: Type.Optional(Type.Union([Type.Literal('precheck'), Type.Literal('access')])),
    keep: Type.Optional(Type.Boolean()),
  },
  { additionalProperties: false },
);

function setup(options: { turnPassesWhileWaiting?: boolean } = {}) {
  const order: string[] = [];
  const seen: { precheck?: CheckContext; checkAccess?: CheckContext; keepsTurn?: CheckContext; result?: unknown } = {};
  let holder = 'p1';
  const refusal = (code: Failure['code'], message: string): Failure => ({ ok: false, code, message });
  const hooked = defineCommand({
    name: 'hooked',
    category: 'read',
    description: 'a command with every hook',
    args: HookedArgs,
    result: Type.Object({ keep: Type.Boolean() }),
    permission: {},
    binds: [],
    runsOnGameThread: true,
    precheck(args, who, checks) {
      order.push(`precheck ${who.agentId}`);
      seen.precheck = checks;
      return args.refuse === 'precheck' ? refusal('BAD_ARGS', 'refused before the slot') : null;
    },
    checkAccess(args, who, checks) {
      order.push(`checkAccess ${who.agentId}`);
      seen.checkAccess = checks;
      // What the turn is now, through the context: the session's answer at this moment.
      const turn = checks.checkTurn(gated, who);
      if (turn) return turn;
      return args.refuse === 'access' ? refusal('PERMISSION_DENIED', 'refused with the slot') : null;
    },
    keepsTurn(args, result, checks) {
      order.push('keepsTurn');
      seen.keepsTurn = checks;
      seen.result = result;
      return result.keep;
    },
  });
  const gated = defineCommand({
    name: 'gated',
    category: 'action',
    description: 'an action without hooks',
    args: NoArgs,
    result: Type.Unknown(),
    permission: {},
    binds: [],
    runsOnGameThread: true,
  });
  const read = defineCommand({ ...gated, name: 'read', category: 'read', turnGated: false });
  const registry = new CommandRegistry([hooked, gated, read] as CommandDef[], new Set(), captureLog().log);
  const admission = {
    waitMs: 5000,
    acquire: () => {
      order.push('admission');
      // The turn passes while the request waits for its slot.
      if (options.turnPassesWhileWaiting) holder = 'p2';
      return { release: () => order.push('release') };
    },
  } as unknown as Admission;
  const routes = cmdRoutes({
    enabled: () => true,
    registry,
    admission,
    session: {
      checkTurn: (def, who) => {
        order.push(`turn ${def.name}`);
        return def.turnGated && holder !== who.agentId ? turnNotYoursFailure(`it is ${holder}'s turn`) : null;
      },
      acted: (who) => void order.push(`acted ${who.agentId}`),
    },
    shared: createSharedState(),
    maxBodyBytes: 1 << 20,
    execute: async (def, args) => {
      order.push(`execute ${def.name}`);
      return { outcome: { ok: true, value: { keep: (args as { keep?: boolean }).keep ?? false } }, queueWaitMs: 0, runMs: 0, settled: null };
    },
  });
  const app = new Hono<Env>();
  app.use('*', async (c, next) => {
    c.set('caller', caller);
    c.set('line', {
      rid: 'r1',
      method: 'POST',
      path: '/cmd',
      agent: 'p1',
      command: null,
      status: 0,
      code: null,
      admission_wait_ms: 0,
      queue_wait_ms: 0,
      run_ms: 0,
      ms: 0,
    });
    await next();
  });
  app.route('/', routes);
  const cmd = async (name: string, args: Record<string, unknown> = {}) => {
    order.length = 0;
    const response = await app.request('/cmd', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ name, args }) });
    return { status: response.status, body: (await response.json()) as { ok: boolean; error?: { code: string; message: string } } };
  };
  return { cmd, order, seen, registry };
}

t.test('precheck runs once, before admission; checkAccess with the slot, after permission and turn; keepsTurn after the run', async (t) => {
  const { cmd, order, seen, registry } = setup();
  const kept = await cmd('hooked', { keep: true });
  t.equal(kept.status, 200);
  t.same(order, ['precheck p1', 'admission', 'turn hooked', 'checkAccess p1', 'turn gated', 'execute hooked', 'keepsTurn', 'acted p1', 'release']);
  t.same(seen.result, { keep: true }, 'keepsTurn gets the result the run answered');
  t.equal(seen.precheck, seen.checkAccess, 'one check context for the hooks');
  t.equal(seen.keepsTurn, seen.precheck);
  t.equal(seen.precheck!.commands.get('gated')?.def.name, 'gated', 'the context looks commands up in the registry');
  t.equal(seen.precheck!.commands.unknownCommand('gatde').code, 'UNKNOWN_COMMAND');
  t.equal(registry.get('hooked')?.def.turnGated, false, 'hooked is a read: the acted above came from its keepsTurn');

  const notKept = await cmd('hooked', { keep: false });
  t.equal(notKept.status, 200);
  t.same(
    order,
    ['precheck p1', 'admission', 'turn hooked', 'checkAccess p1', 'turn gated', 'execute hooked', 'keepsTurn', 'release'],
    'keepsTurn false: no acted',
  );
});

t.test('what precheck refuses is answered at once and never takes a slot', async (t) => {
  const { cmd, order } = setup();
  const refused = await cmd('hooked', { refuse: 'precheck' });
  t.equal(refused.status, 400);
  t.match(refused.body.error, { code: 'BAD_ARGS', message: 'refused before the slot' });
  t.same(order, ['precheck p1'], 'no slot, no turn check, no run');
  const badArgs = await cmd('hooked', { refuse: 'nope' });
  t.equal(badArgs.status, 400);
  t.same(order, [], 'the schema comes first: precheck sees valid args only');
});

t.test('checkAccess sees the state with the slot held: a turn that passed while waiting refuses, and the slot goes back', async (t) => {
  const { cmd, order } = setup({ turnPassesWhileWaiting: true });
  const refused = await cmd('hooked', { keep: true });
  t.equal(refused.status, 409);
  t.match(refused.body.error, { code: 'TURN_NOT_YOURS', message: "it is p2's turn" });
  t.same(order, ['precheck p1', 'admission', 'turn hooked', 'checkAccess p1', 'turn gated', 'release'], 'refused after admission, before the run');

  const { cmd: again, order: order2 } = setup();
  const denied = await again('hooked', { refuse: 'access' });
  t.equal(denied.status, 403);
  t.same(order2, ['precheck p1', 'admission', 'turn hooked', 'checkAccess p1', 'turn gated', 'release']);
});

t.test('without keepsTurn, a 200 keeps the turn when the command is turn-gated', async (t) => {
  const { cmd, order } = setup();
  t.equal((await cmd('gated')).status, 200);
  t.same(order, ['admission', 'turn gated', 'execute gated', 'acted p1', 'release']);
  t.equal((await cmd('read')).status, 200);
  t.same(order, ['admission', 'turn read', 'execute read', 'release'], 'not gated: no acted');
});
