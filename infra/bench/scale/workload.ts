import { Rng } from './rng';

/**
 * The generated memory set of the scale benchmark: `versions` fact versions over
 * versions/50 entities, spread over memories of at most ~10,000 versions (100 at
 * 1,000,000). Each memory's commands come out in batches, deterministically from
 * the seed, with the record clock set by the client (imports/back-fills style) so
 * random (validAt, recordedAt) cuts fall inside a realistic history.
 */
export interface ScaleShape {
  versions: number;
  memories: number;
  entitiesPerMemory: number;
  batchSize: number;
  seed: number;
}

export function scaleShape(versions: number, batchSize = 1000, seed = 7): ScaleShape {
  const memories = Math.min(100, Math.max(4, Math.round(versions / 10_000)));
  return { versions, memories, entitiesPerMemory: Math.max(10, Math.round(versions / 50 / memories)), batchSize, seed };
}

export type JsonCommand = Record<string, unknown>;

/** What the queries of the benchmark pick from, per memory (filled while generating). */
export interface MemorySample {
  memoryId: string;
  entities: string[];
  /** A reservoir sample of fact ids, for history and audit reads. */
  factIds: string[];
  firstRecordedMs: number;
  lastRecordedMs: number;
  minValidMs: number;
  maxValidMs: number;
  /** Fact versions these commands create (checked against the read models). */
  versions: number;
  commands: number;
}

const ONE_ENTITY_RELS = ['works_at', 'lives_in'] as const;
const ONE_LITERAL_RELS = ['status'] as const;
const MANY_RELS = ['knows', 'likes', 'member_of'] as const;
const STATUSES = ['active', 'inactive', 'on-leave', 'remote', 'onsite'];
const DAY = 86_400_000;
const SAMPLE_FACTS = 200;

interface FactModel {
  factId: string;
  src: string;
  rel: string;
  dst: unknown;
  validFrom: number;
  validTo: number | null;
  confidence: number;
  many: boolean;
  /** Index in the open list while open, -1 once archived. */
  openAt: number;
}

