// A bridge on the research test game (test/fixtures/research-game.ts), realtime or lockstep, with
// its advance() counter in the test's hands.
import type { Test } from 'tap';
import type { BridgeOptions } from '../../src/bridge.ts';
import { startTestBridge, tempDir, writeConfig, type TestBridge } from '../helpers/bridge.ts';
import { fixture } from '../helpers/paths.ts';
import { COUNTER, type ResearchGameOptions } from '../fixtures/research-game.ts';

export const RESEARCH_GAME = fixture('research-game.ts');

export interface ResearchBridge extends TestBridge {
  /** Ticks the game's advance() has run: only step calls it. */
  advancedTicks(): number;
  /** POST /cmd that must answer 200: its result. */
  ok(name: string, args?: unknown): Promise<any>;
}

export async function startResearch(
  t: Test,
  options: {
    clock?: 'realtime' | 'lockstep';
    config?: Parameters<typeof writeConfig>[1];
    game?: Omit<ResearchGameOptions, 'counters'>;
    bridge?: Omit<BridgeOptions, 'game' | 'gameOptions' | 'configDir'>;
  } = {},
): Promise<ResearchBridge> {
  const dir = tempDir('gcb-research-');
  writeConfig(dir, { clock: options.clock ?? 'lockstep', ...options.config });
  const counters = new SharedArrayBuffer(16);
  const b = await startTestBridge(t, { ...options.bridge, configDir: dir, game: RESEARCH_GAME, gameOptions: { ...options.game, counters } });
  const view = new Int32Array(counters);
  return Object.assign(b, {
    advancedTicks: () => Atomics.load(view, COUNTER.advancedTicks),
    async ok(name: string, args?: unknown) {
      const answer = await b.cmd(name, args);
      if (answer.status !== 200) throw new Error(`${name} answered ${answer.status}: ${JSON.stringify(answer.body)}`);
      return answer.body.result;
    },
  });
}
