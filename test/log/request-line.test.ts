// The request log line written directly (src/http/request-line.ts) is byte for byte what pino writes
// for the same fields through the bridge's own logger; an embedder's logger still gets info().
import { closeSync, openSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import pino from 'pino';
import t from 'tap';
import fc from 'fast-check';
import { msText, round, type RequestLog } from '../../src/http/context.ts';
import { requestLineWriter } from '../../src/http/request-line.ts';
import { BatchedWriter } from '../../src/log/batched-writer.ts';
import { createLogger } from '../../src/log/logger.ts';
import { tempDir } from '../helpers/bridge.ts';

function capture(): { stream: Writable; lines: string[] } {
  const lines: string[] = [];
  const stream = new Writable({
    write(chunk, _encoding, done) {
      lines.push(chunk.toString());
      done();
    },
  });
  return { stream, lines };
}

const base: RequestLog = {
  rid: '1b4e28ba-2fa1-11d2-883f-00163e8a1c2d',
  method: 'GET',
  path: '/health',
  agent: null,
  command: null,
  status: 200,
  code: null,
  admission_wait_ms: 0,
  queue_wait_ms: 0,
  run_ms: 0,
  ms: 0.12,
};

const lines: RequestLog[] = [
  base,
  { ...base, method: 'POST', path: '/cmd', agent: 'athena', command: 'whoami', admission_wait_ms: 1.5, queue_wait_ms: 16.67, run_ms: 0.01, ms: 20.33 },
  { ...base, path: '(other)', status: 401, code: 'UNAUTHORIZED', ms: 3 },
  { ...base, agent: 'a"quote\\back\nline\u2028é', command: '</script>', status: 400, code: 'BAD_ARGS', rid: 'client:req-1.2_3' },
  { ...base, ms: 1234567.89, run_ms: -0 },
  // Agent and command names go through the serialiser only when a character needs escaping: a
  // surrogate pair and a lone surrogate do not (pino writes them as they are), a tab does.
  { ...base, agent: 'sm\u{1f600}le', command: 'lone\ud800' },
  { ...base, agent: 'tab\there', command: 'back\\slash' },
];

t.test("the bridge's logger: the direct line equals pino's, field for field and byte for byte", async (t) => {
  const direct = capture();
  const viaPino = capture();
  const write = requestLineWriter(createLogger({ destination: direct.stream }));
  const reference = createLogger({ destination: viaPino.stream });
  for (const line of lines) {
    write(line);
    reference.info(line, 'request');
  }
  t.equal(direct.lines.length, lines.length);
  const withoutTime = (text: string) => text.replace(/"time":\d+,/, '"time":0,');
  for (const [i, text] of direct.lines.entries()) {
    t.equal(withoutTime(text), withoutTime(viaPino.lines[i]!), `line ${i}`);
    const parsed = JSON.parse(text) as Record<string, unknown>;
    t.ok(Math.abs((parsed.time as number) - Date.now()) < 60_000, 'time is now, in ms since the epoch');
  }
});

t.test("through the bridge's own stderr writer: the same bytes as pino's, ASCII lines and others alike", async (t) => {
  const file = join(tempDir('gcb-request-line-'), 'log');
  const fd = openSync(file, 'w');
  const writer = new BatchedWriter(fd);
  const viaPino = capture();
  const write = requestLineWriter(createLogger({ destination: writer }));
  const reference = createLogger({ destination: viaPino.stream });
  // Alternating, so a name that needs UTF-8 comes between ASCII ones and the other way round.
  for (const line of [...lines, ...lines.toReversed()]) {
    write(line);
    reference.info(line, 'request');
  }
  await new Promise<void>((resolve) => writer.flush(resolve));
  closeSync(fd);
  const withoutTime = (text: string) => text.replaceAll(/"time":\d+,/g, '"time":0,');
  t.equal(withoutTime(readFileSync(file, 'utf8')), withoutTime(viaPino.lines.join('')));
});

t.test('a line that changes one field of the one before it is written with the change', async (t) => {
  const direct = capture();
  const viaPino = capture();
  const write = requestLineWriter(createLogger({ destination: direct.stream }));
  const reference = createLogger({ destination: viaPino.stream });
  const changes: Partial<RequestLog>[] = [
    { method: 'POST' },
    { path: '/cmd' },
    { agent: 'athena' },
    { command: 'whoami' },
    { status: 503 },
    { code: 'BUSY' },
    { rid: 'client-2' },
    { admission_wait_ms: 2.5, queue_wait_ms: 1, run_ms: 0.5, ms: 4.25 },
  ];
  // Each change after the unchanged line, and the unchanged line again after it.
  const sequence = [base, ...changes.flatMap((change) => [{ ...base, ...change }, base])];
  for (const line of sequence) {
    write(line);
    reference.info(line, 'request');
  }
  const withoutTime = (text: string) => text.replace(/"time":\d+,/, '"time":0,');
  t.same(direct.lines.map(withoutTime), viaPino.lines.map(withoutTime));
});

t.test('the time is written anew once the millisecond changes', async (t) => {
  const out = capture();
  const write = requestLineWriter(createLogger({ destination: out.stream }));
  const seen = new Set<number>();
  let stale = 0;
  // Several lines a millisecond, over at least five milliseconds: each carries the time of its write.
  for (let lines = 0; seen.size < 5 || lines < 50; lines++) {
    const before = Date.now();
    write(base);
    const after = Date.now();
    const time = JSON.parse(out.lines.at(-1)!).time as number;
    if (time < before || time > after) stale++;
    seen.add(time);
  }
  t.equal(stale, 0, 'no line carries a time from before its write');
  t.ok(seen.size >= 5);
});

t.test('a level above info writes nothing, and a level lowered at run time is honoured', async (t) => {
  const out = capture();
  const log = createLogger({ level: 'warn', destination: out.stream });
  const write = requestLineWriter(log);
  write(base);
  t.equal(out.lines.length, 0);
  log.level = 'info';
  write(base);
  t.equal(out.lines.length, 1);
});

t.test("an embedder's logger gets the line through info(), with its own format", async (t) => {
  const out = capture();
  const log = pino({ base: { app: 'game' }, formatters: { level: (label) => ({ level: label }) } }, out.stream);
  requestLineWriter(log)({ ...base, agent: 'ares' });
  const parsed = JSON.parse(out.lines[0]!) as Record<string, unknown>;
  t.match(parsed, { level: 'info', app: 'game', msg: 'request', agent: 'ares', path: '/health', status: 200 });
});

t.test('the times of a line are written as String() writes them, rounded to hundredths or not', async (t) => {
  for (const ms of [
    0,
    -0,
    0.01,
    0.05,
    0.1,
    0.12,
    1,
    1.5,
    2.3,
    16.67,
    20.33,
    99.99,
    100,
    1234567.89,
    1e12 + 0.01,
    1e13,
    1e15,
    -1.5,
    0.123,
    Number.NaN,
    Infinity,
  ]) {
    t.equal(msText(ms), String(ms), String(ms));
  }
  fc.assert(fc.property(fc.double({ min: 0, max: 1e13, noNaN: true }), (ms) => msText(round(ms)) === String(round(ms))));
  fc.assert(fc.property(fc.nat({ max: 1e9 }), (hundredths) => msText(hundredths / 100) === String(hundredths / 100)));
  fc.assert(fc.property(fc.double(), (ms) => msText(ms) === String(ms)));
});
