// decisions §7: every game gets world_generated, world_loaded and world_saved from the bridge's
// command code; a world swap keeps the seq counter going.
import t from 'tap';
import { ok, startSandbox } from '../commands/helpers.ts';

t.test('generate_world, save_world, load_world emit their events; seq keeps increasing', async (t) => {
  const b = await startSandbox(t);
  const kinds = ['world_generated', 'world_loaded', 'world_saved'];
  const pull = async () => (await b.cmd('recv_events', { since_seq: 0, kinds, max: 1000 })).body.result.items as Array<Record<string, any>>;
  const [startup] = await pull();
  t.match(startup, { kind: 'world_generated', cause: 'startup', width: 256, height: 256, seed: 1234 });
  const generated = await ok(t, b, 'generate_world', { zone_x: 2, zone_y: 2, seed: 99 });
  await ok(t, b, 'save_world', { folder: 'events-swap' });
  await ok(t, b, 'load_world', { path: 'events-swap' });
  // load_world answers once the swap is queued; its event comes with the swap frame.
  let items = await pull();
  for (let i = 0; i < 200 && items.length < 4; i++) {
    await new Promise((resolve) => setTimeout(resolve, 50));
    items = await pull();
  }
  t.same(
    items.map((e) => e.kind),
    ['world_generated', 'world_generated', 'world_saved', 'world_loaded'],
  );
  t.match(items[1], { cause: 'generate_world', width: generated.width, height: generated.height, seed: 99 });
  t.match(items[2], { folder: 'events-swap', compressed: true, bytes: Number });
  t.notOk(JSON.stringify(items[2]).includes(b.configDir), 'world_saved names no path of the machine');
  t.match(items[3], { width: 128, height: 128, seed: 99 });
  const seqs = items.map((e) => e.seq);
  t.same(
    seqs,
    [...seqs].sort((a, b) => a - b),
  );
  t.equal(new Set(seqs).size, 4, 'no seq reused across swaps');
});
