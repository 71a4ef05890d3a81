// `gcb token --new` (decisions §10, §11): a fresh strong agent token and its sha256, for agents.json.
import { createHash } from 'node:crypto';
import t from 'tap';
import { tokenWeakness } from '../../src/auth/token-strength.ts';
import { gcb } from './helpers.ts';

t.setTimeout(120_000);

t.test('gcb token --new: a strong token and its sha256; a new one each time', async (t) => {
  const [plain, json] = await Promise.all([gcb(['token', '--new']), gcb(['token', '--new', '--json'])]);
  t.equal(plain.code, 0);
  const match = /^token: +([A-Za-z0-9]{48})\ntoken_sha256: ([0-9a-f]{64})\n$/.exec(plain.stdout);
  t.ok(match, `two labelled lines: ${plain.stdout}`);
  const [, token, digest] = match!;
  t.equal(tokenWeakness(token!), null, 'passes the weak-token rule');
  t.equal(digest, createHash('sha256').update(token!).digest('hex'));
  const parsed = JSON.parse(json.stdout) as { token: string; token_sha256: string };
  t.equal(tokenWeakness(parsed.token), null);
  t.equal(parsed.token_sha256, createHash('sha256').update(parsed.token).digest('hex'));
  t.not(parsed.token, token, 'a fresh token every time');
});

t.test('the weak-token rule', async (t) => {
  t.match(tokenWeakness('a'.repeat(31)), /shorter than 32/);
  t.match(tokenWeakness('ab'.repeat(20)), /fewer than 16 distinct/);
  t.equal(tokenWeakness('abcdefghijklmnopqrstuvwxyz012345'), null);
});
