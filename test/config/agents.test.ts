import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';
import { loadAgents, parseAgents } from '../../src/config/agents.ts';
import { ConfigError } from '../../src/config/load.ts';
import { tempDir } from '../helpers/bridge.ts';

const TOK = (n: number) => `token-${String(n).padStart(12, '0')}`;
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

const invalid: Array<[string, string, RegExp]> = [
  ['bad JSON', '{"agents": [', /not valid JSON/],
  ['not an object', '[]', /must be object/],
  ['no agents key', '{"scenario":"pvp"}', /is missing "agents"/],
  ['no agents', '{"agents":[]}', /agents must list at least one agent/],
  ['agents wrong type', '{"agents":{}}', /agents must be array/],
  ['missing id', JSON.stringify({ agents: [{ token: TOK(1), role: 'god' }] }), /agents\.0 is missing "id"/],
  ['missing token', JSON.stringify({ agents: [{ id: 'a', role: 'god' }] }), /needs exactly one of "token" or "token_sha256"/],
  ['both token kinds', JSON.stringify({ agents: [{ id: 'a', role: 'god', token: TOK(1), token_sha256: 'b'.repeat(64) }] }), /exactly one of/],
  ['short token', JSON.stringify({ agents: [{ id: 'a', role: 'god', token: 'abc' }] }), /agents\.0\.token must NOT have fewer than 16 characters/],
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
];

for (const [what, text, message] of invalid) {
  t.test(`invalid agents.json (${what}) refuses startup with one line`, async (t) => {
    const dir = tempDir();
    writeFileSync(join(dir, 'agents.json'), text);
    try {
      loadAgents(dir);
      t.fail('should refuse');
    } catch (err) {
      t.type(err, ConfigError);
      t.match((err as Error).message, message);
      t.notMatch((err as Error).message, /\n/);
      t.notMatch((err as Error).message, /token-0/, 'never a token');
    }
  });
}
