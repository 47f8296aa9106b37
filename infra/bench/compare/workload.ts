import { Rng } from '../scale/rng';
import { NOTE_OBJECTS, NOTE_VERBS, STATUSES, type NamedEntity, namedEntities } from './names';

/**
 * The memory the compare benchmark writes: `entities` named entities, seven relations
 * (three `one`, four `many`), then UPSERT_EDGE commands until the fact versions they
 * create reach `versions` exactly. Deterministic from the seed; the record clock is
 * set by the client (an import's style), so every run writes the same history.
 *
 * Versions per command, as SPEC §3.1 defines them:
 * - a new fact: one version;
 * - a new fact on a `one` relation whose (src, rel) slot holds an open fact valid at
 *   its validFrom: two (the new one, and the superseded one's version with validTo = t);
 * - UPSERT_EDGE on an open `many` fact with another validTo or confidence: one (the open
 *   version closes in record time, the new one opens).
 */
export interface CompareShape {
  memoryId: string;
  versions: number;
  entities: number;
  batchSize: number;
  seed: number;
  /**
   * The share of facts about the first person (0 or absent: every person alike): a memory of one
   * user or one account, where one name is in most facts.
   */
  focus?: number;
}

export type JsonCommand = Record<string, unknown>;

/** What the queries pick from, and what the generator expects the read models to hold. */
export interface WorkloadSample {
  entities: NamedEntity[];
  versions: number;
  facts: number;
  setupCommands: number;
  edgeCommands: number;
  /** `one` facts that superseded an open one (two versions each). */
  supersessions: number;
  minValidMs: number;
  maxValidMs: number;
}

const ONE_ENTITY_RELS = { works_at: 'organisation', lives_in: 'place' } as const;
const MANY_ENTITY_RELS = { knows: 'person', visited: 'place', member_of: 'organisation' } as const;
export const RELATIONS = [...Object.keys(ONE_ENTITY_RELS), 'status', ...Object.keys(MANY_ENTITY_RELS), 'note'];
const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const VALID_START = Date.UTC(2012, 0, 1);
const VALID_SPAN_DAYS = 14 * 365;

interface ManyFact {
  factId: string;
  src: string;
  rel: string;
  dst: unknown;
  validFrom: number;
  validTo: number | null;
  confidence: number;
}

interface Slot {
  dst: string;
  validFrom: number;
}

export function emptyWorkloadSample(): WorkloadSample {
  return {
    entities: [],
    versions: 0,
    facts: 0,
    setupCommands: 0,
    edgeCommands: 0,
    supersessions: 0,
    minValidMs: Number.POSITIVE_INFINITY,
    maxValidMs: Number.NEGATIVE_INFINITY,
  };
}

/**
 * The setup batches (relations, then entities), then the edge batches. `edges` marks
 * where the edges start: the benchmark times those, the setup is written before.
 */
