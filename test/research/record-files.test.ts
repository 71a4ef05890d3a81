// decisions §15, record files over HTTP: a record is created new, never opened through a name that
// exists. A hard link, a symbolic link, a FIFO, a folder or an earlier record at the name is 422
// naming it, and whatever it points at stays untouched; a FIFO never blocks the game thread (an
// observer is answered while one sits at the name). record_start { replace: true } removes a regular
// file first, and nothing else. record_stop's figures are the file's.
import { execFileSync } from 'node:child_process';
import { closeSync, constants, linkSync, mkdirSync, openSync, readFileSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';
import { tempDir } from '../helpers/bridge.ts';
import { startResearch } from './helpers.ts';

t.setTimeout(120_000);

t.test('record files', async (t) => {
  const b = await startResearch(t);
  const episodes = join(b.configDir, 'episodes');
  mkdirSync(episodes, { recursive: true, mode: 0o700 });
  const at = (name: string) => join(episodes, `${name}.jsonl`);
  const outside = tempDir('gcb-outside-');
  // Each case starts with no record running, whatever the one before did.
  t.beforeEach(async () => void (await b.cmd('record_stop')));

  await t.test('a hard link named like a record is refused, naming it, and the linked file is untouched', async (t) => {
    const precious = join(outside, 'precious.txt');
    writeFileSync(precious, 'precious data\n');
    linkSync(precious, at('linked'));
    const answer = await b.cmd('record_start', { name: 'linked' });
    t.equal(answer.status, 422);
    t.equal(answer.body.error.code, 'GAME_REJECTED');
    t.match(answer.body.error.message, /^episodes\/linked\.jsonl exists \(a regular file with 2 names \(a hard link\)\): records are created new/);
    t.equal(readFileSync(precious, 'utf8'), 'precious data\n', 'the linked file is untouched');
    t.equal((await b.cmd('record_stop')).status, 422, 'no record runs');
  });

  await t.test('a symbolic link, a folder, an earlier record: each refused by name, untouched', async (t) => {
    const target = join(outside, 'target.txt');
    writeFileSync(target, 'target\n');
    symlinkSync(target, at('symlinked'));
    mkdirSync(at('folder'));
    writeFileSync(at('earlier'), 'an earlier record\n', { mode: 0o600 });
    for (const [name, kind] of [
      ['symlinked', 'a symbolic link'],
      ['folder', 'a folder'],
      ['earlier', 'a regular file'],
    ] as const) {
      const answer = await b.cmd('record_start', { name });
      t.equal(answer.status, 422, name);
      const named = `episodes/${name}.jsonl exists (${kind})`;
      t.equal(answer.body.error.message.slice(0, named.length), named, 'the message names it and what it is');
    }
    t.equal(readFileSync(target, 'utf8'), 'target\n');
    t.equal(readFileSync(at('earlier'), 'utf8'), 'an earlier record\n');
  });

  await t.test('a FIFO named like a record is refused at once, and the game thread goes on serving', async (t) => {
    execFileSync('mkfifo', [at('fifo')]);
    // Should an open ever wait for a reader, this releases it (a reader that opens and goes).
    t.teardown(() => closeSync(openSync(at('fifo'), constants.O_RDONLY | constants.O_NONBLOCK)));
    const answer = await b.cmd('record_start', { name: 'fifo' }, { signal: AbortSignal.timeout(20_000) });
    t.equal(answer.status, 422);
    t.match(answer.body.error.message, /^episodes\/fifo\.jsonl exists \(a FIFO\)/);
    const hash = await b.cmd('world_hash', undefined, { signal: AbortSignal.timeout(20_000) });
    t.equal(hash.status, 200, 'a read is answered while the FIFO sits at the name');
    const replaced = await b.cmd('record_start', { name: 'fifo', replace: true }, { signal: AbortSignal.timeout(20_000) });
    t.equal(replaced.status, 422, 'replace removes regular files only');
    t.match(replaced.body.error.message, /^episodes\/fifo\.jsonl is a FIFO: replace removes a regular file only/);
    t.ok(statSync(at('fifo')).isFIFO(), 'the FIFO is still there');
  });

  await t.test('replace: true replaces a regular file, and only a regular file', async (t) => {
    for (const name of ['symlinked', 'folder']) {
      const answer = await b.cmd('record_start', { name, replace: true });
      t.equal(answer.status, 422, name);
      t.match(answer.body.error.message, /replace removes a regular file only/);
    }
    t.equal(readFileSync(join(outside, 'target.txt'), 'utf8'), 'target\n', 'the link target is untouched');
    const started = await b.ok('record_start', { name: 'earlier', replace: true });
    t.match(started, { name: 'earlier', path: 'episodes/earlier.jsonl' });
    await b.ok('spawn', { entity_id: 'walker', x: 1, y: 1 });
    await b.ok('step', { ticks: 3 });
    const stopped = await b.ok('record_stop');
    const text = readFileSync(at('earlier'), 'utf8');
    t.notMatch(text, /an earlier record/, 'the old file is gone');
    t.equal(statSync(at('earlier')).mode & 0o777, 0o600);
    t.equal(stopped.bytes, Buffer.byteLength(text), "record_stop's bytes are the file's, all written when it answers");
    t.equal(stopped.lines, text.trimEnd().split('\n').length, 'and its lines');
    t.match(JSON.parse(text.trimEnd().split('\n').at(-1)!), { end: 'record_stop', lines: stopped.lines });
    const again = await b.cmd('record_start', { name: 'earlier' });
    t.equal(again.status, 422, 'a record at the name: refused without replace');
  });

  await t.test('a refused start (a record running) touches no file, replace or not', async (t) => {
    await b.ok('record_start', { name: 'running' });
    writeFileSync(at('kept'), 'kept\n');
    const refused = await b.cmd('record_start', { name: 'kept', replace: true });
    t.equal(refused.status, 422);
    t.match(refused.body.error.message, /a record is running \(episodes\/running\.jsonl\)/);
    t.equal(readFileSync(at('kept'), 'utf8'), 'kept\n', 'the file at the name is still there');
    await b.ok('record_stop');
  });
});
