import { type EventVersion, type FactVersion, type MemoryRecord, type MemoryState, fold } from '@memotrace/domain';
import { type ProjectedRecord, toProjectedRecord } from '@memotrace/projection';
import fc from 'fast-check';
import { type EpisodeContent, type EventContent, type FactContent, type StoredHeads, planBatch, versionedKeys } from './batch-plan';
import { randomLog } from './testing/random-log';
import { type StoredHead, type VersionRow, VersionLedger, headKey } from './version-ledger';

/** An in-memory stand-in for a versioned table, enforcing what the SQL constraints enforce. */
class VersionTable<C> {
  readonly rows = new Map<string, VersionRow<C>[]>();

  heads(withContent: boolean): Map<string, StoredHead<C>> {
    const heads = new Map<string, StoredHead<C>>();
    for (const [key, rows] of this.rows) {
      const last = rows[rows.length - 1]!;
      heads.set(key, { versionNo: last.versionNo, recordedTo: last.recordedTo, ...(withContent ? { content: last.content } : {}) });
    }
    return heads;
  }

  apply(ledger: VersionLedger<C>): void {
    for (const close of ledger.closes) {
      const row = this.rows.get(headKey(close.memoryId, close.id))?.find((r) => r.versionNo === close.versionNo);
      if (!row || row.recordedTo !== null) throw new Error(`close of a missing or closed version ${close.id}#${close.versionNo}`);
      row.recordedTo = close.recordedTo;
    }
    for (const row of ledger.rows) {
      const rows = this.rows.get(headKey(row.memoryId, row.id)) ?? [];
      const last = rows[rows.length - 1];
      if (last && (last.recordedTo === null || last.versionNo !== row.versionNo - 1))
        throw new Error(`overlapping or misnumbered version ${row.id}#${row.versionNo}`);
      if (last && last.recordedTo! > row.recordedFrom) throw new Error(`record intervals overlap for ${row.id}`);
      rows.push({ ...row });
      this.rows.set(headKey(row.memoryId, row.id), rows);
    }
  }
}

function logged(memoryId: string, events: MemoryRecord[]): ProjectedRecord[] {
  return events.map((event) => toProjectedRecord(memoryId, 0, event));
}

/** Two memories' logs interleaved batch by batch, positions 1..n. */
function interleave(...logs: ProjectedRecord[][]): ProjectedRecord[] {
  const out: ProjectedRecord[] = [];
  const cursors = logs.map(() => 0);
  for (let i = 0; out.length < logs.reduce((n, l) => n + l.length, 0); i++) {
    const which = i % logs.length;
    const log = logs[which]!;
    const take = log.slice(cursors[which], cursors[which]! + 3);
    cursors[which]! += take.length;
    out.push(...take);
  }
  return out.map((e, i) => ({ ...e, position: i + 1 }));
}

function project(events: ProjectedRecord[], batchSizes: number[]) {
  const facts = new VersionTable<FactContent>();
  const occurrences = new VersionTable<EventContent>();
  const episodes = new VersionTable<EpisodeContent>();
  let start = 0;
  for (let i = 0; start < events.length; i++) {
    const batch = events.slice(start, start + batchSizes[i % batchSizes.length]!);
    start += batch.length;
    const keys = versionedKeys(batch);
    const pick = <T>(heads: Map<string, T>, wanted: { memoryId: string; id: string }[]) =>
      new Map(
        wanted.flatMap((k) =>
          heads.has(headKey(k.memoryId, k.id)) ? [[headKey(k.memoryId, k.id), heads.get(headKey(k.memoryId, k.id))!] as const] : [],
        ),
      );
    const heads: StoredHeads = {
      facts: pick(facts.heads(true), keys.fact),
      events: pick(occurrences.heads(false), keys.event),
      episodes: pick(episodes.heads(false), keys.episode),
      topics: new Map(),
      entities: new Map(),
    };
    const plan = planBatch(batch, heads);
    facts.apply(plan.facts);
    occurrences.apply(plan.events);
    episodes.apply(plan.episodes);
  }
  return { facts, occurrences, episodes };
}

