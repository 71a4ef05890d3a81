// Direct unit cases for the rules of src/auth that were only tested over HTTP (npm run
// mutate runs this file for every mutant of src/auth, so it stays fast: no app, no sockets).
import t from 'tap';
import { CredentialTable, presentedToken, sha256 } from '../../src/auth/credentials.ts';
import { createHostCheck, originAllowed } from '../../src/auth/host-origin.ts';
import { missingPermission, permissionFailure, permissionNames, PERMISSIONS, ROLE_MASKS, type PermissionName } from '../../src/auth/permissions.ts';
import { newAgentToken, TOKEN_MIN_DISTINCT, TOKEN_MIN_LENGTH, tokenWeakness } from '../../src/auth/token-strength.ts';
import type { CallerContext } from '../../src/shared/caller.ts';

t.test('the Bearer credential is the rest of the header, surrounding blanks dropped', async (t) => {
  t.equal(presentedToken('Bearer  abc', undefined), 'abc', 'two spaces after the scheme');
  t.equal(presentedToken('Bearer abc \t', undefined), 'abc', 'trailing blanks');
  t.equal(presentedToken('Bearer a b', undefined), 'a b', 'inner spaces are part of the credential');
});

t.test('replace(): the new entries alone count, raw or digest-only', async (t) => {
  const a = { agentId: 'a' } as CallerContext;
  const b = { agentId: 'b' } as CallerContext;
  const table = new CredentialTable([{ digest: sha256('token-a'), raw: Buffer.from('token-a'), caller: a }]);
  t.equal(table.resolve('token-a'), a);
  table.replace([{ digest: sha256('token-b'), caller: b }]);
  t.equal(table.resolve('token-b'), b, 'a digest-only entry after a table of raw tokens');
  t.equal(table.resolve('token-a'), null, 'the old entries are gone');
  table.replace([{ digest: sha256('token-a'), raw: Buffer.from('token-a'), caller: a }]);
  t.equal(table.resolve('token-b'), null);
  t.equal(table.resolve('token-a'), a);
  table.replace([
    { digest: sha256('token-a'), raw: Buffer.from('token-a'), caller: a },
    { digest: sha256('token-b'), caller: b },
  ]);
  t.equal(table.resolve('token-a'), a, 'a raw token beside a digest-only one');
  t.equal(table.resolve('token-b'), b, 'and the digest-only one');
});

t.test("whoami's permission names: exactly the bits of the mask, in table order", async (t) => {
  t.same(permissionNames(0), []);
  t.same(permissionNames(ROLE_MASKS.god), Object.keys(PERMISSIONS), 'god: all nine');
  t.same(permissionNames(ROLE_MASKS.faction_player), ['read_own_faction', 'action_faction', 'send_message', 'recv_message', 'advance_time']);
  t.same(permissionNames(ROLE_MASKS.observer), ['read_all', 'read_own_faction', 'send_message', 'recv_message']);
  t.same(permissionNames(ROLE_MASKS.narrator), ['read_all', 'read_own_faction', 'send_message', 'recv_message', 'send_broadcast']);
  t.same(permissionNames(PERMISSIONS.advance_time | PERMISSIONS.read_all), ['read_all', 'advance_time']);
  for (const name of Object.keys(PERMISSIONS) as PermissionName[]) t.same(permissionNames(PERMISSIONS[name]), [name], `one bit: ${name}`);
});

t.test('a rule needs every permission of `all` and at least one of `any` (spawn)', async (t) => {
  const spawn = { any: ['action_faction', 'action_global'] as PermissionName[] };
  t.equal(missingPermission(spawn, PERMISSIONS.action_faction), null, 'action_faction alone is enough');
  t.equal(missingPermission(spawn, PERMISSIONS.action_global), null, 'action_global alone is enough');
  t.equal(missingPermission(spawn, PERMISSIONS.read_all | PERMISSIONS.advance_time), 'action_faction or action_global', 'neither: both named');
  t.equal(missingPermission(spawn, 0), 'action_faction or action_global');
  t.equal(missingPermission({ any: [] }, 0), null, 'an empty `any` asks for nothing');
  t.equal(missingPermission({}, 0), null, 'no rule: reads need no permission');
  const both = { all: ['control_world', 'advance_time'] as PermissionName[] };
  t.equal(missingPermission(both, PERMISSIONS.control_world), 'advance_time');
  t.equal(missingPermission(both, PERMISSIONS.advance_time), 'control_world', 'the first missing one of `all`');
  t.equal(missingPermission(both, PERMISSIONS.control_world | PERMISSIONS.advance_time), null);
  const mixed = { all: ['send_message'] as PermissionName[], any: ['action_faction', 'action_global'] as PermissionName[] };
  t.equal(missingPermission(mixed, PERMISSIONS.action_global), 'send_message', '`all` is checked too when `any` is met');
  t.equal(missingPermission(mixed, PERMISSIONS.send_message), 'action_faction or action_global', '`any` is checked too when `all` is met');
  t.equal(missingPermission(mixed, PERMISSIONS.send_message | PERMISSIONS.action_faction), null);
});

