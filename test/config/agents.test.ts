import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';
import { agentTokens, credentialsHeld, loadAgents, parseAgents } from '../../src/config/agents.ts';
import { ConfigError } from '../../src/config/load.ts';
import { sha256 } from '../../src/auth/credentials.ts';
import { tempDir } from '../helpers/bridge.ts';

const TOK = (n: number) => `token-${String(n).padStart(12, '0')}-ABCDEFGHJKLMNPQR`;
const agent = (id: string, extra: Record<string, unknown> = {}) => ({ id, token: TOK(id.length * 7 + id.charCodeAt(0)), role: 'faction_player', ...extra });

t.test('absent agents.json is legacy mode', async (t) => {
  t.equal(loadAgents(tempDir()), undefined);
});

t.test('a valid file with presets and defaults', async (t) => {
  const config = parseAgents(
    'agents.json',
    JSON.stringify({
      scenario: 'pvp',
      _comment: 'unknown keys are ignored',
      agents: [
        { id: 'athena', token: TOK(1), role: 'faction_player', kingdom_claim: 'auto:0', extra: true },
        { id: 'ares', token_sha256: 'a'.repeat(64), role: 'faction_player', kingdom_claim: 'id:7' },
        { id: 'dm', token: TOK(3), role: 'god' },
        { id: 'owl', token: TOK(4), role: 'observer', permissions: ['read_all'] },
      ],
    }),
  );
  t.equal(config.scenario, 'pvp');
  t.equal(config.partialIntel, true, 'pvp defaults partial_intel to true');
  t.equal(config.turnBased, false);
  t.same(config.turnOrder, ['athena', 'ares'], 'default rotation: the faction players in declaration order');
  t.equal(config.turnTimeoutMs, null);
  const coop = parseAgents(
    'a',
    JSON.stringify({
      scenario: 'coop',
      turn_based: true,
      turn_order: ['b', 'a'],
      turn_timeout_s: 1.5,
      agents: [agent('a'), agent('bb'), { ...agent('b'), token: TOK(99) }],
    }),
  );
  t.equal(coop.partialIntel, false, 'only pvp hides by default');
  t.same(coop.turnOrder, ['b', 'a']);
  t.equal(coop.turnTimeoutMs, 1500);
  t.equal(parseAgents('a', JSON.stringify({ agents: [agent('x')] })).scenario, 'sandbox', 'sandbox is the default scenario');
});

const objective = (fields: Record<string, unknown>) => JSON.stringify({ agents: [agent('a', { objectives: [{ id: 'o1', kind: 'survive', ...fields }] })] });

