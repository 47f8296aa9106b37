/**
 * Random command histories for property tests: fast-check arbitraries of abstract
 * steps, resolved into domain commands against the state when they run (so
 * ARCHIVE/RETRO/UPSERT_EVENT can name facts that exist, or deliberately do not, and
 * LINK/UPSERT_EPISODE events that exist, or do not).
 * Invalid commands are expected: a rejected batch is dropped and the state is
 * rebuilt from the log, as the command service does.
 */
import fc from 'fast-check';
import type { Command, EdgeTarget, LinkKind } from '../commands';
import { type CommandResult, decideBatch } from '../decide-batch';
import { DomainError } from '../errors';
import type { MemoryRecord } from '../records';
import { fold } from '../evolve';
import { type MemoryState, lastOf, openVersion } from '../state';
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
  | { k: 'relation'; rel: number; one: boolean; retention: 'omit' | null | 'P1D' }
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
  | { k: 'retract'; e: number; f: number }
  | { k: 'retro'; f: number; validFrom: number | null; validTo: number | 'open' | 'omit' }
  | { k: 'event'; id: string | null; facts: number[]; from: number; span: number | null }
  | { k: 'link'; kind: LinkKind; from: number; to: number; qualifier: string | null }
  | { k: 'episode'; id: string | null; events: number[]; from: number; span: number | null }
  | { k: 'mention'; doc: string; text: string; id: string | null }
  | { k: 'erase'; subject: 'entity' | 'fact' | 'mention' | 'doc'; ref: number };

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
/** Event references likewise (see eventRef): the largest names an unknown event. */
const EVENT_REF_UNKNOWN = 9;
const eventRefArb = fc.oneof(
  { weight: 12, arbitrary: fc.nat({ max: EVENT_REF_UNKNOWN - 1 }) },
  { weight: 1, arbitrary: fc.constant(EVENT_REF_UNKNOWN) },
);

/** An index into ENTITY_IDS; rarely ENTITY_IDS.length, the never-created ghost. */
const entityRef = fc.oneof(
  { weight: 24, arbitrary: fc.nat({ max: ENTITY_IDS.length - 1 }) },
  { weight: 1, arbitrary: fc.constant(ENTITY_IDS.length) },
);
const validIndex = fc.nat({ max: VALID_TIMES.length - 1 });

