// A small Node-hosted game that drives its own frames: a field of wandering sheep. It shows the
// two halves of embedding: the world functions commands bind to, and `run(host)`, the game's own
// loop, which calls host.drainFrame() once per frame so queued bridge actions run between updates.
import type { GameHost, GameInitOptions, UiState, WorldState } from '../../src/shared/game-module.ts';

export const version = 'sheep-field-1.0.0';
/** The kinds of event this game emits (docs/events.md); GET /capabilities lists them in event_kinds. */
export const eventKinds = ['sheep_at_fence'];

const WIDTH = 64;
const HEIGHT = 64;
let tick = 0;
let paused = false;
let sheep: Array<{ x: number; y: number }> = [];
let seed = 1;
let host: GameHost | null = null;

function random(): number {
  // xorshift32: deterministic from the seed
  seed ^= seed << 13;
  seed ^= seed >>> 17;
  seed ^= seed << 5;
  return (seed >>> 0) / 4294967296;
}

export function init(options: GameInitOptions, gameHost: GameHost): void {
  host = gameHost;
  seed = options.seed || 1;
  sheep = Array.from({ length: 20 }, () => ({ x: Math.floor(random() * WIDTH), y: Math.floor(random() * HEIGHT) }));
}

export function update(): void {
  if (paused) return;
  tick++;
  for (const [index, s] of sheep.entries()) {
    const x = Math.min(WIDTH - 1, Math.max(0, s.x + Math.round(random() * 2 - 1)));
    const y = Math.min(HEIGHT - 1, Math.max(0, s.y + Math.round(random() * 2 - 1)));
    const atFence = x === 0 || y === 0 || x === WIDTH - 1 || y === HEIGHT - 1;
    const wasAtFence = s.x === 0 || s.y === 0 || s.x === WIDTH - 1 || s.y === HEIGHT - 1;
    s.x = x;
    s.y = y;
    // A global event (no kingdom named): every subscriber may see it.
    if (atFence && !wasAtFence) host?.emit('sheep_at_fence', { sheep: index, x, y });
  }
}

export function currentTick(): number {
  return tick;
}

/** The game's own loop at 30 fps; the bridge runs no frame loop when a game exports run(). */
export async function run(host: GameHost): Promise<void> {
  const timer = setInterval(() => {
    update();
    host.drainFrame();
  }, 1000 / 30);
  await host.stopped;
  clearInterval(timer);
}

export function setPaused(next: boolean): boolean {
  const previous = paused;
  paused = next;
  return previous;
}

export function getUiState(): UiState {
  return { window_active: false, current_window: null, config_paused: paused, effective_paused: paused, world_loading: false };
}

export function dismissWindow(): { dismissed: boolean; window: string | null } {
  return { dismissed: false, window: null };
}

export function getWorldState(): WorldState {
  return {
    width: WIDTH,
    height: HEIGHT,
    seed,
    tick,
    paused,
    population_alive: sheep.length,
    population_lifetime: sheep.length,
    kingdoms_alive: 0,
    kingdoms_ever_created: 0,
    cities_alive: 0,
    cities_ever_created: 0,
  };
}
