// The world as MCP resources (decisions §14). Each is read through the bridge with the session's
// own token, so it is fogged exactly as the command behind it is, and listed only for a credential
// that may call that command. world://events is a session's own queue: each read gives the events
// the credential may see after the session's cursor, and moves the cursor past them.
import type { ReadResourceResult, Resource, ResourceTemplate } from '@modelcontextprotocol/sdk/types.js';
import type { BridgeClient, Capabilities } from '../client/client.ts';
import { BridgeCallError, BridgeConnectionError } from '../client/errors.ts';
import { LIMITS } from '../limits.ts';
import { renderObservedMap, type ObservePlanes, type TileInfo } from './map-png.ts';
import { mayCall } from './tools.ts';

/** MCP: the error of a read whose resource does not exist. */
export const RESOURCE_NOT_FOUND = -32002;

export const URIS = {
  state: 'world://state',
  kingdoms: 'world://kingdoms',
  map: 'world://map.png',
  capabilities: 'world://capabilities',
  events: 'world://events',
} as const;

export const TEMPLATES = { tile: 'world://tile/{x}/{y}', kingdom: 'world://kingdom/{id}' } as const;

/** A resource URI, parsed. */
export type Target =
  { kind: 'state' | 'kingdoms' | 'map' | 'capabilities' | 'events' } | { kind: 'tile'; x: number; y: number } | { kind: 'kingdom'; id: number };

const FIXED: ReadonlyArray<{ kind: Exclude<Target['kind'], 'tile' | 'kingdom'>; resource: Resource }> = [
  {
    kind: 'state',
    resource: {
      uri: URIS.state,
      name: 'state',
      title: 'World state',
      description: 'The world now: its size, seed, tick, whether it is paused, and its population, kingdom and city counts (get_world_state).',
      mimeType: 'application/json',
    },
  },
  {
    kind: 'kingdoms',
    resource: {
      uri: URIS.kingdoms,
      name: 'kingdoms',
      title: 'Kingdoms',
      description: 'Every kingdom with its race, king, capital, cities and units, the wild factions too (list_kingdoms).',
      mimeType: 'application/json',
    },
  },
  {
    kind: 'map',
    resource: {
      uri: URIS.map,
      name: 'map',
      title: 'Map',
      description:
        'A picture of the map as this credential may see it: the game’s own drawing for one that may take a screenshot, ' +
        'else the observe grid (tile kinds, its own land and the actors it may see).',
      mimeType: 'image/png',
    },
  },
  {
    kind: 'capabilities',
    resource: {
      uri: URIS.capabilities,
      name: 'capabilities',
      title: 'Capabilities',
      description: 'The bridge’s versions and every enabled command with its permissions and JSON Schemas (GET /capabilities).',
      mimeType: 'application/json',
    },
  },
  {
    kind: 'events',
    resource: {
      uri: URIS.events,
      name: 'events',
      title: 'Events',
      description:
        'The events this credential may see that this session has not read yet, oldest first (at most 100 a read; a read ' +
        'moves the session’s cursor past them). gap names events the bridge no longer holds.',
      mimeType: 'application/json',
    },
  },
];

/** What a resource needs of the bridge: the commands it reads with. */
function needs(kind: Target['kind'], caps: Capabilities, mask: number | null): boolean {
  const may = (name: string) => {
    const command = caps.commands.find((c) => c.name === name);
    return command !== undefined && mayCall(command, mask);
  };
  switch (kind) {
    case 'capabilities':
      return true;
    case 'state':
      return may('get_world_state');
    case 'kingdoms':
    case 'kingdom':
      return may('list_kingdoms');
    case 'map':
      return may('screenshot') || (may('observe') && may('list_tiles'));
    case 'events':
      return may('recv_events');
    case 'tile':
      return may('get_tile');
  }
}

export function resourcesFor(caps: Capabilities, mask: number | null): Resource[] {
  return FIXED.filter(({ kind }) => needs(kind, caps, mask)).map(({ resource }) => resource);
}

export function templatesFor(caps: Capabilities, mask: number | null): ResourceTemplate[] {
  const templates: ResourceTemplate[] = [];
  if (needs('tile', caps, mask)) {
    templates.push({
      uriTemplate: TEMPLATES.tile,
      name: 'tile',
      title: 'Tile',
      description: 'One tile: its type, top layer, height and the actors on it (get_tile). x and y are tile coordinates.',
      mimeType: 'application/json',
    });
  }
  if (needs('kingdom', caps, mask)) {
    templates.push({
      uriTemplate: TEMPLATES.kingdom,
      name: 'kingdom',
      title: 'Kingdom',
      description: 'One kingdom (from list_kingdoms) and, as far as this credential may see them, its cities (list_cities).',
      mimeType: 'application/json',
    });
  }
  return templates;
}

const TILE = /^world:\/\/tile\/(\d{1,9})\/(\d{1,9})$/;
const KINGDOM = /^world:\/\/kingdom\/(\d{1,9})$/;