t.test('the 403 names the agent, its role, the missing permission and the command', async (t) => {
  const owl = { agentId: 'owl', role: 'observer', permissions: ROLE_MASKS.observer } as CallerContext;
  t.same(permissionFailure('spawn', { any: ['action_faction', 'action_global'] }, owl), {
    ok: false,
    code: 'PERMISSION_DENIED',
    message: "agent 'owl' (role observer) lacks the action_faction or action_global permission that 'spawn' needs",
  });
  t.equal(permissionFailure('get_tile', {}, owl), null);
  t.equal(permissionFailure('send_message', { all: ['send_message'] }, owl), null);
});

t.test('weak tokens: the length and distinct-character bounds, inclusive', async (t) => {
  t.equal(TOKEN_MIN_LENGTH, 32);
  t.equal(TOKEN_MIN_DISTINCT, 16);
  const distinct = 'abcdefghijklmnop'; // 16 distinct characters
  t.equal(tokenWeakness(distinct.repeat(2)), null, '32 characters, 16 distinct: strong enough');
  t.equal(tokenWeakness(distinct.repeat(2).slice(0, 31)), 'is shorter than 32 characters');
  t.equal(tokenWeakness(''), 'is shorter than 32 characters');
  t.equal(tokenWeakness('abcdefghijklmno'.repeat(3)), 'has fewer than 16 distinct characters', '45 characters, 15 distinct');
  const fresh = newAgentToken();
  t.equal(tokenWeakness(fresh.token), null, 'a new token passes the rule');
  t.equal(fresh.token_sha256, sha256(fresh.token).toString('hex'), 'its digest is the SHA-256 of the token, in hex');
  t.not(newAgentToken().token, fresh.token, 'each token is new');
  t.match(fresh.token, /^[A-Za-z0-9]{48}$/, '48 characters of [A-Za-z0-9]');
  // A weak draw is drawn again, however unlikely: crypto's draws are played by a list.
  const draws = ['aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa', 'abc', fresh.token];
  t.equal(newAgentToken(() => draws.shift()!).token, fresh.token, 'weak draws (too few distinct, too short) are drawn again');
  t.same(draws, [], 'until one is strong');
});

t.test('the Host check follows the port from the first request on, whatever it is', async (t) => {
  for (const port of [1, 0, 65535]) {
    const hostAllowed = createHostCheck(() => port);
    t.ok(hostAllowed(`127.0.0.1:${port}`), `port ${port}`);
    t.notOk(hostAllowed(`127.0.0.1:${port + 1}`));
  }
  let port = 8723;
  const hostAllowed = createHostCheck(() => port);
  t.ok(hostAllowed('localhost:8723'));
  port = 8724;
  t.notOk(hostAllowed('localhost:8723'), 'the old port no longer counts once the bridge moved');
  t.ok(hostAllowed('localhost:8724'));
});

t.test('loopback Origins: the whole value must match', async (t) => {
  for (const origin of ['https://127.0.0.1', 'HTTP://LOCALHOST:8080', 'http://localhost:1', 'http://[::1]', 'http://127.0.0.1:65535']) {
    t.ok(originAllowed(origin), `allowed: ${origin}`);
  }
  for (const origin of [
    'evil http://127.0.0.1', // something before the scheme
    'xhttp://localhost',
    'http://127.0.0.1:8080/path',
    'http://127.0.0.1:8080x',
    'http://127.0.0.1:',
    'http://127.0.0.1:123456',
    'http://127.0.0.1:abc',
    'ftp://127.0.0.1',
    'http:/127.0.0.1',
    'http://127a0a0a1',
    'http://[::1',
    'http://::1',
    'http://[::2]',
    'http://localhost@evil.example',
    '',
  ]) {
    t.notOk(originAllowed(origin), `refused: ${JSON.stringify(origin)}`);
  }
});
