// decisions §12: `gcb replay FILE [--url URL] [--record NAME]`. Reads the whole record first and
// refuses a bad one in one line before anything runs; then, on a lockstep bridge of its own (or
// the one at --url), makes the recorded start world, runs every command at its place and checks
// every hash. It stops at the first difference, naming the tick and both hashes.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BridgeClient } from '../client/client.ts';
import { BridgeCallError } from '../client/errors.ts';
import { sleep } from '../shared/sleep.ts';
import { EpisodeFileError, parseEpisode, type Episode, type EpisodeCommand } from '../shared/episode-format.ts';
import { MOD_VERSION } from '../version.ts';
import { newAgentToken } from '../auth/token-strength.ts';
import { EXIT } from './exit-codes.ts';

/** Zones are 64 tiles a side (generate_world's zone_x, zone_y). */
const ZONE_TILES = 64;
/**
 * Under lockstep a command answers at once unless it goes on over later ticks (a pulsed run, which
 * answers only once later steps ran) or is a long step: the next line goes once the command has
 * answered or has had this long to start, and the game thread runs them in the order sent.
 */
const STARTED_AFTER_MS = 250;

export interface ReplayOptions {
  file: string;
  /** A running bridge (lockstep, a token with control_world); else one is started here. */
  client?: BridgeClient;
  /** Records the replay again as episodes/<record>.jsonl of the bridge replaying. */
  record?: string;
  out(text: string): void;
  err(text: string): void;
}

export interface ReplayReport {
  commands: number;
  hashes: number;
  tick: number;
}

/** A replay that ran and differs from its record: where, and both sides. */
export class ReplayDiffers extends Error {}

/** Exit 0 when every hash matched; the record's own problems and differences exit non-zero in one line. */
export async function runReplay(options: ReplayOptions): Promise<number> {
  let episode: Episode;
  try {
    episode = parseEpisode(readRecord(options.file), MOD_VERSION);
  } catch (err) {
    if (!(err instanceof EpisodeFileError)) throw err;
    options.err(`gcb replay: ${options.file}: ${err.message}\n`);
    return EXIT.RECORD;
  }
  const own = options.client ? null : await startLockstepBridge(episode);
  try {
    const report = await replay(episode, options.client ?? own!.client, options.record);
    options.out(`replay matched: ${report.commands} commands, ${report.hashes} hashes, ticks ${episode.header.tick} to ${report.tick} (${options.file})\n`);
    return EXIT.OK;
  } catch (err) {
    if (!(err instanceof ReplayDiffers)) throw err;
    options.err(`gcb replay: ${err.message}\n`);
    return EXIT.DIFFERS;
  } finally {
    await own?.close();
  }
}

function readRecord(file: string): string {
  try {
    return readFileSync(file, 'utf8');
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    throw new EpisodeFileError(code === 'ENOENT' ? 'no such file' : `cannot be read (${code ?? (err as Error).message})`);
  }
}

async function replay(episode: Episode, client: BridgeClient, record: string | undefined): Promise<ReplayReport> {
  const { header } = episode;
  const world = new ReplayWorld(client);
  await world.makeStartWorld(episode);
  await world.checkHash(header.tick, header.hash, "the record's start");
  if (record !== undefined) await client.recordStart(record);
  let commands = 0;
  let hashes = 1;
  for (const entry of episode.entries) {
    if (entry.kind === 'hash') {
      await world.checkHash(entry.tick, entry.hash, 'a hash line');
      hashes++;
    } else {
      await world.run(entry);
      commands++;
    }
  }
  await world.settle();
  await world.checkHash(episode.end.tick, episode.end.hash, "the record's end");
  if (record !== undefined) await client.recordStop();
  return { commands, hashes: hashes + 1, tick: episode.end.tick };
}

/** The replaying bridge's world as the replay knows it: the tick, and the commands still running. */
class ReplayWorld {
  readonly #client: BridgeClient;
  #tick = 0;
  #running: Array<Promise<void>> = [];
  /** Savepoint ids of the record → those of this bridge (they count up per bridge run). */
  readonly #savepoints = new Map<number, number>();

  constructor(client: BridgeClient) {
    this.#client = client;
  }

