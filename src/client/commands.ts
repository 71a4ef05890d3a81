// The typed command map: args and result types of every command, derived from the very TypeBox
// schemas the bridge serves, so no type is written twice. Type-only imports: the command modules
// (and what they import at runtime) are never loaded by the client.
import type { Static } from '@sinclair/typebox';
import type health from '../commands/meta/health.ts';
import type whoami from '../commands/meta/whoami.ts';
import type sessionInfo from '../commands/meta/session-info.ts';
import type turnAdvance from '../commands/meta/turn-advance.ts';
import type objectiveStatus from '../commands/meta/objective-status.ts';
import type sendMessage from '../commands/bus/send-message.ts';
import type recvMessages from '../commands/bus/recv-messages.ts';
import type listTiles from '../commands/discovery/list-tiles.ts';
import type listActors from '../commands/discovery/list-actors.ts';
import type listPowers from '../commands/discovery/list-powers.ts';
import type listSpeeds from '../commands/discovery/list-speeds.ts';
import type invokePower from '../commands/action/invoke-power.ts';
import type spawn from '../commands/action/spawn.ts';
import type paintTile from '../commands/action/paint-tile.ts';
import type getWorldState from '../commands/read/get-world-state.ts';
import type getTile from '../commands/read/get-tile.ts';
import type listKingdoms from '../commands/read/list-kingdoms.ts';
import type listCities from '../commands/read/list-cities.ts';
import type queryActors from '../commands/read/query-actors.ts';
import type screenshot from '../commands/read/screenshot.ts';
import type getUiState from '../commands/read/get-ui-state.ts';
import type pause from '../commands/control/pause.ts';
import type resume from '../commands/control/resume.ts';
import type setSpeed from '../commands/control/set-speed.ts';
import type dismissWindow from '../commands/control/dismiss-window.ts';
import type generateWorld from '../commands/control/generate-world.ts';
import type saveWorld from '../commands/control/save-world.ts';
import type loadWorld from '../commands/control/load-world.ts';
import type recvEvents from '../commands/read/recv-events.ts';
import type batch from '../commands/action/batch.ts';
import type step from '../commands/control/step.ts';
import type worldHash from '../commands/read/world-hash.ts';
import type savepoint from '../commands/control/savepoint.ts';
import type rewind from '../commands/control/rewind.ts';
import type savepointDrop from '../commands/control/savepoint-drop.ts';
import type observe from '../commands/read/observe.ts';
import type recordStart from '../commands/control/record-start.ts';
import type recordStop from '../commands/control/record-stop.ts';

/** The catalogue (decisions §3), by command name. */
interface Catalogue {
  health: typeof health;
  whoami: typeof whoami;
  session_info: typeof sessionInfo;
  turn_advance: typeof turnAdvance;
  objective_status: typeof objectiveStatus;
  send_message: typeof sendMessage;
  recv_messages: typeof recvMessages;
  list_tiles: typeof listTiles;
  list_actors: typeof listActors;
  list_powers: typeof listPowers;
  list_speeds: typeof listSpeeds;
  invoke_power: typeof invokePower;
  spawn: typeof spawn;
  paint_tile: typeof paintTile;
  get_world_state: typeof getWorldState;
  get_tile: typeof getTile;
  list_kingdoms: typeof listKingdoms;
  list_cities: typeof listCities;
  query_actors: typeof queryActors;
  screenshot: typeof screenshot;
  get_ui_state: typeof getUiState;
  pause: typeof pause;
  resume: typeof resume;
  set_speed: typeof setSpeed;
  dismiss_window: typeof dismissWindow;
  generate_world: typeof generateWorld;
  save_world: typeof saveWorld;
  load_world: typeof loadWorld;
  recv_events: typeof recvEvents;
  batch: typeof batch;
  step: typeof step;
  world_hash: typeof worldHash;
  savepoint: typeof savepoint;
  rewind: typeof rewind;
  savepoint_drop: typeof savepointDrop;
  observe: typeof observe;
  record_start: typeof recordStart;
  record_stop: typeof recordStop;
}

