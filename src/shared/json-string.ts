// A string as JSON text, exactly as JSON.stringify writes it, for JSON built as a template on the
// hot path (an event record on every POST /cmd).

// What JSON.stringify escapes: `"`, `\`, control characters, and a surrogate (a lone one becomes
// \uXXXX; a pair is written as it is, which the fallback does too).
// eslint-disable-next-line no-control-regex -- control characters are what it looks for
const NEEDS_ESCAPE = /["\\\u0000-\u001f\ud800-\udfff]/;

/** JSON.stringify(text): quoted directly when nothing needs an escape (names and ids almost never do). */
export function jsonString(text: string): string {
  return NEEDS_ESCAPE.test(text) ? JSON.stringify(text) : `"${text}"`;
}
