// decisions §9: GET /metrics, the Prometheus text format through prom-client. The request
// series are counted by one middleware from the request's log line (what the bridge already knows
// about every answer); everything else is read only when a scrape asks: gauges from the admission
// semaphore and shared memory, the queue and frame histograms from the game thread's shared
// counts (src/shared/histograms.ts). `entry` is its part of the HTTP app (createApp's entries);
// stop() ends the default collectors.
import type { Hono } from 'hono';
import { collectDefaultMetrics, Counter, Gauge, Registry } from 'prom-client';
import type { AppEntry } from '../http/app.ts';
import type { Env } from '../http/context.ts';
import { hFrameDuration, hFrameItems, hQueueWait, type HistogramSpec } from '../shared/histograms.ts';
import { kQueued, kTick, type SharedState } from '../shared/layout.ts';
import { CountTable, createRequestObserver, type RequestObserver } from './observe.ts';
import { metricsRoutes } from './routes.ts';
import { BucketHistogram } from './shared-histogram.ts';

export interface MetricsSources {
  shared: SharedState;
  /** The admission semaphore (slots held, the limit). */
  admission: { readonly inUse: number; readonly limit: number };
  /** The event hub's figures (decisions §7), when the event layer exists. */
  events?: { readonly stats: { streams: number; dropped: number }; readonly kindCounts: ReadonlyMap<string, number> };
  /** decisions §10: the per-agent series exist in multi-agent mode only. */
  multiAgent: boolean;
  /** decisions §8: replays answered from the idempotency store, when that store exists. */
  idempotentReplays?: () => number;
}

export interface MetricsLayer {
  readonly registry: Registry;
  /** GET /metrics, mounted with app.route() after authentication. */
  readonly routes: Hono<Env>;
  /** Told of every answer by the credential check (a 401 too), when its log line is written. */
  readonly observe: RequestObserver;
  /** GET /metrics and the observer, as createApp takes them. */
  readonly entry: AppEntry;
  stop(): void;
}

/** Request and admission latencies: sub-millisecond answers up to the 60 s backstop. */
export const REQUEST_BOUNDS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60];
/** The admission wait ends at 5 s (then BUSY). */
export const ADMISSION_BOUNDS = [0.0001, 0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5];

export function createMetrics(sources: MetricsSources): MetricsLayer {
  const registry = new Registry();
  const registers = [registry];
  const { admission, events } = sources;

  const requests = new CountTable();
  tableCounter(
    registry,
    'gcb_requests_total',
    'Answers by endpoint, command (the registered name, or the path for GET endpoints) and code (OK or the error code)',
    ['endpoint', 'command', 'code'],
    requests,
  );
  const duration = new BucketHistogram({
    name: 'gcb_request_duration_seconds',
    help: 'Time from the request reaching the bridge to its answer being ready, by command',
    bounds: REQUEST_BOUNDS,
  });
  registry.registerMetric(duration);
  const admissionWait = new BucketHistogram({
    name: 'gcb_admission_wait_seconds',
    help: 'Time a request waited for an admission slot (5 s then 503 BUSY)',
    bounds: ADMISSION_BOUNDS,
  });
  registry.registerMetric(admissionWait);
  const agentRequests = sources.multiAgent ? new CountTable() : null;
  if (agentRequests) tableCounter(registry, 'gcb_agent_requests_total', 'Answers by agent id (agents.json) and code', ['agent', 'code'], agentRequests);

  const shared = (name: string, help: string, spec: HistogramSpec) =>
    registry.registerMetric(new BucketHistogram({ name, help, bounds: spec.bounds, shared: { view: sources.shared.histograms, spec } }));
  shared('gcb_queue_wait_seconds', 'Time a queued entry waited for the game thread to reach it', hQueueWait);
  shared('gcb_frame_duration_seconds', "Time of one frame's work: the game's update (when the bridge runs the loop), the drain and the jobs", hFrameDuration);
  shared('gcb_frame_items', 'Items run in one frame (a command alone is one item)', hFrameItems);

  sampledGauge(registry, 'gcb_slots_in_use', 'Admission slots held now', () => admission.inUse);
  sampledGauge(registry, 'gcb_slots_max', 'Admission slots in all ([Bridge] max_concurrent_requests)', () => admission.limit);
  sampledGauge(registry, 'gcb_queue_depth', 'Entries posted to the game thread and not yet drained', () => Atomics.load(sources.shared.control, kQueued));
  sampledGauge(registry, 'gcb_tick', 'The world tick', () => Atomics.load(sources.shared.control, kTick));
  sampledGauge(registry, 'gcb_event_streams', 'Open GET /events streams', () => events?.stats.streams ?? 0);
  sampledCounter(
    registry,
    'gcb_events_dropped_total',
    'Events the game thread dropped (the per-frame bound or fields that could not be copied)',
    () => events?.stats.dropped ?? 0,
  );
  sampledCounter(
    registry,
    'gcb_idempotent_replays_total',
    'Answers replayed from the idempotency store (Idempotent-Replayed: true)',
    () => sources.idempotentReplays?.() ?? 0,
  );
  new Counter({
    name: 'gcb_events_total',
    help: 'Events published, by kind',
    labelNames: ['kind'] as const,
    registers,
    collect() {
      this.reset();
      if (events) for (const [kind, count] of events.kindCounts) this.inc({ kind }, count);
    },
  });

  collectDefaultMetrics({ register: registry });

  const routes = metricsRoutes(registry);
  const observe = createRequestObserver({ requests, duration, admissionWait: admissionWait.child('', {}), agentRequests });
  return { registry, routes, observe, entry: { routes, onAnswered: observe }, stop: () => registry.clear() };
}

/** A gauge read at scrape time. */
function sampledGauge(registry: Registry, name: string, help: string, read: () => number): void {
  new Gauge({
    name,
    help,
    registers: [registry],
    collect() {
      this.set(read());
    },
  });
}

/** A labelled counter counted in a CountTable on the hot path, handed to prom-client at scrape time. */
function tableCounter(registry: Registry, name: string, help: string, labelNames: string[], table: CountTable): void {
  new Counter({
    name,
    help,
    labelNames,
    registers: [registry],
    collect() {
      this.reset();
      for (const { labels, value } of table.rows) this.inc(labels, value);
    },
  });
}

/** A counter kept elsewhere (a plain number that only grows), read at scrape time. */
function sampledCounter(registry: Registry, name: string, help: string, read: () => number): void {
  new Counter({
    name,
    help,
    registers: [registry],
    collect() {
      this.reset();
      this.inc(read());
    },
  });
}
