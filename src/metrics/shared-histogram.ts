import { Histogram, type MetricObjectWithValues, type MetricValueWithName } from 'prom-client';
import { readHistogram, type HistogramSpec } from '../shared/histograms.ts';

/**
 * A prom-client histogram whose buckets live in shared memory (src/shared/histograms.ts): the game
 * thread counts, and a scrape reads the counts as they are. prom-client still writes the text.
 */
export class SharedHistogram extends Histogram {
  readonly #name: string;
  readonly #help: string;
  readonly #view: Float64Array;
  readonly #spec: HistogramSpec;

  constructor(name: string, help: string, view: Float64Array, spec: HistogramSpec) {
    super({ name, help, buckets: [...spec.bounds], registers: [] });
    this.#name = name;
    this.#help = help;
    this.#view = view;
    this.#spec = spec;
  }

  /** What prom-client's registry formats (it prefers this method to get()). */
  getForPromString(): Promise<MetricObjectWithValues<MetricValueWithName<string>>> {
    return this.get();
  }

  override get(): Promise<MetricObjectWithValues<MetricValueWithName<string>>> {
    const { cumulative, sum, count } = readHistogram(this.#view, this.#spec);
    const bucket = `${this.#name}_bucket`;
    const values: Array<MetricValueWithName<string>> = this.#spec.bounds.map((le, i) => ({ metricName: bucket, labels: { le }, value: cumulative[i]! }));
    values.push(
      { metricName: bucket, labels: { le: '+Inf' }, value: cumulative[this.#spec.bounds.length]! },
      { metricName: `${this.#name}_sum`, labels: {}, value: sum },
      { metricName: `${this.#name}_count`, labels: {}, value: count },
    );
    return Promise.resolve({ name: this.#name, help: this.#help, type: 'histogram' as never, values, aggregator: 'sum', collect: () => {} });
  }
}
