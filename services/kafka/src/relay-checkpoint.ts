import { migrate } from '@memotrace/postgres';
import type { Pool } from 'pg';
import type { MigrationInterface, QueryRunner } from 'typeorm';

/** Where each event relay has got to: every event up to `position` was acknowledged by Kafka. */
export class KafkaRelayCheckpoints1763856000000 implements MigrationInterface {
  name = 'KafkaRelayCheckpoints1763856000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`CREATE TABLE kafka_relay_checkpoints (
      relay text PRIMARY KEY,
      position bigint NOT NULL CHECK (position >= 0),
      updated_at timestamptz NOT NULL DEFAULT now()
    )`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('DROP TABLE kafka_relay_checkpoints');
  }
}

export const kafkaRelayMigrations = [KafkaRelayCheckpoints1763856000000];

export class RelayCheckpointStore {
  constructor(
    private readonly pool: Pool,
    private readonly relay: string,
  ) {}

  async load(): Promise<number> {
    await migrate(this.pool, kafkaRelayMigrations);
    await this.pool.query('INSERT INTO kafka_relay_checkpoints (relay, position) VALUES ($1, 0) ON CONFLICT (relay) DO NOTHING', [this.relay]);
    const { rows } = await this.pool.query<{ position: string }>('SELECT position FROM kafka_relay_checkpoints WHERE relay = $1', [this.relay]);
    return Number(rows[0]!.position);
  }

  /** Only forward: a slower relay instance can never move the checkpoint back. */
  async advance(position: number): Promise<void> {
    await this.pool.query('UPDATE kafka_relay_checkpoints SET position = $2, updated_at = now() WHERE relay = $1 AND position < $2', [
      this.relay,
      position,
    ]);
  }
}
