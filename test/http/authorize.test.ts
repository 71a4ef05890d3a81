// spec step 4 and the error table, through createApp() with stand-in dependencies (app.request()).
import t from 'tap';
import pino from 'pino';
import { Admission } from '../../src/admission/semaphore.ts';
import { CredentialTable, sha256 } from '../../src/auth/credentials.ts';
import { PERMISSIONS, ROLE_MASKS } from '../../src/auth/permissions.ts';
import { COMMANDS } from '../../src/commands/index.ts';
import type { CommandDef } from '../../src/commands/define.ts';
import { CommandRegistry } from '../../src/commands/registry.ts';
import type { Failure } from '../../src/errors/bridge-error.ts';
import { turnNotYoursFailure } from '../../src/errors/failures.ts';
import { ERROR_STATUS, type ErrorCode } from '../../src/errors/codes.ts';
import { createApp } from '../../src/http/app.ts';
import type { Execution } from '../../src/dispatch/execute.ts';
import type { Session } from '../../src/session/session.ts';
import type { CallerContext } from '../../src/shared/caller.ts';
import { createSharedState } from '../../src/shared/layout.ts';
import type { BridgeInfo } from '../../src/shared/protocol.ts';

function caller(agentId: string, role: keyof typeof ROLE_MASKS, extra: Partial<CallerContext> = {}): CallerContext {
  return {
    agentId,
    agentIndex: 0,
    role,
    permissions: ROLE_MASKS[role],
    claimedKingdomId: null,
    scenario: 'pvp',
    partialIntel: true,
    turnBased: true,
    legacyMode: false,
    ...extra,
  };
}

/** A fake run's value; a batch's has the shape its keepsTurn hook reads: every item ran. */
function answerOf(name: string, args: unknown): unknown {
  if (name !== 'batch') return { done: name };
  const { commands } = args as { commands: unknown[] };
  return { results: commands.map(() => ({ ok: true, result: null })), completed: commands.length, failed: 0, skipped: 0 };
}

function setup(options: { next?: Failure; turnHolder?: string } = {}) {
  const executed: string[] = [];
  const acted: string[] = [];
  const session: Pick<Session, 'checkTurn' | 'touch' | 'acted'> = {
    checkTurn: (def: CommandDef, who: CallerContext) =>
      options.turnHolder && def.turnGated && who.role !== 'god' && who.agentId !== options.turnHolder
        ? turnNotYoursFailure(`it is ${options.turnHolder}'s turn`)
        : null,
    touch: () => {},
    acted: (who: CallerContext) => void acted.push(who.agentId),
  };
  const functions = new Set(['getUiState', 'getWorldState', 'setPaused', 'dismissWindow']);
  const app = createApp({
    port: () => 8723,
    credentials: new CredentialTable([
      { digest: sha256('god-token'), caller: caller('zeus', 'god') },
      { digest: sha256('player-token'), caller: caller('athena', 'faction_player') },
      { digest: sha256('observer-token'), caller: caller('owl', 'observer') },
    ]),
    enabled: () => true,
    registry: new CommandRegistry(COMMANDS, functions, pino({ enabled: false })),
    admission: new Admission(2, 200),
    session,
    shared: createSharedState(),
    info: {} as BridgeInfo,
    log: pino({ enabled: false }),
    maxBodyBytes: 1024 * 1024,
    capabilities: '{}',
    execute: async (def, args): Promise<Execution> => {
      executed.push(def.name);
      return { outcome: options.next ?? { ok: true, value: answerOf(def.name, args) }, queueWaitMs: 0, runMs: 0, settled: null };
    },
  });
  const cmd = async (token: string, name: string, args: unknown = {}) => {
    const res = await app.request('/cmd', {
      method: 'POST',
      headers: { host: '127.0.0.1:8723', authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ name, args }),
    });
    return { status: res.status, body: (await res.json()) as any, headers: res.headers };
  };
  return { app, cmd, executed, acted };
}

t.test('403 PERMISSION_DENIED names the missing permission, before any game-state work', async (t) => {
  const { cmd, executed } = setup();
  const denied = await cmd('observer-token', 'pause');
  t.equal(denied.status, 403);
  t.match(denied.body.error, { code: 'PERMISSION_DENIED', command: 'pause', message: /lacks the advance_time permission/ });
  t.same(executed, [], 'nothing ran');
  t.equal((await cmd('player-token', 'pause')).status, 200, 'faction players may advance time');
  t.equal((await cmd('observer-token', 'get_world_state')).status, 200, 'reads need no permission');
});

