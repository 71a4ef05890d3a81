// decisions §15: what `gcb replay` will run, judged on the whole record before anything runs. A
// record replayed with --url runs with the replayer's credential, often a god's: a crafted one must
// not make it save over a world, start a record over another, send messages, or step for days.
import { Value } from '@sinclair/typebox/value';
import generateWorld from '../commands/control/generate-world.ts';
import { COMMANDS } from '../commands/index.ts';
import { LIMITS } from '../limits.ts';
import type { Episode, EpisodeCommand } from '../shared/episode-format.ts';

/** Zones are 64 tiles a side (generate_world's zone_x, zone_y). */
export const ZONE_TILES = 64;

/**
 * What a record may hold, so all a replay runs: the action commands, and the control commands that
 * move or hold the world without leaving it (no save, load, generate, record or window).
 */
export const REPLAYED_COMMANDS: ReadonlySet<string> = new Set([
  ...COMMANDS.filter((def) => def.category === 'action').map((def) => def.name),
  'pause',
  'resume',
  'set_speed',
  'step',
  'savepoint',
  'rewind',
  'savepoint_drop',
]);

/** A batch item may also read: reads and discovery change nothing (the bridge refuses any other item). */
const BATCH_ITEMS: ReadonlySet<string> = new Set([
  ...REPLAYED_COMMANDS,
  ...COMMANDS.filter((def) => def.category === 'read' || def.category === 'discovery').map((def) => def.name),
]);

/** Why the record must not be replayed, in one line; null when it may be. */
export function replayRefusal(episode: Episode, maxTicks: number): string | null {
  return headerProblem(episode) ?? commandProblem(episode) ?? ticksProblem(episode, maxTicks);
}

/** The start world the header names, as generate_world's args, or why there is none. */
export function startWorldArgs({ header }: Episode): { zone_x: number; zone_y: number; seed: number } | string {
  if (header.seed === null || header.width === null || header.height === null) {
    return 'the record names no seed and size (its game has no getWorldState): its start world cannot be made again';
  }
  const args = { zone_x: header.width / ZONE_TILES, zone_y: header.height / ZONE_TILES, seed: header.seed };
  const error = Value.Errors(generateWorld.args, args).First();
  if (error === undefined) return args;
  const { seed, zone_x, zone_y } = generateWorld.args.properties;
  if (error.path === '/seed') return `the header's seed ${header.seed} is not one generate_world takes (an integer from ${seed.minimum} to ${seed.maximum})`;
  const [field, zones] = error.path === '/zone_x' ? (['width', zone_x] as const) : (['height', zone_y] as const);
  return `the header's ${field} ${header[field]} is no size generate_world makes (${zones.minimum! * ZONE_TILES} to ${zones.maximum! * ZONE_TILES} tiles, in steps of ${ZONE_TILES})`;
}

function headerProblem(episode: Episode): string | null {
  const start = startWorldArgs(episode);
  if (typeof start === 'string') return start;
  const { tick } = episode.header;
  if (tick > LIMITS.replayHeaderTickMax) {
    return `the header's tick ${tick} is above ${LIMITS.replayHeaderTickMax}: making its start world alone would step for hours`;
  }
  return null;
}

function commandProblem({ entries }: Episode): string | null {
  for (const [index, entry] of entries.entries()) {
    if (entry.kind !== 'command') continue;
    const line = index + 2;
    if (!REPLAYED_COMMANDS.has(entry.name)) return notHeld(`line ${line} runs ${entry.name}`);
    if (entry.name !== 'batch') continue;
    const items = (entry.args as { commands?: unknown } | null)?.commands;
    if (!Array.isArray(items)) continue; // the bridge refuses it as it would any bad batch
    for (const [at, item] of items.entries()) {
      const name = (item as { name?: unknown } | null)?.name;
      if (typeof name === 'string' && !BATCH_ITEMS.has(name)) return notHeld(`line ${line}: batch's commands[${at}] runs ${name}`);
    }
  }
  return null;
}

function notHeld(what: string): string {
  return `${what}, which no record holds: gcb replay runs only ${[...REPLAYED_COMMANDS].join(', ')} (and reads inside a batch)`;
}

function ticksProblem(episode: Episode, maxTicks: number): string | null {
  const ticks = ticksInAll(episode);
  if (ticks <= maxTicks) return null;
  return `the record steps ${ticks} ticks in all (its start and every step), above --max-ticks ${maxTicks}: raise --max-ticks to replay it`;
}

/**
 * The ticks a replay steps, from the world generate_world makes (tick 0) to the end line: the
 * header's tick, each step's ticks, and every line ahead of the tick the lines before it reached
 * (a realtime record's frames). A line behind it (after a rewind) moves the count's tick back.
 */
export function ticksInAll({ header, entries, end }: Episode): number {
  let total = header.tick;
  let tick = header.tick;
  const reach = (lineTick: number) => {
    total += Math.max(0, lineTick - tick);
    tick = lineTick;
  };
  for (const entry of entries) {
    reach(entry.tick);
    if (entry.kind === 'command' && entry.name === 'step') {
      const ticks = stepTicks(entry);
      total += ticks;
      tick += ticks;
    }
  }
  reach(end.tick);
  return total;
}

/** The ticks a step line asks for (0 when its args name none: the bridge refuses it). */
export function stepTicks(line: EpisodeCommand): number {
  const ticks = (line.args as { ticks?: unknown } | null)?.ticks;
  return typeof ticks === 'number' ? Math.max(0, ticks) : 0;
}
