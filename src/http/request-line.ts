import type { Logger } from 'pino';
import { BatchedWriter } from '../log/batched-writer.ts';
import { rawStreamOf } from '../log/logger.ts';
import { msText, type RequestLog } from './context.ts';

const str = JSON.stringify;
// What pino escapes in a string: `"`, `\` and control characters (a lone surrogate it writes as is).
// eslint-disable-next-line no-control-regex -- control characters are what it looks for
const NEEDS_ESCAPE = /["\\\u0000-\u001f]/;
const NON_ASCII = /[\u0080-\uffff]/;

/**
 * A string as JSON, as pino writes it. Agent and command names almost never need an escape:
 * quoting them directly skips the serialiser (three strings in a template, 2 million times: 0.25
 * against 0.40 µs each).
 */
function quoted(value: string | null): string {
  if (value === null) return 'null';
  return NEEDS_ESCAPE.test(value) ? str(value) : `"${value}"`;
}

/**
 * The request log line (decisions §10: one a request), written by the credential check once the
 * answer is known. With the bridge's own logger the line is built here as one template string,
 * byte for byte what pino would write (test/log/request-line.test.ts compares them): pino's generic
 * serialiser and redaction were ~5 µs of the main loop's ~60 µs for a GET /health. An embedder's
 * logger (its own formatters, hooks or transports) gets the line through `info()` as before.
 */
export function requestLineWriter(log: Logger): (line: RequestLog) => void {
  const stream = rawStreamOf(log);
  if (stream === null) return (line) => log.info(line, 'request');
  // Lines mostly repeat their fields from method to code (one agent's requests to one endpoint), and
  // come many to a millisecond: the text of both is kept until a field or the time changes, which
  // spares the line most of its concatenations and the formatting of a 13-digit time.
  let last: Pick<RequestLog, 'method' | 'path' | 'agent' | 'command' | 'status' | 'code'> | null = null;
  let middle = '';
  // The bridge's own stderr writer copies an ASCII line as it is, without UTF-8 encoding it.
  const ascii = stream instanceof BatchedWriter ? stream : null;
  let middleAscii = false;
  let lastTime = -1;
  let timeText = '';
  return (line) => {
    // Read every time: a level changed at run time is honoured, as pino's own info() would.
    if (!log.isLevelEnabled('info')) return;
    if (
      last === null ||
      line.method !== last.method ||
      line.path !== last.path ||
      line.agent !== last.agent ||
      line.command !== last.command ||
      line.status !== last.status ||
      line.code !== last.code
    ) {
      last = { method: line.method, path: line.path, agent: line.agent, command: line.command, status: line.status, code: line.code };
      // method, path and code are written as they are (RequestLog says why they need no escape):
      // a check each cost more than the rest of the line (callgrind: 1.2 k instructions a /health
      // for four regex tests).
      middle = `","method":"${line.method}","path":"${line.path}","agent":${quoted(line.agent)},"command":${quoted(line.command)},"status":${line.status},"code":${line.code === null ? 'null' : `"${line.code}"`},"admission_wait_ms":`;
      // Everything else in the line is ASCII (RequestLog): the agent's and the command's names
      // decide. Reading the text also leaves it flat (V8 joins a concatenated string in place once
      // it is read), so each line copies it in one piece instead of walking its parts again.
      middleAscii = !NON_ASCII.test(middle);
    }
    const time = Date.now();
    if (time !== lastTime) {
      lastTime = time;
      timeText = `${time}`;
    }
    // rid too is written as it is (RequestLog).
    const text = `{"level":30,"time":${timeText},"rid":"${line.rid}${middle}${msText(line.admission_wait_ms)},"queue_wait_ms":${msText(line.queue_wait_ms)},"run_ms":${msText(line.run_ms)},"ms":${msText(line.ms)},"msg":"request"}\n`;
    if (middleAscii && ascii) ascii.writeAscii(text);
    else stream.write(text);
  };
}
