// The SSE parser of the client (src/client/sse.ts): the event-stream format as EventSource reads it,
// fed in chunks that may end anywhere.
import t from 'tap';
import { SseParser, type SseItem } from '../../src/client/sse.ts';

/** Feeds `chunks` in order and returns every item. */
function parse(...chunks: string[]): SseItem[] {
  const parser = new SseParser();
  return chunks.flatMap((chunk) => parser.feed(chunk));
}

const STREAM = 'id: 7\nevent: war_declared\ndata: {"seq":7}\n\n: keep-alive\n\nevent: gap\ndata: {"from":1,"to":4}\n\n';

t.test('a message, a comment and a gap (no id)', async (t) => {
  t.same(parse(STREAM), [
    { type: 'message', event: 'war_declared', data: '{"seq":7}', id: '7' },
    { type: 'comment', text: 'keep-alive' },
    { type: 'message', event: 'gap', data: '{"from":1,"to":4}', id: undefined },
  ]);
});

t.test('the same items whatever the chunk boundaries', async (t) => {
  const whole = parse(STREAM);
  for (let size = 1; size <= 7; size++) {
    const chunks: string[] = [];
    for (let i = 0; i < STREAM.length; i += size) chunks.push(STREAM.slice(i, i + size));
    t.same(parse(...chunks), whole, `chunks of ${size}`);
  }
  // Every split in two, including inside "data", inside the value and between the two LFs.
  for (let cut = 0; cut <= STREAM.length; cut++) t.same(parse(STREAM.slice(0, cut), STREAM.slice(cut)), whole, `split at ${cut}`);
});

t.test('multi-line data is joined with LF; a missing space after the colon is fine', async (t) => {
  t.same(parse('data: first\ndata:second\ndata:  third\n\n'), [{ type: 'message', event: 'message', data: 'first\nsecond\n third', id: undefined }]);
  t.same(parse('data\ndata\n\n'), [{ type: 'message', event: 'message', data: '\n', id: undefined }], 'a field name alone is an empty value');
});

t.test('CRLF and CR line ends, also split between CR and LF', async (t) => {
  const crlf = STREAM.replaceAll('\n', '\r\n');
  const cr = STREAM.replaceAll('\n', '\r');
  const whole = parse(STREAM);
  t.same(parse(crlf), whole, 'CRLF');
  t.same(parse(cr), whole, 'CR');
  for (let cut = 0; cut <= crlf.length; cut++) t.same(parse(crlf.slice(0, cut), crlf.slice(cut)), whole, `CRLF split at ${cut}`);
  t.same(parse('id: 1\r', '', '\ndata: x\r\n\r\n'), [{ type: 'message', event: 'message', data: 'x', id: '1' }], 'an empty chunk between CR and LF');
  t.same(parse('data: a\r', '\r', 'data: b\n\n'), [
    { type: 'message', event: 'message', data: 'a', id: undefined },
    { type: 'message', event: 'message', data: 'b', id: undefined },
  ]);
});

t.test('comments, retry and unknown fields; no data: nothing dispatched', async (t) => {
  t.same(parse(':\n: hello: world\n\n'), [
    { type: 'comment', text: '' },
    { type: 'comment', text: 'hello: world' },
  ]);
  t.same(parse('retry: 3000\nretry: soon\nfoo: bar\n\n'), [{ type: 'retry', ms: 3000 }]);
  const parser = new SseParser();
  t.same(parser.feed('id: 9\n\n'), [], 'an id alone dispatches nothing');
  t.equal(parser.lastEventId, '9', 'but it sets the last event id');
  t.same(parser.feed('data: x\n\n'), [{ type: 'message', event: 'message', data: 'x', id: undefined }], 'the next block has no id of its own');
  t.equal(parser.lastEventId, '9');
  t.same(parse('id: a\0b\ndata: x\n\n'), [{ type: 'message', event: 'message', data: 'x', id: undefined }], 'an id holding NUL is ignored');
});

t.test('an unfinished block is dropped at the end of a stream', async (t) => {
  const parser = new SseParser();
  t.same(parser.feed('id: 3\nevent: ping\ndata: {"seq":3}\n'), []);
  parser.end();
  t.same(parser.feed('data: {"seq":4}\n\n'), [{ type: 'message', event: 'message', data: '{"seq":4}', id: undefined }], 'nothing of the old block is left');
});

t.test('non-ASCII data survives', async (t) => {
  t.same(parse('data: {"name":"Ærøskøbing 城"}\n\n'), [{ type: 'message', event: 'message', data: '{"name":"Ærøskøbing 城"}', id: undefined }]);
});
