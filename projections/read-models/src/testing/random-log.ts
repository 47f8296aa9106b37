import {
  type Command,
  DomainError,
  type EdgeTarget,
  type Instant,
  type MemoryRecord,
  type MemoryState,
  decideBatch,
  fold,
  initialState,
} from '@memotrace/domain';

/**
 * Random but valid memory logs: random commands decided by the domain (rejected
 * batches are dropped, as the command service would), so the read models are
 * tested on exactly the record shapes the deciders produce. Record times advance
 * by 0..2 hours per command, so many commands share a recordedAt.
 */
export function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export const BASE = Date.parse('2024-05-06T00:00:00.000Z');
export const hour = (h: number): Instant => new Date(BASE + h * 3_600_000).toISOString();

const ENTITY_IDS = ['e1', 'e2', 'e3', 'e4', 'e5'];
const NAMES = ['Ada', 'ADA', 'Acme', 'Beta', 'Bob', 'Bobby'];
const RELS = ['works_at', 'knows', 'age'];
const LITERALS: EdgeTarget[] = [
  { literal: 42, datatype: 'number' },
  { literal: 0.1, datatype: 'number' },
  { literal: 1e21, datatype: 'number' },
  { literal: -0.5, datatype: 'number' },
  { literal: true, datatype: 'boolean' },
  { literal: 'x, "y"', datatype: 'string' },
  { literal: '2024-05-07T00:00:00.000Z', datatype: 'instant' },
];

type DistributiveOmit<T, K extends PropertyKey> = T extends unknown ? Omit<T, K> : never;
export type CommandDraft = DistributiveOmit<Command, 'commandId'>;

export interface RandomLog {
  /** Accepted batches, each one append. */
  batches: MemoryRecord[][];
  records: MemoryRecord[];
  /** Every recordedAt of the log. */
  recordedAts: Instant[];
}

/** An ERASE of one subject (its `subject` union does not survive `CommandDraft`'s Omit as a literal type). */
export function eraseCommand(subject: { entityId: string } | { factId: string } | { mentionId: string } | { docId: string }): CommandDraft {
  return { op: 'ERASE', subject, reason: 'asked to forget' } as unknown as CommandDraft;
}

export interface RandomLogOptions {
  /** Also ERASE entities, facts, mentions and documents (SPEC §5.2): later commands name them again. */
  erase?: boolean;
  /** Also UPSERT_TOPIC over mentions, events and facts (SPEC §5.4). */
  topics?: boolean;
}