/** One arbitrary per kind of step. */
const STEP_ARBS: { [K in Step['k']]: fc.Arbitrary<Extract<Step, { k: K }>> } = {
  entity: fc.record({
    k: fc.constant('entity' as const),
    e: fc.nat({ max: ENTITY_IDS.length - 1 }),
    alias: fc.option(fc.constantFrom('x', 'y')),
    type: fc.option(fc.constantFrom('person', 'org')),
  }),
  entityByName: fc.record({ k: fc.constant('entityByName' as const), name: fc.constantFrom('Alice', ' alice ', 'Bob') }),
  merge: fc.record({ k: fc.constant('merge' as const), a: entityRef, b: entityRef }),
  relation: fc.record({
    k: fc.constant('relation' as const),
    rel: fc.nat({ max: RELATIONS.length - 1 }),
    one: fc.boolean(),
    retention: fc.constantFrom('omit' as const, null, 'P1D' as const),
  }),
  edge: fc.record({
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
    confidence: fc.oneof(
      { weight: 3, arbitrary: fc.constant('omit' as const) },
      { weight: 2, arbitrary: fc.constantFrom(0, 0.5, 1) },
      { weight: 1, arbitrary: fc.constant(null) },
    ),
    evidence: fc.option(fc.constantFrom<string[]>([], ['m1'], ['m1', 'm2']), { freq: 2 }),
    source: fc.oneof(
      { weight: 3, arbitrary: fc.constant('omit' as const) },
      { weight: 1, arbitrary: fc.constantFrom('chat', 'crm') },
      { weight: 1, arbitrary: fc.constant(null) },
    ),
  }),
  // works_at moves: the supersession path (works_at is declared `one` in the seed)
  move: fc.record({ k: fc.constant('move' as const), src: fc.nat({ max: 1 }), dst: fc.nat({ max: ENTITY_IDS.length - 1 }), validFrom: validIndex }),
  archive: fc.record({ k: fc.constant('archive' as const), f: factRefArb }),
  // Archives a fact of an event's evidence: the event leaves the cuts from then on, and its episodes list it no more.
  retract: fc.record({ k: fc.constant('retract' as const), e: fc.nat({ max: EVENT_REF_UNKNOWN - 1 }), f: fc.nat({ max: 3 }) }),
  retro: fc
    .record({
      k: fc.constant('retro' as const),
      f: factRefArb,
      validFrom: fc.option(validIndex),
      validTo: fc.oneof(
        { weight: 2, arbitrary: fc.constant('omit' as const) },
        { weight: 1, arbitrary: fc.constant('open' as const) },
        { weight: 3, arbitrary: validIndex },
      ),
    })
    .filter((r) => r.validFrom !== null || r.validTo !== 'omit'),
  event: fc.record({
    k: fc.constant('event' as const),
    // A known id again opens a new version of the event (other evidence, another span).
    id: fc.option(fc.constantFrom('ev1', 'ev2'), { freq: 2 }),
    facts: fc.oneof(
      { weight: 1, arbitrary: fc.constant<number[]>([]) },
      { weight: 4, arbitrary: fc.array(factRefArb, { minLength: 1, maxLength: 2 }) },
    ),
    from: fc.nat({ max: VALID_TIMES.length - 2 }),
    span: fc.option(fc.integer({ min: 1, max: 3 })),
  }),
  link: fc.record({
    k: fc.constant('link' as const),
    kind: fc.constantFrom<LinkKind>('causal', 'temporal', 'subevent'),
    from: eventRefArb,
    to: eventRefArb,
    qualifier: fc.option(fc.constantFrom('before', 'after')),
  }),
  episode: fc.record({
    k: fc.constant('episode' as const),
    id: fc.option(fc.constantFrom('ep1', 'ep2'), { freq: 2 }),
    events: fc.array(eventRefArb, { minLength: 1, maxLength: 3 }),
    from: fc.nat({ max: VALID_TIMES.length - 2 }),
    span: fc.option(fc.integer({ min: 1, max: 4 })),
  }),
  mention: fc.record({
    k: fc.constant('mention' as const),
    doc: fc.constantFrom('d1', 'd2'),
    text: fc.constantFrom('hi', 'bye'),
    id: fc.option(fc.constantFrom('m1', 'm2'), { freq: 2 }),
  }),
  // Erasure changes the past: every cut, before and after it, loses the subject's content.
  erase: fc.record({
    k: fc.constant('erase' as const),
    subject: fc.constantFrom<('entity' | 'fact' | 'mention' | 'doc')[]>('entity', 'fact', 'fact', 'mention', 'doc'),
    ref: fc.nat({ max: FACT_REF_UNKNOWN }),
  }),
};

/** How often each kind of step comes (0: never). */
export type StepWeights = { [K in Step['k']]: number };

/** The default mix: mostly facts (assertions, moves, archives, corrections), some events, episodes and links. */
export const DEFAULT_STEP_WEIGHTS: StepWeights = {
  entity: 3,
  entityByName: 1,
  merge: 1,
  relation: 1,
  edge: 8,
  move: 3,
  archive: 2,
  retract: 1,
  retro: 2,
  event: 3,
  link: 1,
  episode: 2,
  mention: 2,
  erase: 1,
};

/**
 * A mix for the cut rules of events and episodes (SPEC 3.2): many events, whose evidence
 * later gets archived or retro-corrected, and episodes over them.
 */
export const OCCURRENCE_STEP_WEIGHTS: StepWeights = {
  ...DEFAULT_STEP_WEIGHTS,
  edge: 6,
  move: 2,
  archive: 2,
  retract: 3,
  retro: 3,
  event: 6,
  link: 2,
  episode: 5,
  mention: 2,
  erase: 1,
};

