import type { MemoryState } from '@memotrace/domain';
import { type Extractor, type Turn, failureSummary } from '@memotrace/extraction';
import type { ServiceMetrics } from '@memotrace/http-kit';
import { type ExtractionJob, ExtractionJobs, backgroundErrors } from '@memotrace/runtime';
import type { Pool } from 'pg';
import type { Logger } from 'pino';
import { type CommandHandler, PreconditionFailedError } from './command-handler';
import type { AsyncExtractionQueue } from './turn-intake';
import { type ExtractionContext, type TurnExtraction, turnExtraction } from './turn-extraction';

export interface ExtractionProcessorOptions {
  jobs: ExtractionJobs;
  handler: Pick<CommandHandler, 'handle' | 'readState'>;
  extraction: TurnExtraction;
  /** Between the end of a run and the next poll; 0: runs only when woken or asked (`runDue`). */
  pollMs: number;
  /** The first retry of a failed job comes after this long, each next one after twice as long as the last, up to `maxRetryMs`. */
  retryMs: number;
  maxRetryMs?: number;
  /** A job whose turns are not in the memory this long after it was recorded never will be (their append failed): it is dropped. */
  graceMs?: number;
  /** Jobs taken at once. */
  batchSize?: number;
  /**
   * How long a taken job stays out of other processors' reach. The processor renews the leases of the
   * jobs it holds every third of it, so a job is held as long as its extraction takes, and the jobs of
   * a processor that died come back this long after its last renewal.
   */
  leaseMs: number;
  logger: Pick<Logger, 'warn'>;
  metrics?: Pick<ServiceMetrics, 'extractionJobs'> | undefined;
}

/** Ten minutes: an extractor down for hours is asked six times an hour. */
const MAX_RETRY_MS = 600_000;
/** A minute: far longer than an append takes. */
const GRACE_MS = 60_000;
const BATCH_SIZE = 8;
/** Renewed every ten seconds while held: a processor that dies hands its jobs on within half a minute. */
const LEASE_MS = 30_000;
/** A job whose turns are not (yet) in the memory is looked at again this soon. */
const RECHECK_MS = 1_000;

export type JobOutcome = 'done' | 'failed' | 'dropped' | 'waiting';

/**
 * Derives from `async` turns (SPEC §5.1): takes the jobs due from the job table (any writing process
 * may, `FOR UPDATE SKIP LOCKED` gives each job to one), reads the memory's state through the command
 * handler, runs the extractor and appends what it derived through the handler: each derived command
 * recorded when it is derived, with the command id sync mode would give it. A job runs again after a
 * crash between its append and its `done`: its commands are then duplicates, nothing is doubled.
 * A failed extraction leaves the turns as they are and is retried with a growing delay.
 */
export class ExtractionProcessor implements AsyncExtractionQueue {
  private readonly options: Required<Omit<ExtractionProcessorOptions, 'metrics'>> & Pick<ExtractionProcessorOptions, 'metrics'>;
  private tail: Promise<unknown> = Promise.resolve();
  /** A run is queued and has not started: a wake joins it. */
  private queued = false;
  private stopped = false;
  private timer: NodeJS.Timeout | undefined;

  /** Failures of the loop itself, a database outage said once. */
  private readonly reportError: (error: Error) => void;

  constructor(options: ExtractionProcessorOptions) {
    this.options = { maxRetryMs: MAX_RETRY_MS, graceMs: GRACE_MS, batchSize: BATCH_SIZE, ...options };
    this.reportError = backgroundErrors(this.options.logger, 'async extraction');
  }

  get extractor(): string {
    return this.options.extraction.label;
  }

  start(): this {
    this.schedule();
    return this;
  }

  enqueue(job: { memoryId: string; sessionId: string; mentionIds: string[]; turnCommandIds: string[] }): Promise<number> {
    return this.options.jobs.enqueue({ ...job, extractor: this.extractor });
  }

  async cancel(jobId: number): Promise<void> {
    await this.options.jobs.drop(jobId);
  }

  wake(): void {
    if (this.stopped || this.queued) return;
    this.runDue().catch((error: unknown) => this.reportError(error as Error));
  }

  /** Runs every job due now (runs never overlap: a call during one runs after it); how many it ran to an outcome. */
  runDue(): Promise<number> {
    this.queued = true;
    const next = this.tail.then(() => {
      this.queued = false;
      return this.drain();
    });
    this.tail = next.catch(() => undefined);
    return next;
  }

  /** Jobs not done, by status (the `memotrace_extraction_jobs` gauge). */
  backlog(): Promise<{ pending: number; failed: number }> {
    return this.options.jobs.backlog();
  }

