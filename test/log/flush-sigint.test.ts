// decisions §10: request lines are asynchronous but written within 1 s, and every line is written
// before the process exits. Over a real process: the command line of src/main.ts.
import t from 'tap';
import { startCli } from './helpers.ts';

t.setTimeout(120_000);

for (const signal of ['SIGINT'] as const) {
  t.test(`after ${signal} the last request's line is there`, async (t) => {
    const cli = await startCli(t);
    for (let i = 0; i < 5; i++) t.equal(await cli.request(`before-${signal}-${i}`), 200);
    cli.child.kill(signal);
    t.equal(await cli.exited, 0);
    for (let i = 0; i < 5; i++) t.match(cli.stderr(), `"rid":"before-${signal}-${i}"`);
    t.match(cli.stderr(), /"msg":"bridge closed"/);
  });
}
