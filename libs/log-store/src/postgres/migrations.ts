import type { MigrationInterface, QueryRunner } from 'typeorm';

// Session advisory lock key (two-int form) guarding position reservation, see mt_reserve_positions.
export const RESERVE_LOCK = [0x6d746576, 1] as const; // ('mtev', 1)

/**
 * Position reservation is the heart of the read-side guarantee. Readers only see rows with
 * tx_id < xmin of their snapshot; that alone does not stop a later-committing transaction from
 * holding a *lower* position than rows already visible (xids and sequence values are handed out
 * independently). Assigning the transaction id and the positions together under one short lock
 * makes xid order equal position order, so everything below the visible head is final.
 * Must be the first thing in the append transaction that needs an xid.
 */
const reservePositionsFunction = `
CREATE FUNCTION mt_reserve_positions(n integer) RETURNS bigint[]
LANGUAGE plpgsql AS $$
DECLARE
  reserved bigint[];
BEGIN
  IF pg_current_xact_id_if_assigned() IS NOT NULL THEN
    RAISE EXCEPTION 'mt_reserve_positions must run before the transaction writes anything';
  END IF;
  PERFORM pg_advisory_lock(${RESERVE_LOCK[0]}, ${RESERVE_LOCK[1]});
  BEGIN
    PERFORM pg_current_xact_id();
    SELECT array_agg(nextval('mt_events_position_seq') ORDER BY i) INTO reserved FROM generate_series(1, n) AS i;
  EXCEPTION WHEN query_canceled OR others THEN
    -- a session lock survives rollback: never leak it into a pooled connection
    PERFORM pg_advisory_unlock(${RESERVE_LOCK[0]}, ${RESERVE_LOCK[1]});
    RAISE;
  END;
  PERFORM pg_advisory_unlock(${RESERVE_LOCK[0]}, ${RESERVE_LOCK[1]});
  RETURN reserved;
END
$$`;

export class EventStoreSchema1763769600000 implements MigrationInterface {
  readonly name = 'EventStoreSchema1763769600000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE mt_events (
        position bigserial PRIMARY KEY,
        stream_id text NOT NULL,
        revision bigint NOT NULL,
        event_id uuid NOT NULL,
        type text NOT NULL,
        data jsonb NOT NULL,
        metadata jsonb NOT NULL,
        tags text[] NOT NULL DEFAULT '{}',
        tx_id xid8 NOT NULL DEFAULT pg_current_xact_id(),
        created_at timestamptz NOT NULL DEFAULT now(),
        CONSTRAINT mt_events_stream_revision_key UNIQUE (stream_id, revision),
        CONSTRAINT mt_events_stream_event_id_key UNIQUE (stream_id, event_id)
      )`);
    await queryRunner.query(`
      CREATE TABLE mt_streams (
        stream_id text PRIMARY KEY,
        revision bigint NOT NULL
      )`);
    // Written only by append, in the same transaction; no FK to keep 1000-record batches cheap.
    await queryRunner.query(`
      CREATE TABLE mt_event_tags (
        tag text NOT NULL,
        position bigint NOT NULL,
        PRIMARY KEY (tag, position)
      )`);
    await queryRunner.query(reservePositionsFunction);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('DROP FUNCTION mt_reserve_positions(integer)');
    await queryRunner.query('DROP TABLE mt_event_tags');
    await queryRunner.query('DROP TABLE mt_streams');
    await queryRunner.query('DROP TABLE mt_events');
  }
}

/**
 * Stream deletions, one row per deletion that removed records: a reader holding records it read before
 * (a projector's queue, a cache in another process) learns from it which of them are gone.
 */
export class StreamDeletions1796300000000 implements MigrationInterface {
  readonly name = 'StreamDeletions1796300000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE mt_stream_deletions (
        seq bigserial PRIMARY KEY,
        stream_id text NOT NULL,
        position bigint NOT NULL,
        deleted_at timestamptz NOT NULL DEFAULT now()
      )`);
    await queryRunner.query('CREATE INDEX mt_stream_deletions_stream ON mt_stream_deletions (stream_id, position)');
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('DROP TABLE mt_stream_deletions');
  }
}

export const logStoreMigrations: MigrationInterface[] = [new EventStoreSchema1763769600000(), new StreamDeletions1796300000000()];
