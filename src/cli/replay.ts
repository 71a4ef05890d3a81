// decisions §12 and §15: `gcb replay FILE [--url URL] [--record NAME] [--max-ticks N]`. Reads the
// whole record first and refuses, in one line before anything runs, a record that cannot be replayed
// or that asks for what no record holds (replay-checks.ts); then, on a lockstep bridge of its own (or
// the one at --url), makes the recorded start world, runs every command at its place and checks
// every hash. It stops at the first difference, naming the tick and both hashes.
import { closeSync, constants, fstatSync, mkdtempSync, openSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BridgeClient, type RequestOptions } from '../client/client.ts';
import { BridgeCallError } from '../client/errors.ts';
import { LIMITS } from '../limits.ts';
import { sleep } from '../shared/sleep.ts';
import { EpisodeFileError, parseEpisode, type Episode, type EpisodeCommand, type EpisodeEntry } from '../shared/episode-format.ts';
import { MOD_VERSION } from '../version.ts';
import { newAgentToken } from '../auth/token-strength.ts';
import { EXIT, signalExit } from './exit-codes.ts';
import { replayRefusal, startWorldArgs, stepTicks } from './replay-checks.ts';

/**
 * Under lockstep a command answers at once unless it goes on over later ticks (a pulsed run, which
 * answers only once later steps ran): the next line goes once the command has answered or has had
 * this long to start, and the game thread runs them in the order sent.
 */
const STARTED_AFTER_MS = 250;

export interface ReplayOptions {
  file: string;
  /** A running bridge (lockstep, a token with control_world); else one is started here. */
  client?: BridgeClient;
  /** Records the replay again as episodes/<record>.jsonl of the bridge replaying. */
  record?: string;
  /** The ticks the replay may step in all (default LIMITS.replayMaxTicksDefault). */
  maxTicks?: number;
  /** Aborted with the signal's name (SIGINT, SIGTERM): the replay stops, and its own bridge and dir go. */
  signal?: AbortSignal;
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

/** Exit 0 when every hash matched; the record's own problems (5) and differences (6) exit non-zero in one line. */
export async function runReplay(options: ReplayOptions): Promise<number> {
  const maxTicks = options.maxTicks ?? LIMITS.replayMaxTicksDefault;
  let episode: Episode;
  try {
    episode = parseEpisode(readRecord(options.file), MOD_VERSION);
    const refusal = replayRefusal(episode, maxTicks);
    if (refusal !== null) throw new EpisodeFileError(refusal);
  } catch (err) {
    if (!(err instanceof EpisodeFileError)) throw err;
    options.err(`gcb replay: ${options.file}: ${err.message}\n`);
    return EXIT.RECORD;
  }
  let own: OwnBridge | null = null;
  try {
    own = options.client ? null : await startLockstepBridge(episode);
    const world = new ReplayWorld(options.client ?? own!.client, { maxTicks, signal: options.signal });
    const report = await replay(episode, world, options.record);
    options.out(`replay matched: ${report.commands} commands, ${report.hashes} hashes, ticks ${episode.header.tick} to ${report.tick} (${options.file})\n`);
    return EXIT.OK;
  } catch (err) {
    const signal = options.signal?.aborted ? (options.signal.reason as NodeJS.Signals) : null;
    if (signal !== null) {
      options.err(
        `gcb replay: interrupted (${signal}) ${own ? 'before its end: its bridge is closed and its temporary dir removed' : 'before its end: the bridge at --url keeps what ran'}\n`,
      );
      return signalExit(signal);
    }
    if (err instanceof EpisodeFileError) {
      options.err(`gcb replay: ${options.file}: ${err.message}\n`);
      return EXIT.RECORD;
    }
    if (!(err instanceof ReplayDiffers)) throw err;
    options.err(`gcb replay: ${err.message}\n`);
    return EXIT.DIFFERS;
  } finally {
    await own?.close();
  }
}

/**
 * The whole file, refused unless it is a regular file within the size a record may have: opened
 * without blocking (a FIFO named like a record would wait for a writer) and checked on that handle.
 */
function readRecord(file: string): Buffer {
  let fd: number;
  try {
    fd = openSync(file, constants.O_RDONLY | constants.O_NONBLOCK);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    throw new EpisodeFileError(code === 'ENOENT' ? 'no such file' : `cannot be read (${code ?? (err as Error).message})`);
  }
  try {
    const stats = fstatSync(fd);
    if (!stats.isFile()) throw new EpisodeFileError('is not a regular file: a record is one');
    if (stats.size > LIMITS.recordMaxBytes) {
      throw new EpisodeFileError(`is ${stats.size} bytes, above the ${LIMITS.recordMaxBytes} a record stops at: not a record gcb wrote`);
    }
    return readFileSync(fd);
  } finally {
    closeSync(fd);
  }
}

async function replay(episode: Episode, world: ReplayWorld, record: string | undefined): Promise<ReplayReport> {
  const { header, entries } = episode;
  await world.makeStartWorld(episode);
  await world.checkHash(header.tick, header.hash, "the record's start");
  if (record !== undefined) await world.client.recordStart(record, world.requestOptions);
  let commands = 0;
  let hashes = 1;
  for (const [index, entry] of entries.entries()) {
    if (entry.kind === 'hash') {
      await world.checkHash(entry.tick, entry.hash, 'a hash line');
      hashes++;
    } else {
      await world.run(entry, entries[index + 1]);
      commands++;
    }
  }
  await world.settle();
  await world.checkHash(episode.end.tick, episode.end.hash, "the record's end");
  if (record !== undefined) await world.client.recordStop(world.requestOptions);
  return { commands, hashes: hashes + 1, tick: episode.end.tick };
}

/** The replaying bridge's world as the replay knows it: the tick, the commands still running, the ticks stepped. */
class ReplayWorld {
  readonly client: BridgeClient;
  /** Every request carries the replay's signal: an interrupt ends the one waiting. */
  readonly requestOptions: RequestOptions;
  readonly #maxTicks: number;
  #tick = 0;
  #stepped = 0;
  #running: Array<Promise<void>> = [];
  /** Savepoint ids of the record → those of this bridge (they count up per bridge run). */
  readonly #savepoints = new Map<number, number>();

