import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';

/** Prometheus metrics of one process (served at /metrics). */
export class ServiceMetrics {
  readonly registry = new Registry();
  readonly httpDuration = new Histogram({
    name: 'memotrace_http_request_duration_seconds',
    help: 'HTTP request latency by route and status',
    labelNames: ['method', 'route', 'status'],
    buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5],
    registers: [this.registry],
  });
  readonly commands = new Counter({
    name: 'memotrace_commands_total',
    help: 'Commands handled, by status',
    labelNames: ['status'],
    registers: [this.registry],
  });
  readonly errors = new Counter({
    name: 'memotrace_errors_total',
    help: 'Error responses, by code',
    labelNames: ['code'],
    registers: [this.registry],
  });

  readonly extractionJobs = new Counter({
    name: 'memotrace_extraction_jobs_total',
    help: 'Async extraction jobs run, by outcome (done; failed, retried later; dropped: its turns were never recorded)',
    labelNames: ['outcome'],
    registers: [this.registry],
  });

  constructor() {
    collectDefaultMetrics({ register: this.registry, prefix: 'memotrace_' });
  }

  /** `memotrace_projection_lag_events{projection}`: log events not yet in the projection, measured at each scrape. */
  trackProjectionLag(projection: string, lag: () => Promise<number>): void {
    const existing = this.registry.getSingleMetric('memotrace_projection_lag_events') as Gauge<'projection'> | undefined;
    const lags = (this.lags ??= new Map());
    lags.set(projection, lag);
    if (existing) return;
    new Gauge({
      name: 'memotrace_projection_lag_events',
      help: 'Log events not yet applied by a projection (log head position minus its checkpoint)',
      labelNames: ['projection'],
      registers: [this.registry],
      async collect() {
        for (const [name, measure] of lags) this.set({ projection: name }, Math.max(0, await measure()));
      },
    });
  }

  /** `memotrace_extraction_jobs{status}`: async extraction jobs not done (pending, failed), measured at each scrape. */
  trackExtractionBacklog(backlog: () => Promise<{ pending: number; failed: number }>): void {
    if (this.registry.getSingleMetric('memotrace_extraction_jobs')) return;
    new Gauge({
      name: 'memotrace_extraction_jobs',
      help: 'Async extraction jobs not done yet, by status (pending: not derived yet; failed: retried later)',
      labelNames: ['status'],
      registers: [this.registry],
      async collect() {
        const { pending, failed } = await backlog();
        this.set({ status: 'pending' }, pending);
        this.set({ status: 'failed' }, failed);
      },
    });
  }

  private lags: Map<string, () => Promise<number>> | undefined;
}
