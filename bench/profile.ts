// `npm run bench:profile [-- --only capabilities,health,whoami] [-- --seconds 5] [-- --cpu-only]
// [-- --versus OTHER/dist[,OTHER2/dist] --rounds 3] [-- --references] [-- --instructions --requests 1000 --rewarm 1000]`:
// where a request's main-thread time goes. For each endpoint, a fresh bridge (compiled dist/, as the
// bench runs it) takes 8-connection load; the main thread's CPU (user + system, from /proc) divided by
// the requests answered gives µs per request. Without --cpu-only a second run is sampled by V8's
// profiler (100 µs) and the top self-time functions and the areas they belong to are printed, in µs
// per request (the profiler slows the run; read its figures as shares of the unprofiled total).
// --versus runs other builds' dist/ (copies of other trees', comma-separated) in alternating rounds
// beside this one: on a loaded machine only figures taken side by side compare (with --references,
// each as one more side judged against the same references).
// --references runs each endpoint beside its two references (/capabilities beside bare hono serving
// the same bytes, /health beside bare hono GET, whoami beside bare hono + piscina, each also with a
// pino line a request) in alternating rounds, and judges the ratios against bench/lib/targets.ts.
// --instructions runs the bridge beside the bare reference under valgrind's callgrind: each server's
// main-thread instructions over exactly --requests requests a round, counted in the callbacks that do
// a request's work (bench/lib/callgrind.ts), a count the machine's load does not move (slow: valgrind
// runs ~50× slower, rounds take minutes). With --versus, the other builds run as more sides in the
// same rounds (before and after a change).
// --rewarm N: each side first answers N more requests, not counted, right before each of its rounds
// (a side idles for minutes while the others run, and resumes in code V8 has since deoptimised).
import { mkdtempSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { callgrindPrefix, MainThreadCounter, NODE_FLAGS } from './lib/callgrind.ts';
import { answerFile, load, mainThreadCpuMs, processCpuMs, startBridgeProcess, startServer, type BridgeProcess, type LoadOptions } from './lib/processes.ts';
import { auth, cmdBody, configDir, jsonAuth } from './lib/requests.ts';
import { judgedAgainst, meets, REQUEST_PATH_TARGETS, type RequestPathTarget } from './lib/targets.ts';

const { values } = parseArgs({
  options: {
    only: { type: 'string' },
    seconds: { type: 'string' },
    'cpu-only': { type: 'boolean' },
    top: { type: 'string' },
    versus: { type: 'string' },
    rounds: { type: 'string' },
    references: { type: 'boolean' },
    instructions: { type: 'boolean' },
    requests: { type: 'string' },
    rewarm: { type: 'string' },
  },
});
const ROUNDS = Number(values.rounds ?? 3);
const SECONDS = Number(values.seconds ?? 5);
const TOP = Number(values.top ?? 25);
/** --instructions: requests per counted round, and before counting (to compile the hot code). */
const REQUESTS = Number(values.requests ?? 1000);
const WARM_UP_REQUESTS = 5 * REQUESTS;
/** --instructions --rewarm: requests a side answers, not counted, right before each of its rounds. */
const REWARM_REQUESTS = Number(values.rewarm ?? 0);

const ENDPOINTS: Record<string, (url: string, token: string) => LoadOptions> = {
  capabilities: (url, token) => ({ url: `${url}/capabilities`, connections: 8, duration: SECONDS, headers: auth(token) }),
  health: (url, token) => ({ url: `${url}/health`, connections: 8, duration: SECONDS, headers: auth(token) }),
  whoami: (url, token) => ({ url: `${url}/cmd`, connections: 8, duration: SECONDS, method: 'POST', headers: jsonAuth(token), body: cmdBody('whoami') }),
};

const TINY = new URL('../test/fixtures/tiny-game.ts', import.meta.url).pathname;

/**
 * The references each endpoint is judged against (bench/lib/targets.ts): the bare server, and the
 * same with a pino line a request (`--log`). `args`: the server's arguments, which may need the
 * bridge's answer (/capabilities' reference serves the same bytes).
 */
const REFERENCES: Record<
  string,
  { server: string; args(bridge: BridgeProcess): Promise<string[]>; options: (url: string) => LoadOptions; target: RequestPathTarget }
> = {
  capabilities: {
    server: 'bare-hono.ts',
    args: async (bridge) => [await answerFile(bridge, '/capabilities')],
    options: (url) => ({ url: `${url}/capabilities`, connections: 8, duration: SECONDS }),
    target: REQUEST_PATH_TARGETS.capabilities,
  },
  health: {
    server: 'bare-hono.ts',
    args: async () => [],
    options: (url) => ({ url: `${url}/health`, connections: 8, duration: SECONDS }),
    target: REQUEST_PATH_TARGETS.health,
  },
  whoami: {
    server: 'hono-pool.ts',
    args: async () => [],
    options: (url) => ({
      url: `${url}/cmd`,
      connections: 8,
      duration: SECONDS,
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: cmdBody('whoami'),
    }),
    target: REQUEST_PATH_TARGETS.whoami,
  },
};

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
}
interface Profile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

