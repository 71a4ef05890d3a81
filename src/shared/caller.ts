// The caller context of spec step 2: resolved once from the credential, then all a command sees.
// It crosses threads as plain data; it never holds a token.
export interface CallerContext {
  agentId: string;
  /** Index in the session's agent list; 0 for `legacy`. Mirrors kTurnHolder - 1. */
  agentIndex: number;
  role: string;
  /** Permission bitmask (decisions §4). */
  permissions: number;
  /** The resolved claimed kingdom id, or null. */
  claimedKingdomId: number | null;
  scenario: string;
  partialIntel: boolean;
  turnBased: boolean;
  legacyMode: boolean;
}
