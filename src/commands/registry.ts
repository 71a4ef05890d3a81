import type { ValidateFunction } from 'ajv';
import type { Logger } from 'pino';
import { createAjv } from '../config/ajv.ts';
import { describeSchema, type CommandDef } from './define.ts';

export interface CommandDescriptor {
  name: string;
  category: string;
  description: string;
  requires_main_thread: boolean;
  schema: Record<string, unknown>;
}

export interface RegisteredCommand {
  def: CommandDef;
  validate: ValidateFunction;
}

/**
 * The commands this game build supports, built once at startup (main loop): validators compiled
 * once, descriptors for /capabilities serialised once. spec rule 3: a command whose game functions
 * the game module lacks is disabled, logged once, left out of /capabilities, and answers 404 saying why.
 */
export class CommandRegistry {
  readonly #enabled = new Map<string, RegisteredCommand>();
  readonly #disabled = new Map<string, string>();
  readonly descriptors: CommandDescriptor[] = [];

  constructor(commands: readonly CommandDef[], gameFunctions: ReadonlySet<string>, log: Logger) {
    // Commands validate without filling defaults: handlers apply their own, so error.args stays as received.
    const ajv = createAjv({ useDefaults: false });
    for (const def of commands) {
      const missing = def.binds.filter((fn) => !gameFunctions.has(fn));
      if (missing.length > 0) {
        const reason = `command '${def.name}' is disabled: the game module does not export ${missing.join(', ')}`;
        this.#disabled.set(def.name, reason);
        log.warn({ command: def.name, missing }, reason);
        continue;
      }
      this.#enabled.set(def.name, { def, validate: ajv.compile(def.args) });
      this.descriptors.push({
        name: def.name,
        category: def.category,
        description: def.description,
        requires_main_thread: def.requiresMainThread,
        schema: describeSchema(def.args),
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

  get size(): number {
    return this.#enabled.size;
  }
}