/** Self time (µs) per node id: each sample's delta is charged to the node it hit. */
function selfTimes(profile: Profile): Map<number, number> {
  const self = new Map<number, number>();
  // timeDeltas[i] is the time before sample i, so it belongs to the previous sample's node.
  for (let i = 1; i < profile.samples.length; i++) {
    const id = profile.samples[i - 1]!;
    self.set(id, (self.get(id) ?? 0) + profile.timeDeltas[i]!);
  }
  return self;
}

/** The package or source folder a function belongs to. */
function areaOf(url: string, name: string): string {
  if (url === '') return name.startsWith('(') ? name : '(native)';
  const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (pkg) return pkg[1]!;
  const own = /\/(dist\/)?(src|workers)\/(.+?)\/[^/]+\.[jt]s$/.exec(url);
  if (own) return `${own[2]}/${own[3]}`;
  if (url.startsWith('node:')) return 'node internals';
  return url.replace(/^.*\//, '');
}

function report(label: string, profile: Profile, requests: number): void {
  const self = selfTimes(profile);
  const byNode = new Map(profile.nodes.map((n) => [n.id, n]));
  const byFunction = new Map<string, number>();
  const byArea = new Map<string, number>();
  for (const [id, us] of self) {
    const { functionName, url, lineNumber } = byNode.get(id)!.callFrame;
    const name = `${functionName || '(anonymous)'} ${url.replace(/^.*\/(node_modules|dist)\//, '')}${url ? `:${lineNumber + 1}` : ''}`;
    byFunction.set(name, (byFunction.get(name) ?? 0) + us);
    const area = areaOf(url, functionName);
    byArea.set(area, (byArea.get(area) ?? 0) + us);
  }
  const busy = [...self.values()].reduce((a, b) => a + b, 0) - (byArea.get('(idle)') ?? 0);
  const rows = (m: Map<string, number>, n: number) =>
    [...m]
      .filter(([name]) => !name.startsWith('(idle)'))
      .sort((a, b) => b[1] - a[1])
      .slice(0, n)
      .map(([name, us]) => `  ${(us / requests).toFixed(2).padStart(7)} µs  ${((us / busy) * 100).toFixed(1).padStart(5)}%  ${name}`)
      .join('\n');
  process.stdout.write(
    `\n${label}: ${requests} requests profiled, ${(busy / requests).toFixed(1)} µs busy per request (profiler on)\nby area:\n${rows(byArea, 20)}\ntop self time:\n${rows(byFunction, TOP)}\n`,
  );
}

interface Measured {
  rps: number;
  p99: number;
  /** The main thread's CPU per request, µs. */
  cpuUs: number;
  /** The whole process's CPU per request, every thread, µs. */
  allCpuUs: number;
  busy: number;
}

async function measure(server: { child: { pid?: number | undefined } }, options: LoadOptions): Promise<Measured & { total: number }> {
  const pid = server.child.pid;
  const cpu0 = mainThreadCpuMs(pid);
  const all0 = processCpuMs(pid);
  const result = await load(options);
  const cpu1 = mainThreadCpuMs(pid);
  const all1 = processCpuMs(pid);
  const cpuMs = cpu0 === null || cpu1 === null ? NaN : cpu1 - cpu0;
  const allMs = all0 === null || all1 === null ? NaN : all1 - all0;
  return {
    rps: result.rps,
    p99: result.p99,
    total: result.total,
    cpuUs: (cpuMs * 1000) / result.total,
    allCpuUs: (allMs * 1000) / result.total,
    busy: cpuMs / (options.duration * 1000),
  };
}

const line = (label: string, m: Measured) =>
  `${label}: ${m.rps.toFixed(0)} req/s, p99 ${m.p99} ms, CPU per request ${m.allCpuUs.toFixed(1)} µs (main thread ${m.cpuUs.toFixed(1)}), main thread busy ${(m.busy * 100).toFixed(0)}%\n`;
const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

const names = values.only ? values.only.split(',') : Object.keys(ENDPOINTS);
/** --versus: other builds' dist/ directories. */
const VERSUS = values.versus ? values.versus.split(',') : [];
const ratios = (mine: number[], theirs: number[]) => mine.map((m, i) => m / theirs[i]!);
const spread = (values: number[]) => `${Math.min(...values).toFixed(2)}–${Math.max(...values).toFixed(2)}`;

/**
 * --references: the bridge and its two references (bare, and with a pino line a request) in
 * alternating rounds (the order turned each round); with --versus, each other build runs as one more
 * side in the same rounds and is judged the same way.
 */
async function versusReference(name: string, bridge: BridgeProcess, loadOptions: LoadOptions, others: BridgeProcess[]): Promise<void> {
  const reference = REFERENCES[name];
  if (!reference) throw new Error(`no reference for ${name} (${Object.keys(REFERENCES).join(', ')})`);
  const args = await reference.args(bridge);
  const servers = await Promise.all([startServer(reference.server, args), startServer(reference.server, ['--log', ...args])]);
  const referenceOptions = servers.map((server) => reference.options(server.url));
  for (const options of referenceOptions) await load({ ...options, duration: 2 });
  const otherOptions = others.map((other) => ENDPOINTS[name]!(other.url, other.token));
  for (const options of otherOptions) await load({ ...options, duration: 2 });
  const mine: Measured[] = [];
  const theirs: Measured[][] = servers.map(() => []);
  const othersMeasured: Measured[][] = others.map(() => []);
  for (let round = 0; round < ROUNDS; round++) {
    const sides = [
      async () => mine.push(await measure(bridge, loadOptions)),
      ...servers.map((server, i) => async () => theirs[i]!.push(await measure(server, referenceOptions[i]!))),
      ...others.map((other, i) => async () => othersMeasured[i]!.push(await measure(other, otherOptions[i]!))),
    ];
    // Each round starts with another side, and every second round runs them backwards.
    const turned = sides.map((_, i) => sides[(round + i) % sides.length]!);
    for (const side of round % 2 ? turned.reverse() : turned) await side();
  }
  await Promise.all(servers.map((server) => server.stop()));
  const { target } = reference;
  const judge = (label: string, measured: Measured[], index: 0 | 1) => {
    const against = theirs[index]!;
    const judged = judgedAgainst(target, index);
    const cpuRatios = ratios(
      against.map((m) => m.allCpuUs),
      measured.map((m) => m.allCpuUs),
    );
    const mainRatios = ratios(
      measured.map((m) => m.cpuUs),
      against.map((m) => m.cpuUs),
    );
    const rpsRatios = ratios(
      measured.map((m) => m.rps),
      against.map((m) => m.rps),
    );
    const cpuRatio = median(cpuRatios);
    const mainThreadCpu = median(mainRatios);
    const p99 = median(measured.map((m) => m.p99));
    const verdict = meets(judged, { cpuRatio, mainThreadCpu, p99 });
    return (
      `${label} against ${target.references[index].name}: CPU/req (reference ÷ bridge) ${cpuRatio.toFixed(2)}× (${spread(cpuRatios)}` +
      `${judged.minCpuRatio === undefined ? '' : `; target ≥ ${judged.minCpuRatio}×`}), main thread CPU/req ${mainThreadCpu.toFixed(2)}× (${spread(mainRatios)}` +
      `${judged.maxMainThreadCpu === undefined ? '' : `; target ≤ ${judged.maxMainThreadCpu}×`}), req/s ${median(rpsRatios).toFixed(2)}× (${spread(rpsRatios)})` +
      `${judged.maxP99Ms === undefined ? '' : `, p99 ${p99} ms (target ≤ ${judged.maxP99Ms} ms)`}${verdict === undefined ? '' : `: ${verdict ? 'ok' : 'MISS'}`}\n`
    );
  };
  const versusLabels = VERSUS.map((dist) => `${name} (${dist})`);
  process.stdout.write(
    `load average ${loadavg()
      .map((l) => l.toFixed(1))
      .join(' ')}\n` +
      line(`${name} (median of ${ROUNDS})`, summary(mine)) +
      target.references.map((r, i) => line(`${r.name} (median of ${ROUNDS})`, summary(theirs[i]!))).join('') +
      othersMeasured.map((measured, i) => line(`${versusLabels[i]} (median of ${ROUNDS})`, summary(measured))).join('') +
      judge(name, mine, 0) +
      judge(name, mine, 1) +
      othersMeasured.map((measured, i) => judge(versusLabels[i]!, measured, 0) + judge(versusLabels[i]!, measured, 1)).join(''),
  );
}

/** --instructions: each server under callgrind, its main thread's instructions over REQUESTS requests a round. */
async function instructions(name: string): Promise<void> {
  const options = ENDPOINTS[name]!;
  const reference = REFERENCES[name];
  const dir = mkdtempSync(join(tmpdir(), 'gcb-callgrind-'));
  // The tiny game at one frame a second: with collection on, valgrind instruments every thread,
  // and the default world's 60 frames a second took the whole process's share of a loaded machine
  // (a round of 1,000 requests did not end in 12 minutes), and its event batches, received by the
  // main thread at a rate per second, outweighed the requests. /health and whoami need no frame.
  const bridge = await startBridgeProcess({
    configDir: configDir({ fps: 1 }),
    game: TINY,
    prefix: callgrindPrefix(join(dir, 'bridge')),
    nodeFlags: NODE_FLAGS,
  });
  const server = reference ? await startServer(reference.server, await reference.args(bridge), callgrindPrefix(join(dir, 'reference')), NODE_FLAGS) : null;
  const others = await Promise.all(
    VERSUS.map((dist, i) =>
      startBridgeProcess({
        configDir: configDir({ fps: 1 }),
        game: TINY,
        dist,
        prefix: callgrindPrefix(join(dir, `versus-${i + 1}`)),
        nodeFlags: NODE_FLAGS,
      }),
    ),
  );
  const makeSide = (label: string, pid: number, file: string, sideOptions: LoadOptions) => ({
    label,
    counter: new MainThreadCounter(pid, join(dir, file)),
    options: sideOptions,
    perRequest: [] as number[],
    totalPerRequest: [] as number[],
  });
  // The bridge first and its reference second: the ratios below are taken between those two.
  const sides = [
    makeSide(name, bridge.child.pid!, 'bridge', options(bridge.url, bridge.token)),
    ...(server && reference ? [makeSide(reference.target.references[0].name, server.child.pid!, 'reference', reference.options(server.url))] : []),
    ...others.map((other, i) => makeSide(`${name} (${VERSUS[i]})`, other.child.pid!, `versus-${i + 1}`, options(other.url, other.token))),
  ];
  // A long bound: under valgrind a request takes milliseconds; `amount` ends each run.
  const exactly = (o: LoadOptions, amount: number): LoadOptions => ({ ...o, amount, duration: 1200 });
  for (const side of sides) await load(exactly(side.options, WARM_UP_REQUESTS));
  for (let round = 0; round < ROUNDS; round++) {
    // Each round starts with another side, and every second round runs them backwards.
    const turned = sides.map((_, i) => sides[(round + i) % sides.length]!);
    const order = round % 2 ? turned.reverse() : turned;
    for (const side of order) {
      if (REWARM_REQUESTS > 0) await load(exactly(side.options, REWARM_REQUESTS));
      const counted = await side.counter.count(() => load(exactly(side.options, REQUESTS)));
      side.perRequest.push(counted.request / REQUESTS);
      side.totalPerRequest.push(counted.total / REQUESTS);
      process.stderr.write(
        `  ${side.label} round ${round + 1}: ${(counted.request / REQUESTS / 1000).toFixed(1)} k instructions a request in its callbacks, ${(counted.total / REQUESTS / 1000).toFixed(1)} k in all\n`,
      );
    }
  }
  await bridge.stop();
  await server?.stop();
  for (const other of others) await other.stop();
  for (const side of sides) {
    process.stdout.write(
      `${side.label}: main thread ${(median(side.perRequest) / 1000).toFixed(1)} k instructions per request in the request's callbacks, least ${(Math.min(...side.perRequest) / 1000).toFixed(1)} k ` +
        `(median of ${ROUNDS} rounds of ${REQUESTS}: ${side.perRequest.map((n) => (n / 1000).toFixed(1)).join(', ')}); ` +
        `${(median(side.totalPerRequest) / 1000).toFixed(1)} k in all, timers and other per-second work included\n`,
    );
  }
  if (server && reference) {
    for (const mine of [sides[0]!, ...sides.slice(2)]) {
      const theirs = sides[1]!;
      const perRound = ratios(mine.perRequest, theirs.perRequest);
      const ratio = median(mine.perRequest) / median(theirs.perRequest);
      // A major GC that falls in a round adds to it alone: the least of each side is the steadiest.
      const least = Math.min(...mine.perRequest) / Math.min(...theirs.perRequest);
      const { references, maxInstructions } = reference.target as RequestPathTarget;
      process.stdout.write(
        `${mine.label} against ${references[0].name}: main thread instructions/req ${ratio.toFixed(2)}× of medians, ${least.toFixed(2)}× of the least (rounds ${spread(perRound)}` +
          `${maxInstructions === undefined ? ')' : `; target ≤ ${maxInstructions}×): ${ratio <= maxInstructions ? 'ok' : 'MISS'}`}\n`,
      );
    }
  }
  process.stdout.write(`  (callgrind files in ${dir}: callgrind_annotate <file>.<round>-01 names the main thread's functions)\n`);
}

