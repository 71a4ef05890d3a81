// Readable output for a terminal. Pipes get JSON instead (gcb decides by stdout.isTTY; --json forces it).
import type { Capabilities, CommandDescriptor, HealthObject } from '../client/client.ts';
import type { BridgeCallError } from '../client/errors.ts';

/** Strings longer than this (base64 images) are shortened on a terminal. */
const LONG_STRING = 200;

/** A YAML-like view of any JSON value. */
export function renderValue(value: unknown, indent = 0): string {
  if (!isContainer(value)) return ' '.repeat(indent) + scalar(value);
  return lines(value, indent).join('\n');
}

function lines(value: object, indent: number): string[] {
  const pad = ' '.repeat(indent);
  if (Array.isArray(value)) {
    if (value.length === 0) return [`${pad}[]`];
    if (value.every((item) => !isContainer(item))) {
      const inline = `[${value.map(scalar).join(', ')}]`;
      if (inline.length <= 100) return [pad + inline];
    }
    const out: string[] = [];
    for (const item of value) {
      if (!isContainer(item)) out.push(`${pad}- ${scalar(item)}`);
      else {
        const inner = lines(item, indent + 2);
        out.push(`${pad}- ${inner[0]!.slice(indent + 2)}`, ...inner.slice(1));
      }
    }
    return out;
  }
  const entries = Object.entries(value);
  if (entries.length === 0) return [`${pad}{}`];
  const out: string[] = [];
  for (const [key, item] of entries) {
    if (!isContainer(item)) out.push(`${pad}${key}: ${scalar(item)}`);
    else if (Array.isArray(item) && (item.length === 0 || item.every((i) => !isContainer(i))) && `[${item.map(scalar).join(', ')}]`.length <= 100) {
      out.push(`${pad}${key}: ${lines(item, 0)[0]}`);
    } else if (!Array.isArray(item) && Object.keys(item).length === 0) out.push(`${pad}${key}: {}`);
    else out.push(`${pad}${key}:`, ...lines(item, indent + 2));
  }
  return out;
}

function scalar(value: unknown): string {
  if (typeof value === 'string') {
    if (value.length > LONG_STRING) return `${value.slice(0, 40)}… (${value.length} characters; --json or --out FILE for all)`;
    return value === '' ? '""' : value;
  }
  if (value === undefined) return '';
  return JSON.stringify(value);
}

function isContainer(value: unknown): value is object {
  return typeof value === 'object' && value !== null;
}

export function renderHealth(health: HealthObject): string {
  return renderValue(health);
}

export function renderCapabilities(caps: Capabilities): string {
  const head =
    `mod_version ${caps.mod_version}, game ${caps.game_version}, engine ${caps.engine_version}\n` +
    `game_assembly_sha256 ${caps.game_assembly_sha256}\n${caps.commands.length} commands:`;
  const width = Math.max(...caps.commands.map((c) => c.name.length), 4);
  const rows = caps.commands.map((c) => {
    const args = describeArgs(c.schema);
    return (
      `\n  ${c.name.padEnd(width)}  ${c.category}${c.requires_main_thread ? ', game thread' : ''}\n  ${' '.repeat(width)}  ${c.description}` +
      (args ? `\n  ${' '.repeat(width)}  args: ${args}` : '')
    );
  });
  return `${head + rows.join('')}\n`;
}

/** `entity_id string, x integer, count? integer 1..100 = 1` from an args schema. */
export function describeArgs(schema: CommandDescriptor['schema']): string {
  const properties = (schema.properties ?? {}) as Record<string, Record<string, unknown>>;
  const required = new Set((schema.required ?? []) as string[]);
  return Object.entries(properties)
    .map(([name, prop]) => {
      let text = `${name}${required.has(name) ? '' : '?'} ${typeName(prop)}`;
      const min = prop.minimum;
      const max = prop.maximum;
      if (min !== undefined || max !== undefined) text += ` ${min ?? ''}..${max ?? ''}`;
      if (prop.default !== undefined) text += ` = ${JSON.stringify(prop.default)}`;
      return text;
    })
    .join(', ');
}

function typeName(prop: Record<string, unknown>): string {
  if (typeof prop.type === 'string') return prop.type;
  const members = (prop.anyOf ?? prop.oneOf) as Array<Record<string, unknown>> | undefined;
  if (Array.isArray(members)) return members.map((m) => ('const' in m ? JSON.stringify(m.const) : typeName(m))).join('|');
  return 'any';
}

/** An error envelope for a person: code, status, message, then suggestions and the exception. */
export function renderError(error: BridgeCallError): string {
  let text = `${error.code} (HTTP ${error.status}): ${error.message}`;
  if (error.didYouMean?.length) text += `\n  did you mean: ${error.didYouMean.join(', ')}`;
  if (error.exception)
    text += `\n  exception: ${error.exception.type}: ${error.exception.message}${error.exception.stack_top ? `\n    ${error.exception.stack_top}` : ''}`;
  if (error.attempts > 1) text += `\n  (after ${error.attempts} attempts)`;
  return text;
}

/** decisions §12: a step's answer on one line: `tick 0 → 100 (100 ticks), hash 0123456789abcdef`. */
export function renderStep(result: { tick_before: number; tick: number; ticks: number; hash?: string; stopped?: string }): string {
  let line = `tick ${result.tick_before} → ${result.tick} (${result.ticks} tick${result.ticks === 1 ? '' : 's'})`;
  if (result.hash !== undefined) line += `, hash ${result.hash}`;
  if (result.stopped === 'deadline') line += '; stopped at the 25 s limit: step again for the rest';
  // decisions §15: it shared the game thread with another agent's command.
  if (result.stopped === 'yielded') line += "; gave way to another agent's command: step again for the rest";
  return `${line}\n`;
}

/** decisions §12: `tick 100, hash 0123456789abcdef`. */
export function renderHash(result: { tick: number; hash: string }): string {
  return `tick ${result.tick}, hash ${result.hash}\n`;
}
