// Shared by token-prefix.test.ts and token-prefix-http.test.ts.

/** Every way a token can be almost right: a prefix, a suffix, one character more or changed. */
export function nearMisses(token: string): string[] {
  return [
    token[0]!, // "r"
    token.slice(0, -1), // minus its last character
    token.slice(1), // minus its first
    token.slice(0, token.length / 2),
    `${token}x`,
    `x${token}`,
    `${token.slice(0, -1)}${token.at(-1) === 'A' ? 'B' : 'A'}`,
    token.toLowerCase(),
    token + token,
  ];
}
