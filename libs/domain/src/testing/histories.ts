/**
 * Random command histories for property tests: fast-check arbitraries of abstract
 * steps, resolved into domain commands against the state when they run (so
 * ARCHIVE/RETRO/UPSERT_EVENT can name facts that exist, or deliberately do not).
 * Invalid commands are expected: a rejected batch is dropped and the state is
 * rebuilt from the log, as the command service does.
 */
import fc from 'fast-check';
import type { Command, EdgeTarget } from '../commands';
import { type CommandResult, decideBatch } from '../decide-batch';
import { DomainError } from '../errors';
import type { MemoryEvent } from '../events';
import { fold } from '../evolve';
import type { MemoryState } from '../state';
import type { Instant } from '../time';

const HOUR = 3_600_000;
const instantAt = (base: string, hours: number): Instant => new Date(Date.parse(base) + hours * HOUR).toISOString();

/** Record times: 10 instants, 6 h apart, from Mon 2024-05-06 00:00. */
export const RECORD_TIMES: Instant[] = Array.from({ length: 10 }, (_, i) => instantAt('2024-05-06T00:00:00.000Z', 6 * i));
/** Valid times: 9 instants, 12 h apart, from Sun 2024-05-05 00:00 (several coincide with record times). */
export const VALID_TIMES: Instant[] = Array.from({ length: 9 }, (_, i) => instantAt('2024-05-05T00:00:00.000Z', 12 * i));

export const ENTITY_IDS = ['e0', 'e1', 'e2', 'e3', 'e4'];
/** Index ENTITY_IDS.length names an entity that is never created. */
const GHOST = 'ghost';
export const RELATIONS = ['works_at', 'lives_in', 'knows'];

export type RecordMode = 'explicit' | 'server' | 'regress';

export type Step =
  | { k: 'entity'; e: number; alias: string | null; type: string | null }
  | { k: 'entityByName'; name: string }
  | { k: 'merge'; a: number; b: number }
  | { k: 'relation'; rel: number; one: boolean }
  | {
      k: 'edge';
      factId: string | null;
      src: number;
      rel: number;
      dst: { e: number } | { lit: number };
      validFrom: number | null;
      validTo: number | 'open' | 'omit';
      confidence: number | null | 'omit';
      evidence: string[] | null;
      source: string | null | 'omit';
    }
  | { k: 'move'; src: number; dst: number; validFrom: number }
  | { k: 'archive'; f: number }
  | { k: 'retro'; f: number; validFrom: number | null; validTo: number | 'open' | 'omit' }
  | { k: 'event'; facts: number[]; from: number; span: number | null }
  | { k: 'mention'; doc: string; text: string; id: string | null };

export interface StepEnvelope {
  step: Step;
  mode: RecordMode;
  /** Reuse the commandId of an earlier command (an idempotent resend). */
  resend: boolean;
}

export interface Batch {
  /** How many record-time slots the clock advances before this batch. */
  advance: number;
  /** How many slots the server clock (`now`) lags behind: exercises `max(now, latest)`. */
  lag: number;
  steps: StepEnvelope[];
}

/** Fact references resolve against the state (see factRef); the largest names an unknown fact. */
const FACT_REF_UNKNOWN = 9;
const factRefArb = fc.nat({ max: FACT_REF_UNKNOWN });

/** An index into ENTITY_IDS; rarely ENTITY_IDS.length, the never-created ghost. */
const entityRef = fc.oneof({ weight: 24, arbitrary: fc.nat({ max: ENTITY_IDS.length - 1 }) }, { weight: 1, arbitrary: fc.constant(ENTITY_IDS.length) });
const validIndex = fc.nat({ max: VALID_TIMES.length - 1 });