function stepArbOf(weights: StepWeights): fc.Arbitrary<Step> {
  const entries = (Object.keys(STEP_ARBS) as Step['k'][]).filter((k) => weights[k] > 0);
  return fc.oneof(...entries.map((k) => ({ weight: weights[k], arbitrary: STEP_ARBS[k] as fc.Arbitrary<Step> })));
}

const modeArb: fc.Arbitrary<RecordMode> = fc.oneof(
  { weight: 16, arbitrary: fc.constant('explicit' as const) },
  { weight: 3, arbitrary: fc.constant('server' as const) },
  { weight: 1, arbitrary: fc.constant('regress' as const) },
);

/** ~4% of commands resend an earlier commandId. */
const resendArb = fc.nat({ max: 24 }).map((n) => n === 0);

export function batchArbOf(weights: StepWeights = DEFAULT_STEP_WEIGHTS): fc.Arbitrary<Batch> {
  return fc.record({
    advance: fc.oneof({ weight: 3, arbitrary: fc.constant(0) }, { weight: 4, arbitrary: fc.constant(1) }, { weight: 1, arbitrary: fc.constant(2) }),
    lag: fc.oneof({ weight: 4, arbitrary: fc.constant(0) }, { weight: 1, arbitrary: fc.constant(1) }),
    steps: fc.array(fc.record({ step: stepArbOf(weights), mode: modeArb, resend: resendArb }), { minLength: 1, maxLength: 3 }),
  });
}

export const batchArb: fc.Arbitrary<Batch> = batchArbOf();

/** Histories of 1..maxBatches random batches of the given mix, after the seed batch (see SEED). */
export function historyArbOf(options: { weights?: StepWeights; maxBatches?: number } = {}): fc.Arbitrary<Batch[]> {
  return fc.array(options.weights ? batchArbOf(options.weights) : batchArb, { minLength: 1, maxLength: options.maxBatches ?? 12 });
}

/** A history: after a seed batch (e0..e4, works_at declared one, e0 works_at e1), 1..12 random batches. */
export const historyArb: fc.Arbitrary<Batch[]> = historyArbOf();

/**
 * Longer histories with many events, evidence retracted and corrected, episodes and links: for
 * the cut's event and episode rules. They open with a batch of facts and events, so episodes
 * have events to name from the start.
 */
export const occurrenceHistoryArb: fc.Arbitrary<Batch[]> = fc
  .tuple(
    fc.array(fc.oneof(STEP_ARBS.edge, STEP_ARBS.event, STEP_ARBS.event), { minLength: 2, maxLength: 4 }),
    historyArbOf({ weights: OCCURRENCE_STEP_WEIGHTS, maxBatches: 16 }),
  )
  .map(([opening, rest]): Batch[] => [{ advance: 1, lag: 0, steps: opening.map((step) => ({ step, mode: 'explicit', resend: false })) }, ...rest]);

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

/** A known event (by index into the sorted ids, wrapping), or an unknown id for the largest index (or when no event is known). */
function eventRef(state: MemoryState, i: number): string {
  const ids = [...state.events.keys()].sort();
  return i === EVENT_REF_UNKNOWN || ids.length === 0 ? 'no-such-event' : ids[i % ids.length]!;
}

/** An episode's events: while no event is known, none (an episode no cut shows); else as eventRef. */
function episodeEvents(state: MemoryState, refs: readonly number[]): string[] {
  return state.events.size === 0 ? [] : refs.map((e) => eventRef(state, e));
}

/** `[VALID_TIMES[from], VALID_TIMES[from + span])`, open without a span. */
function span(from: number, length: number | null): { from: Instant; to: Instant | null } {
  return { from: VALID_TIMES[from]!, to: length === null ? null : VALID_TIMES[Math.min(from + length, VALID_TIMES.length - 1)]! };
}

type Unstamped = Command extends infer C ? (C extends Command ? Omit<C, 'commandId' | 'recordedAt'> : never) : never;

