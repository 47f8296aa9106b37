import type pg from 'pg';
import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The async extraction jobs (SPEC §5.1, `"extraction": "async"`): one row per request whose turns
 * were not recorded before, written before its turns are appended. A job is `pending` until an
 * extraction processor has appended what it derived (`done`); an extraction that throws or times out
 * leaves it `failed`, retried when `next_attempt_at` comes. A claimed job stays `pending` with
 * `next_attempt_at` moved past the claim's lease, so a processor that dies mid-job hands it on.
 */
export class ExtractionJobsSchema1796500000000 implements MigrationInterface {
  readonly name = 'ExtractionJobsSchema1796500000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE mt_extraction_jobs (
        id bigserial PRIMARY KEY,
        memory_id text NOT NULL,
        session_id text NOT NULL,
        mention_ids text[] NOT NULL,
        turn_command_ids text[] NOT NULL,
        extractor text NOT NULL,
        status text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'done', 'failed')),
        attempts integer NOT NULL DEFAULT 0,
        last_error text NULL,
        next_attempt_at timestamptz NOT NULL DEFAULT now(),
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now()
      )`);
    // The poll reads the jobs due; done jobs (most of the table) are not in this index.
    await queryRunner.query(`CREATE INDEX mt_extraction_jobs_due ON mt_extraction_jobs (next_attempt_at) WHERE status <> 'done'`);
    await queryRunner.query('CREATE INDEX mt_extraction_jobs_memory ON mt_extraction_jobs (memory_id)');
    // `/derived` asks for the latest job naming a mention.
    await queryRunner.query('CREATE INDEX mt_extraction_jobs_mentions ON mt_extraction_jobs USING gin (mention_ids)');
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('DROP TABLE mt_extraction_jobs');
  }
}

export const extractionJobMigrations: MigrationInterface[] = [new ExtractionJobsSchema1796500000000()];

export type ExtractionJobStatus = 'pending' | 'done' | 'failed';

export interface ExtractionJob {
  id: number;
  memoryId: string;
  sessionId: string;
  mentionIds: string[];
  /**
   * The command ids of the turns' RECORD_MENTIONs: the job derives only once they are in the memory.
   * Empty for a re-extraction, whose turns are recorded already (the processor checks their mentions are).
   */
  turnCommandIds: string[];
  /** `name@version` of the extractor asked for, then of the one that last ran it. */
  extractor: string;
  attempts: number;
  createdAt: Date;
}

/** A job a processor holds: until `leaseUntil` (the database's clock), unless it renews the lease. */
export interface ClaimedJob extends ExtractionJob {
  leaseUntil: Date;
}

/** What `/derived` says of a mention's extraction: its latest job, or `none` (sync or off turns). */
export type MentionExtraction = { status: 'none' } | { status: ExtractionJobStatus; attempts: number; extractor: string; error?: string };

/** Longest stored error: what an operator needs to see, never a copy of a long model answer. */
const MAX_ERROR_LENGTH = 1000;

type JobRow = {
  id: number;
  memory_id: string;
  session_id: string;
  mention_ids: string[];
  turn_command_ids: string[];
  extractor: string;
  attempts: number;
  created_at: Date;
};

const JOB_COLUMNS = 'id, memory_id, session_id, mention_ids, turn_command_ids, extractor, attempts, created_at';

/** A lease's end, the milliseconds in query parameter `param` from now, in whole milliseconds (a JavaScript Date holds it exactly). */
const leaseEnd = (param: string) => `date_trunc('milliseconds', now() + make_interval(secs => ${param} / 1000.0))`;

function jobOf(row: JobRow): ExtractionJob {
  return {
    id: Number(row.id),
    memoryId: row.memory_id,
    sessionId: row.session_id,
    mentionIds: row.mention_ids,
    turnCommandIds: row.turn_command_ids,
    extractor: row.extractor,
    attempts: row.attempts,
    createdAt: row.created_at,
  };
}

/** The job table, on the log's database (writes) or a replica of it (`statusOf`). */
export class ExtractionJobs {
  constructor(private readonly pool: Pick<pg.Pool, 'query'>) {}

  async enqueue(job: { memoryId: string; sessionId: string; mentionIds: string[]; turnCommandIds: string[]; extractor: string }): Promise<number> {
    const { rows } = await this.pool.query<{ id: number }>(
      `INSERT INTO mt_extraction_jobs (memory_id, session_id, mention_ids, turn_command_ids, extractor) VALUES ($1, $2, $3, $4, $5) RETURNING id`,
      [job.memoryId, job.sessionId, job.mentionIds, job.turnCommandIds, job.extractor],
    );
    return Number(rows[0]!.id);
  }

  /**
   * Takes up to `limit` due jobs, oldest first, for `leaseMs`: until then no other processor takes
   * them (they stay `pending`/`failed`); a processor that stops holding them (it crashed, or stopped
   * renewing) hands them on at its end. The lease's end is whole milliseconds, so `renew` can name it.
   */
  async claim(limit: number, leaseMs: number): Promise<ClaimedJob[]> {
    const { rows } = await this.pool.query<JobRow & { lease_until: Date }>(
      `UPDATE mt_extraction_jobs SET next_attempt_at = ${leaseEnd('$2')}
        WHERE id IN (
          SELECT id FROM mt_extraction_jobs WHERE status <> 'done' AND next_attempt_at <= now()
           ORDER BY next_attempt_at, id LIMIT $1 FOR UPDATE SKIP LOCKED)
        RETURNING ${JOB_COLUMNS}, next_attempt_at AS lease_until`,
      [limit, leaseMs],
    );
    return rows.map((row) => ({ ...jobOf(row), leaseUntil: row.lease_until })).sort((a, b) => a.id - b.id);
  }

  /**
   * Extends by `leaseMs` from now the leases still as `claim` (or the last renewal) left them: a job
   * whose outcome is written (done, failed and due for its retry, released, dropped), or that another
   * processor took after the lease ended, keeps what it has. The new ends, by job id.
   */
  async renew(leases: readonly { id: number; leaseUntil: Date }[], leaseMs: number): Promise<Map<number, Date>> {
    if (leases.length === 0) return new Map();
    const { rows } = await this.pool.query<{ id: string; lease_until: Date }>(
      `UPDATE mt_extraction_jobs AS j SET next_attempt_at = ${leaseEnd('$3')}
         FROM unnest($1::bigint[], $2::timestamptz[]) AS held(id, lease_until)
        WHERE j.id = held.id AND j.next_attempt_at = held.lease_until AND j.status <> 'done'
        RETURNING j.id, j.next_attempt_at AS lease_until`,
      [leases.map((l) => l.id), leases.map((l) => l.leaseUntil), leaseMs],
    );
    return new Map(rows.map((row) => [Number(row.id), row.lease_until]));
  }

  async complete(id: number, extractor: string): Promise<void> {
    await this.pool.query(
      `UPDATE mt_extraction_jobs SET status = 'done', attempts = attempts + 1, last_error = NULL, extractor = $2, updated_at = now() WHERE id = $1`,
      [id, extractor],
    );
  }

  /** Records a failed attempt (`error` quotes no content: no erasure reaches this table); the job is due again after `retryInMs`. */
  async fail(id: number, extractor: string, error: string, retryInMs: number): Promise<void> {
    await this.pool.query(
      `UPDATE mt_extraction_jobs SET status = 'failed', attempts = attempts + 1, last_error = $3, extractor = $2, updated_at = now(),
              next_attempt_at = now() + make_interval(secs => $4 / 1000.0)
        WHERE id = $1`,
      [id, extractor, error.slice(0, MAX_ERROR_LENGTH), retryInMs],
    );
  }

  /** Hands a claimed job back, due after `inMs`, without counting an attempt. */
  async release(id: number, inMs: number): Promise<void> {
    await this.pool.query(`UPDATE mt_extraction_jobs SET next_attempt_at = now() + make_interval(secs => $2 / 1000.0) WHERE id = $1`, [id, inMs]);
  }

  /** Deletes the job if it was created at least `olderThanMs` ago (by the database's clock); whether it did. */
  async drop(id: number, olderThanMs = 0): Promise<boolean> {
    const { rowCount } = await this.pool.query(
      'DELETE FROM mt_extraction_jobs WHERE id = $1 AND created_at <= now() - make_interval(secs => $2 / 1000.0)',
      [id, olderThanMs],
    );
    return (rowCount ?? 0) > 0;
  }

  /** The latest job naming the mention. */
  async statusOf(memoryId: string, mentionId: string): Promise<MentionExtraction> {
    const { rows } = await this.pool.query<{ status: ExtractionJobStatus; attempts: number; extractor: string; last_error: string | null }>(
      `SELECT status, attempts, extractor, last_error FROM mt_extraction_jobs
        WHERE mention_ids @> ARRAY[$2]::text[] AND memory_id = $1 ORDER BY id DESC LIMIT 1`,
      [memoryId, mentionId],
    );
    const row = rows[0];
    if (row === undefined) return { status: 'none' };
    return {
      status: row.status,
      attempts: row.attempts,
      extractor: row.extractor,
      ...(row.status === 'failed' && row.last_error !== null ? { error: row.last_error } : {}),
    };
  }

  /** Jobs not done, by status (a gauge). */
  async backlog(): Promise<{ pending: number; failed: number }> {
    const { rows } = await this.pool.query<{ status: ExtractionJobStatus; jobs: number }>(
      `SELECT status, count(*)::int AS jobs FROM mt_extraction_jobs WHERE status <> 'done' GROUP BY status`,
    );
    const count = (status: ExtractionJobStatus) => rows.find((r) => r.status === status)?.jobs ?? 0;
    return { pending: count('pending'), failed: count('failed') };
  }
}

/** Inside the transaction that deletes a memory: its jobs go with its log, so none derives into the deleted memory. */
export async function deleteMemoryExtractionJobsIn(client: pg.ClientBase, memoryId: string): Promise<number> {
  const { rowCount } = await client.query('DELETE FROM mt_extraction_jobs WHERE memory_id = $1', [memoryId]);
  return rowCount ?? 0;
}
