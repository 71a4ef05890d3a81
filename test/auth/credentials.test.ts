import pino from 'pino';
import t from 'tap';
import { CredentialTable, presentedToken, sha256 } from '../../src/auth/credentials.ts';
import { createHostCheck, originAllowed } from '../../src/auth/host-origin.ts';
import { newAgentToken } from '../../src/auth/token-strength.ts';
import { parseAgents } from '../../src/config/agents.ts';
import { Session } from '../../src/session/session.ts';
import type { CallerContext } from '../../src/shared/caller.ts';
import { createSharedState } from '../../src/shared/layout.ts';

t.test('Authorization: Bearer first, then X-WB-Token (decisions §5)', async (t) => {
  t.equal(presentedToken('Bearer abc', undefined), 'abc');
  t.equal(presentedToken('bearer abc', undefined), 'abc', 'scheme in any case');
  t.equal(presentedToken('BEARER abc', 'xyz'), 'abc', 'a Bearer alone decides, X-WB-Token ignored');
  t.equal(presentedToken('Bearer wrong', 'right'), 'wrong', 'a wrong Bearer beside a right X-WB-Token stays wrong');
  t.equal(presentedToken('Bearer', 'right'), '', 'an empty Bearer is a (wrong) credential');
  t.equal(presentedToken('Basic dXNlcjpwYXNz', 'xyz'), 'xyz', 'another scheme: X-WB-Token is read');
  t.equal(presentedToken(undefined, 'xyz'), 'xyz');
  t.equal(presentedToken(undefined, undefined), undefined);
});

t.test('the credential table matches by digest', async (t) => {
  const caller = { agentId: 'a' } as CallerContext;
  const other = { agentId: 'b' } as CallerContext;
  const table = new CredentialTable([
    { digest: sha256('token-a'), caller },
    { digest: sha256('token-b'), caller: other },
  ]);
  t.equal(table.resolve('token-a'), caller);
  t.equal(table.resolve('token-b'), other);
  t.equal(table.resolve('token-c'), null);
  t.equal(table.resolve(''), null);
  t.equal(table.resolve(undefined), null);
  t.equal(table.resolve('token-a '), null, 'no trimming inside the table');
});

t.test('Host must name the bridge on loopback; Origin, when present, must be loopback', async (t) => {
  let port = 8723;
  const hostAllowed = createHostCheck(() => port);
  t.ok(hostAllowed('127.0.0.1:8723'));
  t.ok(hostAllowed('localhost:8723'));
  t.ok(hostAllowed('LOCALHOST:8723'));
  for (const host of [
    'evil.example',
    'localhost.evil.example:8723',
    '127.1:8723',
    '0177.0.0.1:8723',
    '0x7f.0.0.1:8723',
    'localhost.:8723',
    '127.0.0.1',
    '127.0.0.1:8724',
    '[::1]:8723',
    undefined,
  ]) {
    t.notOk(hostAllowed(host), `refused: ${host}`);
  }
  port = 9000;
  t.ok(hostAllowed('127.0.0.1:9000'), 'follows the real port');
  t.ok(originAllowed(undefined));
  t.ok(originAllowed('http://127.0.0.1:3000'));
  t.ok(originAllowed('http://localhost'));
  t.ok(originAllowed('http://[::1]:5173'));
  for (const origin of ['null', 'https://evil.example', 'http://localhost.evil.example', 'http://127.0.0.1.evil.example', 'file://']) {
    t.notOk(originAllowed(origin), `refused: ${origin}`);
  }
});

t.test('raw tokens and digest-only entries (token_sha256) in one table', async (t) => {
  const a = { agentId: 'a' } as CallerContext;
  const b = { agentId: 'b' } as CallerContext;
  const table = new CredentialTable([
    { digest: sha256('raw-token-aaaa'), raw: Buffer.from('raw-token-aaaa'), caller: a },
    { digest: sha256('hashed-token-bbbb'), caller: b },
  ]);
  t.equal(table.resolve('raw-token-aaaa'), a);
  t.equal(table.resolve('hashed-token-bbbb'), b, 'a digest-only entry matches by hash');
  t.equal(table.resolve('raw-token-aaab'), null);
  t.equal(table.resolve('raw-token-aaaa-longer'), null, 'a different length never matches');
  t.equal(table.resolve('rаw-token-aaaa'), null, 'non-ASCII lookalikes do not match');
});

