import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readConfig } from '@memotrace/runtime';
import { startMemoTrace } from '@memotrace/memotrace';
import pino from 'pino';
import { summary, timed } from './stats';

/**
 * `npm run bench:core`: what a request costs on the all-in-one service over HTTP
 * (embedded PostgreSQL unless DATABASE_URL is set): single-command batches,
 * 100-command batches, and cut queries by projection and by replay.
 */
const ENTITIES = 200;
const SINGLE_COMMANDS = 1000;
const BATCHES = 50;
const QUERIES = 500;

async function main(): Promise<void> {
  const dataDir = mkdtempSync(join(tmpdir(), 'memotrace-bench-'));
  chmodSync(dataDir, 0o755); // the embedded server runs as the postgres user
  const service = await startMemoTrace({ ...readConfig(), dataDir, port: 0 }, pino({ level: 'warn' }));
  const post = async (body: unknown) => {
    const response = await fetch(`${service.url}/v1/memories/bench/commands`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    if (response.status !== 200) throw new Error(`command failed: ${response.status} ${await response.text()}`);
    return (await response.json()) as { position: number };
  };
  const get = async (path: string) => {
    const response = await fetch(service.url + path);
    if (response.status !== 200) throw new Error(`query failed: ${response.status} ${await response.text()}`);
    return response.json();
  };
  try {
    await post({
      commands: [
        { op: 'DEFINE_RELATION', rel: 'works_at', cardinality: 'one' },
        ...Array.from({ length: ENTITIES }, (_, i) => ({ op: 'UPSERT_ENTITY', entityId: `e${i}`, name: `Entity ${i}` })),
      ],
    });
    const single: number[] = [];
    for (let i = 0; i < SINGLE_COMMANDS; i++) {
      const validFrom = new Date(Date.UTC(2024, 0, 1) + i * 3_600_000).toISOString();
      await timed(single, () =>
        post({ commands: [{ op: 'UPSERT_EDGE', src: `e${i % ENTITIES}`, rel: 'works_at', dst: `e${(i * 7 + 1) % ENTITIES}`, validFrom }] }),
      );
    }
    const batched: number[] = [];
    let position = 0;
    for (let b = 0; b < BATCHES; b++) {
      const commands = Array.from({ length: 100 }, (_, i) => ({
        op: 'UPSERT_EDGE',
        src: `e${i % ENTITIES}`,
        rel: 'knows',
        dst: `e${(b + i + 1) % ENTITIES}`,
      }));
      position = (await timed(batched, () => post({ commands }))).position;
    }
    await get(`/v1/memories/bench/facts?minPosition=${position}&src=e0`);
    const now = Date.now();
    const cut = (i: number) =>
      `src=e${i % ENTITIES}` +
      `&validAt=${new Date(Date.UTC(2024, 0, 1) + (i % SINGLE_COMMANDS) * 3_600_000).toISOString()}` +
      `&recordedAt=${new Date(now).toISOString()}`;
    const projection: number[] = [];
    const replay: number[] = [];
    for (let i = 0; i < QUERIES; i++) await timed(projection, () => get(`/v1/memories/bench/facts?${cut(i)}`));
    for (let i = 0; i < QUERIES / 5; i++) await timed(replay, () => get(`/v1/memories/bench/facts?${cut(i)}&consistency=replay`));
    const events = SINGLE_COMMANDS + BATCHES * 100 + ENTITIES + 1;
    console.log(`memory: ${ENTITIES} entities, ~${events} commands in the log`);
    console.log(`command, 1 per batch:      ${summary(single)}`);
    console.log(`command, 100 per batch:    ${summary(batched)}  (per batch)`);
    console.log(`cut query, projection:     ${summary(projection)}`);
    console.log(`cut query, replay:         ${summary(replay)}`);
  } finally {
    await service.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

main().catch((error: Error) => {
  console.error(error);
  process.exit(1);
});