export function* workloadBatches(shape: CompareShape, sample: WorkloadSample): Generator<{ edges: boolean; commands: JsonCommand[] }> {
  const rng = new Rng(shape.seed);
  let clock = Date.UTC(2020, 0, 1);
  let n = 0;
  const stamp = (command: JsonCommand): JsonCommand => ({
    ...command,
    commandId: `${shape.memoryId}-${n++}`,
    recordedAt: new Date((clock += rng.between(1, 4) * 1000)).toISOString(),
  });
  const iso = (ms: number) => new Date(ms).toISOString();
  const noteValid = (ms: number) => {
    sample.minValidMs = Math.min(sample.minValidMs, ms);
    sample.maxValidMs = Math.max(sample.maxValidMs, ms);
  };

  const entities = namedEntities(shape.entities);
  sample.entities = entities;
  const byType = {
    person: entities.filter((e) => e.type === 'person').map((e) => e.id),
    place: entities.filter((e) => e.type === 'place').map((e) => e.id),
    organisation: entities.filter((e) => e.type === 'organisation').map((e) => e.id),
  };
  const setup: JsonCommand[] = [
    ...[...Object.keys(ONE_ENTITY_RELS), 'status'].map((rel) => ({ op: 'DEFINE_RELATION', rel, cardinality: 'one' })),
    ...[...Object.keys(MANY_ENTITY_RELS), 'note'].map((rel) => ({ op: 'DEFINE_RELATION', rel, cardinality: 'many' })),
    ...entities.map((e) => ({ op: 'UPSERT_ENTITY', entityId: e.id, name: e.name, types: [e.type] })),
  ];
  sample.setupCommands = setup.length;
  for (let i = 0; i < setup.length; i += shape.batchSize) yield { edges: false, commands: setup.slice(i, i + shape.batchSize).map(stamp) };

  const slots = new Map<string, Slot>();
  const open: ManyFact[] = [];
  const confidence = () => rng.between(50, 100) / 100;
  let batch: JsonCommand[] = [];
  let facts = 0;
  while (sample.versions < shape.versions) {
    const roll = rng.next();
    let command: JsonCommand;
    const slotRel = roll < 0.35 ? rng.pick([...Object.keys(ONE_ENTITY_RELS), 'status']) : undefined;
    const src = shape.focus && rng.next() < shape.focus ? byType.person[0]! : rng.pick(byType.person);
    const slot = slotRel === undefined ? undefined : slots.get(`${src}|${slotRel}`);
    if (slotRel !== undefined && (slot === undefined || sample.versions + 2 <= shape.versions)) {
      // A `one` fact: it supersedes the slot's current fact from its validFrom on.
      const literal = slotRel === 'status';
      const pickDst = () => (literal ? rng.pick(STATUSES) : rng.pick(byType[ONE_ENTITY_RELS[slotRel as keyof typeof ONE_ENTITY_RELS]]));
      let dst = pickDst();
      while (slot !== undefined && dst === slot.dst) dst = pickDst();
      // The focused person's slots change a hundred thousand times at a million versions: by hours, so valid times stay within year 9999.
      const step = shape.focus && src === byType.person[0] ? HOUR : DAY;
      const validFrom = slot ? slot.validFrom + rng.between(1, 120) * step : VALID_START + rng.between(0, 1500) * DAY;
      slots.set(`${src}|${slotRel}`, { dst, validFrom });
      noteValid(validFrom);
      command = {
        op: 'UPSERT_EDGE',
        factId: `f${++facts}`,
        src,
        rel: slotRel,
        dst: literal ? { literal: dst } : dst,
        validFrom: iso(validFrom),
        confidence: confidence(),
        source: 'compare-bench',
      };
      sample.versions += slot ? 2 : 1;
      if (slot) sample.supersessions += 1;
    } else if (roll < 0.5 && open.length > 0) {
      // A known `many` fact with another end or confidence: a new version of it.
      const fact = rng.pick(open);
      const validTo = fact.validFrom + rng.between(30, 2000) * DAY;
      const next = confidence();
      if (rng.next() < 0.5 && validTo !== fact.validTo) fact.validTo = validTo;
      else if (next !== fact.confidence) fact.confidence = next;
      else continue;
      command = { op: 'UPSERT_EDGE', factId: fact.factId, src: fact.src, rel: fact.rel, dst: fact.dst, confidence: fact.confidence };
      if (fact.validTo !== null) command['validTo'] = iso(fact.validTo);
      sample.versions += 1;
    } else {
      // A new `many` fact, sometimes with an end.
      const rel = rng.pick([...Object.keys(MANY_ENTITY_RELS), 'note']);
      const dst =
        rel === 'note'
          ? { literal: `${rng.pick(NOTE_VERBS)} ${rng.pick(NOTE_OBJECTS)}` }
          : rng.pick(byType[MANY_ENTITY_RELS[rel as keyof typeof MANY_ENTITY_RELS]]);
      const validFrom = VALID_START + rng.between(0, VALID_SPAN_DAYS) * DAY;
      const validTo = rng.next() < 0.3 ? validFrom + rng.between(1, 1500) * DAY : null;
      const fact: ManyFact = { factId: `f${++facts}`, src, rel, dst, validFrom, validTo, confidence: confidence() };
      open.push(fact);
      noteValid(validFrom);
      command = {
        op: 'UPSERT_EDGE',
        factId: fact.factId,
        src,
        rel,
        dst,
        validFrom: iso(validFrom),
        ...(validTo === null ? {} : { validTo: iso(validTo) }),
        confidence: fact.confidence,
      };
      sample.versions += 1;
    }
    sample.edgeCommands += 1;
    batch.push(stamp(command));
    if (batch.length === shape.batchSize) {
      yield { edges: true, commands: batch };
      batch = [];
    }
  }
  if (batch.length > 0) yield { edges: true, commands: batch };
  sample.facts = facts;
}

/** The sustained-rate memory's entities, written before its timed phase. */
export function sustainedSetup(memoryId: string, entities: number, batchSize: number): JsonCommand[][] {
  const commands = namedEntities(entities).map((e, i) => ({
    op: 'UPSERT_ENTITY',
    commandId: `${memoryId}-setup-${i}`,
    entityId: e.id,
    name: e.name,
  }));
  return Array.from({ length: Math.ceil(commands.length / batchSize) }, (_, b) => commands.slice(b * batchSize, (b + 1) * batchSize));
}

/** Endless batches of new `many` facts (one version per command) among the sustained memory's entities. */
export function* sustainedBatches(memoryId: string, entities: number, batchSize: number, seed: number): Generator<JsonCommand[]> {
  const rng = new Rng(seed);
  const ids = namedEntities(entities).map((e) => e.id);
  let n = 0;
  for (;;) {
    yield Array.from({ length: batchSize }, () => {
      n += 1;
      return {
        op: 'UPSERT_EDGE',
        commandId: `${memoryId}-${n}`,
        factId: `s${n}`,
        src: rng.pick(ids),
        rel: 'knows',
        dst: rng.pick(ids),
        validFrom: new Date(VALID_START + rng.between(0, VALID_SPAN_DAYS) * DAY).toISOString(),
      };
    });
  }
}