  async makeStartWorld({ header }: Episode): Promise<void> {
    if (header.seed === null || header.width === null || header.height === null) {
      throw new ReplayDiffers('the record names no seed and size (its game has no getWorldState): the start world cannot be made again');
    }
    await this.#client.call('generate_world', { zone_x: header.width / ZONE_TILES, zone_y: header.height / ZONE_TILES, seed: header.seed });
    this.#tick = (await this.#client.worldHash()).tick;
    await this.#advanceTo(header.tick);
  }

  /** Steps to `tick` when the world is behind it (a realtime record's commands and hashes fall between frames). */
  async #advanceTo(tick: number): Promise<void> {
    // A step still running has not told its tick yet: world_hash queues behind it on the game
    // thread, so it answers the tick the step reached.
    if (this.#tick < tick) this.#tick = (await this.#client.worldHash()).tick;
    while (this.#tick < tick) {
      const answer = await this.#client.step(Math.min(tick - this.#tick, 10_000));
      this.#tick = answer.tick;
    }
  }

  async checkHash(tick: number, recorded: string, what: string): Promise<void> {
    await this.#advanceTo(tick);
    const now = await this.#client.worldHash();
    this.#tick = now.tick;
    if (now.tick !== tick || now.hash !== recorded) {
      throw new ReplayDiffers(`differs at tick ${tick} (${what}): recorded ${recorded}, replay ${now.hash}${now.tick === tick ? '' : ` at tick ${now.tick}`}`);
    }
  }

  async run(line: EpisodeCommand): Promise<void> {
    await this.#advanceTo(line.tick);
    const args = this.#mapIds(line);
    const answer = this.#client.request(line.name, args).then(
      (success) => ({ code: null, result: success.result }),
      (err: unknown) => {
        if (err instanceof BridgeCallError) return { code: err.code as string, result: undefined };
        throw err;
      },
    );
    const check = answer.then(({ code, result }) => {
      if (code !== line.code) {
        throw new ReplayDiffers(
          `differs at tick ${line.tick}, order ${line.order}: ${line.name} answered ${code ?? 'ok'}, the record has ${line.code ?? 'ok'}`,
        );
      }
      this.#learn(line, result);
    });
    const first = await Promise.race([check.then(() => 'answered' as const), sleep(STARTED_AFTER_MS).then(() => 'running' as const)]);
    if (first === 'running') this.#running.push(check);
  }

  /** Waits for the commands that went on over later ticks, and fails with the first that differed. */
  async settle(): Promise<void> {
    const running = this.#running;
    this.#running = [];
    await Promise.all(running);
  }

  #mapIds(line: EpisodeCommand): Record<string, unknown> | undefined {
    const args = line.args as Record<string, unknown> | undefined;
    if ((line.name !== 'rewind' && line.name !== 'savepoint_drop') || typeof args?.id !== 'number') return args;
    return { ...args, id: this.#savepoints.get(args.id) ?? args.id };
  }

  #learn(line: EpisodeCommand, result: unknown): void {
    const value = result as { tick?: unknown; id?: unknown } | undefined;
    if (typeof value?.tick === 'number') this.#tick = value.tick;
    if (line.name === 'savepoint' && typeof line.id === 'number' && typeof value?.id === 'number') this.#savepoints.set(line.id, value.id);
  }
}

/** A bridge of the replay's own: lockstep, in a fresh config dir removed afterwards. */
async function startLockstepBridge(episode: Episode): Promise<{ client: BridgeClient; close(): Promise<void> }> {
  const { startBridge } = await import('../bridge.ts');
  const dir = mkdtempSync(join(tmpdir(), 'gcb-replay-'));
  const { token } = newAgentToken();
  const seed = episode.header.seed ?? 0;
  writeFileSync(
    join(dir, 'bridge.toml'),
    `enabled = true\n[Bridge]\ntoken = "${token}"\n[Game]\nclock = "lockstep"\nsuppress_startup_window = true\nseed = ${seed}\n`,
    { mode: 0o600 },
  );
  const bridge = await startBridge({ configDir: dir, port: 0, clock: 'lockstep', logDestination: { write: () => {} } });
  return {
    client: new BridgeClient({ url: bridge.url, token: bridge.token }),
    async close() {
      await bridge.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
