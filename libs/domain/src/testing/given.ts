/**
 * Test helpers (not part of the domain's public surface): an in-memory "memory"
 * that decides batches like the command service does (atomic: a rejected batch
 * leaves the log untouched and the state is rebuilt from the log), plus time and
 * command builders for given/when/then specs.
 */
import type { Command } from '../commands';
import { type CommandResult, decideBatch } from '../decide-batch';
import { DomainError } from '../errors';
import type { LogRecord, MemoryRecord } from '../records';
import { fold } from '../evolve';
import type { MemoryState } from '../state';
import type { Instant } from '../time';

export const MEMORY = 'mem-test';

type DistributiveOmit<T, K extends PropertyKey> = T extends unknown ? Omit<T, K> : never;

/** A command whose `commandId` the scenario assigns when absent. */
export type CommandInput = DistributiveOmit<Command, 'commandId'> & { commandId?: string };

// --- time ---------------------------------------------------------------------

/** Monday 2024-05-06 … Sunday 2024-05-12. */
export const DAYS = {
  MON: '2024-05-06',
  TUE: '2024-05-07',
  WED: '2024-05-08',
  THU: '2024-05-09',
  FRI: '2024-05-10',
  SAT: '2024-05-11',
  SUN: '2024-05-12',
} as const;
export type Day = keyof typeof DAYS;

/** `at('WED', '12:00')` → `2024-05-08T12:00:00.000Z`. */
export function at(day: Day, hhmm = '00:00'): Instant {
  return `${DAYS[day]}T${hhmm}:00.000Z`;
}

/** The instant `ms` milliseconds after (or before, when negative) `instant`. */
export function plusMs(instant: Instant, ms: number): Instant {
  return new Date(Date.parse(instant) + ms).toISOString();
}

export const before = (instant: Instant): Instant => plusMs(instant, -1);
export const after = (instant: Instant): Instant => plusMs(instant, 1);

/** A fixed server clock far after every scenario instant: "now" of As-World cuts. */
export const LATER = '2024-06-01T00:00:00.000Z';

// --- scenario -----------------------------------------------------------------

export type Attempt = { ok: true; records: MemoryRecord[]; results: CommandResult[] } | { ok: false; error: DomainError };

/** Strips `meta`: the log records of a decision, for `then` assertions. */
export function bare(events: readonly MemoryRecord[]): LogRecord[] {
  return events.map(({ type, data }) => ({ type, data }) as LogRecord);
}

export class Scenario {
  /** The accepted log, in order. */
  readonly log: MemoryRecord[] = [];
  private live: MemoryState = fold([]);
  private counter = 0;

  constructor(
    readonly memoryId: string = MEMORY,
    /** The server clock used when a batch gives none. */
    public clock: Instant = LATER,
  ) {}

  /** The live state (decided incrementally). */
  get state(): MemoryState {
    return this.live;
  }

  private withIds(commands: readonly CommandInput[]): Command[] {
    return commands.map((c) => ({ ...c, commandId: c.commandId ?? `cmd-${++this.counter}` }) as Command);
  }

  /** Decides a batch atomically: on DomainError nothing is appended and the state is rebuilt from the log. */
  attempt(commands: CommandInput | readonly CommandInput[], now: Instant = this.clock): Attempt {
    const batch = this.withIds(Array.isArray(commands) ? commands : [commands as CommandInput]);
    try {
      const { records, results } = decideBatch(this.memoryId, this.live, batch, now);
      this.log.push(...records);
      return { ok: true, records, results };
    } catch (error) {
      if (!(error instanceof DomainError)) throw error;
      this.live = fold(this.log);
      return { ok: false, error };
    }
  }

  /** `when`: the batch must be accepted. */
  when(commands: CommandInput | readonly CommandInput[], now?: Instant): { records: MemoryRecord[]; results: CommandResult[] } {
    const outcome = this.attempt(commands, now);
    if (!outcome.ok) throw new Error(`expected the batch to be accepted, got ${outcome.error.code}: ${outcome.error.message}`);
    return outcome;
  }

  /** `when … then error`: the batch must be rejected and leave the log untouched. */
  rejects(commands: CommandInput | readonly CommandInput[], now?: Instant): DomainError {
    const length = this.log.length;
    const outcome = this.attempt(commands, now);
    if (outcome.ok) throw new Error(`expected the batch to be rejected, got records ${JSON.stringify(bare(outcome.records))}`);
    if (this.log.length !== length) throw new Error('a rejected batch appended records');
    return outcome.error;
  }

  /** The state folded up to record time `r` (what cut functions expect); the whole log when omitted. */
  at(r?: Instant): MemoryState {
    return fold(this.log, r);
  }
}

/** `given(commands)`: a scenario with the commands accepted, one batch each. */
export function given(commands: readonly CommandInput[] = [], options: { memoryId?: string; now?: Instant } = {}): Scenario {
  const scenario = new Scenario(options.memoryId, options.now);
  for (const command of commands) scenario.when(command);
  return scenario;
}

// --- command builders -----------------------------------------------------------

type Extra<T extends Command> = Partial<Omit<T, 'op'>>;

export function entity(entityId: string, name: string = entityId, extra: Extra<Extract<Command, { op: 'UPSERT_ENTITY' }>> = {}): CommandInput {
  return { op: 'UPSERT_ENTITY', entityId, name, ...extra };
}

export function relation(rel: string, cardinality: 'one' | 'many', recordedAt?: Instant): CommandInput {
  return { op: 'DEFINE_RELATION', rel, cardinality, ...(recordedAt !== undefined ? { recordedAt } : {}) };
}

export function merge(srcId: string, dstId: string, recordedAt?: Instant): CommandInput {
  return { op: 'MERGE_ENTITY', srcId, dstId, ...(recordedAt !== undefined ? { recordedAt } : {}) };
}

export function edge(
  src: string,
  rel: string,
  dst: Extract<Command, { op: 'UPSERT_EDGE' }>['dst'],
  extra: Extra<Extract<Command, { op: 'UPSERT_EDGE' }>> = {},
): CommandInput {
  return { op: 'UPSERT_EDGE', src, rel, dst, ...extra };
}

export function archive(factId: string, recordedAt?: Instant): CommandInput {
  return { op: 'ARCHIVE_EDGE', factId, ...(recordedAt !== undefined ? { recordedAt } : {}) };
}

export function retro(factId: string, extra: Extra<Extract<Command, { op: 'RETRO_CORRECT' }>>): CommandInput {
  return { op: 'RETRO_CORRECT', factId, ...extra };
}

export function mention(docId: string, text: string, extra: Extra<Extract<Command, { op: 'RECORD_MENTION' }>> = {}): CommandInput {
  return { op: 'RECORD_MENTION', docId, text, ...extra };
}