  constructor(client: BridgeClient, options: { maxTicks: number; signal?: AbortSignal | undefined }) {
    this.client = client;
    this.#maxTicks = options.maxTicks;
    this.requestOptions = options.signal ? { signal: options.signal } : {};
  }

  async makeStartWorld(episode: Episode): Promise<void> {
    const args = startWorldArgs(episode);
    if (typeof args === 'string') throw new EpisodeFileError(args);
    await this.client.call('generate_world', args, this.requestOptions);
    this.#tick = (await this.client.worldHash(this.requestOptions)).tick;
    await this.#advanceTo(episode.header.tick);
  }

  /** Steps to `tick` when the world is behind it (the start world; a realtime record's commands and hashes fall between frames). */
  async #advanceTo(tick: number): Promise<void> {
    // A step still running has not told its tick yet: world_hash queues behind it on the game
    // thread, so it answers the tick the step reached.
    if (this.#tick < tick) this.#tick = (await this.client.worldHash(this.requestOptions)).tick;
    await this.#stepTo(tick);
  }

  /**
   * Steps until the world is at `tick`. decisions §15: a step may stop early (`stopped: "yielded"`
   * while another agent's command waits, or "deadline"), answering the ticks it ran: the next one
   * steps for the rest, so every hash still lands on its tick.
   */
  async #stepTo(tick: number): Promise<void> {
    while (this.#tick < tick) {
      const ticks = Math.min(tick - this.#tick, LIMITS.stepTicksMax);
      this.#spend(ticks);
      const answer = await this.client.step(ticks, this.requestOptions);
      this.#moved(answer.ticks, answer.tick);
    }
  }

  async checkHash(tick: number, recorded: string, what: string): Promise<void> {
    await this.#advanceTo(tick);
    const now = await this.client.worldHash(this.requestOptions);
    this.#tick = now.tick;
    if (now.tick !== tick || now.hash !== recorded) {
      throw new ReplayDiffers(`differs at tick ${tick} (${what}): recorded ${recorded}, replay ${now.hash}${now.tick === tick ? '' : ` at tick ${now.tick}`}`);
    }
  }

