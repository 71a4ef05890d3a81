// Property-based fuzzing of POST /cmd, driven by the schemas the bridge publishes in /capabilities:
// 1,000 valid and near-valid requests across every command (bench:fuzz runs 10,000). Each answer is
// a valid envelope; no 5xx but 503 BUSY and 504; schema-invalid args are always 400 BAD_ARGS with
// the name and the args echoed, so argument validation never yields GAME_CRASH.
import fc from 'fast-check';
import t from 'tap';
import { startSandbox } from '../commands/helpers.ts';
import { capabilities, samples, TEST_CAPS } from './fuzz-setup.ts';
import { inParallel, postRaw, prototypeFingerprint, type Reply } from './helpers.ts';
import { describe, Oracle, requestArbitrary, requestText, type FuzzRequest } from './schema-arbitrary.ts';

t.setTimeout(180_000);

const CASES = 1000;
const BATCH = 8; // one batch runs at once, as many as the bridge has slots

t.test(`${CASES} schema-driven requests: valid envelopes, no 5xx but 503/504, invalid args always BAD_ARGS`, async (t) => {
  const b = await startSandbox(t);
  const target = { url: b.bridge.url, token: b.token };
  const commands = await capabilities(target);
  t.equal(commands.length, 38, 'every command of the sandbox is fuzzed (28 of v0.3 + recv_events + batch + 7 of research mode + observe)');
  const oracle = new Oracle(commands);
  const arbitrary = fc.array(requestArbitrary(commands, { caps: TEST_CAPS, samples: await samples(target) }), { minLength: BATCH, maxLength: BATCH });
  const prototypes = prototypeFingerprint();

  const seen = new Map<string, number>();
  const failures: string[] = [];
  let sent = 0;
  const property = fc.asyncProperty(arbitrary, async (batch: FuzzRequest[]) => {
    const problems: string[] = [];
    await inParallel(batch, BATCH, async (request) => {
      let reply: Reply;
      try {
        // Once more on a reset: fetch may reuse a keep-alive socket the bridge closed as idle (5 s)
        // while the arbitraries were built; that race is the client's, not an answer.
        reply = await postRaw(target, requestText(request)).catch(() => postRaw(target, requestText(request)));
      } catch (err) {
        // A connection closed twice without an answer is a finding like any other: name the request.
        problems.push(`no answer (${String((err as Error).cause ?? err)}): ${requestText(request).slice(0, 300)}`);
        return;
      }
      sent++;
      const key = `${request.name} ${reply.status}${reply.status === 200 ? '' : ` ${reply.body?.error?.code}`}`;
      seen.set(key, (seen.get(key) ?? 0) + 1);
      for (const problem of oracle.judge(request, reply)) problems.push(`${problem}\n    ${describe(request, reply)}`);
    });
    failures.push(...problems);
    return problems.length === 0;
  });
  const seed = Number(process.env.GCB_FUZZ_SEED ?? Date.now() % 2 ** 31);
  const result = await fc.check(property, { numRuns: CASES / BATCH, seed, interruptAfterTimeLimit: 150_000, markInterruptAsFailure: false });
  t.comment(`seed ${seed}: ${sent} requests sent (shrinking included); answers by command and status: ${JSON.stringify(Object.fromEntries([...seen].sort()))}`);
  if (result.failed) {
    t.fail(
      `fuzz found ${new Set(failures).size} distinct problems (seed ${seed}, path ${result.counterexamplePath}); the first ones:\n${[...new Set(failures)].slice(0, 8).join('\n')}`,
    );
    t.comment(`shrunk counterexample: ${JSON.stringify(result.counterexample?.[0]?.map(requestText))}`);
    // No judged problem: the property itself threw (the oracle or the client); say what.
    if (failures.length === 0) t.comment(`the property threw: ${String((result.errorInstance as Error | undefined)?.stack ?? result.errorInstance)}`);
  } else {
    t.pass(`${result.numRuns * BATCH} requests, every answer as the schema says`);
  }
  t.ok(sent >= CASES || result.interrupted, `at least ${CASES} requests were sent (${sent})`);

  const covered = new Set([...seen.keys()].map((k) => k.split(' ')[0]));
  t.same(
    commands.map((c) => c.name).filter((name) => !covered.has(name)),
    [],
    'every command was called',
  );
  t.equal(prototypeFingerprint(), prototypes, 'no built-in prototype changed');
  const stats = b.bridge.stats();
  t.equal(stats.waiting, 0);
  // Pulsed runs and pool steps may still be finishing: the slots come back once they end.
  const deadline = Date.now() + 30_000;
  while (b.bridge.stats().slotsInUse !== 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
  t.equal(b.bridge.stats().slotsInUse, 0, 'slots back to 0');
  t.equal((await b.cmd('get_world_state')).status, 200, 'the bridge still serves');
});
