// A pino logger whose lines the test reads back as objects, for modules that log what they do.
import { Writable } from 'node:stream';
import pino from 'pino';

export function captureLog<Line = Record<string, unknown>>(): { log: pino.Logger; lines: Line[] } {
  const lines: Line[] = [];
  const log = pino(
    { base: undefined },
    new Writable({
      write(chunk, _encoding, done) {
        lines.push(JSON.parse(chunk.toString()) as Line);
        done();
      },
    }),
  );
  return { log, lines };
}