t.test('token_sha256 entries of agents.json: an agent known by digests only is found by its tokens, beside raw ones', async (t) => {
  const god = newAgentToken();
  const player = newAgentToken();
  const rotated = newAgentToken();
  const watcher = newAgentToken();
  const agents = [
    { id: 'zeus', role: 'god', token: god.token },
    // Upper-case hex, and two digests while a token is rotated: as `gcb token --new` prints them, or not.
    { id: 'athena', role: 'faction_player', token_sha256: [player.token_sha256.toUpperCase(), rotated.token_sha256] },
    { id: 'owl', role: 'observer', token_sha256: watcher.token_sha256 },
  ];
  const session = Session.multiAgent(parseAgents('agents.json', JSON.stringify({ agents })), createSharedState().control, pino({ level: 'silent' }));
  const table = new CredentialTable(session.credentials);
  t.equal(table.resolve(god.token)?.agentId, 'zeus', 'a raw token');
  t.equal(table.resolve(player.token)?.agentId, 'athena', 'by its digest, written in upper case');
  t.equal(table.resolve(rotated.token)?.agentId, 'athena', 'by its second digest');
  t.equal(table.resolve(watcher.token)?.agentId, 'owl', 'a lone digest');
  t.equal(table.resolve(watcher.token_sha256), null, 'the digest is no credential: a copy of agents.json logs no one in');
  t.equal(table.resolve(player.token.slice(1)), null);
  t.equal(table.resolve(`${player.token}x`), null);
});

t.test('an empty credential never matches, not even an entry holding the digest of the empty string', async (t) => {
  const caller = { agentId: 'a' } as CallerContext;
  const table = new CredentialTable([{ digest: sha256(''), caller }]);
  t.equal(table.resolve(''), null, 'Bearer with no token');
  t.equal(table.resolve(' '), null);
});

t.test('a raw token is matched on its whole UTF-8 bytes, however the presented token ends', async (t) => {
  const a = { agentId: 'a' } as CallerContext;
  const b = { agentId: 'b' } as CallerContext;
  const table = new CredentialTable([
    { digest: sha256('short-token-1'), raw: Buffer.from('short-token-1'), caller: a },
    { digest: sha256('a-longer-token-22'), raw: Buffer.from('a-longer-token-22'), caller: b },
  ]);
  // A token that starts with another's bytes and goes on by one character of 1 to 4 bytes: each
  // writes more bytes than the longer token has, so none matches on its first bytes.
  for (const tail of ['x', 'é', '€', '😀']) {
    t.equal(table.resolve(`a-longer-token-22${tail}`), null, `the longest token and then ${JSON.stringify(tail)}`);
    t.equal(table.resolve(`short-token-1${tail}`), null, `a shorter token and then ${JSON.stringify(tail)}`);
  }
  t.equal(table.resolve('short-token-1'), a, 'each still matches itself after the longer tries');
  t.equal(table.resolve('a-longer-token-22'), b);
  t.equal(table.resolve('short-token-'), null, 'a prefix of a token is not the token');
  t.equal(table.resolve('é'.repeat(5) + 'n-1'), null, 'a token of the same byte length and other bytes');

  const replacing = new CredentialTable([{ digest: sha256('tiny-token'), raw: Buffer.from('tiny-token'), caller: a }]);
  t.equal(replacing.resolve('tiny-token'), a);
  const longer = 'a-token-longer-than-every-earlier-one';
  replacing.replace([{ digest: sha256(longer), raw: Buffer.from(longer), caller: b }]);
  t.equal(replacing.resolve(longer), b, 'a reload with a longer token than any before matches it whole');
  t.equal(replacing.resolve(`${longer}😀`), null);
  t.equal(replacing.resolve('tiny-token'), null, 'a token the reload removed no longer matches');
});
