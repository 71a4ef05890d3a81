// decisions §5 and §11: JSON nested deeper than 64 levels is refused before it is parsed, whether
// it is a request body (the main loop) or a save's metadata (a pool thread): whatever walks the
// parsed tree recursively would run out of stack, and V8's parser itself takes about half a second
// over a megabyte of `[`.

/**
 * True when brackets outside strings nest deeper than `max`: checked before parsing, in one pass
 * over the UTF-8 bytes. Every byte of a multi-byte character is 0x80 or above, so none is taken
 * for a quote, a backslash or a bracket; a string's content is skipped in a tight inner loop (the
 * bytes of a large body are mostly strings).
 */
export function exceedsDepth(utf8: Uint8Array, max: number): boolean {
  let depth = 0;
  const n = utf8.length;
  for (let i = 0; i < n; i++) {
    const code = utf8[i]!;
    if (code === 34 /* " */) {
      // To the closing quote, stepping over each escaped byte.
      for (i++; i < n; i++) {
        const inner = utf8[i]!;
        if (inner === 34) break;
        if (inner === 92 /* \ */) i++;
      }
    } else if (code === 123 /* { */ || code === 91 /* [ */) {
      if (++depth > max) return true;
    } else if (code === 125 /* } */ || code === 93 /* ] */) {
      depth--;
    }
  }
  return false;
}
