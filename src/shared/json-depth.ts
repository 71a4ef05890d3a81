// decisions §5 and §11: JSON nested deeper than 64 levels is refused before it is parsed, whether
// it is a request body (the main loop) or a save's metadata (a pool thread): parsing it is cheap,
// but whatever walks the parsed tree recursively would run out of stack.

/** True when brackets outside strings nest deeper than `max`: checked before parsing, in one pass. */
export function exceedsDepth(text: string, max: number): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (inString) {
      if (code === 92 /* \ */) i++;
      else if (code === 34 /* " */) inString = false;
    } else if (code === 34) {
      inString = true;
    } else if (code === 123 /* { */ || code === 91 /* [ */) {
      if (++depth > max) return true;
    } else if (code === 125 /* } */ || code === 93 /* ] */) {
      depth--;
    }
  }
  return false;
}
