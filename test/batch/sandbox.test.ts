// decisions §8 on the sandbox world: the world commands a batch refuses, and invoke_power, an item
// with one pulse and refused with more.
import t from 'tap';
import { SANDBOX_GAME } from '../../src/bridge.ts';
import { startTestBridge } from '../helpers/bridge.ts';

t.setTimeout(120_000);

t.test('the sandbox: excluded world commands and a pulsed invoke_power', async (t) => {
  const b = await startTestBridge(t, { game: SANDBOX_GAME });
  for (const name of ['generate_world', 'load_world', 'save_world', 'screenshot', 'objective_status', 'health']) {
    const answer = await b.cmd('batch', { commands: [{ name: 'get_world_state' }, { name }] });
    t.equal(answer.status, 400, name);
    t.match(answer.body.error.message, new RegExp(`^commands\\[1\\]: '${name}' cannot be a batch item`), name);
  }
  const pulsed = await b.cmd('batch', { commands: [{ name: 'invoke_power', args: { power_id: 'rain', x: 5, y: 5, pulses: 3 } }] });
  t.equal(pulsed.status, 400);
  t.match(pulsed.body.error.message, /^commands\[0\]: a pulsed invoke_power \(pulses > 1\) spans frames/);
  const single = await b.cmd('batch', {
    commands: [
      { name: 'invoke_power', args: { power_id: 'rain', x: 5, y: 5 } },
      { name: 'get_tile', args: { x: 5, y: 5 } },
    ],
  });
  t.equal(single.status, 200, 'a single-pulse invoke_power is an item');
  t.match(single.body.result, { completed: 2 });
});
