import {
  type Command,
  type EdgeTarget,
  MergeClasses,
  type MemoryRecord,
  type MemoryState,
  decideBatch,
  factView,
  fold,
  initialState,
} from '@memotrace/domain';
import { type ProjectedRecord, toProjectedRecord } from '@memotrace/projection';
import fc from 'fast-check';
import {
  type BatchPlan,
  type EntityRow,
  type Erasable,
  type EventContent,
  type FactContent,
  type LabelRow,
  type MentionRow,
  type StoredHeads,
  labelRows,
  mentionRows,
  planBatch,
  versionedKeys,
} from './batch-plan';
import { readAfterErasures } from './testing/read-after-erasure';
import { type CommandDraft, eraseCommand, randomLog } from './testing/random-log';
import { type StoredHead, type VersionRow, headKey } from './version-ledger';

/**
 * The batch plan applies erasures (SPEC §5.2) as evolve does, whichever batch holds them: an
 * in-memory stand-in for the tables applies each plan as the writer does (the stored rows lose
 * the listed items' content first, then the plan's rows go in), and what it holds is compared
 * with the fold of the whole log.
 */
class Tables {
  readonly facts = new Map<string, VersionRow<Erasable<FactContent>>[]>();
  readonly events = new Map<string, VersionRow<Erasable<EventContent>>[]>();
  readonly entities = new Map<string, EntityRow & { erased?: true }>();
  labels: LabelRow[] = [];
  readonly mentions = new Map<string, MentionRow>();

  heads(keys: ReturnType<typeof versionedKeys>): StoredHeads {
    const pick = <C>(table: Map<string, VersionRow<C>[]>, wanted: { memoryId: string; id: string }[], withContent: boolean) => {
      const heads = new Map<string, StoredHead<C>>();
      for (const { memoryId, id } of wanted) {
        const last = table.get(headKey(memoryId, id))?.at(-1);
        if (last)
          heads.set(headKey(memoryId, id), {
            versionNo: last.versionNo,
            recordedTo: last.recordedTo,
            ...(withContent ? { content: last.content } : {}),
          });
      }
      return heads;
    };
    const entities = new Map<string, { named: boolean }>();
    for (const { memoryId, id } of keys.entity) {
      const entity = this.entities.get(headKey(memoryId, id));
      const namedAgain = this.labels.some((l) => l.memoryId === memoryId && l.entityId === id && l.kind === 'name');
      if (entity) entities.set(headKey(memoryId, id), { named: entity.name !== null || namedAgain });
    }
    return {
      facts: pick(this.facts, keys.fact, true),
      events: pick(this.events, keys.event, false),
      episodes: new Map(),
      topics: new Map(),
      entities,
    };
  }

  /** As the SQL statements do it, written here again: the test must not borrow the code it checks. */
  apply(plan: BatchPlan): void {
    for (const { memoryId, entities, facts, events, mentions } of plan.erasures) {
      for (const id of entities) {
        const entity = this.entities.get(headKey(memoryId, id));
        if (entity) this.entities.set(headKey(memoryId, id), { ...entity, name: null, erased: true });
        this.labels = this.labels.filter((l) => headKey(l.memoryId, l.entityId) !== headKey(memoryId, id));
      }
      for (const id of facts) {
        for (const row of this.facts.get(headKey(memoryId, id)) ?? []) {
          const dst = typeof row.content.dst === 'string' ? row.content.dst : null;
          row.content = { ...row.content, dst, source: null, erased: true };
        }
      }
      for (const id of events)
        for (const row of this.events.get(headKey(memoryId, id)) ?? []) row.content = { ...row.content, summary: null, erased: true };
      for (const id of mentions) {
        const mention = this.mentions.get(headKey(memoryId, id));
        if (mention) this.mentions.set(headKey(memoryId, id), { ...mention, text: null, speaker: null, erased: true });
      }
    }
    for (const [table, ledger] of [
      [this.facts, plan.facts],
      [this.events, plan.events],
    ] as const) {
      for (const close of ledger.closes) {
        const row = (table as Map<string, VersionRow<unknown>[]>)
          .get(headKey(close.memoryId, close.id))!
          .find((r) => r.versionNo === close.versionNo)!;
        expect(row.recordedTo).toBeNull();
        row.recordedTo = close.recordedTo;
      }
      for (const row of ledger.rows as VersionRow<unknown>[]) {
        const rows = (table as Map<string, VersionRow<unknown>[]>).get(headKey(row.memoryId, row.id)) ?? [];
        expect(row.versionNo).toBe(rows.length + 1);
        rows.push({ ...row });
        (table as Map<string, VersionRow<unknown>[]>).set(headKey(row.memoryId, row.id), rows);
      }
    }
    for (const entity of plan.entities)
      if (!this.entities.has(headKey(entity.memoryId, entity.entityId))) this.entities.set(headKey(entity.memoryId, entity.entityId), entity);
    this.labels.push(...labelRows(plan));
    for (const mention of mentionRows(plan))
      if (!this.mentions.has(headKey(mention.memoryId, mention.mentionId))) this.mentions.set(headKey(mention.memoryId, mention.mentionId), mention);
  }
}