  /** No run starts after this; resolves once the job under way (if any) is done, the others of its batch handed back. */
  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    await this.tail;
  }

  /** One job, start to outcome (a processor's step; `runDue` takes the jobs due and runs each). */
  async run(job: ExtractionJob): Promise<JobOutcome> {
    const { jobs, handler, extraction, metrics, logger } = this.options;
    const memoryId = job.memoryId;
    const context = await handler.readState(memoryId, (state): ExtractionContext | null => {
      if (!recorded(job, state)) return null;
      // A turn erased since it was recorded is not derived from.
      const turns = job.mentionIds.flatMap((mentionId): Turn[] => {
        const mention = state.mentions.get(mentionId);
        if (mention === undefined || mention.text === null || mention.occurredAt === null) return [];
        return [{ mentionId, sessionId: job.sessionId, speaker: mention.speaker ?? '', text: mention.text, at: mention.occurredAt }];
      });
      return extraction.context(state, turns, job.sessionId);
    });
    if (context === null) return this.notRecorded(job);
    try {
      // No recordedAt: each derived command is recorded when it is derived.
      const planned = await extraction.derive(memoryId, context, {});
      // The turns must still be in the memory when the batch is decided (by any process, on every retry): a memory
      // deleted meanwhile does not come back with what was derived from it.
      if (planned.length > 0) await extraction.append(handler, memoryId, [], planned, (state) => recorded(job, state));
    } catch (error) {
      if (error instanceof PreconditionFailedError) return this.notRecorded(job);
      const retryInMs = Math.min(this.options.maxRetryMs, this.options.retryMs * 2 ** Math.min(job.attempts, 30));
      // The job's error is kept outside the sealed log, where no erasure reaches: what failed, quoting nothing.
      await jobs.fail(job.id, this.extractor, failureSummary(error), retryInMs);
      metrics?.extractionJobs.inc({ outcome: 'failed' });
      logger.warn({ err: error, memoryId, jobId: job.id, attempts: job.attempts + 1, retryInMs }, 'async extraction failed; retried later');
      return 'failed';
    }
    await jobs.complete(job.id, this.extractor);
    metrics?.extractionJobs.inc({ outcome: 'done' });
    return 'done';
  }

  /** Its turns are not in the memory: their append is in flight (wait) or failed, or the memory was deleted since (drop). */
  private async notRecorded(job: ExtractionJob): Promise<JobOutcome> {
    if (await this.options.jobs.drop(job.id, this.options.graceMs)) {
      this.options.metrics?.extractionJobs.inc({ outcome: 'dropped' });
      return 'dropped';
    }
    await this.options.jobs.release(job.id, Math.min(RECHECK_MS, this.options.graceMs));
    return 'waiting';
  }

  private async drain(): Promise<number> {
    const { jobs, batchSize, leaseMs, logger } = this.options;
    let ran = 0;
    while (!this.stopped) {
      const batch = await jobs.claim(batchSize, leaseMs);
      if (batch.length === 0) break;
      const held = new Map(batch.map((job) => [job.id, job.leaseUntil] as const));
      const renewals = this.renewing(held);
      try {
        for (const [i, job] of batch.entries()) {
          if (this.stopped) {
            // Handed back: another processor (or this one, restarted) takes them now, not at the lease's end.
            await Promise.all(batch.slice(i).map((j) => jobs.release(j.id, 0)));
            break;
          }
          try {
            if ((await this.run(job)) !== 'waiting') ran++;
          } catch (error) {
            // The job table or the log unreachable: the job comes back when its lease ends.
            logger.warn({ err: error, jobId: job.id }, 'async extraction');
          }
          held.delete(job.id);
        }
      } finally {
        await renewals.stop();
      }
    }
    return ran;
  }

  /**
   * Renews the leases in `held` every third of the lease until stopped. A renewal names the lease's end
   * it last saw, so a job whose outcome is written meanwhile keeps its outcome (see ExtractionJobs.renew).
   */
  private renewing(held: Map<number, Date>): { stop(): Promise<void> } {
    const { jobs, leaseMs, logger } = this.options;
    let last: Promise<void> = Promise.resolve();
    const timer = setInterval(() => {
      last = last.then(async () => {
        try {
          const renewed = await jobs.renew(
            [...held].map(([id, leaseUntil]) => ({ id, leaseUntil })),
            leaseMs,
          );
          for (const id of held.keys()) {
            const leaseUntil = renewed.get(id);
            if (leaseUntil === undefined) held.delete(id);
            else held.set(id, leaseUntil);
          }
        } catch (error) {
          // Not renewed: the jobs come back when their leases end, and run again without doubling anything.
          logger.warn({ err: error }, 'async extraction: renewing leases');
        }
      });
    }, leaseMs / 3);
    timer.unref();
    return {
      stop: async () => {
        clearInterval(timer);
        await last;
      },
    };
  }

  private schedule(): void {
    if (this.stopped || this.options.pollMs === 0) return;
    this.timer = setTimeout(() => {
      this.runDue()
        .catch((error: unknown) => this.reportError(error as Error))
        .finally(() => this.schedule());
    }, this.options.pollMs);
    this.timer.unref();
  }
}

/**
 * The job's turns are in the memory: its turn commands accepted (a job of /turns waits for them) and its
 * mentions recorded (a re-extraction job names mentions only, however they were recorded). An erased
 * mention stays recorded, without content; a deleted memory has neither.
 */
function recorded(job: ExtractionJob, state: MemoryState): boolean {
  return job.turnCommandIds.every((id) => state.outcomes.has(id)) && job.mentionIds.every((id) => state.mentions.has(id));
}

export interface ExtractionProcessorWiring {
  pool: Pool;
  handler: Pick<CommandHandler, 'handle' | 'readState'>;
  extractor: Extractor;
  config: { extractionGate: number; extractionTimeoutMs: number; extractionPollMs: number; extractionRetryMs: number };
  logger: Pick<Logger, 'warn'>;
  metrics?: Pick<ServiceMetrics, 'extractionJobs'> | undefined;
}

/** The processor as a writing process runs it: jobs on the log's database, polled every EXTRACTION_POLL_MS. Stop it before the pool ends. */
export function startExtractionProcessor({ pool, handler, extractor, config, logger, metrics }: ExtractionProcessorWiring): ExtractionProcessor {
  return new ExtractionProcessor({
    jobs: new ExtractionJobs(pool),
    handler,
    extraction: turnExtraction(extractor, config),
    pollMs: config.extractionPollMs,
    retryMs: config.extractionRetryMs,
    leaseMs: LEASE_MS,
    logger,
    metrics,
  }).start();
}
