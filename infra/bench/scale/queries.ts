import type { Pool } from 'pg';
import { type ComparableFact, naiveCut, sameFacts } from './naive-baseline';
import { Rng } from './rng';
import type { MemorySample } from './workload';

export const CUT_KINDS = ['as-world', 'as-recorded', 'bitemporal', 'timeline'] as const;
export type CutKind = (typeof CUT_KINDS)[number];
export type ReadKind = CutKind | 'history' | 'audit' | 'search' | 'search:large' | 'search:cold';

export interface Latencies {
  /** In-process time of the service (Server-Timing `app;dur`). */
  server: number[];
  /** Request to parsed body, on loopback. */
  client: number[];
}

interface PlannedCut {
  kind: CutKind;
  memoryId: string;
  src: string;
  /** null: `validAt=*`. */
  validAt: string | null;
  /** null: the server's now (As-World). */
  recordedAt: string | null;
}

/** Random entity-scoped cuts inside each memory's generated history, the same list for both designs. */
export function planCuts(samples: readonly MemorySample[], perKind: number, seed: number): PlannedCut[] {
  const rng = new Rng(seed);
  const iso = (ms: number) => new Date(Math.floor(ms)).toISOString();
  const cuts: PlannedCut[] = [];
  for (const kind of CUT_KINDS) {
    for (let i = 0; i < perKind; i++) {
      const memory = rng.pick(samples);
      const src = rng.pick(memory.entities);
      const valid = iso(memory.minValidMs + rng.next() * (memory.maxValidMs - memory.minValidMs));
      const recorded = iso(memory.firstRecordedMs + rng.next() * (memory.lastRecordedMs - memory.firstRecordedMs));
      const cut = { kind, memoryId: memory.memoryId, src };
      if (kind === 'as-world') cuts.push({ ...cut, validAt: valid, recordedAt: null });
      else if (kind === 'as-recorded') cuts.push({ ...cut, validAt: recorded, recordedAt: recorded });
      else if (kind === 'bitemporal') cuts.push({ ...cut, validAt: valid, recordedAt: recorded });
      else cuts.push({ ...cut, validAt: null, recordedAt: recorded });
    }
  }
  return cuts;
}

export class QueryRunner {
  readonly latencies = new Map<ReadKind | `naive:${CutKind}`, Latencies>();
  mismatches: string[] = [];
  compared = 0;

  constructor(
    private readonly url: string,
    private readonly pool: Pool,
  ) {}

  /** Runs one cut on the service and, unless `naive` is off, on the baseline too, comparing the fact sets. */
  async cut(cut: PlannedCut, timing: { service: boolean; naive: boolean | 'off' }): Promise<void> {
    const measure = timing.service;
    const params = new URLSearchParams({ src: cut.src, validAt: cut.validAt ?? '*' });
    if (cut.recordedAt !== null) params.set('recordedAt', cut.recordedAt);
    const body = (await this.get(cut.kind, `/v1/memories/${cut.memoryId}/facts?${params}`, measure)) as {
      cut: { recordedAt: string };
      facts: Array<ComparableFact & { dst: unknown }>;
    };
    if (timing.naive === 'off') return;
    const t0 = performance.now();
    const rows = await naiveCut(this.pool, cut.memoryId, cut.src, cut.validAt, cut.recordedAt ?? body.cut.recordedAt);
    const ms = performance.now() - t0;
    if (timing.naive) this.record(`naive:${cut.kind}`, ms, ms);
    this.compared += 1;
    if (!sameFacts(body.facts, rows)) {
      this.mismatches.push(
        `${cut.kind} ${cut.memoryId} src=${cut.src} validAt=${cut.validAt ?? '*'} recordedAt=${cut.recordedAt ?? body.cut.recordedAt}: ` +
          `service ${body.facts.length} facts, naive ${rows.length}`,
      );
    }
  }

  async history(memoryId: string, factId: string): Promise<void> {
    const body = (await this.get('history', `/v1/memories/${memoryId}/facts/${factId}/history`)) as { versions: unknown[] };
    if (body.versions.length === 0) throw new Error(`history of ${memoryId}/${factId} is empty`);
  }

  async audit(memoryId: string, factId: string): Promise<void> {
    const body = (await this.get('audit', `/v1/memories/${memoryId}/facts/${factId}/audit`)) as { events: unknown[] };
    if (body.events.length === 0) throw new Error(`audit of ${memoryId}/${factId} is empty`);
  }

  /** Returns the server-side time. */
  async search(memoryId: string, query: string, kind: ReadKind = 'search'): Promise<number> {
    const server = { ms: Number.NaN };
    await this.request(
      kind,
      `/v1/memories/${memoryId}/search`,
      { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ query }) },
      true,
      server,
    );
    return server.ms;
  }

  private get(kind: ReadKind, path: string, measure = true): Promise<unknown> {
    return this.request(kind, path, undefined, measure);
  }

  private async request(
    kind: ReadKind,
    path: string,
    init: RequestInit | undefined,
    measure: boolean,
    timing = { ms: Number.NaN },
  ): Promise<unknown> {
    const t0 = performance.now();
    const response = await fetch(this.url + path, init);
    const text = await response.text();
    const body: unknown = JSON.parse(text);
    const client = performance.now() - t0;
    if (response.status !== 200) throw new Error(`${init?.method ?? 'GET'} ${path}: HTTP ${response.status} ${text.slice(0, 500)}`);
    const server = Number(/dur=([\d.]+)/.exec(response.headers.get('server-timing') ?? '')?.[1] ?? Number.NaN);
    timing.ms = server;
    if (measure) this.record(kind, server, client);
    return body;
  }

  private record(kind: ReadKind | `naive:${CutKind}`, server: number, client: number): void {
    let entry = this.latencies.get(kind);
    if (!entry) this.latencies.set(kind, (entry = { server: [], client: [] }));
    if (!Number.isNaN(server)) entry.server.push(server);
    entry.client.push(client);
  }
}