function resolve(step: Step, state: MemoryState): Unstamped {
  switch (step.k) {
    case 'entity':
      return {
        op: 'UPSERT_ENTITY',
        entityId: entityId(step.e),
        name: `Name ${step.e}`,
        ...(step.alias ? { aliases: [step.alias] } : {}),
        ...(step.type ? { types: [step.type] } : {}),
      };
    case 'entityByName':
      return { op: 'UPSERT_ENTITY', name: step.name };
    case 'merge':
      return { op: 'MERGE_ENTITY', srcId: entityId(step.a), dstId: entityId(step.b) };
    case 'relation':
      return {
        op: 'DEFINE_RELATION',
        rel: RELATIONS[step.rel]!,
        cardinality: step.one ? 'one' : 'many',
        ...(step.retention !== 'omit' ? { retention: step.retention } : {}),
      };
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
    case 'retract': {
      // A fact of the event's evidence that is still believed (from the f-th on), else any fact.
      const evidence = lastOf(state.events.get(eventRef(state, step.e)) ?? [])?.includesFacts ?? [];
      const believed = evidence
        .map((_, i) => evidence[(step.f + i) % evidence.length]!)
        .find((id) => openVersion(state.facts.get(id)?.versions ?? []) !== undefined);
      return { op: 'ARCHIVE_EDGE', factId: believed ?? factRef(state, step.f) };
    }
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
        ...(step.id !== null ? { eventId: step.id } : {}),
        summary: `event ${step.facts.join(',')}`,
        includesFacts: step.facts.map((f) => factRef(state, f)),
        timeSpan: span(step.from, step.span),
      };
    case 'link':
      return {
        op: 'LINK',
        kind: step.kind,
        from: eventRef(state, step.from),
        to: eventRef(state, step.to),
        ...(step.qualifier !== null ? { qualifier: step.qualifier } : {}),
      };
    case 'episode':
      return {
        op: 'UPSERT_EPISODE',
        ...(step.id !== null ? { episodeId: step.id } : {}),
        title: `episode ${step.events.join(',')}`,
        window: span(step.from, step.span),
        events: episodeEvents(state, step.events),
      };
    case 'mention':
      return { op: 'RECORD_MENTION', docId: step.doc, text: step.text, ...(step.id !== null ? { mentionId: step.id } : {}) };
    case 'erase':
      return { op: 'ERASE', subject: erasureSubject(state, step), reason: 'forget' } as unknown as Unstamped;
  }
}

/** A known subject (by index, wrapping), or an unknown one for the largest index. */
function erasureSubject(state: MemoryState, step: Extract<Step, { k: 'erase' }>): Extract<Command, { op: 'ERASE' }>['subject'] {
  switch (step.subject) {
    case 'entity':
      return { entityId: entityId(step.ref % (ENTITY_IDS.length + 1)) };
    case 'fact':
      return { factId: factRef(state, step.ref) };
    case 'mention': {
      const ids = [...state.mentions.keys()].sort();
      return { mentionId: step.ref === FACT_REF_UNKNOWN || ids.length === 0 ? 'no-such-mention' : ids[step.ref % ids.length]! };
    }
    case 'doc':
      return { docId: step.ref === FACT_REF_UNKNOWN ? 'no-such-doc' : ['d1', 'd2'][step.ref % 2]! };
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
  log: MemoryRecord[];
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
export function runHistory(
  batches: readonly Batch[],
  options: { memoryId?: string; afterBatch?: (state: MemoryState, log: readonly MemoryRecord[]) => void } = {},
): HistoryRun {
  const memoryId = options.memoryId ?? 'prop-mem';
  let state = fold([]);
  const log: MemoryRecord[] = [];
  const runs: BatchRun[] = [];
  const commandIds: string[] = [];
  let clock = 0;
  let counter = 0;

  const apply = (commands: Command[], now: Instant): void => {
    try {
      const { records, results } = decideBatch(memoryId, state, commands, now);
      log.push(...records);
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
