import { Type, type Static, type TSchema } from '@sinclair/typebox';
import type { ValidateFunction } from 'ajv';
import type { Logger } from 'pino';
import type { PermissionRule } from '../auth/permissions.ts';
import { createAjv } from '../config/ajv.ts';
import { nearest } from '../errors/bridge-error.ts';
import { unknownCommandFailure, type Failure } from '../errors/failures.ts';
import { LIMITS } from '../limits.ts';
import { describeSchema, type CommandDef } from './define.ts';

export interface CommandDescriptor {
  name: string;
  category: string;
  description: string;
  requires_main_thread: boolean;
  schema: Record<string, unknown>;
  /**
   * Additive (v0.6, decisions §14): the permissions the command needs, every one of `all` and at
   * least one of `any` (absent: none), so a client can tell which commands a credential may call.
   */
  permission?: PermissionRule;
  /** Additive (v0.6, decisions §14): the result's JSON Schema, described like `schema`. */
  result_schema?: Record<string, unknown>;
}

const Schema = Type.Object({}, { additionalProperties: true, description: 'a JSON Schema (draft 2020-12)' });
const PermissionNames = Type.Array(Type.String());

/** The schema of a command descriptor of /capabilities (what `CommandDescriptor` says, for checks). */
export const CommandDescriptorSchema = Type.Object({
  name: Type.String(),
  category: Type.String(),
  description: Type.String(),
  requires_main_thread: Type.Boolean(),
  schema: Schema,
  permission: Type.Optional(Type.Object({ all: Type.Optional(PermissionNames), any: Type.Optional(PermissionNames) })),
  result_schema: Type.Optional(Schema),
});

/** The schema of the /capabilities object: the spec's fields and the additive ones. */
export const CapabilitiesObject = Type.Object({
  mod_version: Type.String(),
  game_version: Type.String(),
  engine_version: Type.String(),
  game_assembly_sha256: Type.String(),
  commands: Type.Array(CommandDescriptorSchema),
  disabled_commands: Type.Optional(Type.Array(Type.Object({ name: Type.String(), missing: Type.Array(Type.String()), reason: Type.String() }))),
  event_kinds: Type.Optional(Type.Array(Type.String())),
  clock: Type.Optional(Type.Union([Type.Literal('realtime'), Type.Literal('lockstep')])),
});
export type CapabilitiesObject = Static<typeof CapabilitiesObject>;

/** A command the loaded game cannot run (spec rule 3), as /capabilities lists it under `disabled_commands`. */
export interface DisabledCommand {
  name: string;
  /** The game functions it binds to that the module does not export. */
  missing: string[];
  reason: string;
}

export interface RegisteredCommand {
  def: CommandDef;
  validate: ValidateFunction;
}

// Commands validate without filling defaults: handlers apply their own, so error.args stays as received.
const ajv = createAjv({ useDefaults: false });
/**
 * A validator per args schema, shared by every registry of the process: compiling the catalogue
 * costs ~120 ms of CPU, paid again by each bridge a process starts (an embedder's restarts, tests).
 * A schema is a module constant that nothing changes, so its validator never goes stale.
 */
const validators = new WeakMap<TSchema, ValidateFunction>();

function validatorOf(schema: TSchema): ValidateFunction {
  let validate = validators.get(schema);
  if (!validate) validators.set(schema, (validate = ajv.compile(schema)));
  return validate;
}

/**
 * The commands this game build supports, built once at startup (main loop): validators compiled
 * once, descriptors for /capabilities serialised once. spec rule 3: a command whose game functions
 * the game module lacks is disabled, logged once, left out of /capabilities, and answers 404 saying why.
 */
export class CommandRegistry {
  readonly #enabled = new Map<string, RegisteredCommand>();
  /** Enabled names in catalogue order: the did_you_mean candidates. */
  readonly #names: string[] = [];
  readonly #disabled = new Map<string, string>();
  readonly descriptors: CommandDescriptor[] = [];
  readonly disabled: DisabledCommand[] = [];

  constructor(commands: readonly CommandDef[], gameFunctions: ReadonlySet<string>, log: Logger) {
    for (const def of commands) {
      const missing = def.binds.filter((fn) => !gameFunctions.has(fn));
      if (missing.length > 0) {
        const reason = `command '${def.name}' is disabled: the game module does not export ${missing.join(', ')}`;
        this.#disabled.set(def.name, reason);
        this.disabled.push({ name: def.name, missing, reason });
        log.warn({ command: def.name, missing }, reason);
        continue;
      }
      this.#enabled.set(def.name, { def, validate: validatorOf(def.args) });
      this.#names.push(def.name);
      this.descriptors.push({
        name: def.name,
        category: def.category,
        description: def.description,
        requires_main_thread: def.runsOnGameThread,
        schema: describeSchema(def.args),
        permission: def.permission,
        result_schema: describeSchema(def.result),
      });
    }
  }

  get(name: string): RegisteredCommand | undefined {
    return this.#enabled.get(name);
  }

  /** Why a known command is disabled, or undefined. */
  disabledReason(name: string): string | undefined {
    return this.#disabled.get(name);
  }

  /**
   * The 404 for a name that is not an enabled command: a disabled one says why; any other gets
   * did_you_mean among the enabled names (as UNKNOWN_ASSET does; decisions §11: only for names of
   * at most 64 characters, so a huge name costs no Levenshtein).
   */
  unknownCommand(name: string): Failure {
    const reason = this.#disabled.get(name);
    if (reason !== undefined) return unknownCommandFailure(reason);
    const suggestions = name.length <= LIMITS.didYouMeanMaxLength ? nearest(name, this.#names, LIMITS.didYouMeanCount) : undefined;
    return unknownCommandFailure(`unknown command '${name}': GET /capabilities lists the commands`, suggestions);
  }

  get size(): number {
    return this.#enabled.size;
  }
}
