// decisions §7: the event kinds the bridge itself emits, whatever the game. The game's own kinds
// (the sandbox's world kinds, an embedder's) come from its `eventKinds` export.

/** Emitted on the game thread by the bridge's command code, for every game (decisions §7). */
export const FRAME_KINDS = ['world_generated', 'world_loaded', 'world_saved', 'rewound', 'record_stopped'] as const;

/** decisions §14: the kind of a running command's progress. */
export const PROGRESS_KIND = 'progress';

/**
 * Emitted by the main loop only. A game may not emit them: their audiences are special
 * (`message`, `command`, `agents_*`) or they report state the game does not own.
 */
export const MAIN_LOOP_KINDS = [
  'enabled_changed',
  'turn_changed',
  'message',
  'objective_changed',
  'command',
  // decisions §10: live agents.json reload; read_all holders only.
  'agents_reloaded',
  'agents_reload_failed',
  // decisions §14: a running command's progress, live only (no seq, never kept), to its caller's
  // streams that name it in kinds=.
  PROGRESS_KIND,
] as const;

export const BRIDGE_KINDS: readonly string[] = [...FRAME_KINDS, ...MAIN_LOOP_KINDS];

/** A kind name: it goes into `event:` lines and `kinds=` lists, so no separators, spaces or newlines. */
export const KIND_PATTERN = /^[a-z][a-z0-9_]{0,63}$/;

const mainLoopOnly: ReadonlySet<string> = new Set(MAIN_LOOP_KINDS);

/** Kinds a game may emit from the game thread: the bridge's frame kinds plus its declared ones. */
export function gameEmittableKinds(declared: readonly string[]): Set<string> {
  return new Set([...FRAME_KINDS, ...declared.filter((kind) => KIND_PATTERN.test(kind) && !mainLoopOnly.has(kind))]);
}

/**
 * The game's declared kinds that the bridge accepts, and a reason for each one it ignores (a bad
 * name, or a kind the main loop owns), for one warning each at startup.
 */
export function checkDeclaredKinds(declared: unknown): { kinds: string[]; ignored: Array<{ kind: string; reason: string }> } {
  const kinds: string[] = [];
  const ignored: Array<{ kind: string; reason: string }> = [];
  if (declared === undefined) return { kinds, ignored };
  if (!Array.isArray(declared)) return { kinds, ignored: [{ kind: String(declared), reason: 'eventKinds must be an array of strings' }] };
  for (const kind of declared) {
    if (typeof kind !== 'string' || !KIND_PATTERN.test(kind)) {
      ignored.push({ kind: String(kind), reason: `an event kind must match ${KIND_PATTERN.source}` });
    } else if (mainLoopOnly.has(kind)) {
      ignored.push({ kind, reason: 'only the bridge emits this kind' });
    } else if (!kinds.includes(kind) && !(FRAME_KINDS as readonly string[]).includes(kind)) {
      kinds.push(kind);
    }
  }
  return { kinds, ignored };
}

/** /capabilities `event_kinds`: the bridge's kinds plus the game's, sorted. */
export function allKinds(gameKinds: readonly string[]): string[] {
  return [...new Set([...BRIDGE_KINDS, ...gameKinds])].sort();
}

/**
 * The game's eventFog (docs/game-module.md#events): per declared kind, the fields its fog form cuts.
 * What is not a list of field names of a declared kind is ignored, with a reason for one warning.
 */
export function checkEventFog(
  declared: unknown,
  kinds: readonly string[],
): { fog: Map<string, ReadonlySet<string>>; ignored: Array<{ kind: string; reason: string }> } {
  const fog = new Map<string, ReadonlySet<string>>();
  const ignored: Array<{ kind: string; reason: string }> = [];
  if (declared === undefined) return { fog, ignored };
  if (typeof declared !== 'object' || declared === null || Array.isArray(declared)) {
    return { fog, ignored: [{ kind: String(declared), reason: 'eventFog must be an object: { kind: [field, ...] }' }] };
  }
  const known = new Set(kinds);
  for (const [kind, fields] of Object.entries(declared)) {
    if (!known.has(kind)) ignored.push({ kind, reason: 'eventFog names a kind the game does not declare in eventKinds' });
    else if (!Array.isArray(fields) || !fields.every((field) => typeof field === 'string')) {
      ignored.push({ kind, reason: 'an eventFog entry must be a list of field names' });
    } else fog.set(kind, new Set(fields as string[]));
  }
  return { fog, ignored };
}
