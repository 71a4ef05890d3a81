// decisions §10: request lines are asynchronous but written within 1 s, and every line is written
// before the process exits. Over a real process: the command line of src/main.ts.
import t from 'tap';
import { startCli, until } from './helpers.ts';

t.setTimeout(120_000);

t.test("a quiet bridge writes a single request's line within 1.5 s", async (t) => {
  const cli = await startCli(t);
  // The startup lines were flushed by now; one request alone is far below the 4 KiB batch.
  t.equal(await cli.request('lonely-1'), 200);
  const answered = performance.now();
  await until(() => cli.seen.has('lonely-1'), 10_000);
  const waited = cli.seen.get('lonely-1')! - answered;
  t.ok(waited < 1500, `the line appeared ${Math.round(waited)} ms after the answer (at most 1 s by rule, 1.5 s by test)`);
  // And after SIGTERM the last request's line is there: the batch is flushed on the way out.
  t.equal(await cli.request('last-before-sigterm'), 200);
  cli.child.kill('SIGTERM');
  t.equal(await cli.exited, 0);
  t.match(cli.stderr(), '"rid":"last-before-sigterm"');
  t.match(cli.stderr(), /"msg":"bridge closed"/);
});