/** One memory's commands, batch by batch; `sample` is complete once the generator is done. */
export function* memoryBatches(shape: ScaleShape, memoryIndex: number, sample: MemorySample): Generator<JsonCommand[]> {
  const rng = new Rng(shape.seed * 1_000_003 + memoryIndex);
  const target = Math.round(shape.versions / shape.memories);
  const entities = Array.from({ length: shape.entitiesPerMemory }, (_, i) => `e${i}`);
  sample.entities = entities;
  let clock = Date.UTC(2024, 0, 1) + memoryIndex * 60_000;
  sample.firstRecordedMs = clock;
  const recordedAt = () => new Date((clock += rng.between(1, 7200) * 1000)).toISOString();
  const iso = (ms: number) => new Date(ms).toISOString();
  const noteValid = (ms: number) => {
    sample.minValidMs = Math.min(sample.minValidMs, ms);
    sample.maxValidMs = Math.max(sample.maxValidMs, ms);
  };

  let batch: JsonCommand[] = [];
  const emit = (command: JsonCommand): JsonCommand[] | undefined => {
    batch.push({ ...command, recordedAt: recordedAt() });
    sample.commands += 1;
    if (batch.length < shape.batchSize) return undefined;
    const full = batch;
    batch = [];
    return full;
  };

  const setup: JsonCommand[] = [
    ...[...ONE_ENTITY_RELS, ...ONE_LITERAL_RELS].map((rel) => ({ op: 'DEFINE_RELATION', rel, cardinality: 'one' })),
    ...MANY_RELS.map((rel) => ({ op: 'DEFINE_RELATION', rel, cardinality: 'many' })),
    ...entities.map((id, i) => ({
      op: 'UPSERT_ENTITY',
      entityId: id,
      name: `Person ${memoryIndex}-${i}`,
      types: [i % 10 === 0 ? 'organisation' : 'person'],
    })),
  ];
  for (const command of setup) {
    const full = emit(command);
    if (full) yield full;
  }

  const open: FactModel[] = [];
  const openMany: FactModel[] = [];
  const slots = new Map<string, FactModel>(); // latest fact per (src, one-relation)
  const openAdd = (fact: FactModel) => {
    fact.openAt = open.push(fact) - 1;
  };
  const openRemove = (fact: FactModel) => {
    const last = open.pop()!;
    if (last !== fact) {
      open[fact.openAt] = last;
      last.openAt = fact.openAt;
    }
    fact.openAt = -1;
  };
  let seen = 0;
  const remember = (factId: string) => {
    seen += 1;
    if (sample.factIds.length < SAMPLE_FACTS) sample.factIds.push(factId);
    else if (rng.int(seen) < SAMPLE_FACTS) sample.factIds[rng.int(SAMPLE_FACTS)] = factId;
  };
  let n = 0;
  const confidence = () => Math.round(rng.between(50, 100)) / 100;

  while (sample.versions < target) {
    const roll = rng.next();
    let command: JsonCommand;
    if (roll < 0.15 && openMany.length > 0) {
      // RETRO_CORRECT: a new version with corrected validity (the fact stays open).
      const fact = rng.pick(openMany);
      if (fact.openAt < 0) continue; // archived since; openMany is pruned lazily
      const validTo = fact.validFrom + rng.between(1, 365) * DAY;
      // A correction that changes nothing would be `unchanged` (no version): move validFrom instead.
      if (rng.next() < 0.5 && validTo !== fact.validTo) fact.validTo = validTo;
      else fact.validFrom -= rng.between(1, 60) * DAY;
      noteValid(fact.validFrom);
      command = {
        op: 'RETRO_CORRECT',
        factId: fact.factId,
        validFrom: iso(fact.validFrom),
        ...(fact.validTo === null ? {} : { validTo: iso(fact.validTo) }),
      };
      sample.versions += 1;
    } else if (roll < 0.2 && open.length > 0) {
      // ARCHIVE_EDGE: no new version, the open one closes.
      const fact = rng.pick(open);
      openRemove(fact);
      command = { op: 'ARCHIVE_EDGE', factId: fact.factId };
    } else if (roll < 0.3 && openMany.length > 0) {
      // UPSERT_EDGE on a known fact with a new confidence: a new version.
      const fact = rng.pick(openMany);
      if (fact.openAt < 0) continue;
      const next = confidence();
      if (next === fact.confidence) continue;
      fact.confidence = next;
      command = { op: 'UPSERT_EDGE', factId: fact.factId, src: fact.src, rel: fact.rel, dst: fact.dst, confidence: next };
      sample.versions += 1;
    } else if (roll < 0.55) {
      // A `one` relation: the new fact supersedes the slot's open fact from its validFrom on.
      const src = rng.pick(entities);
      const literal = rng.next() < 0.3;
      const rel = literal ? rng.pick(ONE_LITERAL_RELS) : rng.pick(ONE_ENTITY_RELS);
      const slot = slots.get(`${src}|${rel}`);
      const dst = literal ? { literal: rng.pick(STATUSES) } : rng.pick(entities);
      const sameDst = slot !== undefined && JSON.stringify(slot.dst) === JSON.stringify(dst);
      if (sameDst) continue;
      const validFrom = slot ? slot.validFrom + rng.between(1, 90) * DAY : clock - rng.between(0, 365) * DAY;
      const fact: FactModel = { factId: `f${++n}`, src, rel, dst, validFrom, validTo: null, confidence: confidence(), many: false, openAt: -1 };
      if (slot && slot.openAt >= 0) sample.versions += 1; // the superseded fact's corrected version
      // A superseded fact stays open in record time (only its validity ends), so it stays archivable.
      slots.set(`${src}|${rel}`, fact);
      openAdd(fact);
      noteValid(validFrom);
      remember(fact.factId);
      command = {
        op: 'UPSERT_EDGE',
        factId: fact.factId,
        src,
        rel,
        dst,
        validFrom: iso(validFrom),
        confidence: fact.confidence,
        source: 'scale-bench',
      };
      sample.versions += 1;
    } else {
      // A `many` relation fact, often back-dated, sometimes with an end.
      const src = rng.pick(entities);
      const validFrom = clock - rng.between(0, 90) * DAY;
      const validTo = rng.next() < 0.2 ? validFrom + rng.between(1, 365) * DAY : null;
      const fact: FactModel = {
        factId: `f${++n}`,
        src,
        rel: rng.pick(MANY_RELS),
        dst: rng.pick(entities),
        validFrom,
        validTo,
        confidence: confidence(),
        many: true,
        openAt: -1,
      };
      openAdd(fact);
      openMany.push(fact);
      noteValid(validFrom);
      remember(fact.factId);
      command = {
        op: 'UPSERT_EDGE',
        factId: fact.factId,
        src,
        rel: fact.rel,
        dst: fact.dst,
        validFrom: iso(validFrom),
        ...(validTo === null ? {} : { validTo: iso(validTo) }),
        confidence: fact.confidence,
      };
      sample.versions += 1;
    }
    if (openMany.length > 4 * target) pruneClosed(openMany);
    const full = emit(command);
    if (full) yield full;
  }
  if (batch.length > 0) yield batch;
  sample.lastRecordedMs = clock;
}

function pruneClosed(facts: FactModel[]): void {
  let kept = 0;
  for (const fact of facts) if (fact.openAt >= 0) facts[kept++] = fact;
  facts.length = kept;
}

export function emptySample(memoryId: string): MemorySample {
  return {
    memoryId,
    entities: [],
    factIds: [],
    firstRecordedMs: 0,
    lastRecordedMs: 0,
    minValidMs: Number.POSITIVE_INFINITY,
    maxValidMs: Number.NEGATIVE_INFINITY,
    versions: 0,
    commands: 0,
  };
}
