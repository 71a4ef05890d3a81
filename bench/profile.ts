// `npm run bench:profile [-- --only capabilities,health,whoami] [-- --seconds 5] [-- --cpu-only]
// [-- --versus OTHER/dist --rounds 3]`:
// where a request's main-thread time goes. For each endpoint, a fresh bridge (compiled dist/, as the
// bench runs it) takes 8-connection load; the main thread's CPU (user + system, from /proc) divided by
// the requests answered gives µs per request. Without --cpu-only a second run is sampled by V8's
// profiler (100 µs) and the top self-time functions and the areas they belong to are printed, in µs
// per request (the profiler slows the run; read its figures as shares of the unprofiled total).
// --versus runs another build's dist/ (a copy of an earlier tree's) in alternating rounds beside
// this one: on a loaded machine only figures taken side by side compare.
import { parseArgs } from 'node:util';
import { load, mainThreadCpuMs, startBridgeProcess, type BridgeProcess, type LoadOptions } from './lib/processes.ts';
import { auth, cmdBody, configDir, jsonAuth } from './lib/requests.ts';

const { values } = parseArgs({
  options: {
    only: { type: 'string' },
    seconds: { type: 'string' },
    'cpu-only': { type: 'boolean' },
    top: { type: 'string' },
    versus: { type: 'string' },
    rounds: { type: 'string' },
  },
});
const ROUNDS = Number(values.rounds ?? 3);
const SECONDS = Number(values.seconds ?? 5);
const TOP = Number(values.top ?? 25);

const ENDPOINTS: Record<string, (url: string, token: string) => LoadOptions> = {
  capabilities: (url, token) => ({ url: `${url}/capabilities`, connections: 8, duration: SECONDS, headers: auth(token) }),
  health: (url, token) => ({ url: `${url}/health`, connections: 8, duration: SECONDS, headers: auth(token) }),
  whoami: (url, token) => ({ url: `${url}/cmd`, connections: 8, duration: SECONDS, method: 'POST', headers: jsonAuth(token), body: cmdBody('whoami') }),
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
  cpuUs: number;
  busy: number;
}

async function measure(bridge: BridgeProcess, options: LoadOptions): Promise<Measured & { total: number }> {
  const cpu0 = mainThreadCpuMs(bridge.child.pid);
  const result = await load(options);
  const cpu1 = mainThreadCpuMs(bridge.child.pid);
  const cpuMs = cpu0 === null || cpu1 === null ? NaN : cpu1 - cpu0;
  return { rps: result.rps, p99: result.p99, total: result.total, cpuUs: (cpuMs * 1000) / result.total, busy: cpuMs / (options.duration * 1000) };
}

const line = (label: string, m: Measured) =>
  `${label}: ${m.rps.toFixed(0)} req/s, p99 ${m.p99} ms, main thread ${m.cpuUs.toFixed(1)} µs CPU per request, busy ${(m.busy * 100).toFixed(0)}%\n`;
const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

const names = values.only ? values.only.split(',') : Object.keys(ENDPOINTS);
for (const name of names) {
  const options = ENDPOINTS[name];
  if (!options) throw new Error(`unknown endpoint ${name} (${Object.keys(ENDPOINTS).join(', ')})`);
  const bridge = await startBridgeProcess({ configDir: configDir() });
  const loadOptions = options(bridge.url, bridge.token);
  await load({ ...loadOptions, duration: 2 }); // warm-up: compiled code, pools, caches
  if (values.versus) {
    // A/B: this tree against another build, alternating rounds so both see the same machine load.
    const other = await startBridgeProcess({ configDir: configDir(), dist: values.versus });
    const otherOptions = options(other.url, other.token);
    await load({ ...otherOptions, duration: 2 });
    const mine: Measured[] = [];
    const theirs: Measured[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      mine.push(await measure(bridge, loadOptions));
      theirs.push(await measure(other, otherOptions));
    }
    const summary = (all: Measured[]): Measured => ({
      rps: median(all.map((m) => m.rps)),
      p99: median(all.map((m) => m.p99)),
      cpuUs: median(all.map((m) => m.cpuUs)),
      busy: median(all.map((m) => m.busy)),
    });
    process.stdout.write(line(`${name} (this tree, median of ${ROUNDS})`, summary(mine)) + line(`${name} (${values.versus})`, summary(theirs)));
    await other.stop();
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