function project(memoryId: string, records: readonly MemoryRecord[], batchSizes: readonly number[]): Tables {
  const tables = new Tables();
  const logged = records.map((record, i) => toProjectedRecord(memoryId, i + 1, record));
  for (let start = 0, i = 0; start < logged.length; i++) {
    const batch: ProjectedRecord[] = logged.slice(start, start + batchSizes[i % batchSizes.length]!);
    start += batch.length;
    tables.apply(planBatch(batch, tables.heads(versionedKeys(batch))));
  }
  return tables;
}

/** What the tables hold of each item, next to what the fold holds (views with merges left out: rows name ids as stored). */
function expectSameAsFold(memoryId: string, state: MemoryState, tables: Tables): void {
  const noMerges = new MergeClasses();
  for (const fact of state.facts.values()) {
    const rows = tables.facts.get(headKey(memoryId, fact.factId))!;
    expect({ factId: fact.factId, versions: rows.map((r) => versionOfRow(fact.factId, r)) }).toEqual({
      factId: fact.factId,
      versions: fact.versions.map((v) => factView(noMerges, fact, v)),
    });
  }
  expect([...tables.facts.keys()].filter((k) => k.startsWith(`${memoryId}\u0000`)).length).toBe(state.facts.size);
  for (const [eventId, versions] of state.events) {
    const rows = tables.events.get(headKey(memoryId, eventId))!;
    expect(rows.map((r) => ({ eventId, ...r.content, recordedFrom: r.recordedFrom, recordedTo: r.recordedTo }))).toEqual(versions);
  }
  for (const entity of state.entities.values()) {
    const row = tables.entities.get(headKey(memoryId, entity.entityId))!;
    const labels = tables.labels
      .filter((l) => l.memoryId === memoryId && l.entityId === entity.entityId && l.position >= row.position)
      .sort((a, b) => a.position - b.position || a.idx - b.idx);
    // A name given again after an erasure is a label; the row keeps the first registration's.
    const given = labels.filter((l) => l.kind === 'name');
    expect(given.length).toBeLessThanOrEqual(1);
    expect({
      entityId: entity.entityId,
      name: given[0]?.value ?? row.name,
      erased: given.length > 0 ? undefined : row.erased,
      aliases: labels.filter((l) => l.kind === 'alias').map((l) => l.value),
    }).toEqual({
      entityId: entity.entityId,
      name: entity.name,
      erased: entity.erased,
      aliases: entity.aliases.map((a) => a.value),
    });
    expect(labels.filter((l) => l.kind === 'type').map((l) => l.value)).toEqual(entity.types.map((t) => t.value));
  }
  for (const mention of state.mentions.values()) {
    const { memoryId: _, ...row } = tables.mentions.get(headKey(memoryId, mention.mentionId))!;
    expect(row).toEqual(mention);
  }
}

