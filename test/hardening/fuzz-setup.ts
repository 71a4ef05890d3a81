// What the fuzz needs from a live bridge: the command descriptors of /capabilities and realistic
// values for the named string args (asset ids from the list_* commands, agent ids).
import type { ArbitraryOptions, CommandDescriptor } from './schema-arbitrary.ts';

interface Target {
  url: string;
  token: string;
}

async function call(target: Target, name: string): Promise<any> {
  const response = await fetch(`${target.url}/cmd`, {
    method: 'POST',
    headers: { authorization: `Bearer ${target.token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ name }),
  });
  const body = (await response.json()) as { ok: boolean; result?: any };
  return body.ok ? body.result : undefined;
}

export async function capabilities(target: Target): Promise<CommandDescriptor[]> {
  const response = await fetch(`${target.url}/capabilities`, { headers: { authorization: `Bearer ${target.token}` } });
  return ((await response.json()) as { commands: CommandDescriptor[] }).commands;
}

export async function samples(target: Target): Promise<NonNullable<ArbitraryOptions['samples']>> {
  const ids = (items: unknown): string[] => (Array.isArray(items) ? items.map((i: { id?: unknown }) => String(i.id)) : []);
  const [tiles, actors, powers, speeds] = await Promise.all(['list_tiles', 'list_actors', 'list_powers', 'list_speeds'].map((name) => call(target, name)));
  const races = [...new Set((actors?.items ?? []).map((a: { race?: unknown }) => String(a.race)))] as string[];
  return {
    tile_id: ids(tiles?.items),
    top_id: ids(tiles?.top_tiles),
    entity_id: ids(actors?.items),
    power_id: ids(powers?.items),
    speed_id: ids(speeds?.items),
    race: races,
    to: ['legacy', '*'],
    format: ['jpg', 'png'],
    // save_world writes these and load_world reads them back
    folder: SAVE_NAMES,
    path: [...SAVE_NAMES, `${SAVE_NAMES[0]}/world.sav`],
  };
}

const SAVE_NAMES = ['fuzz-a', 'fuzz-b.2', 'Fuzz_C'];

/** Valid-value bounds that keep `npm test` cheap; bench:fuzz runs the schemas' full ranges. */
export const TEST_CAPS: Readonly<Record<string, number>> = Object.freeze({
  zone_x: 5, // generate_world: 2..16 zones; 16 × 16 takes seconds
  zone_y: 5,
  pulses: 12, // invoke_power: a pulse a frame
  max_dimension: 384, // screenshot
  count: 20, // spawn
  radius: 24, // paint_tile, invoke_power
  limit: 600, // query_actors
  wait_ms: 20, // recv_events: up to 25 s of waiting per request
  ticks: 20, // step: up to 10,000 ticks back to back
});
