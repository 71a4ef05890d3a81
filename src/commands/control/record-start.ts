import { Type } from '@sinclair/typebox';
import { LIMITS } from '../../limits.ts';
import { EPISODE_FORMAT, type EpisodeHeader } from '../../shared/episode-format.ts';
import { checkNotRecording, fileSink, Recorder, recordHolderOf } from '../shared/recorder.ts';
import { createRecordFile, discardRecordFile, recordPath, type RecordPath } from '../shared/episodes.ts';
import { SAVE_NAME_PATTERN } from '../shared/saves.ts';
import { defineCommand } from '../define.ts';

export const RecordStartResult = Type.Object({
  name: Type.String(),
  path: Type.String({ description: 'episodes/<name>.jsonl, relative to the config dir' }),
  tick: Type.Integer({ description: 'the tick the record starts at (its header)' }),
  hash: Type.String({ description: 'world_hash at the start (its header)' }),
});

interface Begin extends RecordPath {
  name: string;
  modVersion: string;
  game: string;
  /** The new file, open for writing (createRecordFile, on the pool thread). */
  fd: number;
}

export default defineCommand({
  name: 'record_start',
  category: 'control',
  description:
    'Start recording an episode to a new file episodes/<name>.jsonl (mode 0600; anything already at that name is ' +
    'refused, unless replace is true and it is a regular file): a header with the seed, ' +
    'size, tick and world_hash, then every accepted action and control command at its tick and order, and a hash line ' +
    'after each step. One record at a time; it ends with record_stop, at 256 MiB, or when the world is replaced ' +
    '(each emits record_stopped). `gcb replay FILE` runs it again and checks every hash.',
  args: Type.Object(
    {
      name: Type.String({
        maxLength: LIMITS.idMaxLength,
        pattern: SAVE_NAME_PATTERN,
        description: 'record name: 1-64 of A-Z a-z 0-9 . _ -, starting with a letter or digit',
      }),
      replace: Type.Optional(
        Type.Boolean({ default: false, description: 'remove a regular file already at the name first (never a link, a FIFO or a folder)' }),
      ),
    },
    { additionalProperties: false },
  ),
  result: RecordStartResult,
  permission: { all: ['control_world'] },
  binds: ['stateHash'],
  runsOnGameThread: false,
  phases: {
    // Before the file is made or a file replaced: a refused start touches nothing.
    check: ({ clock }) => checkNotRecording(recordHolderOf(clock)),
    begin: ({ game, clock, emit }, input: Begin) => {
      const holder = recordHolderOf(clock);
      checkNotRecording(holder); // again: another record may have started since the check
      const world = game.getWorldState?.();
      const header: EpisodeHeader = {
        format: EPISODE_FORMAT,
        mod_version: input.modVersion,
        game: input.game,
        seed: world?.seed ?? null,
        width: world?.width ?? null,
        height: world?.height ?? null,
        tick: game.currentTick(),
        hash: game.stateHash(),
      };
      holder.current = new Recorder({
        name: input.name,
        path: input.shown,
        sink: fileSink(input.fd),
        header,
        clock,
        world: () => ({ tick: game.currentTick(), hash: game.stateHash() }),
        maxBytes: LIMITS.recordMaxBytes,
        hashEveryTicks: LIMITS.recordRealtimeHashTicks,
        onStop: ({ name, path, reason, lines, bytes, tick }) => emit('record_stopped', { name, path, reason, lines, bytes, tick }),
      });
      return { name: input.name, path: input.shown, tick: header.tick, hash: header.hash };
    },
  },
  pool: async ({ args, info, frame }) => {
    await frame('check');
    const path = await recordPath(info, args.name);
    // decisions §15: created new here, off the game thread; a name in use is refused, no open waits.
    const fd = await createRecordFile(path, args.replace ?? false);
    const begin: Begin = { ...path, name: args.name, modVersion: info.modVersion, game: info.gameVersion, fd };
    try {
      return await frame('begin', begin);
    } catch (err) {
      await discardRecordFile(path, fd);
      throw err;
    }
  },
});