function versionOfRow(factId: string, row: VersionRow<Erasable<FactContent>>) {
  const { src, rel, dst, validFrom, validTo, confidence, evidence, source, erased } = row.content;
  return {
    factId,
    src,
    rel,
    dst: dst === null || typeof dst === 'string' ? dst : { literal: dst.literal, datatype: dst.datatype },
    validFrom,
    validTo,
    recordedFrom: row.recordedFrom,
    recordedTo: row.recordedTo,
    confidence,
    evidence,
    source,
    ...(erased ? { erased } : {}),
  };
}

const T = (h: number) => new Date(Date.UTC(2024, 4, 6, h)).toISOString();

/** Each inner list is one decided batch, recorded at hour 1, 2, ... */
function decided(memoryId: string, ...batches: CommandDraft[][]): MemoryRecord[][] {
  const state = initialState();
  let counter = 0;
  return batches.map((drafts, i) => {
    const commands = drafts.map((draft) => ({ ...draft, commandId: `c${++counter}`, recordedAt: T(i + 1) }) as Command);
    return decideBatch(memoryId, state, commands, T(i + 1)).records;
  });
}

const LITERAL: EdgeTarget = { literal: 'Ada@example.org', datatype: 'string' };

describe('planBatch with erasures', () => {
  it('erases as evolve does over random logs with erasures, however the log is cut into batches', () => {
    let erasures = 0;
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 1_000_000 }),
        fc.array(fc.integer({ min: 1, max: 30 }), { minLength: 1, maxLength: 4 }),
        (seed, sizes) => {
          const { records } = randomLog('m', seed, 80, { erase: true });
          erasures += records.filter((r) => r.type === 'SubjectErased').length;
          expectSameAsFold('m', fold(records), project('m', records, sizes));
        },
      ),
      { numRuns: 150 },
    );
    // Not vacuous: the logs erase, a lot.
    expect(erasures).toBeGreaterThan(300);
  });

  it('stores the nulls of records read after their keys were destroyed, then erases as evolve does', () => {
    let shredded = 0;
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 1_000_000 }),
        fc.array(fc.integer({ min: 1, max: 30 }), { minLength: 1, maxLength: 4 }),
        (seed, sizes) => {
          const { batches, records } = randomLog('m', seed, 80, { erase: true });
          const read = readAfterErasures(batches);
          shredded += read.filter((r, i) => r !== records[i]).length;
          expectSameAsFold('m', fold(read), project('m', read, sizes));
        },
      ),
      { numRuns: 150 },
    );
    expect(shredded).toBeGreaterThan(100);
  });

  it('erases the versions planned before the erasure in the same batch; a re-assertion after it is new content', () => {
    const [log] = decided('m', [
      { op: 'UPSERT_ENTITY', entityId: 'ada', name: 'Ada' },
      { op: 'UPSERT_EDGE', factId: 'f', src: 'ada', rel: 'email', dst: LITERAL, source: 'chat' },
      { op: 'RETRO_CORRECT', factId: 'f', validFrom: T(0) },
      eraseCommand({ factId: 'f' }),
      { op: 'RETRO_CORRECT', factId: 'f', validTo: T(9) },
      { op: 'UPSERT_EDGE', factId: 'f', src: 'ada', rel: 'email', dst: { literal: 'new@example.org', datatype: 'string' }, source: 'import' },
    ]);
    const plan = planBatch(
      log!.map((r, i) => toProjectedRecord('m', i + 1, r)),
      { facts: new Map(), events: new Map(), episodes: new Map(), topics: new Map(), entities: new Map() },
    );
    expect(plan.facts.rows.map((r) => [r.versionNo, r.content.dst, r.content.source, r.content.erased])).toEqual([
      [1, null, null, true],
      [2, null, null, true],
      // A retro-correction of an erased version copies it, erased (as evolve's `{ ...open }`).
      [3, null, null, true],
      [4, { literal: 'new@example.org', datatype: 'string' }, 'import', undefined],
    ]);
    expect(plan.facts.rows[2]!.content.validTo).toBe(T(9));
    expectSameAsFold('m', fold(log!), project('m', log!, [log!.length]));
    expect(plan.erasures).toEqual([
      { memoryId: 'm', position: 4, recordedAt: T(1), subject: { kind: 'fact', id: 'f' }, entities: [], facts: ['f'], events: [], mentions: [] },
    ]);
  });

  it('erases a stored head as well: a correction in the batch copies its erased content, the writer updates the stored rows', () => {
    const stored: Erasable<FactContent> = {
      src: 'ada',
      rel: 'email',
      dst: LITERAL,
      validFrom: T(0),
      validTo: null,
      confidence: null,
      evidence: [],
      source: 'chat',
    };
    const erase: ProjectedRecord = {
      memoryId: 'm',
      position: 10,
      recordedAt: T(5),
      changes: [{ change: 'erased', subject: { kind: 'entity', id: 'ada' }, entities: ['ada'], facts: ['f'], events: ['ev'], mentions: [] }],
    };
    const correct: ProjectedRecord = {
      memoryId: 'm',
      position: 11,
      recordedAt: T(6),
      changes: [{ change: 'corrected', kind: 'fact', id: 'f', validFrom: T(1), validTo: null }],
    };
    const plan = planBatch([erase, correct], {
      facts: new Map([[headKey('m', 'f'), { versionNo: 2, recordedTo: null, content: stored }]]),
      events: new Map(),
      episodes: new Map(),
      topics: new Map(),
      entities: new Map(),
    });
    expect(plan.facts.closes).toEqual([{ memoryId: 'm', id: 'f', versionNo: 2, recordedTo: T(6) }]);
    expect(plan.facts.rows.map((r) => [r.versionNo, r.content.dst, r.content.source, r.content.erased, r.content.validFrom])).toEqual([
      [3, null, null, true, T(1)],
    ]);
    expect(stored.source).toBe('chat'); // the stored head's object is not rewritten in place
    expect(plan.erasures.map((e) => [e.position, e.entities, e.facts, e.events])).toEqual([[10, ['ada'], ['f'], ['ev']]]);
  });

  it('leaves out the labels and name of an entity erased in the batch; a registration after the erasure names it again', () => {
    const [first, second] = decided(
      'm',
      [
        { op: 'UPSERT_ENTITY', entityId: 'ada', name: 'Ada Lovelace', aliases: ['Ada'], types: ['person'] },
        { op: 'UPSERT_ENTITY', entityId: 'bob', name: 'Bob', aliases: ['Bobby'] },
        { op: 'UPSERT_ENTITY', entityId: 'cy', name: 'Cy', types: ['person'] },
        eraseCommand({ entityId: 'ada' }),
        eraseCommand({ entityId: 'cy' }),
        { op: 'UPSERT_ENTITY', entityId: 'ada', name: 'Countess', aliases: ['Ada'], types: ['mathematician'] },
        { op: 'UPSERT_ENTITY', entityId: 'bob', name: 'Robert' },
      ],
      [{ op: 'RECORD_MENTION', mentionId: 'm1', docId: 'd', text: 'hi', speaker: 'Ada' }, eraseCommand({ docId: 'd' })],
    );
    const log = [...first!, ...second!];
    const plan = planBatch(
      log.map((r, i) => toProjectedRecord('m', i + 1, r)),
      { facts: new Map(), events: new Map(), episodes: new Map(), topics: new Map(), entities: new Map() },
    );
    // One row per entity, its first registration's: the erased name never reaches the table.
    expect(plan.entities.map((e) => [e.entityId, e.name, e.erased])).toEqual([
      ['ada', null, true],
      ['bob', 'Bob', undefined],
      ['cy', null, true],
    ]);
    // The name given again is a label from its record time on (a cut before it sees the erased entity).
    expect(labelRows(plan).map((l) => [l.entityId, l.kind, l.value, l.position])).toEqual([
      ['bob', 'alias', 'Bobby', 2],
      ['ada', 'name', 'Countess', 6],
      ['ada', 'alias', 'Ada', 6],
      ['ada', 'type', 'mathematician', 6],
      ['bob', 'alias', 'Robert', 7],
    ]);
    expect(mentionRows(plan).map((m) => [m.mentionId, m.text, m.speaker, m.erased])).toEqual([['m1', null, null, true]]);
    expect(plan.mentions[0]!.text).toBe('hi'); // as logged: the written rows are the erased ones
    for (const sizes of [[log.length], [1], [2, 3]]) expectSameAsFold('m', fold(log), project('m', log, sizes));
  });

  it('names a stored erased entity again with a name label, unless the batch erases it again', () => {
    const stored = { facts: new Map(), events: new Map(), episodes: new Map(), topics: new Map() };
    const register = (position: number, name: string | null): ProjectedRecord => ({
      memoryId: 'm',
      position,
      recordedAt: T(position),
      changes: [{ change: 'entity', entityId: 'ada', name, aliases: ['A'], types: [] }],
    });
    const erase = (position: number): ProjectedRecord => ({
      memoryId: 'm',
      position,
      recordedAt: T(position),
      changes: [{ change: 'erased', subject: { kind: 'entity', id: 'ada' }, entities: ['ada'], facts: [], events: [], mentions: [] }],
    });
    const erasedHead = { ...stored, entities: new Map([[headKey('m', 'ada'), { named: false }]]) };
    const named = (plan: BatchPlan) => labelRows(plan).map((l) => [l.kind, l.value]);
    const again = planBatch([register(1, 'Countess')], erasedHead);
    expect(again.entities).toEqual([]);
    expect(named(again)).toEqual([
      ['name', 'Countess'],
      ['alias', 'A'],
    ]);
    // A named stored entity: a registration changes nothing (its labels neither), nor does a second one in the batch.
    expect(named(planBatch([register(1, 'Countess')], { ...stored, entities: new Map([[headKey('m', 'ada'), { named: true }]]) }))).toEqual([]);
    expect(named(planBatch([register(1, 'Countess'), register(2, 'Other')], erasedHead))).toEqual(named(again));
    // Named again, then erased again in the batch: the erasure drops the labels before it; a registration after it names it once more.
    expect(named(planBatch([register(1, 'Countess'), erase(2)], erasedHead))).toEqual([]);
    expect(named(planBatch([register(1, 'Countess'), erase(2), register(3, 'Lady')], erasedHead))).toEqual([
      ['name', 'Lady'],
      ['alias', 'A'],
    ]);
    // A registration read after its key was destroyed names nothing.
    expect(named(planBatch([register(1, null)], erasedHead))).toEqual([]);
  });

  it('plans records read after their keys were destroyed with null content, without an erased flag until the erasure', () => {
    const batches = decided(
      'm',
      [
        { op: 'UPSERT_ENTITY', entityId: 'ada', name: 'Ada', aliases: ['A'] },
        { op: 'UPSERT_EDGE', factId: 'f', src: 'ada', rel: 'email', dst: LITERAL, source: 'chat' },
        {
          op: 'UPSERT_EVENT',
          eventId: 'ev',
          summary: 'Ada met Bob',
          participants: [{ entityId: 'ada', role: 'agent' }],
          includesFacts: [],
          timeSpan: { from: T(0) },
        },
        { op: 'RECORD_MENTION', mentionId: 'm1', docId: 'd', text: 'I am Ada', speaker: 'Ada' },
      ],
      [eraseCommand({ entityId: 'ada' })],
      [eraseCommand({ docId: 'd' })],
    );
    const read = readAfterErasures(batches);
    const [before] = [read.slice(0, batches[0]!.length)];
    const plan = planBatch(
      before.map((r, i) => toProjectedRecord('m', i + 1, r)),
      { facts: new Map(), events: new Map(), episodes: new Map(), topics: new Map(), entities: new Map() },
    );
    expect(plan.entities.map((e) => [e.name, e.erased])).toEqual([[null, undefined]]);
    expect(labelRows(plan)).toEqual([]);
    expect(plan.facts.rows.map((r) => [r.content.dst, r.content.source, r.content.erased])).toEqual([[null, null, undefined]]);
    expect(plan.events.rows.map((r) => [r.content.summary, r.content.erased])).toEqual([[null, undefined]]);
    expect(mentionRows(plan).map((m) => [m.text, m.speaker, m.erased])).toEqual([[null, null, undefined]]);
    for (const sizes of [[1], [2], [read.length]]) expectSameAsFold('m', fold(read), project('m', read, sizes));
  });
});