const stepArb: fc.Arbitrary<Step> = fc.oneof(
  { weight: 3, arbitrary: fc.record({ k: fc.constant('entity' as const), e: fc.nat({ max: ENTITY_IDS.length - 1 }), alias: fc.option(fc.constantFrom('x', 'y')), type: fc.option(fc.constantFrom('person', 'org')) }) },
  { weight: 1, arbitrary: fc.record({ k: fc.constant('entityByName' as const), name: fc.constantFrom('Alice', ' alice ', 'Bob') }) },
  { weight: 1, arbitrary: fc.record({ k: fc.constant('merge' as const), a: entityRef, b: entityRef }) },
  { weight: 1, arbitrary: fc.record({ k: fc.constant('relation' as const), rel: fc.nat({ max: RELATIONS.length - 1 }), one: fc.boolean() }) },
  {
    weight: 8,
    arbitrary: fc.record({
      k: fc.constant('edge' as const),
      factId: fc.oneof({ weight: 5, arbitrary: fc.constant(null) }, { weight: 1, arbitrary: fc.constantFrom('fx', 'fy') }),
      src: entityRef,
      rel: fc.oneof({ weight: 3, arbitrary: fc.constant(0) }, { weight: 2, arbitrary: fc.nat({ max: RELATIONS.length - 1 }) }),
      dst: fc.oneof({ weight: 4, arbitrary: fc.record({ e: entityRef }) }, { weight: 1, arbitrary: fc.record({ lit: fc.nat({ max: 2 }) }) }),
      validFrom: fc.option(validIndex, { freq: 3 }),
      validTo: fc.oneof(
        { weight: 4, arbitrary: fc.constant('omit' as const) },
        { weight: 1, arbitrary: fc.constant('open' as const) },
        { weight: 3, arbitrary: validIndex },
      ),
      confidence: fc.oneof({ weight: 3, arbitrary: fc.constant('omit' as const) }, { weight: 2, arbitrary: fc.constantFrom(0, 0.5, 1) }, { weight: 1, arbitrary: fc.constant(null) }),
      evidence: fc.option(fc.constantFrom<string[]>([], ['m1'], ['m1', 'm2']), { freq: 2 }),
      source: fc.oneof({ weight: 3, arbitrary: fc.constant('omit' as const) }, { weight: 1, arbitrary: fc.constantFrom('chat', 'crm') }, { weight: 1, arbitrary: fc.constant(null) }),
    }),
  },
  // works_at moves: the supersession path (works_at is declared `one` in the seed)
  {
    weight: 3,
    arbitrary: fc.record({ k: fc.constant('move' as const), src: fc.nat({ max: 1 }), dst: fc.nat({ max: ENTITY_IDS.length - 1 }), validFrom: validIndex }),
  },
  { weight: 2, arbitrary: fc.record({ k: fc.constant('archive' as const), f: factRefArb }) },
  {
    weight: 2,
    arbitrary: fc
      .record({
        k: fc.constant('retro' as const),
        f: factRefArb,
        validFrom: fc.option(validIndex),
        validTo: fc.oneof({ weight: 2, arbitrary: fc.constant('omit' as const) }, { weight: 1, arbitrary: fc.constant('open' as const) }, { weight: 3, arbitrary: validIndex }),
      })
      .filter((r) => r.validFrom !== null || r.validTo !== 'omit'),
  },
  {
    weight: 2,
    arbitrary: fc.record({
      k: fc.constant('event' as const),
      facts: fc.array(factRefArb, { maxLength: 2 }),
      from: fc.nat({ max: VALID_TIMES.length - 2 }),
      span: fc.option(fc.integer({ min: 1, max: 3 })),
    }),
  },
  { weight: 2, arbitrary: fc.record({ k: fc.constant('mention' as const), doc: fc.constantFrom('d1', 'd2'), text: fc.constantFrom('hi', 'bye'), id: fc.option(fc.constantFrom('m1', 'm2'), { freq: 2 }) }) },
);

const modeArb: fc.Arbitrary<RecordMode> = fc.oneof(
  { weight: 16, arbitrary: fc.constant('explicit' as const) },
  { weight: 3, arbitrary: fc.constant('server' as const) },
  { weight: 1, arbitrary: fc.constant('regress' as const) },
);

/** ~4% of commands resend an earlier commandId. */
const resendArb = fc.nat({ max: 24 }).map((n) => n === 0);

