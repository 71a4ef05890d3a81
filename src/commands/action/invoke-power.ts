import { Type } from '@sinclair/typebox';
import { badArgs, gameRejected } from '../../errors/bridge-error.ts';
import { LIMITS } from '../../limits.ts';
import { checkPoint, TileX, TileY } from '../shared/checks.ts';
import { startPulsedRun } from '../shared/pulse-run.ts';
import { defineCommand } from '../define.ts';

export const MAX_POWER_RADIUS = 50;

export const InvokePowerArgs = Type.Object(
  {
    power_id: Type.String({ maxLength: LIMITS.idMaxLength, description: 'a power id from list_powers' }),
    x: TileX(),
    y: TileY(),
    radius: Type.Optional(Type.Integer({ minimum: 1, maximum: MAX_POWER_RADIUS, description: 'brush radius; only for powers with supports_radius' })),
    pulses: Type.Optional(Type.Integer({ minimum: 1, maximum: LIMITS.maxPulses, default: 1, description: 'pulses, one a frame (a run lasts at most 25 s)' })),
    x2: Type.Optional(Type.Integer({ description: 'end column of a pulsed run (with y2, only when pulses > 1)' })),
    y2: Type.Optional(Type.Integer({ description: 'end row of a pulsed run (with x2, only when pulses > 1)' })),
  },
  { additionalProperties: false },
);

const StopReason = Type.Union([Type.Literal('turn_ended'), Type.Literal('world_changed'), Type.Literal('deadline'), Type.Literal('error')]);

export default defineCommand({
  name: 'invoke_power',
  category: 'action',
  description:
    'Use a power at (x, y). With pulses > 1 it pulses once a frame, moving from (x, y) to (x2, y2) when given, ' +
    'for at most 25 s; a run that stops early (turn ended, world changed, deadline, error) still answers with what it did.',
  args: InvokePowerArgs,
  result: Type.Union([
    Type.Object({ power_id: Type.String(), x: Type.Integer(), y: Type.Integer(), accepted: Type.Boolean(), via: Type.Literal('direct') }),
    Type.Object({
      power_id: Type.String(),
      pulses: Type.Integer(),
      pulses_applied: Type.Integer(),
      accepted_count: Type.Integer(),
      stopped: Type.Optional(StopReason),
      error_message: Type.Optional(Type.String()),
    }),
  ]),
  // decisions §4: action_global only (a faction player must not drop a volcano on its rival).
  permission: { all: ['action_global'] },
  binds: ['invokePower', 'listPowers', 'worldSize'],
  runsOnGameThread: true,
  // decisions §8: a pulsed run spans frames, so it cannot be part of a one-frame batch.
  batchRefusal: (args) => ((args.pulses ?? 1) > 1 ? 'a pulsed invoke_power (pulses > 1) spans frames and cannot be a batch item' : null),
  frame: (env) => {
    const { game, args, catalogues } = env;
    const pulses = args.pulses ?? 1;
    const radius = args.radius ?? null;
    // Everything is validated before the world is touched: shape, then ids, then bounds, then the
    // rules the world itself refuses.
    if ((args.x2 === undefined) !== (args.y2 === undefined)) throw badArgs('x2 and y2 go together: give both or neither');
    if (args.x2 !== undefined && pulses === 1) throw badArgs('x2/y2 describe a pulsed run: they need pulses > 1');
    catalogues.check('powers', 'power_id', args.power_id);
    checkPoint(game, args.x, args.y);
    if (args.x2 !== undefined && args.y2 !== undefined) checkPoint(game, args.x2, args.y2, ['x2', 'y2']);
    const flags = catalogues.powerFlags(args.power_id);
    if (flags.isToggle && pulses > 1) throw gameRejected(`power '${args.power_id}' is a toggle: one call flips it, pulses must be 1`, 'ToggleNotPulsable');
    if (radius !== null && !flags.supportsRadius) {
      throw gameRejected(`power '${args.power_id}' has a fixed size and takes no radius (list_powers: supports_radius false)`, 'RadiusNotSupported');
    }

    if (pulses === 1) {
      const accepted = game.invokePower(args.power_id, args.x, args.y, radius);
      return { power_id: args.power_id, x: args.x, y: args.y, accepted, via: 'direct' as const };
    }
    return startPulsedRun(env, {
      powerId: args.power_id,
      x: args.x,
      y: args.y,
      x2: args.x2 ?? args.x,
      y2: args.y2 ?? args.y,
      radius,
      pulses,
    });
  },
});