t.test('409 TURN_NOT_YOURS after the permission check; god bypasses; dismiss_window and reads are not gated', async (t) => {
  const { cmd, executed } = setup({ turnHolder: 'ares' });
  const notYours = await cmd('player-token', 'pause');
  t.equal(notYours.status, 409);
  t.match(notYours.body.error, { code: 'TURN_NOT_YOURS', command: 'pause' });
  t.equal((await cmd('observer-token', 'pause')).status, 403, 'a missing permission is 403, not 409');
  t.equal((await cmd('player-token', 'dismiss_window')).status, 200, 'dismiss_window is exempt');
  t.equal((await cmd('player-token', 'get_ui_state')).status, 200, 'reads are never gated');
  t.equal((await cmd('god-token', 'pause')).status, 200, 'god bypasses the turn');
  t.same(executed, ['dismiss_window', 'get_ui_state', 'pause']);
});

t.test('decisions §11: only a gated command that answered 200 keeps a turn (session.acted)', async (t) => {
  const { cmd, acted } = setup();
  t.equal((await cmd('player-token', 'get_world_state')).status, 200);
  t.equal((await cmd('player-token', 'no_such_command')).status, 404);
  t.equal((await cmd('player-token', 'pause', { extra: 1 })).status, 400);
  t.equal((await cmd('observer-token', 'pause')).status, 403);
  t.same(acted, [], 'reads and refusals keep nothing');
  t.equal((await cmd('player-token', 'pause')).status, 200);
  t.equal((await cmd('player-token', 'batch', { commands: [{ name: 'get_world_state' }] })).status, 200);
  t.equal((await cmd('player-token', 'batch', { commands: [{ name: 'get_world_state' }, { name: 'resume' }] })).status, 200);
  t.same(acted, ['athena', 'athena'], 'pause, and the batch holding resume');
  const failing = setup({ next: { ok: false, code: 'GAME_CRASH', message: 'boom' } });
  t.equal((await failing.cmd('player-token', 'pause')).status, 500);
  t.same(failing.acted, [], 'a failure keeps nothing');
});

t.test('every error code maps to its status and the envelope shape', async (t) => {
  const spec: Record<ErrorCode, number> = {
    UNKNOWN_COMMAND: 404,
    BAD_ARGS: 400,
    UNKNOWN_ASSET: 400,
    OUT_OF_BOUNDS: 400,
    GAME_REJECTED: 422,
    GAME_CRASH: 500,
    MAIN_THREAD_TIMEOUT: 504,
    UNAUTHORIZED: 401,
    DISABLED: 503,
    BUSY: 503,
    PERMISSION_DENIED: 403,
    FACTION_SCOPE_VIOLATION: 403,
    TURN_NOT_YOURS: 409,
  };
  t.same(ERROR_STATUS, spec, 'the table is exactly the spec');
  for (const code of Object.keys(spec) as ErrorCode[]) {
    const failure: Failure = { ok: false, code, message: `a ${code}` };
    if (code === 'UNKNOWN_ASSET') failure.did_you_mean = ['human', 'humanoid'];
    if (code === 'GAME_REJECTED' || code === 'GAME_CRASH') failure.exception = { type: 'Error', message: 'm', stack_top: 'at x' };
    const { cmd } = setup({ next: failure });
    const res = await cmd('god-token', 'get_ui_state', {});
    t.equal(res.status, spec[code], code);
    t.same(Object.keys(res.body).sort(), ['error', 'ok']);
    t.match(res.body.error, { code, message: `a ${code}`, command: 'get_ui_state', args: {} });
    if (code === 'UNKNOWN_ASSET') t.same(res.body.error.did_you_mean, ['human', 'humanoid'], 'did_you_mean inside error, beside code');
    if (code === 'GAME_REJECTED') t.same(res.body.error.exception, { type: 'Error', message: 'm', stack_top: 'at x' });
    t.equal(res.headers.get('retry-after'), code === 'BUSY' ? '1' : null);
  }
});

t.test('a result that cannot be serialised is GAME_CRASH, not a dropped connection', async (t) => {
  const circular: Record<string, unknown> = {};
  circular.self = circular;
  const { cmd } = setup({ next: { ok: true, value: circular } as never });
  const res = await cmd('god-token', 'get_ui_state');
  t.equal(res.status, 500);
  t.equal(res.body.error.code, 'GAME_CRASH');
});

t.test('permission bits are the decisions §4 values', async (t) => {
  t.same(PERMISSIONS, {
    read_all: 1,
    read_own_faction: 2,
    action_global: 4,
    action_faction: 8,
    control_world: 16,
    send_message: 32,
    recv_message: 64,
    send_broadcast: 128,
    advance_time: 256,
  });
  t.equal(ROLE_MASKS.god, 511);
});