const invalid: Array<[string, string, RegExp]> = [
  ['bad JSON', '{"agents": [', /not valid JSON/],
  ['not an object', '[]', /must be object/],
  ['no agents key', '{"scenario":"pvp"}', /is missing "agents"/],
  ['no agents', '{"agents":[]}', /agents must list at least one agent/],
  ['agents wrong type', '{"agents":{}}', /agents must be array/],
  ['missing id', JSON.stringify({ agents: [{ token: TOK(1), role: 'god' }] }), /agents\.0 is missing "id"/],
  ['missing token', JSON.stringify({ agents: [{ id: 'a', role: 'god' }] }), /agents\.0 \("a"\) needs "token" or "token_sha256"/],
  ['five tokens', JSON.stringify({ agents: [{ id: 'a', role: 'god', token: [1, 2, 3, 4, 5].map(TOK) }] }), /agents\.0\.token must NOT have more than 4 items/],
  ['empty token list', JSON.stringify({ agents: [{ id: 'a', role: 'god', token: [] }] }), /agents\.0\.token must NOT have fewer than 1 items/],
  ['short token in a list', JSON.stringify({ agents: [{ id: 'a', role: 'god', token: [TOK(1), 'abc'] }] }), /agents\.0\.token\.1 must NOT have fewer than 16/],
  [
    'bad digest in a list',
    JSON.stringify({ agents: [{ id: 'a', role: 'god', token_sha256: ['a'.repeat(64), 'xyz'] }] }),
    /agents\.0\.token_sha256\.1 must match/,
  ],
  [
    'a token shared through its digest',
    JSON.stringify({ agents: [agent('a'), { id: 'b', role: 'god', token_sha256: sha256(agent('a').token).toString('hex') }] }),
    /agents\.1 \("b"\) reuses another agent's token/,
  ],
  ['max_slots 0', JSON.stringify({ agents: [agent('a', { max_slots: 0 })] }), /agents\.0\.max_slots is not allowed; allowed: an integer from 1 to 8/],
  [
    'max_slots above the limit',
    JSON.stringify({ agents: [agent('a', { max_slots: 9 })] }),
    /agents\.0\.max_slots = 9 is not allowed; allowed: an integer from 1 to 8/,
  ],
  ['max_slots not an integer', JSON.stringify({ agents: [agent('a', { max_slots: 1.5 })] }), /agents\.0\.max_slots is not allowed/],
  ['short token', JSON.stringify({ agents: [{ id: 'a', role: 'god', token: 'abc' }] }), /agents\.0\.token must NOT have fewer than 16 characters/],
  [
    'weak token: short',
    JSON.stringify({ agents: [{ id: 'a', role: 'god', token: 'abcdefghijklmnopqrstu' }] }),
    /agents\.0 \("a"\) token is shorter than 32 characters;.*`gcb token --new` prints one/,
  ],
  [
    'weak token: few distinct characters',
    JSON.stringify({ agents: [{ id: 'a', role: 'god', token: 'a'.repeat(40) }] }),
    /agents\.0 \("a"\) token has fewer than 16 distinct characters/,
  ],
  [
    'weak token in a rotation list',
    JSON.stringify({ agents: [{ id: 'a', role: 'god', token: [TOK(1), 'ab'.repeat(20)] }] }),
    /agents\.0 \("a"\) token\[1\] has fewer than 16 distinct characters/,
  ],
  ['bad token_sha256', JSON.stringify({ agents: [{ id: 'a', role: 'god', token_sha256: 'xyz' }] }), /token_sha256 must match/],
  ['unknown role', JSON.stringify({ agents: [{ ...agent('a'), role: 'emperor' }] }), /agents\.0\.role must be one of: god, faction_player, observer, narrator/],
  ['unknown permission', JSON.stringify({ agents: [{ ...agent('a'), permissions: ['fly'] }] }), /agents\.0\.permissions\.0 must be one of: read_all/],
  ['duplicate id', JSON.stringify({ agents: [agent('a'), { ...agent('a'), token: TOK(50) }] }), /agents\.1\.id "a" is a duplicate/],
  ['duplicate token', JSON.stringify({ agents: [agent('a'), { ...agent('b'), token: agent('a').token }] }), /reuses another agent's token/],
  ['bad claim', JSON.stringify({ agents: [{ ...agent('a'), kingdom_claim: 'kingdom:1' }] }), /kingdom_claim must be "auto:N" or "id:K"/],
  ['turn_order unknown agent', JSON.stringify({ turn_order: ['zed'], agents: [agent('a')] }), /turn_order names "zed", which is not an agent/],
  ['unknown scenario', JSON.stringify({ scenario: 'battle', agents: [agent('a')] }), /scenario must be one of: sandbox, coop, pvp, hierarchical/],
  ['partial_intel wrong type', JSON.stringify({ partial_intel: 'yes', agents: [agent('a')] }), /partial_intel must be boolean/],
  ['bad id', JSON.stringify({ agents: [{ ...agent('a'), id: '../x' }] }), /agents\.0\.id must match/],
  ['not an object, exactly', '[]', /agents\.json: \(top level\) must be object$/],
  ['objective kind unknown', objective({ kind: 'conquer' }), /objectives\.0\.kind must be one of: wipe_kingdom, survive, reach_units, reach_cities$/],
  ['objective id empty', objective({ id: '' }), /objectives\.0\.id must NOT have fewer than 1 characters/],
  ['objective id too long', objective({ id: 'o'.repeat(65) }), /objectives\.0\.id must NOT have more than 64 characters/],
  ['objective label too long', objective({ label: 'l'.repeat(201) }), /objectives\.0\.label must NOT have more than 200 characters/],
  ['objective target below 0', objective({ kind: 'reach_units', target: -1 }), /objectives\.0\.target/],
  ['turn_timeout_s 0', JSON.stringify({ turn_timeout_s: 0, agents: [agent('a')] }), /turn_timeout_s must be > 0/],
  ['turn_timeout_s over a day', JSON.stringify({ turn_timeout_s: 86_401, agents: [agent('a')] }), /turn_timeout_s must be <= 86400/],
  [
    'the 11th permission unknown',
    JSON.stringify({ agents: [agent('a', { permissions: [...Array(10).fill('read_all'), 'fly'] })] }),
    /agents\.0\.permissions\.10 must be one of: read_all/,
  ],
  ['kingdom_claim not a string', JSON.stringify({ agents: [agent('a', { kingdom_claim: 5 })] }), /agents\.0\.kingdom_claim must be string$/],
  ['turn_order names an agent twice', JSON.stringify({ turn_order: ['a', 'a'], agents: [agent('a')] }), /agents\.json: turn_order names an agent twice$/],
  [
    'turn_order unknown agent, exactly',
    JSON.stringify({ turn_order: ['zed'], agents: [agent('a'), agent('bb')] }),
    /agents\.json: turn_order names "zed", which is not an agent \(agents: a, bb\)$/,
  ],
];

for (const [what, text, message] of invalid) {
  t.test(`invalid agents.json (${what}) refuses startup with one line`, async (t) => {
    const dir = tempDir();
    writeFileSync(join(dir, 'agents.json'), text);
    try {
      loadAgents(dir, 8);
      t.fail('should refuse');
    } catch (err) {
      t.type(err, ConfigError);
      t.match((err as Error).message, message);
      t.notMatch((err as Error).message, /\n/);
      t.notMatch((err as Error).message, /token-0/, 'never a token');
    }
  });
}

t.test('tokens rotate: a string or 1..4 of each kind, both kinds on one agent; max_slots within the limit', async (t) => {
  const config = parseAgents(
    'agents.json',
    JSON.stringify({
      agents: [
        { id: 'a', role: 'god', token: [TOK(1), TOK(2)], token_sha256: 'c'.repeat(64), max_slots: 8 },
        { id: 'b', role: 'observer', token_sha256: ['d'.repeat(64), 'E'.repeat(64)], max_slots: 1 },
      ],
    }),
    8,
  );
  t.same(agentTokens(config.agents[0]!), { tokens: [TOK(1), TOK(2)], digests: ['c'.repeat(64)] });
  t.same(agentTokens(config.agents[1]!), { tokens: [], digests: ['d'.repeat(64), 'e'.repeat(64)] });
  t.equal(config.agents[1]!.max_slots, 1);
});

t.test('what an agents.json holds, for the file-mode warning: plain tokens, digests only, or both', async (t) => {
  const held = (...agents: Array<Record<string, unknown>>) => credentialsHeld(parseAgents('agents.json', JSON.stringify({ agents })));
  const raw = (id: string, n: number) => ({ id, role: 'faction_player', token: TOK(n) });
  const digest = (id: string, c: string) => ({ id, role: 'faction_player', token_sha256: c.repeat(64) });
  t.equal(held(raw('a', 1), raw('b', 2)), 'agent tokens');
  t.equal(held({ ...raw('a', 1), token: [TOK(1), TOK(2)] }), 'agent tokens', 'a list of tokens');
  t.equal(held(digest('a', 'a'), { ...digest('b', 'b'), token_sha256: ['b'.repeat(64), 'c'.repeat(64)] }), 'token digests only, no token');
  t.equal(held(raw('a', 1), digest('b', 'b')), 'agent tokens and token digests', 'tokens first, then digests');
  t.equal(held(digest('a', 'a'), raw('b', 1)), 'agent tokens and token digests', 'digests first, then tokens');
  t.equal(held({ ...raw('a', 1), token_sha256: 'a'.repeat(64) }), 'agent tokens and token digests', 'both on one agent (a rotation)');
});

t.test('scenario presets: only pvp hides other kingdoms, none is turn-based; the file overrides them', async (t) => {
  const defaults = (scenario: string) => {
    const c = parseAgents('a', JSON.stringify({ scenario, agents: [agent('x')] }));
    return { partialIntel: c.partialIntel, turnBased: c.turnBased };
  };
  t.same(defaults('sandbox'), { partialIntel: false, turnBased: false });
  t.same(defaults('coop'), { partialIntel: false, turnBased: false });
  t.same(defaults('hierarchical'), { partialIntel: false, turnBased: false });
  t.same(defaults('pvp'), { partialIntel: true, turnBased: false });
  const c = parseAgents('a', JSON.stringify({ scenario: 'pvp', partial_intel: false, turn_based: true, agents: [agent('x')] }));
  t.same({ partialIntel: c.partialIntel, turnBased: c.turnBased }, { partialIntel: false, turnBased: true });
});

t.test('with no faction player, the default rotation is every agent in order', async (t) => {
  const c = parseAgents('a', JSON.stringify({ agents: [agent('dm', { role: 'god' }), agent('owl', { role: 'observer' })] }));
  t.same(c.turnOrder, ['dm', 'owl']);
});

t.test('an objective with a label and a target is kept as written', async (t) => {
  const objectives = [{ id: 'o'.repeat(64), label: 'l'.repeat(200), kind: 'reach_units', target: 0 }];
  t.same(parseAgents('a', JSON.stringify({ agents: [agent('a', { objectives })] })).agents[0]!.objectives, objectives);
});

t.test('an agents.json that cannot be read refuses startup with the reason', async (t) => {
  const dir = tempDir();
  mkdirSync(join(dir, 'agents.json'));
  t.throws(() => loadAgents(dir), { name: 'ConfigError', message: /agents\.json: cannot read: EISDIR/ });
});

/** The message of the ConfigError that parseAgents throws, whole. */
function refusal(text: string): string | undefined {
  try {
    parseAgents('agents.json', text);
  } catch (err) {
    return err instanceof ConfigError ? err.message : `not a ConfigError: ${String(err)}`;
  }
  return undefined;
}

// The one error shown: the deepest; at one depth a type error gives way to the error after it (the
// branch of a union that applied, or the union's "must be one of"). Exact lines.
const exactly: Array<[string, Record<string, unknown>, string]> = [
  [
    'a target of neither form lists both forms',
    { objectives: [{ id: 'o1', kind: 'survive', target: true }] },
    'agents.0.objectives.0.target must be one of: "auto:N", "id:K" or a number',
  ],
  ['a target below 0: the number branch applied', { objectives: [{ id: 'o1', kind: 'reach_units', target: -1 }] }, 'agents.0.objectives.0.target must be >= 0'],
  [
    'a kind of the wrong type lists the kinds',
    { objectives: [{ id: 'o1', kind: 5 }] },
    'agents.0.objectives.0.kind must be one of: wipe_kingdom, survive, reach_units, reach_cities',
  ],
  ['a role of the wrong type lists the roles', { role: 5 }, 'agents.0.role must be one of: god, faction_player, observer, narrator'],
  [
    'an unknown permission lists them all',
    { permissions: ['fly'] },
    'agents.0.permissions.0 must be one of: read_all, read_own_faction, action_global, action_faction, control_world, send_message, recv_message, send_broadcast, advance_time',
  ],
  ['a token of neither form points at the docs', { token: 5 }, 'agents.0.token must be one of: the forms docs/multi-agent.md lists'],
  ['a short token: the string branch applied', { token: 'x' }, 'agents.0.token must NOT have fewer than 16 characters'],
  ['a list item of the wrong type: the deeper error', { token: [5] }, 'agents.0.token.0 must be string'],
];
for (const [what, fields, message] of exactly) {
  t.test(`refused exactly: ${what}`, async (t) => {
    t.equal(refusal(JSON.stringify({ agents: [agent('a', fields)] })), `agents.json: ${message}`);
  });
}

t.test('validation stops at the first error: a bad scenario is named, not a bad role after it', async (t) => {
  const text = JSON.stringify({ scenario: 'battle', agents: [agent('a', { role: 'emperor' })] });
  t.equal(refusal(text), 'agents.json: scenario must be one of: sandbox, coop, pvp, hierarchical');
});

t.test('the config keeps the text read, as a string (a reload compares it)', async (t) => {
  const dir = tempDir();
  const text = JSON.stringify({ agents: [agent('a')] });
  writeFileSync(join(dir, 'agents.json'), text);
  t.equal(loadAgents(dir)!.text, text);
});