const summary = (all: Measured[]): Measured => ({
  rps: median(all.map((m) => m.rps)),
  p99: median(all.map((m) => m.p99)),
  cpuUs: median(all.map((m) => m.cpuUs)),
  allCpuUs: median(all.map((m) => m.allCpuUs)),
  busy: median(all.map((m) => m.busy)),
});

for (const name of names) {
  const options = ENDPOINTS[name];
  if (!options) throw new Error(`unknown endpoint ${name} (${Object.keys(ENDPOINTS).join(', ')})`);
  if (values.instructions) {
    await instructions(name);
    continue;
  }
  const bridge = await startBridgeProcess({ configDir: configDir() });
  const loadOptions = options(bridge.url, bridge.token);
  await load({ ...loadOptions, duration: 2 }); // warm-up: compiled code, pools, caches
  if (values.references) {
    const others = await Promise.all(VERSUS.map((dist) => startBridgeProcess({ configDir: configDir(), dist })));
    await versusReference(name, bridge, loadOptions, others);
    for (const other of others) await other.stop();
  } else if (VERSUS.length > 0) {
    // A/B: this tree against other builds, alternating rounds so all see the same machine load.
    const others = await Promise.all(VERSUS.map((dist) => startBridgeProcess({ configDir: configDir(), dist })));
    const otherOptions = others.map((other) => options(other.url, other.token));
    for (const o of otherOptions) await load({ ...o, duration: 2 });
    const mine: Measured[] = [];
    const theirs: Measured[][] = others.map(() => []);
    for (let round = 0; round < ROUNDS; round++) {
      mine.push(await measure(bridge, loadOptions));
      for (const [i, other] of others.entries()) theirs[i]!.push(await measure(other, otherOptions[i]!));
    }
    process.stdout.write(
      line(`${name} (this tree, median of ${ROUNDS})`, summary(mine)) + theirs.map((measured, i) => line(`${name} (${VERSUS[i]})`, summary(measured))).join(''),
    );
    for (const other of others) await other.stop();
  } else {
    process.stdout.write(line(name, await measure(bridge, loadOptions)));
  }
  if (!values['cpu-only']) {
    await bridge.request('profile-start');
    const profiled = await load(loadOptions);
    const { profile } = await bridge.request<{ profile: Profile }>('profile-stop');
    report(name, profile, profiled.total);
  }
  await bridge.stop();
}
