import { isDeepStrictEqual } from 'node:util';
import { type MemoryRecord, decideBatch, initialState } from '@memotrace/domain';
import type { LogStore, RecordContent } from '@memotrace/log-store';
import { type Sealer, memoryStreamId, sealBatch, toNewRecords } from '@memotrace/memory-log';
import type { SubjectKeyStore } from '@memotrace/subject-keys';
import type pg from 'pg';
import { CommandHandler } from '../../../services/command/src/command-handler';
import { cpuOf } from './cpu';
import { type Round, pairedRounds } from './paired-rounds';
import { COMMANDS_PER_BATCH, batch } from './workload';

/** A Sealer that seals nothing: the records appended as they are, content in the clear. */
export const inTheClear: Sealer = (memoryId: string, records: readonly MemoryRecord[]) => ({
  records: toNewRecords(memoryId, records),
  keySet: null,
});

export interface HandlerBench {
  pool: pg.Pool;
  database: string;
  raw: LogStore;
  opening: LogStore;
  keyStore: SubjectKeyStore;
  rounds: number;
  batches: number;
  log: (line: string) => void;
}

/**
 * Ingest through the command handler as the service wires it (over the OpeningLogStore and the
 * caching key store), against the same handler with a Sealer that seals nothing and appends to the
 * raw store: the two differ in sealing only. Paired rounds of `batches` batches per memory.
 */
export async function handlerIngest(bench: HandlerBench) {
  const { raw, opening, keyStore, pool, database, batches } = bench;
  const clock = { now: () => new Date().toISOString() };
  const sealed = new CommandHandler(opening, clock, keyStore);
  const plain = new CommandHandler(raw, clock, keyStore, inTheClear);
  const round =
    (handler: CommandHandler): Round =>
    async (memoryId) => {
      const { cpu } = await cpuOf(pool, [database], async () => {
        for (let b = 0; b < batches; b++) {
          const outcome = await handler.handle(memoryId, batch(b));
          if (outcome.results.some((result) => result.status !== 'applied')) throw new Error(`${memoryId}: a command was not applied`);
        }
      });
      return { commands: batches * COMMANDS_PER_BATCH, cpu };
    };
  const result = await pairedRounds(bench.rounds, { name: 'sealed', round: round(sealed) }, { name: 'plain', round: round(plain) }, bench.log);
  await checkLogs(raw, opening, `sealed-${bench.rounds - 1}`, `plain-${bench.rounds - 1}`);
  const bytes = await pool.query<{ memory: string; bytes: string }>(
    `SELECT split_part(stream_id, '-', 2) AS memory, sum(pg_column_size(data) + pg_column_size(metadata))::bigint AS bytes
     FROM mt_events WHERE stream_id IN ($1, $2) GROUP BY 1`,
    [memoryStreamId(`sealed-${bench.rounds - 1}`), memoryStreamId(`plain-${bench.rounds - 1}`)],
  );
  const keyBytes = await pool.query<{ bytes: string }>(
    `SELECT sum(pg_column_size(k.*))::bigint AS bytes FROM mt_content_keys k WHERE memory_id = $1`,
    [`sealed-${bench.rounds - 1}`],
  );
  const size = new Map(bytes.rows.map((row) => [row.memory, Number(row.bytes)]));
  return { ...result, stored: { plain: size.get('plain')!, sealed: size.get('sealed')!, keySets: Number(keyBytes.rows[0]!.bytes) } };
}

/**
 * The bench measures what it claims: the sealed memory's stored records hold no personal text in the
 * clear, the plain memory's do, and the sealed memory opens to the same records as the plain one.
 */
async function checkLogs(raw: LogStore, opening: LogStore, sealedMemory: string, plainMemory: string): Promise<void> {
  const stored = await raw.readStreamContent(memoryStreamId(sealedMemory));
  const plainStored = await raw.readStreamContent(memoryStreamId(plainMemory));
  const mentionOf = (records: RecordContent[]) => records.find((record) => record.type === 'MentionRecorded');
  if (JSON.stringify(mentionOf(stored)).includes('I talked with')) throw new Error('the sealed memory holds mention text in the clear');
  if (!JSON.stringify(mentionOf(plainStored)).includes('I talked with')) throw new Error('the plain memory holds no mention text');
  const opened = await opening.readStreamContent(memoryStreamId(sealedMemory));
  const comparable = (records: RecordContent[]) =>
    records.map((record) => ({ type: record.type, data: record.data, reason: record.metadata.reason }));
  if (!isDeepStrictEqual(comparable(opened), comparable(plainStored))) throw new Error('the sealed memory does not open to the plain one');
}

/**
 * Where the sealed path's time goes: the steps of the handler's attempt, timed one by one on one more
 * fresh memory per variant (no mutex, no catch-up read). The sealed append writes the batch's key set
 * in its transaction.
 */
export async function takenApart(bench: HandlerBench): Promise<string> {
  const { raw, keyStore, batches } = bench;
  const ms = { decide: 0, toNewRecords: 0, appendPlain: 0, seal: 0, appendSealed: 0 };
  for (const variant of ['plain', 'sealed'] as const) {
    const memoryId = `${variant}-parts`;
    const state = initialState();
    for (let b = 0; b < batches; b++) {
      const commands = batch(b);
      const firstRevision = state.eventCount;
      let started = performance.now();
      const decision = decideBatch(memoryId, state, commands, new Date().toISOString());
      ms.decide += performance.now() - started;
      started = performance.now();
      const sealed = variant === 'sealed' ? sealBatch(keyStore, memoryId, decision.records, state, firstRevision) : undefined;
      const records = sealed?.records ?? toNewRecords(memoryId, decision.records);
      ms[variant === 'sealed' ? 'seal' : 'toNewRecords'] += performance.now() - started;
      started = performance.now();
      const keySet = sealed?.keySet;
      await raw.append(memoryStreamId(memoryId), records, {
        expectedRevision: b === 0 ? 'no_stream' : firstRevision - 1,
        ...(keySet && { alongside: (tx) => keyStore.writeKeySet(memoryId, keySet, tx) }),
      });
      ms[variant === 'sealed' ? 'appendSealed' : 'appendPlain'] += performance.now() - started;
    }
  }
  const us = (value: number) => `${((value * 1000) / (batches * COMMANDS_PER_BATCH)).toFixed(1)} µs`;
  return (
    `per command, taken apart: decide ${us(ms.decide / 2)}; plain: toNewRecords ${us(ms.toNewRecords)}, append ${us(ms.appendPlain)}; ` +
    `sealed: sealBatch ${us(ms.seal)}, append with the key set ${us(ms.appendSealed)}`
  );
}
