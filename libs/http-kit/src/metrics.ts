import { Counter, Histogram, Registry, collectDefaultMetrics } from 'prom-client';

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

  constructor() {
    collectDefaultMetrics({ register: this.registry, prefix: 'memotrace_' });
  }
}
