// What a person sees on a terminal (gcb prints JSON instead when stdout is not a TTY).
import t from 'tap';
import { BridgeCallError } from '../../src/client/errors.ts';
import { describeArgs, renderCapabilities, renderError, renderStep, renderValue } from '../../src/cli/render.ts';

t.test('results read as indented key: value lines', async (t) => {
  t.equal(renderValue({ width: 256, paused: false, window: null, names: ['Ann', 'Bo'] }), 'width: 256\npaused: false\nwindow: null\nnames: [Ann, Bo]');
  t.equal(
    renderValue({
      items: [
        { id: 'human', race: 'human' },
        { id: 'elf', race: 'elf' },
      ],
      count: 2,
    }),
    'items:\n  - id: human\n    race: human\n  - id: elf\n    race: elf\ncount: 2',
  );
  t.equal(renderValue({ items: [], meta: {} }), 'items: []\nmeta: {}');
  t.match(renderValue({ base64: 'A'.repeat(5000) }), /^base64: A{40}… \(5000 characters; --json or --out FILE for all\)$/);
});

t.test('capabilities list commands with their args; errors show code, status, suggestions, exception', async (t) => {
  const schema = {
    type: 'object',
    properties: {
      entity_id: { type: 'string' },
      count: { type: 'integer', minimum: 1, maximum: 100, default: 1 },
      format: { anyOf: [{ const: 'jpg' }, { const: 'png' }], default: 'jpg' },
    },
    required: ['entity_id'],
  };
  t.equal(describeArgs(schema), 'entity_id string, count? integer 1..100 = 1, format? "jpg"|"png" = "jpg"');
  const text = renderCapabilities({
    mod_version: '0.3.0',
    game_version: 'g1',
    engine_version: 'v20',
    game_assembly_sha256: 'ab',
    commands: [{ name: 'spawn', category: 'action', description: 'Spawn.', requires_main_thread: true, schema }],
  });
  t.match(text, /^mod_version 0\.3\.0, game g1, engine v20\n/);
  t.match(text, /\n {2}spawn {2}action, game thread\n {9}Spawn\.\n {9}args: entity_id string/);
  const error = new BridgeCallError(
    { code: 'UNKNOWN_ASSET', message: "entity_id 'humn' does not exist", command: 'spawn', args: {}, did_you_mean: ['human', 'demon'] },
    400,
  );
  t.equal(renderError(error), "UNKNOWN_ASSET (HTTP 400): entity_id 'humn' does not exist\n  did you mean: human, demon");
  const crash = new BridgeCallError(
    {
      code: 'GAME_CRASH',
      message: 'TypeError: x',
      command: 'get_world_state',
      args: {},
      exception: { type: 'TypeError', message: 'x', stack_top: 'at f (game.ts:1:1)' },
    },
    500,
    { attempts: 2 },
  );
  t.equal(renderError(crash), 'GAME_CRASH (HTTP 500): TypeError: x\n  exception: TypeError: x\n    at f (game.ts:1:1)\n  (after 2 attempts)');
});

t.test('a step on one line, and why it ran fewer ticks than asked', async (t) => {
  t.equal(renderStep({ tick_before: 0, tick: 100, ticks: 100, hash: '0123456789abcdef' }), 'tick 0 → 100 (100 ticks), hash 0123456789abcdef\n');
  t.equal(renderStep({ tick_before: 5, tick: 6, ticks: 1 }), 'tick 5 → 6 (1 tick)\n');
  t.match(renderStep({ tick_before: 0, tick: 40, ticks: 40, stopped: 'deadline' }), /; stopped at the 25 s limit: step again for the rest\n$/);
  t.match(renderStep({ tick_before: 0, tick: 40, ticks: 40, stopped: 'yielded' }), /; gave way to another agent's command: step again for the rest\n$/);
});
