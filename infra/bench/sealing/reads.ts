import { type LogStore } from '@memotrace/log-store';
import { OpeningLogStore, memoryStreamId } from '@memotrace/memory-log';
import { CachingKeyStore, PostgresSubjectKeyStore } from '@memotrace/subject-keys';
import type pg from 'pg';
import { int, median, pct, spread } from './paired-rounds';

/**
 * Whole-memory reads (`readStreamContent`, as the state cache and replay read) of the rounds' memories,
 * interleaved and rotating: the raw store (plain and sealed memories), and the OpeningLogStore with the
 * key cache warm (the writer's) and cold (a new process).
 */
export async function wholeMemoryReads(raw: LogStore, opening: LogStore, pool: pg.Pool, masterKey: Buffer, rounds: number): Promise<string[]> {
  const kinds = {
    'raw store, plain memory': (round: number) => raw.readStreamContent(memoryStreamId(`plain-${round}`)),
    'raw store, sealed memory': (round: number) => raw.readStreamContent(memoryStreamId(`sealed-${round}`)),
    'OpeningLogStore, keys cached': (round: number) => opening.readStreamContent(memoryStreamId(`sealed-${round}`)),
    'OpeningLogStore, key cache cold': (round: number) =>
      new OpeningLogStore(raw, new CachingKeyStore(new PostgresSubjectKeyStore(pool, masterKey))).readStreamContent(
        memoryStreamId(`sealed-${round}`),
      ),
  };
  const rates = new Map<string, number[]>(Object.keys(kinds).map((kind) => [kind, []]));
  for (const read of Object.values(kinds)) await read(0); // warm-up
  for (let i = 0; i < 2 * rounds; i++) {
    const entries = Object.entries(kinds);
    for (let k = 0; k < entries.length; k++) {
      const [kind, read] = entries[(i + k) % entries.length]!;
      const started = performance.now();
      const records = await read(i % rounds);
      rates.get(kind)!.push(records.length / ((performance.now() - started) / 1000));
    }
  }
  const base = median(rates.get('raw store, plain memory')!);
  return [...rates].map(
    ([kind, values]) =>
      `read whole memory, ${kind.padEnd(32)}: median ${int(median(values))} log records/s (${spread(values)}), ` +
      `time ${pct(base / median(values) - 1)} vs raw plain`,
  );
}
