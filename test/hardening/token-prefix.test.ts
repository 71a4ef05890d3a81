// Issue 16, tests that would not notice: a credential check that compared the token as a prefix
// ("r", or the token minus its last character, authenticating) passed every test, because "the
// token minus one character" dropped the first one. Direct cases, in the table and over HTTP.
import t from 'tap';
import { CredentialTable, sha256 } from '../../src/auth/credentials.ts';
import type { CallerContext } from '../../src/shared/caller.ts';
import { startTestBridge } from '../helpers/bridge.ts';

const TOKEN = 'rK3vQ9xW2mL7pT4nB8cF6hJ1sD5gY0zA';

/** Every way a token can be almost right: a prefix, a suffix, one character more or changed. */
function nearMisses(token: string): string[] {
  return [
    token[0]!, // "r"
    token.slice(0, -1), // minus its last character
    token.slice(1), // minus its first
    token.slice(0, token.length / 2),
    `${token}x`,
    `x${token}`,
    `${token.slice(0, -1)}${token.at(-1) === 'A' ? 'B' : 'A'}`,
    token.toLowerCase(),
    token + token,
  ];
}

t.test('the credential table matches whole tokens only', async (t) => {
  const caller = { agentId: 'a' } as CallerContext;
  for (const [what, entry] of [
    ['a raw token', { digest: sha256(TOKEN), raw: Buffer.from(TOKEN), caller }],
    ['a digest-only token', { digest: sha256(TOKEN), caller }],
  ] as const) {
    const table = new CredentialTable([entry]);
    t.equal(table.resolve(TOKEN), caller, `${what}: the token itself`);
    for (const miss of nearMisses(TOKEN)) t.equal(table.resolve(miss), null, `${what}: refused ${JSON.stringify(miss)}`);
  }
});

t.test('over HTTP: a prefix of the token, or the token minus its last character, is 401', async (t) => {
  const b = await startTestBridge(t);
  t.equal((await b.fetch('/health')).status, 200);
  for (const miss of nearMisses(b.token)) {
    for (const header of ['authorization', 'x-wb-token'] as const) {
      const value = header === 'authorization' ? `Bearer ${miss}` : miss;
      const response = await b.fetch('/health', { headers: { [header]: value } });
      t.equal(response.status, 401, `${header}: ${miss.length} of ${b.token.length} characters refused`);
    }
  }
});