export const batchArb: fc.Arbitrary<Batch> = fc.record({
  advance: fc.oneof({ weight: 3, arbitrary: fc.constant(0) }, { weight: 4, arbitrary: fc.constant(1) }, { weight: 1, arbitrary: fc.constant(2) }),
  lag: fc.oneof({ weight: 4, arbitrary: fc.constant(0) }, { weight: 1, arbitrary: fc.constant(1) }),
  steps: fc.array(fc.record({ step: stepArb, mode: modeArb, resend: resendArb }), { minLength: 1, maxLength: 3 }),
});

/** A history: after a seed batch (e0..e4, works_at declared one, e0 works_at e1), 1..12 random batches. */
export const historyArb: fc.Arbitrary<Batch[]> = fc.array(batchArb, { minLength: 1, maxLength: 12 });

// --- running a history -------------------------------------------------------------

const LITERALS: EdgeTarget[] = [
  { literal: 1, datatype: 'number' },
  { literal: 'one', datatype: 'string' },
  { literal: true, datatype: 'boolean' },
];

const entityId = (i: number): string => ENTITY_IDS[i] ?? GHOST;

/** A known fact (by index into the sorted ids, wrapping), or an unknown id for the largest index. */
function factRef(state: MemoryState, i: number): string {
  const ids = [...state.facts.keys()].sort();
  return i === FACT_REF_UNKNOWN || ids.length === 0 ? 'no-such-fact' : ids[i % ids.length]!;
}

type Unstamped = Command extends infer C ? (C extends Command ? Omit<C, 'commandId' | 'recordedAt'> : never) : never;

function resolve(step: Step, state: MemoryState): Unstamped {
  switch (step.k) {
    case 'entity':
      return { op: 'UPSERT_ENTITY', entityId: entityId(step.e), name: `Name ${step.e}`, ...(step.alias ? { aliases: [step.alias] } : {}), ...(step.type ? { types: [step.type] } : {}) };
    case 'entityByName':
      return { op: 'UPSERT_ENTITY', name: step.name };
    case 'merge':
      return { op: 'MERGE_ENTITY', srcId: entityId(step.a), dstId: entityId(step.b) };
    case 'relation':
      return { op: 'DEFINE_RELATION', rel: RELATIONS[step.rel]!, cardinality: step.one ? 'one' : 'many' };
    case 'edge':
      return {
        op: 'UPSERT_EDGE',
        ...(step.factId !== null ? { factId: step.factId } : {}),
        src: entityId(step.src),
        rel: RELATIONS[step.rel]!,
        dst: 'e' in step.dst ? entityId(step.dst.e) : LITERALS[step.dst.lit]!,
        ...(step.validFrom !== null ? { validFrom: VALID_TIMES[step.validFrom]! } : {}),
        ...(step.validTo === 'omit' ? {} : { validTo: step.validTo === 'open' ? null : VALID_TIMES[step.validTo]! }),
        ...(step.confidence === 'omit' ? {} : { confidence: step.confidence }),
        ...(step.evidence !== null ? { evidence: [...step.evidence] } : {}),
        ...(step.source === 'omit' ? {} : { source: step.source }),
      };
    case 'move':
      return { op: 'UPSERT_EDGE', src: entityId(step.src), rel: 'works_at', dst: entityId(step.dst), validFrom: VALID_TIMES[step.validFrom]! };
    case 'archive':
      return { op: 'ARCHIVE_EDGE', factId: factRef(state, step.f) };
    case 'retro':
      return {
        op: 'RETRO_CORRECT',
        factId: factRef(state, step.f),
        ...(step.validFrom !== null ? { validFrom: VALID_TIMES[step.validFrom]! } : {}),
        ...(step.validTo === 'omit' ? {} : { validTo: step.validTo === 'open' ? null : VALID_TIMES[step.validTo]! }),
      };
    case 'event':
      return {
        op: 'UPSERT_EVENT',
        summary: `event ${step.facts.join(',')}`,
        includesFacts: step.facts.map((f) => factRef(state, f)),
        timeSpan: { from: VALID_TIMES[step.from]!, to: step.span === null ? null : VALID_TIMES[Math.min(step.from + step.span, VALID_TIMES.length - 1)]! },
      };
    case 'mention':
      return { op: 'RECORD_MENTION', docId: step.doc, text: step.text, ...(step.id !== null ? { mentionId: step.id } : {}) };
  }
}