  /** Runs a command line at its tick; `next` is the line after it (a step's hash line tells the ticks it ran). */
  async run(line: EpisodeCommand, next?: EpisodeEntry): Promise<void> {
    await this.#advanceTo(line.tick);
    if (line.name === 'step') return this.#runStep(line, next);
    const args = this.#mapIds(line);
    const check = this.#answer(line, args).then((result) => this.#learn(line, result));
    const first = await Promise.race([check.then(() => 'answered' as const), sleep(STARTED_AFTER_MS).then(() => 'running' as const)]);
    if (first === 'running') this.#running.push(check);
  }

  /**
   * A recorded step runs the ticks the record shows it ran: the hash line after it says where it
   * got to, fewer ticks than asked when it yielded or reached its deadline while recorded (its
   * caller stepped again, a line of its own). Stopped early here, it is stepped again for the rest.
   */
  async #runStep(line: EpisodeCommand, next: EpisodeEntry | undefined): Promise<void> {
    const asked = stepTicks(line);
    const ran = line.code === null && next?.kind === 'hash' ? next.tick - line.tick : asked;
    const ticks = ran > 0 && ran < asked ? ran : asked;
    this.#spend(ticks);
    const args = ticks === asked ? line.args : { ...(line.args as object), ticks };
    const result = (await this.#answer(line, args as Record<string, unknown>)) as { ticks: number; tick: number } | undefined;
    if (result === undefined) return; // refused, as it was when recorded
    this.#moved(result.ticks, result.tick);
    await this.#stepTo(line.tick + ticks);
  }

  /** The command's result, once its answer's code is the record's (else the replay differs). */
  async #answer(line: EpisodeCommand, args: Record<string, unknown> | undefined): Promise<unknown> {
    let code: string | null = null;
    let result: unknown;
    try {
      result = (await this.client.request(line.name, args, this.requestOptions)).result;
    } catch (err) {
      if (!(err instanceof BridgeCallError)) throw err;
      code = err.code;
    }
    if (code !== line.code) {
      throw new ReplayDiffers(`differs at tick ${line.tick}, order ${line.order}: ${line.name} answered ${code ?? 'ok'}, the record has ${line.code ?? 'ok'}`);
    }
    return result;
  }

  /** decisions §15: never more than --max-ticks in all, whatever the lines say (a rewind may send the world back any number of times). */
  #spend(ticks: number): void {
    if (this.#stepped + ticks <= this.#maxTicks) return;
    throw new EpisodeFileError(
      `stopped before stepping past --max-ticks ${this.#maxTicks} ticks in all at tick ${this.#tick}: the record's lines ask for more ticks than they show`,
    );
  }

  #moved(ticks: number, tick: number): void {
    // A step that ran nothing would be asked again for ever.
    if (!(ticks > 0)) throw new ReplayDiffers(`differs at tick ${this.#tick}: a step answered ${ticks} ticks run`);
    this.#stepped += ticks;
    this.#tick = tick;
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

interface OwnBridge {
  client: BridgeClient;
  close(): Promise<void>;
}

/**
 * A bridge of the replay's own: lockstep, in a fresh config dir that goes when it closes, and also
 * when the process exits first (a second Ctrl-C exits at once).
 */
async function startLockstepBridge(episode: Episode): Promise<OwnBridge> {
  const { startBridge } = await import('../bridge.ts');
  const dir = mkdtempSync(join(tmpdir(), 'gcb-replay-'));
  const removeDir = () => rmSync(dir, { recursive: true, force: true });
  process.once('exit', removeDir);
  const removed = () => {
    process.off('exit', removeDir);
    removeDir();
  };
  try {
    const { token } = newAgentToken();
    writeFileSync(
      join(dir, 'bridge.toml'),
      `enabled = true\n[Bridge]\ntoken = "${token}"\n[Game]\nclock = "lockstep"\nsuppress_startup_window = true\nseed = ${episode.header.seed ?? 0}\n`,
      { mode: 0o600 },
    );
    const bridge = await startBridge({ configDir: dir, port: 0, clock: 'lockstep', logDestination: { write: () => {} } });
    return {
      client: new BridgeClient({ url: bridge.url, token: bridge.token }),
      async close() {
        try {
          await bridge.close();
        } finally {
          removed();
        }
      },
    };
  } catch (err) {
    removed();
    throw err;
  }
}