export type CommandName = keyof Catalogue;
/** A command's args, as its JSON Schema allows them (optional fields have bridge-side defaults). */
export type CommandArgs<N extends CommandName> = NoArgs<Static<Catalogue[N]['args']>>;
/** A command that takes no args accepts `{}` only (TypeScript would let any object through `{}`). */
type NoArgs<A> = [keyof A] extends [never] ? Record<string, never> : A;
/** A command's `result`, from its result schema. */
export type CommandResult<N extends CommandName> = Static<Catalogue[N]['result']>;
/** Whether a command can be called without args (it takes none, or all of them are optional). */
// `{} extends T` is the test for "every property optional".
// eslint-disable-next-line @typescript-eslint/no-empty-object-type
export type ArgsOptional<N extends CommandName> = {} extends CommandArgs<N> ? true : false;

/**
 * decisions §8 and §13: the commands whose answers the bridge keeps (actions, controls,
 * send_message and turn_advance), which the client sends with an Idempotency-Key (a value, the one
 * runtime thing here; test/client/batch.test.ts holds it to the catalogue).
 */
export const KEYED_COMMANDS: ReadonlySet<string> = new Set<CommandName>([
  'invoke_power',
  'spawn',
  'paint_tile',
  'batch',
  'pause',
  'resume',
  'set_speed',
  'dismiss_window',
  'generate_world',
  'save_world',
  'load_world',
  'send_message',
  'turn_advance',
  'step',
  'savepoint',
  'rewind',
  'savepoint_drop',
  'record_start',
  'record_stop',
]);

/**
 * The catalogue's commands that change nothing (meta, discovery, reads, the two receivers): sent
 * again once when their connection drops before the answer, as a keyed command is. Together with
 * KEYED_COMMANDS they are the whole catalogue (test/client/batch.test.ts holds it).
 */
export const READ_COMMANDS: ReadonlySet<string> = new Set<CommandName>([
  'health',
  'whoami',
  'session_info',
  'objective_status',
  'recv_messages',
  'recv_events',
  'list_actors',
  'list_powers',
  'list_speeds',
  'list_tiles',
  'get_tile',
  'get_ui_state',
  'get_world_state',
  'list_cities',
  'list_kingdoms',
  'observe',
  'query_actors',
  'screenshot',
  'world_hash',
]);

/** decisions §8: the commands a batch may hold (not meta, bus, world loading or saving, screenshot, recv_events, batch, step, record_start, record_stop). */
export type BatchableName = Exclude<
  CommandName,
  | 'health'
  | 'whoami'
  | 'session_info'
  | 'turn_advance'
  | 'objective_status'
  | 'send_message'
  | 'recv_messages'
  | 'generate_world'
  | 'save_world'
  | 'load_world'
  | 'screenshot'
  | 'recv_events'
  | 'batch'
  | 'step'
  | 'record_start'
  | 'record_stop'
>;

/** One item of `client.batch([...])`, typed by its name. */
export type BatchItem = {
  [N in BatchableName]: ArgsOptional<N> extends true ? { name: N; args?: CommandArgs<N> } : { name: N; args: CommandArgs<N> };
}[BatchableName];

/** An item's error, as the bridge reports it inside a batch's results. */
export interface BatchItemError {
  code: string;
  message: string;
  did_you_mean?: string[];
  exception?: { type: string; message: string; stack_top: string };
}

/** One item's outcome: its typed result, its error, or skipped (after a failure with stop_on_error). */
export type BatchItemResult<N extends CommandName> =
  { ok: true; result: CommandResult<N> } | { ok: false; error: BatchItemError } | { ok: false; skipped: true };

/** `client.batch([...])`'s answer: one result per item, typed by that item's name. */
export interface BatchResults<T extends readonly BatchItem[]> {
  results: { [K in keyof T]: T[K] extends { name: infer N extends CommandName } ? BatchItemResult<N> : never };
  completed: number;
  failed: number;
  skipped: number;
}
