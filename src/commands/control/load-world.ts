import { readFile } from 'node:fs/promises';
import { Type } from '@sinclair/typebox';
import { badArgs } from '../../errors/bridge-error.ts';
import { LIMITS } from '../../limits.ts';
import type { WorldSnapshot } from '../../shared/game-module.ts';
import { resolveSavePath } from '../shared/saves.ts';
import { installWorld } from '../shared/world-swap.ts';
import { defineCommand } from '../define.ts';

const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

export default defineCommand({
  name: 'load_world',
  category: 'control',
  description:
    'Replace the live world with a save: `path` names a save in saves/ (its folder name), or `bytes_b64` carries ' +
    'the save file itself (it wins when both are given). The file is read and parsed on a pool thread; ' +
    'get_ui_state.world_loading is true from then until the swap frame. The answer comes once the save is parsed and ' +
    'the swap is queued: any command sent after it runs on the new world.',
  args: Type.Object(
    {
      path: Type.Optional(
        Type.String({
          maxLength: LIMITS.pathMaxLength,
          description: 'a save name under saves/ (as given to save_world.folder), or an absolute path inside saves/',
        }),
      ),
      bytes_b64: Type.Optional(
        Type.String({
          maxLength: LIMITS.maxBodyBytesMax,
          description: 'the save file, base64; wins over path (mind the 1 MiB body limit: large worlds load by path)',
        }),
      ),
    },
    { additionalProperties: false },
  ),
  result: Type.Object({
    scheduled: Type.Boolean(),
    bytes: Type.Integer({ description: 'length of the save file read' }),
    source: Type.Union([Type.Literal('path'), Type.Literal('bytes_b64')]),
    path: Type.Union([Type.String(), Type.Null()], { description: 'the file read, when source is path' }),
    width: Type.Integer(),
    height: Type.Integer(),
    seed: Type.Integer(),
  }),
  permission: { all: ['control_world'] },
  binds: ['decodeSave', 'installWorld', 'setWorldLoading'],
  runsOnGameThread: false,
  // mark_loading ran in a frame: a worker that dies before the swap is queued must not leave it up.
  onWorkerLost: 'clear_loading',
  phases: {
    mark_loading: ({ game }) => game.setWorldLoading(true),
    clear_loading: ({ game }) => game.setWorldLoading(false),
    install: ({ game, shared, clock, emit }, snapshot: WorldSnapshot) => {
      const installed = installWorld({ game, shared, clock }, snapshot);
      game.setWorldLoading(false);
      emit('world_loaded', { ...installed });
      return installed;
    },
  },
  pool: async (env) => {
    const { args, info } = env;
    // decisions §14: its phases (read, decode, install), for a caller that asked.
    env.progress(1, 3, 'read');
    // Every argument is checked and the file read before the world is marked or touched.
    let bytes: Uint8Array;
    let source: 'path' | 'bytes_b64';
    let path: string | null = null;
    if (args.bytes_b64 !== undefined) {
      const text = args.bytes_b64.replace(/\s+/g, '');
      if (text.length === 0 || text.length % 4 === 1 || !BASE64.test(text)) throw badArgs('bytes_b64 is not base64');
      bytes = Buffer.from(text, 'base64');
      source = 'bytes_b64';
    } else if (args.path !== undefined) {
      const resolved = await resolveSavePath(info, args.path);
      path = resolved.shown;
      bytes = await readFile(resolved.file);
      source = 'path';
    } else {
      throw badArgs('load_world needs path (a save name under saves/) or bytes_b64');
    }

    const game = await env.game();
    // decisions §3: world_loading is true from here until the swap frame, so a save_world in
    // between is refused instead of saving the world being replaced.
    await env.frame('mark_loading');
    env.progress(2, 3, 'decode');
    let snapshot: WorldSnapshot;
    try {
      snapshot = game.decodeSave(bytes);
    } catch (err) {
      await env.frame('clear_loading').catch(() => {});
      throw err;
    }
    // The install phase clears the flag itself when it runs; should it never run (504), the
    // clear_loading phase is queued in its place.
    env.progress(3, 3, 'install');
    await env.enqueue('install', snapshot, 'clear_loading');
    return { scheduled: true, bytes: bytes.byteLength, source, path, width: snapshot.width, height: snapshot.height, seed: snapshot.seed };
  },
});
