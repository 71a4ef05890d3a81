// decisions §10: request lines are asynchronous but written within 1 s, and every line is written
// before the process exits. Over a real process: the command line of src/main.ts.
import t from 'tap';
import { startCli } from './helpers.ts';

t.setTimeout(120_000);

t.test('an uncaught exception: every line written, the crash line last, exit 1', async (t) => {
  const cli = await startCli(t, 'test/fixtures/crash-process.ts');
  t.equal(await cli.request('before-crash'), 200);
  cli.child.kill('SIGUSR2');
  t.equal(await cli.exited, 1);
  const lines = cli.stderr().trim().split('\n');
  t.match(cli.stderr(), '"rid":"before-crash"', "the last request's line is there");
  const last = JSON.parse(lines.at(-1)!) as { level: number; msg: string };
  t.equal(last.level, 60, 'the last line is fatal');
  t.match(last.msg, /uncaught exception: test crash on SIGUSR2/);
});
