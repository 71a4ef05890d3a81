// completion/complete (decisions §14): values for the arguments of our prompts and resource
// templates, read through the bridge with the session's token (so a credential is offered only
// what it may see): kingdom ids, actor asset ids, tile coordinates. Lists are read at most once
// every few seconds per session, since a client asks on every keystroke.
import type { CompleteRequest, CompleteResult } from '@modelcontextprotocol/sdk/types.js';
import { TEMPLATES } from './resources.ts';

/** MCP: at most 100 values in one answer. */
const MAX_VALUES = 100;
/** How long a list read for completions is used again. */
const LIST_TTL_MS = 5_000;

/** What completions read; each undefined when the credential may not read it. */
export interface CompletionSources {
  /** list_kingdoms' items (id and name). */
  kingdoms?(): Promise<Array<{ id: number; name: string }>>;
  /** list_actors' ids. */
  actors?(): Promise<string[]>;
  /** The map's size (get_world_state). */
  size?(): Promise<{ width: number; height: number }>;
}

export function createCompleter(sources: CompletionSources): (params: CompleteRequest['params']) => Promise<CompleteResult> {
  const cached = new Map<string, { at: number; value: Promise<unknown> }>();
  const read = <T>(name: string, load: (() => Promise<T>) | undefined): Promise<T> | undefined => {
    if (load === undefined) return undefined;
    const hit = cached.get(name);
    if (hit !== undefined && Date.now() - hit.at < LIST_TTL_MS) return hit.value as Promise<T>;
    const value = load();
    cached.set(name, { at: Date.now(), value });
    // A failed read is not kept.
    value.catch(() => cached.delete(name));
    return value;
  };

  const kingdomIds = async (typed: string): Promise<string[]> => {
    const kingdoms = (await read('kingdoms', sources.kingdoms)) ?? [];
    const lower = typed.toLowerCase();
    return kingdoms.filter((k) => String(k.id).startsWith(typed) || k.name.toLowerCase().includes(lower)).map((k) => String(k.id));
  };
  const actorIds = async (typed: string): Promise<string[]> => ((await read('actors', sources.actors)) ?? []).filter((id) => id.startsWith(typed));
  const coordinates = async (typed: string, axis: 'width' | 'height'): Promise<string[]> => {
    const size = await read('size', sources.size);
    if (size === undefined || !/^\d{0,9}$/.test(typed)) return [];
    const out: string[] = [];
    for (let n = 0; n < size[axis] && out.length <= MAX_VALUES; n++) if (String(n).startsWith(typed)) out.push(String(n));
    return out;
  };

  return async ({ ref, argument }) => {
    let values: string[] = [];
    const typed = argument.value;
    if (ref.type === 'ref/prompt') {
      if (argument.name === 'kingdom' && (ref.name === 'play_kingdom' || ref.name === 'observe_world')) values = await kingdomIds(typed);
      else if (argument.name === 'race' && ref.name === 'run_scenario') values = await actorIds(typed);
    } else if (ref.type === 'ref/resource') {
      if (ref.uri === TEMPLATES.kingdom && argument.name === 'id') values = await kingdomIds(typed);
      else if (ref.uri === TEMPLATES.tile && argument.name === 'x') values = await coordinates(typed, 'width');
      else if (ref.uri === TEMPLATES.tile && argument.name === 'y') values = await coordinates(typed, 'height');
    }
    const more = values.length > MAX_VALUES;
    return { completion: { values: values.slice(0, MAX_VALUES), ...(more ? {} : { total: values.length }), hasMore: more } };
  };
}