export function randomLog(memoryId: string, seed: number, commandCount: number, options: RandomLogOptions = {}): RandomLog {
  const random = rng(seed);
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)]!;
  const some = <T>(items: readonly T[], max = 3): T[] => {
    const n = Math.floor(random() * (max + 1));
    return Array.from({ length: n }, () => pick(items));
  };
  const chance = (p: number) => random() < p;
  let clock = 0;
  let counter = 0;
  let state: MemoryState = initialState();
  const records: MemoryRecord[] = [];
  const batches: MemoryRecord[][] = [];

  const validTime = () => hour(Math.floor(random() * 240) - 48);
  const interval = (): { from?: Instant; to?: Instant | null } => {
    const a = validTime();
    const b = validTime();
    if (a === b) return chance(0.5) ? { from: a } : {};
    const [from, to] = a < b ? [a, b] : [b, a];
    return pick([{ from }, { to }, { from, to }, { from, to: null }, {}]);
  };

  const command = (): CommandDraft | null => {
    const facts = [...state.facts.keys()];
    const occurrences = [...state.events.keys()];
    const mentions = [...state.mentions.keys()];
    switch (
      pick([
        'entity',
        'entity',
        'merge',
        'relation',
        'edge',
        'edge',
        'edge',
        'edge',
        'archive',
        'retro',
        'event',
        'event',
        'retract',
        'link',
        'episode',
        'episode',
        'mention',
        // Only when asked: the other logs' seeds keep drawing the commands they always drew.
        ...(options.erase ? ['erase', 'erase', 'mention'] : []),
        ...(options.topics ? ['topic', 'topic'] : []),
      ])
    ) {
      case 'entity':
        return { op: 'UPSERT_ENTITY', entityId: pick(ENTITY_IDS), name: pick(NAMES), aliases: some(NAMES), types: some(['person', 'org', 'place']) };
      case 'merge':
        return { op: 'MERGE_ENTITY', srcId: pick(ENTITY_IDS), dstId: pick(ENTITY_IDS) };
      case 'relation':
        return { op: 'DEFINE_RELATION', rel: pick(RELS), cardinality: pick(['one', 'many'] as const) };
      case 'edge': {
        const { from, to } = interval();
        return {
          op: 'UPSERT_EDGE',
          src: pick(ENTITY_IDS),
          rel: pick(RELS),
          dst: chance(0.6) ? pick(ENTITY_IDS) : pick(LITERALS),
          ...(from !== undefined ? { validFrom: from } : {}),
          ...(to !== undefined ? { validTo: to } : {}),
          ...(chance(0.4) ? { confidence: pick([null, 0, 1, 0.1, 0.30000000000000004, 0.7]) } : {}),
          ...(chance(0.3) ? { evidence: some(mentions.length > 0 ? mentions : ['m-x']) } : {}),
          ...(chance(0.3) ? { source: pick([null, 'chat', 'import']) } : {}),
        };
      }
      case 'archive':
        return facts.length > 0 ? { op: 'ARCHIVE_EDGE', factId: pick(facts) } : null;
      case 'retract': {
        // A believed fact of an event's evidence: the event leaves the cuts, its episodes list it no more.
        const evidence = occurrences
          .flatMap((id) => state.events.get(id)!.at(-1)!.includesFacts)
          .filter((id) => state.facts.get(id)!.versions.at(-1)!.recordedTo === null);
        if (evidence.length === 0) return null;
        return chance(0.7) ? { op: 'ARCHIVE_EDGE', factId: pick(evidence) } : { op: 'RETRO_CORRECT', factId: pick(evidence), validFrom: validTime() };
      }
      case 'retro': {
        if (facts.length === 0) return null;
        const { from, to } = interval();
        if (from === undefined && to === undefined) return null;
        return {
          op: 'RETRO_CORRECT',
          factId: pick(facts),
          ...(from !== undefined ? { validFrom: from } : {}),
          ...(to !== undefined ? { validTo: to } : {}),
        };
      }
      case 'event': {
        const from = validTime();
        return {
          op: 'UPSERT_EVENT',
          eventId: pick(['ev1', 'ev2', 'ev3', 'ev4']),
          summary: pick(['met', 'hired', 'left']),
          participants: some(ENTITY_IDS, 2).map((entityId) => ({ entityId, role: pick(['agent', 'patient']) })),
          includesFacts: some(facts, 2),
          timeSpan: { from, to: chance(0.5) ? null : hour((Date.parse(from) - BASE) / 3_600_000 + 1 + Math.floor(random() * 48)) },
        };
      }
      case 'link':
        return occurrences.length > 0
          ? {
              op: 'LINK',
              kind: pick(['causal', 'temporal'] as const),
              from: pick(occurrences),
              to: pick(occurrences),
              ...(chance(0.5) ? { qualifier: pick(['a', 'b']) } : {}),
            }
          : null;
      case 'episode': {
        const from = validTime();
        return {
          op: 'UPSERT_EPISODE',
          episodeId: pick(['ep1', 'ep2']),
          title: pick(['week', 'trip']),
          window: { from, to: chance(0.5) ? null : hour((Date.parse(from) - BASE) / 3_600_000 + 1 + Math.floor(random() * 96)) },
          // Known events (some may not be visible: their evidence retracted), rarely none, rarely an unknown one (a rejected batch).
          events:
            occurrences.length === 0 || chance(0.1) ? [] : [...some(occurrences, 2), pick(occurrences), ...(chance(0.05) ? ['ev-unknown'] : [])],
        };
      }
      case 'topic': {
        const from = validTime();
        const members = [...some(mentions, 2), ...some(occurrences, 2), ...some(facts, 2)];
        if (members.length === 0) return null;
        return {
          op: 'UPSERT_TOPIC',
          topicId: pick(['tp1', 'tp2']),
          title: pick(['work', 'moves']),
          summary: pick(['what went on', '']),
          window: { from, to: chance(0.5) ? null : hour((Date.parse(from) - BASE) / 3_600_000 + 1 + Math.floor(random() * 96)) },
          members,
        };
      }
      case 'erase': {
        const subjects = [
          ...[...state.entities.keys()].map((entityId) => ({ entityId })),
          ...facts.map((factId) => ({ factId })),
          ...mentions.map((mentionId) => ({ mentionId })),
          ...[...new Set([...state.mentions.values()].map((m) => m.docId))].map((docId) => ({ docId })),
        ];
        return subjects.length > 0 ? eraseCommand(pick(subjects)) : null;
      }
      default:
        return {
          op: 'RECORD_MENTION',
          mentionId: `m${++counter}`,
          docId: pick(['d1', 'd2']),
          text: pick(['hello', 'Ada joined Acme']),
          ...(chance(0.5) ? { speaker: pick(['user', 'agent']) } : {}),
          ...(chance(0.5) ? { occurredAt: validTime() } : {}),
        };
    }
  };

  for (let made = 0; made < commandCount;) {
    const size = 1 + Math.floor(random() * 3);
    const batch: Command[] = [];
    for (let i = 0; i < size; i++) {
      const next = command();
      if (next === null) continue;
      clock += pick([0, 0, 1, 2]);
      batch.push({ ...next, commandId: `c${++counter}`, recordedAt: hour(clock) } as Command);
    }
    made += Math.max(1, batch.length);
    if (batch.length === 0) continue;
    try {
      const decided = decideBatch(memoryId, state, batch, hour(clock)).records;
      if (decided.length === 0) continue;
      records.push(...decided);
      batches.push(decided);
    } catch (error) {
      if (!(error instanceof DomainError)) throw error;
      state = fold(records); // a rejected batch leaves the log untouched
    }
  }
  return { batches, records, recordedAts: [...new Set(records.map((e) => e.meta.recordedAt))] };
}
