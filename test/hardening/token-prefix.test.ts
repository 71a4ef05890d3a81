// Issue 16, tests that would not notice: a credential check that compared the token as a prefix
// ("r", or the token minus its last character, authenticating) passed every test, because "the
// token minus one character" dropped the first one. Direct cases in the table (this file, fast:
// npm run mutate runs it for every mutant of src/auth) and over HTTP (token-prefix-http.test.ts).
import t from 'tap';
import { CredentialTable, sha256 } from '../../src/auth/credentials.ts';
import type { CallerContext } from '../../src/shared/caller.ts';
import { nearMisses } from './near-misses.ts';

const TOKEN = 'rK3vQ9xW2mL7pT4nB8cF6hJ1sD5gY0zA';

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
