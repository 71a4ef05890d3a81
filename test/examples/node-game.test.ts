// examples/node-game, run as the README says (its command, with a temporary config dir and a free
// port added) and driven over HTTP and with the README's gcb line: get_tile and spawn on a game
// that leaves out what only the sandbox has, the refusals a game raises, and the commands it
// cannot serve.
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Ajv2020 } from 'ajv/dist/2020.js';
import t from 'tap';
import getTile from '../../src/commands/read/get-tile.ts';
import getWorldState from '../../src/commands/read/get-world-state.ts';
import { POND } from '../../examples/node-game/game.ts';
import { tempDir } from '../helpers/bridge.ts';
import { REPO_ROOT } from '../helpers/paths.ts';
import { gcb } from '../gcb/helpers.ts';

t.setTimeout(90_000); // two child processes under tsx on a loaded machine

const README = readFileSync(join(REPO_ROOT, 'README.md'), 'utf8');
const embedding = README.slice(README.indexOf('## Embedding'), README.indexOf('## Clients'));
const runLine = /```sh\n(node --import tsx examples\/node-game\/main\.ts)\n```/.exec(embedding)?.[1];
const gcbLine = /```sh\n(node bin\/gcb\.js call spawn [^\n]*)\n```/.exec(embedding)?.[1];

t.test('the README command runs the example; get_tile and spawn work on it', async (t) => {
  t.ok(runLine, "README's Embedding section has the example's command");
  t.ok(gcbLine, 'and a gcb line to drive it');
  const dir = tempDir();
  const [node, ...args] = runLine!.split(' ');
  t.equal(node, 'node');
  const child = spawn(process.execPath, [...args, '--config-dir', dir, '--port', '0'], { cwd: REPO_ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
  t.teardown(() => {
    if (child.exitCode === null) child.kill('SIGKILL');
  });
  let stdout = '';
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const url = await new Promise<string>((resolve, reject) => {
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
      const match = /on (http:\/\/127\.0\.0\.1:\d+)/.exec(stdout);
      if (match) resolve(match[1]!);
    });
    child.once('exit', (code) => reject(new Error(`the example exited early with ${code}: ${stderr.slice(-800)}`)));
  });
  const token = /token = "([A-Za-z0-9]+)"/.exec(readFileSync(join(dir, 'bridge.toml'), 'utf8'))![1]!;
  const cmd = async (name: string, args?: unknown) => {
    const res = await fetch(`${url}/cmd`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify(args === undefined ? { name } : { name, args }),
    });
    return { status: res.status, body: (await res.json()) as any };
  };
  const ajv = new Ajv2020({ strict: false });

  // Paused, the sheep stay where they are put. A land tile next to the pond: spawn there, then
  // get_tile shows the sheep.
  t.same((await cmd('pause')).body.result, { previous_paused: false, paused: true });
  const land = { x: POND.x + POND.radius + 2, y: POND.y };
  const spawned = await cmd('spawn', { entity_id: 'sheep', ...land, count: 3, adult: true });
  t.equal(spawned.status, 200, 'spawn answers 200');
  t.match(spawned.body.result, { entity_id: 'sheep', ...land, requested: 3, spawned: 3, failed: 0 });
  t.equal(spawned.body.result.names.length, 3);
  const tile = await cmd('get_tile', land);
  t.equal(tile.status, 200, 'get_tile answers 200');
  t.equal(tile.body.result.tile_id, 'grass');
  const names = tile.body.result.actors.map((a: { name: string }) => a.name);
  t.ok(names.includes(spawned.body.result.names[0]), 'the first sheep stands on (x, y)');
  t.equal(tile.body.result.actor_count, tile.body.result.actors.length);
  t.notOk('height' in tile.body.result || 'top_id' in tile.body.result, 'no height or top layer in this game: left out');
  t.notOk('kingdom_id' in tile.body.result.actors[0], 'no kingdoms either');
  t.ok(ajv.validate(getTile.result, tile.body.result), 'the answer fits the get_tile result schema');

  // Refusals: the game's own (water), and the bridge's (off the map, an unknown id).
  const wet = await cmd('spawn', { entity_id: 'sheep', x: POND.x, y: POND.y });
  t.equal(wet.status, 422);
  t.match(wet.body.error, { code: 'GAME_REJECTED', message: /cannot stand on water/, exception: { type: 'GameRejected', stack_top: /game\.ts/ } });
  t.match((await cmd('get_tile', { x: 64, y: 0 })).body.error, { code: 'OUT_OF_BOUNDS', message: /64x64/ });
  t.match((await cmd('spawn', { entity_id: 'shep', x: 1, y: 1 })).body.error, { code: 'UNKNOWN_ASSET', did_you_mean: ['sheep'] });

  const world = await cmd('get_world_state');
  t.match(world.body.result, { width: 64, height: 64, population_alive: 23 });
  t.notOk('kingdoms_alive' in world.body.result, 'no kingdom counts in a game without kingdoms');
  t.ok(ajv.validate(getWorldState.result, world.body.result), 'the answer fits the get_world_state result schema');

  const found = await cmd('query_actors', { in_rect: { x: land.x - 1, y: land.y - 1, w: 3, h: 3 } });
  t.ok(found.body.result.matched >= 3, 'query_actors finds them');

  // What the game does not export stays disabled, and /capabilities says why.
  const caps = (await (await fetch(`${url}/capabilities`, { headers: { authorization: `Bearer ${token}` } })).json()) as any;
  const enabled = caps.commands.map((c: { name: string }) => c.name);
  for (const name of ['get_tile', 'spawn', 'query_actors', 'get_world_state', 'pause']) t.ok(enabled.includes(name), `${name} is on`);
  t.match(
    caps.disabled_commands.find((d: { name: string }) => d.name === 'paint_tile'),
    { missing: ['paintTile', 'listTiles', 'listTopTiles'], reason: /does not export paintTile, listTiles, listTopTiles/ },
  );

  // The README's gcb line, pointed at this run.
  const line = gcbLine!.replace('http://127.0.0.1:8724', url).replace('.bridge-example', dir).split(' ').slice(2);
  const called = await gcb(line); // stdout is a pipe: the success envelope as JSON
  t.equal(called.code, 0, `gcb exits 0 ${called.stderr.trim()}`);
  t.match(JSON.parse(called.stdout), { ok: true, result: { entity_id: 'sheep', x: 10, y: 12, spawned: 1 } });

  t.notMatch(stdout, token, 'the token is not printed');
  const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
  child.kill('SIGINT');
  t.equal(await exited, 0, 'exits 0 on SIGINT');
});
