// The shared-memory histograms of decisions §9: one observation lands in the first bucket whose
// bound holds it (Prometheus' `le`), +Inf takes the rest, sum and count follow; each histogram
// keeps to its own words of the region.
import t from 'tap';
import { HISTOGRAM_WORDS, hFrameDuration, hFrameItems, hQueueWait, observe, readHistogram } from '../../src/shared/histograms.ts';
import { createSharedState } from '../../src/shared/layout.ts';

t.test('buckets are cumulative, bounds inclusive, +Inf last', async (t) => {
  const view = new Float64Array(HISTOGRAM_WORDS);
  for (const value of [0, 1, 1, 3, 32, 300]) observe(view, hFrameItems, value);
  const { cumulative, sum, count } = readHistogram(view, hFrameItems);
  // bounds 0, 1, 2, 4, 8, 16, 32, 64, 128, 256, +Inf
  t.same(cumulative, [1, 3, 3, 4, 4, 4, 5, 5, 5, 5, 6]);
  t.equal(sum, 337);
  t.equal(count, 6);
});

t.test('the three histograms do not overlap, and the shared state holds them', async (t) => {
  const shared = createSharedState();
  t.equal(shared.histograms.length, HISTOGRAM_WORDS);
  observe(shared.histograms, hQueueWait, 0.02);
  observe(shared.histograms, hFrameDuration, 0.003);
  t.equal(readHistogram(shared.histograms, hQueueWait).count, 1);
  t.equal(readHistogram(shared.histograms, hFrameDuration).count, 1);
  t.equal(readHistogram(shared.histograms, hFrameItems).count, 0);
  t.equal(readHistogram(shared.histograms, hQueueWait).sum, 0.02);
  t.same(readHistogram(shared.histograms, hQueueWait).cumulative.slice(0, 6), [0, 0, 0, 0, 0, 1], 'le=0.025 holds 20 ms');
});
