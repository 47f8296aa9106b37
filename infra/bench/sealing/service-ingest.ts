import { type TestDatabase, createTestDatabase } from '@memotrace/postgres';
import { readConfig } from '@memotrace/runtime';
import pino from 'pino';
import { type RunningService, startMemoTrace } from '../../../services/memotrace/src/app';
import { cpuOf } from './cpu';
import { inTheClear } from './handler-ingest';
import { type Round, pairedRounds } from './paired-rounds';
import { COMMANDS_PER_BATCH, GROUPS, batch } from './workload';

/**
 * Ingest as a user meets it: `POST /v1/memories/{id}/commands` of the all-in-one service, one batch
 * per request, the next sent when the last is answered. Two services run in this process, each on a
 * fresh database of the server: the service as it ships, and the same with a Sealer that seals
 * nothing. Both run their read-model projector (which opens what it reads) beside the requests;
 * embeddings are off (the embedder's CPU would swamp the rest). A round also times how long until the
 * round's last entity is readable (`minPosition`), i.e. until the projector caught up.
 */
export async function serviceIngest(options: { rounds: number; batches: number; log: (line: string) => void }) {
  const started: { service: RunningService; database: TestDatabase; name: string }[] = [];
  try {
    const start = async (seal?: typeof inTheClear) => {
      const database = await createTestDatabase();
      const config = { ...readConfig({}), databaseUrl: database.url, port: 0, host: '127.0.0.1' };
      const service = await startMemoTrace(config, pino({ level: 'silent' }), { embeddings: null, ...(seal && { seal }) });
      const entry = { service, database, name: new URL(database.url).pathname.slice(1) };
      started.push(entry);
      return entry;
    };
    const sealed = await start();
    const plain = await start(inTheClear);
    const readable = new Map<string, number[]>([
      ['sealed', []],
      ['plain', []],
    ]);
    const round =
      (name: 'sealed' | 'plain', entry: (typeof started)[number]): Round =>
      async (memoryId) => {
        const { result: position, cpu } = await cpuOf(entry.database.pool, [entry.name], async () => {
          let last = 0;
          for (let b = 0; b < options.batches; b++) {
            const response = await fetch(`${entry.service.url}/v1/memories/${memoryId}/commands`, {
              method: 'POST',
              headers: { 'content-type': 'application/json' },
              body: JSON.stringify({ commands: batch(b) }),
            });
            const body = (await response.json()) as { position: number; results: { status: string }[] };
            if (response.status !== 200 || body.results.some((r) => r.status !== 'applied'))
              throw new Error(`${name}: ${JSON.stringify(body).slice(0, 300)}`);
            last = body.position;
          }
          return last;
        });
        const waiting = performance.now();
        const entity = `p${options.batches * GROUPS - 1}`;
        for (;;) {
          const response = await fetch(`${entry.service.url}/v1/memories/${memoryId}/entities/${entity}?minPosition=${position}`);
          if (response.status === 200) break;
          if (response.status !== 503 && response.status !== 504) throw new Error(`${name}: reading ${entity} answered ${response.status}`);
        }
        if (!memoryId.endsWith('warmup')) readable.get(name)!.push((performance.now() - waiting) / 1000);
        return { commands: options.batches * COMMANDS_PER_BATCH, cpu };
      };
    const result = await pairedRounds(
      options.rounds,
      { name: 'sealed', round: round('sealed', sealed) },
      { name: 'plain', round: round('plain', plain) },
      options.log,
    );
    return { ...result, readable };
  } finally {
    for (const { service, database } of started) {
      await service.close();
      await database.drop();
    }
  }
}
