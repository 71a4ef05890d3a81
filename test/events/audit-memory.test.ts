// decisions §13: a `command` record's summary copies every string it cuts, so it keeps nothing of
// the request's body alive. Apart from audit.test.ts: 96 requests of 1 MB take seconds, and the
// mutation run (npm run mutate -- events) leaves this file out for that reason.
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import t from 'tap';
import { shownName, summarizeArgs } from '../../src/events/audit.ts';
import { parseCommandBody } from '../../src/http/body.ts';

let gcFunction: (() => void) | undefined;
function gc(): void {
  if (!gcFunction) {
    setFlagsFromString('--expose-gc');
    gcFunction = runInNewContext('gc') as () => void;
  }
  gcFunction();
  gcFunction();
}

t.test('the summary copies what it cuts: it holds nothing of a 1 MB request alive', async (t) => {
  // Each request carries a distinct 1 MB string, parsed as POST /cmd parses it. A cut of it kept
  // as a slice (a V8 sliced string) or joined to the cut mark would keep the whole 1 MB.
  const ROUNDS = 40;
  const kept: unknown[] = [];
  gc();
  const before = process.memoryUsage().heapUsed;
  for (let i = 0; i < ROUNDS; i++) {
    const long = `${i}:`.padEnd(1_000_000, String.fromCharCode(97 + (i % 26)));
    const body = JSON.stringify({ name: long, args: { blob: long, list: [long], [long.slice(0, 500_000)]: 1 } });
    const request = parseCommandBody(Buffer.from(body));
    if (request instanceof Error) throw request;
    kept.push(summarizeArgs(request.name, request.args), shownName(request.name));
  }
  gc();
  const grown = process.memoryUsage().heapUsed - before;
  t.ok(
    grown < 16 * 1024 * 1024,
    `${ROUNDS} summaries of 1 MB requests hold ${(grown / 1048576).toFixed(1)} MiB (a kept slice would hold ${ROUNDS} MiB or more)`,
  );
  t.equal(kept.length, ROUNDS * 2);
});
