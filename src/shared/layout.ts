// The SharedArrayBuffer shared by the main loop, the game thread and the pool workers.
// Offsets are named here and nowhere else (as piscina's symbols and thread-stream's indexes do).
import { LIMITS } from '../limits.ts';
import { HISTOGRAM_WORDS } from './histograms.ts';

/** Int32 words of the control header. */
export const kTick = 0; // world tick, published by the game thread after every frame
export const kEnabled = 1; // kill switch mirror (1 = accepting), written by the main loop
export const kFrames = 2; // frames run by the game thread
export const kStopping = 3; // 1 once the bridge is closing
export const kTurnHolder = 4; // index + 1 of the agent holding the turn, 0 = no turn-based session
export const kQueued = 5; // actions posted to the game thread and not yet drained
export const kJobs = 6; // per-frame jobs registered (invoke_power pulses)
export const kWorldEpoch = 7; // bumped by every world swap and rewind, so pulsed runs can stop on world_changed
export const kAgentCount = 8; // agents now (decisions §10: agents.json reloads change it), written by the main loop
export const kScenario = 9; // index in SCENARIOS of the scenario now, written by the main loop
export const kSavepointIds = 10; // savepoint ids handed out (decisions §12), so a restarted game thread goes on counting
const kHeaderWords = 16;

/** Entry states of the dispatcher (decisions §5): queued → started, or queued → expired, by CAS. */
export const ENTRY_FREE = 0;
export const ENTRY_QUEUED = 1;
export const ENTRY_STARTED = 2;
export const ENTRY_EXPIRED = 3;

/** Float64 frame statistics, written by the game thread only (benchmarks read them). */
export const sFrames = 0; // frames run
export const sBusyFrames = 1; // frames that drained at least one action
export const sActions = 2; // actions drained (started, expired or skipped)
export const sFullFrames = 3; // frames that drained the full 32 entries or 256 items
export const sFullOverheadMs = 4; // dispatcher time of those frames, handlers excluded
export const sFullOverheadMaxMs = 5; // the largest such overhead
export const sOverheadMs = 6; // dispatcher time of every busy frame, handlers excluded
export const sItems = 7; // items drained: a lone command is one, a batch its items (decisions §8)
const kStatsWords = 8;

export interface SharedState {
  buffer: SharedArrayBuffer;
  control: Int32Array;
  stats: Float64Array;
  /** One state word per dispatcher entry. */
  entries: Int32Array;
  /** When the game thread started each entry (ms, performance.timeOrigin + now()). */
  startedAt: Float64Array;
  /** decisions §9: queue-wait and frame histograms (histograms.ts), written by the game thread only. */
  histograms: Float64Array;
}

export function createSharedState(): SharedState {
  const entryCount = LIMITS.dispatcherEntries;
  const bytes = kHeaderWords * 4 + entryCount * 4 + entryCount * 8 + kStatsWords * 8 + HISTOGRAM_WORDS * 8;
  return viewSharedState(new SharedArrayBuffer(bytes));
}

export function viewSharedState(buffer: SharedArrayBuffer): SharedState {
  const entryCount = LIMITS.dispatcherEntries;
  const entriesOffset = kHeaderWords * 4;
  const startedOffset = entriesOffset + entryCount * 4; // a multiple of 8: 64 + 4096 * 4
  const statsOffset = startedOffset + entryCount * 8;
  return {
    buffer,
    control: new Int32Array(buffer, 0, kHeaderWords),
    entries: new Int32Array(buffer, entriesOffset, entryCount),
    startedAt: new Float64Array(buffer, startedOffset, entryCount),
    stats: new Float64Array(buffer, statsOffset, kStatsWords),
    histograms: new Float64Array(buffer, statsOffset + kStatsWords * 8, HISTOGRAM_WORDS),
  };
}

/** A clock that means the same in every thread (each thread's performance.now() has its own origin). */
export function sharedNow(): number {
  return performance.timeOrigin + performance.now();
}
