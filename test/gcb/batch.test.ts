// gcb batch FILE|- (decisions §8): a JSON array of {name, args} run as one batch.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';
import { SANDBOX_GAME } from '../../src/bridge.ts';
import { startTestBridge, tempDir } from '../helpers/bridge.ts';
import { gcbIn } from './helpers.ts';

t.setTimeout(120_000); // real bridges on a machine that may be loaded

t.test('gcb batch from a file and from stdin; exit code of the first failed item; refusals', async (t) => {
  const b = await startTestBridge(t, { game: SANDBOX_GAME });
  const env = { GCB_TOKEN: b.token };
  const url = ['--url', b.bridge.url];
  const help = await gcbIn(['batch', '--help']);
  t.match(help.stdout, /^usage: gcb batch FILE\|-/);

  const file = join(tempDir(), 'items.json');
  writeFileSync(file, JSON.stringify([{ name: 'get_tile', args: { x: 1, y: 2 } }, { name: 'list_speeds' }]));
  const ran = await gcbIn(['batch', file, ...url], { env, isTTY: true });
  t.equal(ran.code, 0, ran.stderr);
  t.match(ran.stdout, /^\[0\] get_tile: ok\n {2}x: 1\n/);
  t.match(ran.stdout, /\n2 completed, 0 failed, 0 skipped\n$/);

  const items = JSON.stringify([{ name: 'get_tile', args: { x: 9999, y: 0 } }, { name: 'get_ui_state' }]);
  const failed = await gcbIn(['batch', '-', ...url], { env, input: items });
  t.equal(failed.code, 13, 'OUT_OF_BOUNDS exit code');
  t.match(JSON.parse(failed.stdout), { ok: true, result: { completed: 0, failed: 1, skipped: 1 } });
  const onward = await gcbIn(['batch', '-', '--keep-going', ...url], { env, input: items });
  t.match(JSON.parse(onward.stdout), { result: { completed: 1, failed: 1, skipped: 0 } });

  const nested = await gcbIn(['batch', '-', ...url], { env, input: JSON.stringify([{ name: 'batch', args: { commands: [] } }]) });
  t.equal(nested.code, 10, 'BAD_ARGS');
  t.match(nested.stderr, /commands\[0\]: a batch cannot contain a batch/);
  const notArray = await gcbIn(['batch', '-', ...url], { env, input: '{"name":"pause"}' });
  t.equal(notArray.code, 2);
  t.match(notArray.stderr, /JSON array/);
  t.equal((await gcbIn(['batch', ...url], { env })).code, 2, 'no file');
});
