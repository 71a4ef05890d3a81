import { readFileSync } from 'node:fs';
import { sha256 } from '../auth/credentials.ts';
import { join } from 'node:path';
import { Type, type Static } from '@sinclair/typebox';
import { PERMISSIONS, ROLE_MASKS, type PermissionName, type RoleName } from '../auth/permissions.ts';
import { TOKEN_MIN_DISTINCT, TOKEN_MIN_LENGTH, tokenWeakness } from '../auth/token-strength.ts';
import { createAjv } from './ajv.ts';
import { ConfigError } from './load.ts';
import { LIMITS } from '../limits.ts';
import { SCENARIOS, type ScenarioName } from '../shared/scenarios.ts';

export const AGENTS_FILE = 'agents.json';

const literals = <T extends string>(values: readonly T[]) => Type.Union(values.map((value) => Type.Literal(value)));

export { SCENARIOS, type ScenarioName };

/** decisions §4: scenario presets. Only pvp hides other kingdoms by default. */
export const SCENARIO_DEFAULTS: Record<ScenarioName, { partialIntel: boolean; turnBased: boolean }> = {
  sandbox: { partialIntel: false, turnBased: false },
  coop: { partialIntel: false, turnBased: false },
  pvp: { partialIntel: true, turnBased: false },
  hierarchical: { partialIntel: false, turnBased: false },
};

export const OBJECTIVE_KINDS = ['wipe_kingdom', 'survive', 'reach_units', 'reach_cities'] as const;

const Claim = Type.String({ pattern: '^(auto|id):\\d{1,9}$' });

export const Objective = Type.Object({
  id: Type.String({ minLength: 1, maxLength: 64 }),
  label: Type.Optional(Type.String({ maxLength: 200 })),
  kind: literals(OBJECTIVE_KINDS),
  /** wipe_kingdom: a claim ("auto:1", "id:3"); reach_*: a number to reach. */
  target: Type.Optional(Type.Union([Claim, Type.Integer({ minimum: 0 })])),
});

const Token = Type.String({ minLength: 16, maxLength: 512 });
const TokenSha256 = Type.String({ pattern: '^[0-9a-fA-F]{64}$' });
/** decisions §10: one string, or 1..4 of them, all valid at once (rotation with no gap). */
const oneOrMore = <T extends typeof Token | typeof TokenSha256>(item: T) =>
  Type.Union([item, Type.Array(item, { minItems: 1, maxItems: LIMITS.tokensPerAgentMax })]);

export const AgentEntry = Type.Object({
  id: Type.String({ pattern: '^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$' }),
  token: Type.Optional(oneOrMore(Token)),
  token_sha256: Type.Optional(oneOrMore(TokenSha256)),
  /** decisions §10: the most admission slots this agent holds at once (1..max_concurrent_requests). */
  max_slots: Type.Optional(Type.Integer({ minimum: 1 })),
  role: literals(Object.keys(ROLE_MASKS) as RoleName[]),
  kingdom_claim: Type.Optional(Claim),
  permissions: Type.Optional(Type.Array(literals(Object.keys(PERMISSIONS) as PermissionName[]))),
  objectives: Type.Optional(Type.Array(Objective)),
});

export const AgentsFile = Type.Object({
  scenario: Type.Optional(literals(SCENARIOS)),
  partial_intel: Type.Optional(Type.Boolean()),
  turn_based: Type.Optional(Type.Boolean()),
  turn_order: Type.Optional(Type.Array(Type.String())),
  turn_timeout_s: Type.Optional(Type.Number({ exclusiveMinimum: 0, maximum: 86_400 })),
  agents: Type.Array(AgentEntry, { minItems: 1 }),
});

export type AgentEntry = Static<typeof AgentEntry>;
export type AgentsFile = Static<typeof AgentsFile>;
export type ObjectiveSpec = Static<typeof Objective>;