export interface BatchRun {
  commands: Command[];
  /** Null when the batch was rejected. */
  results: CommandResult[] | null;
  error: DomainError | null;
  /** The log length after the batch. */
  logLength: number;
  /** The server clock of the batch. */
  clock: Instant;
}

export interface HistoryRun {
  memoryId: string;
  log: MemoryEvent[];
  /** The live state, decided batch by batch (rebuilt from the log only after a rejected batch). */
  state: MemoryState;
  batches: BatchRun[];
}

const SEED: Command[] = [
  { op: 'UPSERT_ENTITY', entityId: 'e0', name: 'Name 0', commandId: 'seed-0', recordedAt: RECORD_TIMES[0]! },
  { op: 'UPSERT_ENTITY', entityId: 'e1', name: 'Name 1', commandId: 'seed-1', recordedAt: RECORD_TIMES[0]! },
  { op: 'UPSERT_ENTITY', entityId: 'e2', name: 'Name 2', commandId: 'seed-2', recordedAt: RECORD_TIMES[0]! },
  { op: 'UPSERT_ENTITY', entityId: 'e3', name: 'Name 3', commandId: 'seed-3', recordedAt: RECORD_TIMES[0]! },
  { op: 'UPSERT_ENTITY', entityId: 'e4', name: 'Name 4', commandId: 'seed-4', recordedAt: RECORD_TIMES[0]! },
  { op: 'DEFINE_RELATION', rel: 'works_at', cardinality: 'one', commandId: 'seed-5', recordedAt: RECORD_TIMES[0]! },
  { op: 'UPSERT_EDGE', src: 'e0', rel: 'works_at', dst: 'e1', validFrom: VALID_TIMES[2]!, commandId: 'seed-6', recordedAt: RECORD_TIMES[0]! },
];

/**
 * Runs a history. `afterBatch` sees the live state after every accepted batch
 * (before the next one is decided).
 */
export function runHistory(batches: readonly Batch[], options: { memoryId?: string; afterBatch?: (state: MemoryState, log: readonly MemoryEvent[]) => void } = {}): HistoryRun {
  const memoryId = options.memoryId ?? 'prop-mem';
  let state = fold([]);
  const log: MemoryEvent[] = [];
  const runs: BatchRun[] = [];
  const commandIds: string[] = [];
  let clock = 0;
  let counter = 0;

  const apply = (commands: Command[], now: Instant): void => {
    try {
      const { events, results } = decideBatch(memoryId, state, commands, now);
      log.push(...events);
      runs.push({ commands, results, error: null, logLength: log.length, clock: now });
      options.afterBatch?.(state, log);
    } catch (error) {
      if (!(error instanceof DomainError)) throw error;
      state = fold(log); // a failed batch leaves nothing: discard the partly evolved state
      runs.push({ commands, results: null, error, logLength: log.length, clock: now });
    }
  };

  apply(SEED, RECORD_TIMES[0]!);
  for (const batch of batches) {
    clock = Math.min(clock + batch.advance, RECORD_TIMES.length - 1);
    const current = RECORD_TIMES[clock]!;
    const now = RECORD_TIMES[Math.max(clock - batch.lag, 0)]!;
    const commands = batch.steps.map(({ step, mode, resend }): Command => {
      const commandId = resend && commandIds.length > 0 ? commandIds[counter % commandIds.length]! : `c${++counter}`;
      commandIds.push(commandId);
      const recordedAt = mode === 'explicit' ? current : mode === 'regress' ? RECORD_TIMES[Math.max(clock - 1, 0)]! : undefined;
      return { ...resolve(step, state), commandId, ...(recordedAt !== undefined ? { recordedAt } : {}) } as Command;
    });
    apply(commands, now);
  }
  return { memoryId, log, state, batches: runs };
}