/** The resource `uri` names, or null for none of ours. */
export function parseUri(uri: string): Target | null {
  if (Buffer.byteLength(uri) > LIMITS.mcpUriMaxBytes) return null;
  const fixed = FIXED.find(({ resource }) => resource.uri === uri);
  if (fixed) return { kind: fixed.kind };
  const tile = TILE.exec(uri);
  if (tile) return { kind: 'tile', x: Number(tile[1]), y: Number(tile[2]) };
  const kingdom = KINGDOM.exec(uri);
  if (kingdom) return { kind: 'kingdom', id: Number(kingdom[1]) };
  return null;
}

/** Whether the credential may read `target` now. */
export function readable(target: Target, caps: Capabilities, mask: number | null): boolean {
  return needs(target.kind, caps, mask);
}

export interface ReadContext {
  client: BridgeClient;
  caps: Capabilities;
  mask: number | null;
  signal?: AbortSignal;
  /** world://events: the session's cursor, read and moved. */
  cursor: { get(): Promise<number>; set(seq: number): void };
  /** world://events: the bridge no longer holds events after the cursor. */
  gap(from: number, to: number): void;
}

/** A resource's content: JSON text, or the map as a PNG blob. */
export async function readTarget(uri: string, target: Target, ctx: ReadContext): Promise<ReadResourceResult> {
  const options = ctx.signal === undefined ? {} : { signal: ctx.signal };
  const call = async (name: string, args: Record<string, unknown> = {}) => (await ctx.client.request(name, args, options)).result;
  const json = (value: unknown): ReadResourceResult => ({ contents: [{ uri, mimeType: 'application/json', text: JSON.stringify(value) }] });
  try {
    switch (target.kind) {
      case 'state':
        return json(await call('get_world_state'));
      case 'kingdoms':
        return json(await call('list_kingdoms', { include_wild: true }));
      case 'capabilities':
        return json(await ctx.client.capabilities(options));
      case 'tile':
        return json(await call('get_tile', { x: target.x, y: target.y }));
      case 'kingdom':
        return json(await readKingdom(target.id, call, ctx));
      case 'events': {
        const since = await ctx.cursor.get();
        const answer = (await call('recv_events', { since_seq: since, max: LIMITS.mcpEventsPerRead })) as {
          next_cursor: number;
          gap?: { from: number; to: number };
        };
        ctx.cursor.set(answer.next_cursor);
        if (answer.gap !== undefined) ctx.gap(answer.gap.from, answer.gap.to);
        return json(answer);
      }
      case 'map':
        return { contents: [{ uri, mimeType: 'image/png', blob: await readMap(call, ctx) }] };
    }
  } catch (err) {
    if (err instanceof BridgeCallError) {
      const notFound = err.code === 'OUT_OF_BOUNDS' || err.code === 'UNKNOWN_ASSET';
      throw protocolError(notFound ? RESOURCE_NOT_FOUND : -32603, `${uri}: ${err.code}: ${err.message}`, { uri, code: err.code });
    }
    if (err instanceof BridgeConnectionError) throw protocolError(-32603, `${uri}: ${err.message}`, { uri });
    throw err;
  }
}

type Call = (name: string, args?: Record<string, unknown>) => Promise<unknown>;

async function readKingdom(id: number, call: Call, ctx: ReadContext): Promise<unknown> {
  const { items } = (await call('list_kingdoms', { include_wild: true })) as { items: Array<{ id: number }> };
  const kingdom = items.find((item) => item.id === id);
  if (kingdom === undefined) throw protocolError(RESOURCE_NOT_FOUND, `world://kingdom/${id}: no kingdom ${id} (world://kingdoms lists them)`, { id });
  const cities = ctx.caps.commands.find((c) => c.name === 'list_cities');
  if (cities === undefined || !mayCall(cities, ctx.mask)) return { kingdom };
  const { items: own } = (await call('list_cities', { kingdom_id: id })) as { items: unknown[] };
  return { kingdom, cities: own };
}

/** The game's picture when the credential may take one; else one drawn from what observe shows it. */
async function readMap(call: Call, ctx: ReadContext): Promise<string> {
  const screenshot = ctx.caps.commands.find((c) => c.name === 'screenshot');
  if (screenshot !== undefined && mayCall(screenshot, ctx.mask)) {
    return ((await call('screenshot', { format: 'png', max_dimension: 512 })) as { base64: string }).base64;
  }
  const [view, tiles] = await Promise.all([call('observe', { grid: 64, anchors: 0 }), call('list_tiles')]);
  return renderObservedMap(view as ObservePlanes, (tiles as { items: TileInfo[] }).items).toString('base64');
}

/** A JSON-RPC error with this code and message as written (McpError would prefix the message). */
export function protocolError(code: number, message: string, data?: unknown): Error {
  return Object.assign(new Error(message), { code, ...(data === undefined ? {} : { data }) });
}