export interface AgentsConfig {
  path: string;
  /** The file's text, so a reload can tell a change (decisions §10). */
  text: string;
  scenario: ScenarioName;
  partialIntel: boolean;
  turnBased: boolean;
  turnOrder: string[];
  turnTimeoutMs: number | null;
  agents: AgentEntry[];
}

// No `useDefaults: false` needed: the agents schema has no defaults to fill in.
const validate = createAjv().compile<AgentsFile>(AgentsFile);

/**
 * Reads agents.json from the config dir: undefined when absent (legacy mode). decisions §4: an
 * invalid file refuses startup with one clear line, and never falls back to legacy mode, which would
 * hand out God.
 */
export function loadAgents(configDir: string, maxConcurrent: number = LIMITS.maxConcurrentMax): AgentsConfig | undefined {
  const path = agentsPath(configDir);
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw new ConfigError(`${path}: cannot read: ${(err as Error).message}`);
  }
  return parseAgents(path, text, maxConcurrent);
}

export function agentsPath(configDir: string): string {
  return join(configDir, AGENTS_FILE);
}

/** What an agents.json holds, in words for the file-mode warning: plain tokens, digests, or both. */
export function credentialsHeld(config: AgentsConfig): string {
  let tokens = false;
  let digests = false;
  for (const agent of config.agents) {
    const held = agentTokens(agent);
    tokens ||= held.tokens.length > 0;
    digests ||= held.digests.length > 0;
  }
  if (tokens && digests) return 'agent tokens and token digests';
  return tokens ? 'agent tokens' : 'token digests only, no token';
}

/** An agent's tokens and token digests, each field as a list (decisions §10: a string or 1..4). */
export function agentTokens(agent: AgentEntry): { tokens: string[]; digests: string[] } {
  const list = (value: string | string[] | undefined) => (value === undefined ? [] : typeof value === 'string' ? [value] : value);
  return { tokens: list(agent.token), digests: list(agent.token_sha256).map((d) => d.toLowerCase()) };
}

/**
 * Parses and checks agents.json. `maxConcurrent` is `[Bridge] max_concurrent_requests`, the
 * upper bound of `max_slots`. Throws a ConfigError whose message is the one line to show; it never
 * holds a token.
 */
