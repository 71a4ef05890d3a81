import { Type } from '@sinclair/typebox';
import { gameRejected } from '../../errors/bridge-error.ts';
import { LIMITS } from '../../limits.ts';
import type { WorldSnapshot } from '../../shared/game-module.ts';
import { checkSaveName, SAVE_NAME_PATTERN, writeSave } from '../shared/saves.ts';
import { defineCommand } from '../define.ts';

export default defineCommand({
  name: 'save_world',
  category: 'control',
  description:
    'Save the live world to saves/<folder>/world.sav. The world is copied in one frame, then encoded and written ' +
    'on a pool thread, atomically (temp file, fsync, rename). Refused while a world is loading.',
  args: Type.Object(
    {
      folder: Type.String({
        maxLength: LIMITS.idMaxLength,
        pattern: SAVE_NAME_PATTERN,
        description: 'save name: 1-64 of A-Z a-z 0-9 . _ -, starting with a letter or digit',
      }),
      compress: Type.Optional(Type.Boolean({ default: true, description: 'gzip the save body' })),
    },
    { additionalProperties: false },
  ),
  result: Type.Object({ saved: Type.Boolean(), folder: Type.String(), path: Type.String(), compressed: Type.Boolean(), bytes: Type.Integer() }),
  permission: { all: ['control_world'] },
  binds: ['snapshotWorld', 'encodeSave', 'getUiState'],
  runsOnGameThread: true,
  frame: ({ game, args, progress }): WorldSnapshot => {
    checkSaveName(args.folder);
    // decisions §3: a save taken while a swap is pending would hold the world the caller is leaving.
    if (game.getUiState().world_loading) throw gameRejected('a world is loading: save_world is refused until the new world is live', 'WorldLoading');
    // decisions §14: its phases (copy, encode, write), for a caller that asked.
    progress(1, 3, 'copy');
    return game.snapshotWorld();
  },
  pool: async ({ args, info, game: loadGame, emit, progress }, snapshot: WorldSnapshot) => {
    const compress = args.compress ?? true;
    const game = await loadGame();
    progress(2, 3, 'encode');
    const bytes = game.encodeSave(snapshot, compress);
    progress(3, 3, 'write');
    const path = await writeSave(info, args.folder, bytes);
    // decisions §7: once the file is written (never the machine's path: the folder names it).
    await emit('world_saved', { folder: args.folder, compressed: compress, bytes: bytes.byteLength });
    return { saved: true, folder: args.folder, path, compressed: compress, bytes: bytes.byteLength };
  },
});
