// decisions §7: `command` events, an audit record per POST /cmd answer. Its args are the client's:
// they must carry no secret and nothing huge, so long strings (bytes_b64, message content),
// secret-looking keys, deep nesting and long lists are cut before the record is kept.

const MAX_STRING = 128;
const MAX_ITEMS = 16;
const MAX_KEYS = 32;
const MAX_DEPTH = 4;
const SECRET_KEY = /token|secret|password|passwd|authorization|api[_-]?key|cookie/i;

export function sanitizeArgs(args: unknown): unknown {
  return clean(args, 0);
}

function clean(value: unknown, depth: number): unknown {
  if (typeof value === 'string') return value.length > MAX_STRING ? `<${value.length} characters elided>` : value;
  if (value === null || typeof value !== 'object') return typeof value === 'number' || typeof value === 'boolean' ? value : null;
  if (depth >= MAX_DEPTH) return '<nested value elided>';
  if (Array.isArray(value)) {
    const items = value.slice(0, MAX_ITEMS).map((item) => clean(item, depth + 1));
    if (value.length > MAX_ITEMS) items.push(`<${value.length - MAX_ITEMS} more items elided>`);
    return items;
  }
  // No prototype: a client's `__proto__` key stays a plain key.
  const out = Object.create(null) as Record<string, unknown>;
  let keys = 0;
  for (const key of Object.keys(value)) {
    if (keys++ === MAX_KEYS) {
      out['…'] = '<more keys elided>';
      break;
    }
    const shownKey = key.length > 64 ? `${key.slice(0, 64)}…` : key;
    out[shownKey] = SECRET_KEY.test(key) ? '<redacted>' : clean((value as Record<string, unknown>)[key], depth + 1);
  }
  return out;
}

/** A command name as the client sent it, bounded (an unknown name is whatever the client sent). */
export function shownName(name: string): string {
  return name.length > 64 ? `${name.slice(0, 64)}…` : name;
}