export function parseAgents(path: string, text: string, maxConcurrent: number = LIMITS.maxConcurrentMax): AgentsConfig {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (err) {
    throw new ConfigError(`${path}: not valid JSON: ${(err as Error).message}`);
  }
  if (!validate(raw)) {
    const error = mostSpecific(validate.errors!);
    const message = error.message!; // Ajv words every error (its `messages` option is on)
    const where = error.instancePath ? error.instancePath.slice(1).replaceAll('/', '.') : '(top level)';
    const detail =
      error.keyword === 'required'
        ? `is missing "${String(error.params.missingProperty)}"`
        : error.keyword === 'minItems' && where === 'agents'
          ? 'must list at least one agent'
          : error.keyword === 'anyOf' || error.keyword === 'const'
            ? `must be one of: ${allowedAt(where)}`
            : error.keyword === 'pattern' && where.endsWith('kingdom_claim')
              ? 'must be "auto:N" or "id:K"'
              : where.endsWith('.max_slots')
                ? `is not allowed; allowed: an integer from 1 to ${maxConcurrent} ([Bridge] max_concurrent_requests)`
                : message;
    throw new ConfigError(`${path}: ${where} ${detail}`);
  }
  const ids = new Set<string>();
  const tokens = new Set<string>();
  for (const [index, agent] of raw.agents.entries()) {
    if (ids.has(agent.id)) throw new ConfigError(`${path}: agents.${index}.id "${agent.id}" is a duplicate; every agent needs its own id`);
    ids.add(agent.id);
    if (agent.token === undefined && agent.token_sha256 === undefined) {
      throw new ConfigError(`${path}: agents.${index} ("${agent.id}") needs "token" or "token_sha256" (or both, while a token is rotated)`);
    }
    if ((agent.max_slots ?? 0) > maxConcurrent) {
      throw new ConfigError(
        `${path}: agents.${index}.max_slots = ${agent.max_slots} is not allowed; allowed: an integer from 1 to ${maxConcurrent} ([Bridge] max_concurrent_requests)`,
      );
    }
    // A token belongs to one agent: compared as digests, so a raw token in one entry and its
    // sha256 in another count as the same credential.
    const { tokens: raw, digests } = agentTokens(agent);
    // decisions §11: a guessable token is refused (startup or reload), naming the agent, never the
    // token; token_sha256 is exempt (its strength cannot be seen). The examples' placeholders fail here.
    for (const [n, token] of raw.entries()) {
      const weakness = tokenWeakness(token);
      if (weakness !== null) {
        const field = Array.isArray(agent.token) ? `token[${n}]` : 'token';
        throw new ConfigError(
          `${path}: agents.${index} ("${agent.id}") ${field} ${weakness}; an agent token needs at least ${TOKEN_MIN_LENGTH} characters with ${TOKEN_MIN_DISTINCT} distinct ones: \`gcb token --new\` prints one`,
        );
      }
    }
    const own = new Set([...raw.map((token) => sha256(token).toString('hex')), ...digests]);
    for (const digest of own) {
      if (tokens.has(digest)) {
        throw new ConfigError(`${path}: agents.${index} ("${agent.id}") reuses another agent's token; every agent needs its own credential`);
      }
    }
    for (const digest of own) tokens.add(digest);
  }
  for (const id of raw.turn_order ?? []) {
    if (!ids.has(id)) throw new ConfigError(`${path}: turn_order names "${id}", which is not an agent (agents: ${[...ids].join(', ')})`);
  }
  if (raw.turn_order && new Set(raw.turn_order).size !== raw.turn_order.length) {
    throw new ConfigError(`${path}: turn_order names an agent twice`);
  }
  const scenario = raw.scenario ?? 'sandbox';
  const defaults = SCENARIO_DEFAULTS[scenario];
  const turnBased = raw.turn_based ?? defaults.turnBased;
  // Default rotation: the agents that play (not god, who bypasses the gate, nor watchers), in order.
  const players = raw.agents.filter((a) => a.role === 'faction_player').map((a) => a.id);
  const turnOrder = raw.turn_order ?? (players.length > 0 ? players : raw.agents.map((a) => a.id));
  return {
    path,
    text,
    scenario,
    partialIntel: raw.partial_intel ?? defaults.partialIntel,
    turnBased,
    turnOrder,
    turnTimeoutMs: raw.turn_timeout_s === undefined ? null : raw.turn_timeout_s * 1000,
    agents: raw.agents,
  };
}

/**
 * The error to show: the deepest one. At one depth a type error gives way to the error after it: a
 * union branch that did not apply ("must be string") to the one that did (a token's "must NOT have
 * fewer than 16 characters", a role's "must be equal to constant"), or to the union's own anyOf when
 * every branch is of another type, whose detail lists the allowed forms (`target: true`).
 */
function mostSpecific(errors: NonNullable<typeof validate.errors>): (typeof errors)[number] {
  let best = errors[0]!;
  for (const error of errors) {
    const deeper = error.instancePath.length > best.instancePath.length;
    const sameDepthBetter = error.instancePath === best.instancePath && best.keyword === 'type';
    if (deeper || sameDepthBetter) best = error;
  }
  return best;
}

function allowedAt(where: string): string {
  if (where === 'scenario') return SCENARIOS.join(', ');
  if (where.endsWith('.role')) return Object.keys(ROLE_MASKS).join(', ');
  if (where.includes('.permissions.')) return Object.keys(PERMISSIONS).join(', '); // agents.N.permissions.M, a string
  if (where.endsWith('.kind')) return OBJECTIVE_KINDS.join(', ');
  if (where.endsWith('.target')) return '"auto:N", "id:K" or a number';
  return 'the forms docs/multi-agent.md lists'; // token, token_sha256: a string or a list
}
