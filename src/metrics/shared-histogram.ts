import { Histogram, type MetricObjectWithValues, type MetricValueWithName } from 'prom-client';
import { observe, readHistogram, type HistogramSpec } from '../shared/histograms.ts';

/** One label set's counts: a view and where in it they are. */
export interface Series {
  readonly labels: Record<string, string>;
  readonly view: Float64Array;
  readonly spec: HistogramSpec;
}

/**
 * A prom-client histogram whose counts live in plain Float64Arrays (src/shared/histograms.ts):
 * either a region of the shared buffer that the game thread counts in, or one array per label set
 * counted on the main loop. An observation is a bucket scan and three additions, where
 * prom-client's own observe hashes the labels on every call; prom-client still writes the text.
 */
export class BucketHistogram extends Histogram {
  readonly #name: string;
  readonly #help: string;
  readonly #bounds: readonly number[];
  readonly #series: Series[] = [];
  readonly #children = new Map<string, Series>();

  /** `shared`: a region the game thread counts in (read only here); without it, count with child(). */
  constructor(options: { name: string; help: string; bounds: readonly number[]; shared?: { view: Float64Array; spec: HistogramSpec } }) {
    super({ name: options.name, help: options.help, buckets: [...options.bounds], registers: [] });
    this.#name = options.name;
    this.#help = options.help;
    this.#bounds = options.bounds;
    if (options.shared) this.#series.push({ labels: {}, ...options.shared });
  }

  /** The counts of one label set, made on first use; `key` is the caller's cheap key for `labels`. */
  child(key: string, labels: Record<string, string>): Series {
    let series = this.#children.get(key);
    if (series === undefined) {
      series = { labels, view: new Float64Array(this.#bounds.length + 3), spec: { offset: 0, bounds: this.#bounds } };
      this.#children.set(key, series);
      this.#series.push(series);
    }
    return series;
  }

  static record(series: Series, value: number): void {
    observe(series.view, series.spec, value);
  }

  /** What prom-client's registry formats (it prefers this method to get()). */
  getForPromString(): Promise<MetricObjectWithValues<MetricValueWithName<string>>> {
    return this.get();
  }

  override get(): Promise<MetricObjectWithValues<MetricValueWithName<string>>> {
    const bucket = `${this.#name}_bucket`;
    const values: Array<MetricValueWithName<string>> = [];
    for (const { labels, view, spec } of this.#series) {
      const { cumulative, sum, count } = readHistogram(view, spec);
      spec.bounds.forEach((le, i) => values.push({ metricName: bucket, labels: { ...labels, le }, value: cumulative[i]! }));
      values.push(
        { metricName: bucket, labels: { ...labels, le: '+Inf' }, value: cumulative[spec.bounds.length]! },
        { metricName: `${this.#name}_sum`, labels, value: sum },
        { metricName: `${this.#name}_count`, labels, value: count },
      );
    }
    return Promise.resolve({ name: this.#name, help: this.#help, type: 'histogram' as never, values, aggregator: 'sum', collect: () => {} });
  }
}