function expectSameVersions(memoryId: string, state: MemoryState, tables: ReturnType<typeof project>): void {
  const factRows = [...tables.facts.rows.entries()].filter(([key]) => key.startsWith(`${memoryId}\u0000`));
  expect(factRows.length).toBe(state.facts.size);
  for (const fact of state.facts.values()) {
    const rows = tables.facts.rows.get(headKey(memoryId, fact.factId))!;
    const asVersions = rows.map((r): FactVersion & { src: string; rel: string; dst: unknown } => ({
      src: r.content.src,
      rel: r.content.rel,
      dst: r.content.dst,
      validFrom: r.content.validFrom,
      validTo: r.content.validTo,
      confidence: r.content.confidence,
      evidence: r.content.evidence,
      source: r.content.source,
      recordedFrom: r.recordedFrom,
      recordedTo: r.recordedTo,
    }));
    expect(asVersions).toEqual(fact.versions.map((v) => ({ ...v, src: fact.src, rel: fact.rel, dst: fact.dst })));
    expect(rows.map((r) => r.versionNo)).toEqual(rows.map((_, i) => i + 1));
  }
  for (const [eventId, versions] of state.events) {
    const rows = tables.occurrences.rows.get(headKey(memoryId, eventId))!;
    expect(rows.map((r): EventVersion => ({ eventId, ...r.content, recordedFrom: r.recordedFrom, recordedTo: r.recordedTo }))).toEqual(versions);
  }
  for (const [episodeId, versions] of state.episodes) {
    const rows = tables.episodes.rows.get(headKey(memoryId, episodeId))!;
    expect(rows.map((r) => ({ episodeId, ...r.content, recordedFrom: r.recordedFrom, recordedTo: r.recordedTo }))).toEqual(versions);
  }
}

describe('planBatch', () => {
  it('plans the same fact, event and episode versions as evolve, however the log is cut into batches', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 1_000_000 }),
        fc.array(fc.integer({ min: 1, max: 40 }), { minLength: 1, maxLength: 5 }),
        (seed, batchSizes) => {
          const a = randomLog('mem-a', seed, 60);
          const b = randomLog('mem-b', seed + 1, 60);
          const tables = project(interleave(logged('mem-a', a.records), logged('mem-b', b.records)), batchSizes);
          expectSameVersions('mem-a', fold(a.records), tables);
          expectSameVersions('mem-b', fold(b.records), tables);
        },
      ),
      { numRuns: 150 },
    );
  });

  it('keeps log order for several touches of one fact in one batch, including empty [r, r) versions', () => {
    const meta = (recordedAt: string, commandId: string) => ({ commandId, recordedAt, actor: null, reason: null });
    const r1 = '2024-05-06T10:00:00.000Z';
    const r2 = '2024-05-06T11:00:00.000Z';
    const asserted = (recordedAt: string, commandId: string, confidence: number): MemoryRecord => ({
      type: 'FactAsserted',
      data: { factId: 'f', src: 'a', rel: 'knows', dst: 'b', validFrom: r1, validTo: null, confidence, evidence: [], source: null },
      meta: meta(recordedAt, commandId),
    });
    const events: MemoryRecord[] = [
      asserted(r1, 'c1', 0.1),
      { type: 'FactArchived', data: { factId: 'f' }, meta: meta(r1, 'c2') },
      asserted(r2, 'c3', 0.2),
      { type: 'FactRetroCorrected', data: { factId: 'f', validFrom: r1, validTo: r2 }, meta: meta(r2, 'c4') },
    ];
    const plan = planBatch(logged('m', events), { facts: new Map(), events: new Map(), episodes: new Map(), topics: new Map(), entities: new Map() });
    expect(plan.facts.closes).toEqual([]);
    expect(plan.facts.rows.map((r) => [r.versionNo, r.recordedFrom, r.recordedTo, r.content.confidence, r.content.validTo])).toEqual([
      [1, r1, r1, 0.1, null],
      [2, r2, r2, 0.2, null],
      [3, r2, null, 0.2, r2],
    ]);
    expect(
      fold(events)
        .facts.get('f')!
        .versions.map((v) => [v.recordedFrom, v.recordedTo]),
    ).toEqual([
      [r1, r1],
      [r2, r2],
      [r2, null],
    ]);
  });

  it('closes a stored open version once and continues its numbering', () => {
    const content: FactContent = {
      src: 'a',
      rel: 'knows',
      dst: 'b',
      validFrom: '2024-05-06T00:00:00.000Z',
      validTo: null,
      confidence: null,
      evidence: ['m1'],
      source: null,
    };
    const ledger = new VersionLedger<FactContent>(new Map([[headKey('m', 'f'), { versionNo: 3, recordedTo: null, content }]]));
    expect(ledger.openContent('m', 'f')).toEqual(content);
    ledger.push('m', 'f', { ...content, confidence: 0.5 }, '2024-05-07T00:00:00.000Z');
    ledger.close('m', 'f', '2024-05-08T00:00:00.000Z');
    ledger.close('m', 'f', '2024-05-09T00:00:00.000Z'); // nothing open: no-op, as in evolve
    expect(ledger.closes).toEqual([{ memoryId: 'm', id: 'f', versionNo: 3, recordedTo: '2024-05-07T00:00:00.000Z' }]);
    expect(ledger.rows.map((r) => [r.versionNo, r.recordedFrom, r.recordedTo])).toEqual([
      [4, '2024-05-07T00:00:00.000Z', '2024-05-08T00:00:00.000Z'],
    ]);
    expect(ledger.openContent('m', 'f')).toBeUndefined();
    expect(ledger.latest('m', 'f')?.confidence).toBe(0.5);
  });
});
