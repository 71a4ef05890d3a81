import type { CommandDef } from './define.ts';
import { COMMANDS } from './index.ts';
import { INTERNAL_COMMANDS } from './internal.ts';
import { importModule } from '../shared/modules.ts';

/**
 * The built-in catalogue plus the embedder's own command modules (`startBridge({ commandModules })`).
 * Every thread calls this with the same URLs, so the main loop, the game thread and the pool agree
 * on what each name means. A module's default export is one command or an array of them.
 */
export async function loadCommands(moduleUrls: readonly string[]): Promise<CommandDef[]> {
  const all: CommandDef[] = [...COMMANDS];
  const names = new Set([...all, ...INTERNAL_COMMANDS].map((def) => def.name));
  for (const url of moduleUrls) {
    const exported = ((await importModule(url)) as { default?: CommandDef | CommandDef[] }).default;
    const defs = Array.isArray(exported) ? exported : exported ? [exported] : [];
    if (defs.length === 0) throw new Error(`command module ${url} has no default export of commands`);
    for (const def of defs) {
      if (names.has(def.name)) throw new Error(`command module ${url} defines '${def.name}', which already exists`);
      names.add(def.name);
      all.push({ ...def, turnGated: def.turnGated ?? (def.category === 'action' || def.category === 'control') });
    }
  }
  return all;
}
