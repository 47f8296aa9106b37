import { loadavg } from 'node:os';
import { isDeepStrictEqual } from 'node:util';
import { type Command, decideBatch, initialState } from '@memotrace/domain';
import { type LogStore, PostgresLogStore, type RecordContent, WrongExpectedRevisionError, logStoreMigrations } from '@memotrace/log-store';
import { OpeningLogStore, erasuresOf, memoryStreamId, sealBatch, toNewRecords } from '@memotrace/memory-log';
import { createTestDatabase, migrate } from '@memotrace/postgres';
import { CachingKeyStore, PostgresSubjectKeyStore, type SubjectKeyStore, databaseMasterKey, subjectKeyMigrations } from '@memotrace/subject-keys';
import type { Clock } from '../../services/command/src/clock';
import { type BatchOutcome, CommandHandler } from '../../services/command/src/command-handler';
import { KeyedMutex } from '../../services/command/src/keyed-mutex';
import { MemoryStateCache } from '../../services/command/src/memory-state-cache';

/**
 * `npm run bench:sealing` (an embedded PostgreSQL started by the npm script; on another server:
 * `DATABASE_URL=... npx tsx infra/bench/sealing-cost.ts`):
 * what sealing content costs on ingest and on reading, both variants in the same run on the same
 * database. Ingest goes through the command path as the service wires it (CommandHandler over an
 * OpeningLogStore and a CachingKeyStore(PostgresSubjectKeyStore)) against the same path with the
 * records appended unsealed (`PlainCommandHandler`). Rounds alternate which variant goes first, and
 * each round writes a fresh memory per variant: BENCH_SEALING_BATCHES (10) batches of 500 commands
 * (entities with aliases, literal and entity edges with a source, events with participants,
 * ~200-character mentions, every command with a reason). Then each round's memories are read back
 * whole: raw store vs OpeningLogStore, with the key cache warm and cold (a new process).
 */
const ROUNDS = Number(process.env['BENCH_SEALING_ROUNDS'] ?? 6);
const BATCHES = Number(process.env['BENCH_SEALING_BATCHES'] ?? 10);
const GROUPS = 100; // of 5 commands: batches of 500
const MAX_CONFLICT_RETRIES = 20; // as CommandHandler's

/**
 * CommandHandler's attempt loop, line for line, except that it appends `toNewRecords` where the
 * handler appends `sealBatch`: ingest as it is without sealing. It keeps the same state cache,
 * mutex, retry and key destruction so the two differ in that one call, and in the store they catch
 * up from: the raw store here (nothing to open), the OpeningLogStore for the handler, as the service has it.
 */
class PlainCommandHandler {
  private readonly cache: MemoryStateCache;
  private readonly mutex = new KeyedMutex();

  constructor(
    private readonly store: LogStore,
    private readonly clock: Clock,
    private readonly keyStore: SubjectKeyStore,
  ) {
    this.cache = new MemoryStateCache(store);
  }

  handle(memoryId: string, commands: readonly Command[]): Promise<BatchOutcome> {
    return this.mutex.run(memoryId, () => this.attempt(memoryId, commands, MAX_CONFLICT_RETRIES));
  }

  private async attempt(memoryId: string, commands: readonly Command[], retriesLeft: number): Promise<BatchOutcome> {
    const state = await this.cache.load(memoryId);
    const expectedRevision = state.eventCount - 1;
    let decision;
    try {
      decision = decideBatch(memoryId, state, commands, this.clock.now());
    } catch (error) {
      this.cache.forget(memoryId);
      throw error;
    }
    const position = state.eventCount;
    if (decision.records.length === 0) return { position, results: decision.results, appended: 0 };
    try {
      const records = toNewRecords(memoryId, decision.records);
      await this.store.append(memoryStreamId(memoryId), records, {
        expectedRevision: expectedRevision < 0 ? 'no_stream' : expectedRevision,
      });
      await this.keyStore.destroy(memoryId, erasuresOf(records));
      return { position, results: decision.results, appended: decision.records.length };
    } catch (error) {
      this.cache.forget(memoryId);
      if (error instanceof WrongExpectedRevisionError && retriesLeft > 0) {
        await new Promise((resolve) => setTimeout(resolve, Math.random() * 5 * (MAX_CONFLICT_RETRIES - retriesLeft + 1)));
        return this.attempt(memoryId, commands, retriesLeft - 1);
      }
      throw error;
    }
  }
}

interface Variant {
  name: 'sealed' | 'plain';
  handler: { handle(memoryId: string, commands: readonly Command[]): Promise<BatchOutcome> };
  /** Commands/s of each measured round. */
  rates: number[];
  records: number;
}

const FIRST = ['Ada', 'Bo', 'Chidi', 'Dana', 'Emil', 'Farah', 'Goran', 'Hana', 'Ivo', 'Jun'];
const LAST = ['Okafor', 'Lindqvist', 'Moreau', 'Tanaka', 'Novak', 'Haddad', 'Silva', 'Kowalski', 'Ibsen', 'Reyes'];
const CITIES = ['Lisbon', 'Tampere', 'Porto Alegre', 'Kraków', 'Osaka', 'Nairobi', 'Valparaíso', 'Ghent'];
const TOPICS = ['the move to a new flat', 'a knee injury from running', 'the allergy to penicillin', 'a job offer abroad', 'their sister’s wedding'];

const nameOf = (n: number) => `${FIRST[n % FIRST.length]} ${LAST[Math.floor(n / FIRST.length) % LAST.length]} ${n}`;

/** About 200 characters of conversation about person n: the kind of text mentions carry. */
function mentionText(n: number): string {
  const text =
    `I talked with ${nameOf(n)} yesterday about ${TOPICS[n % TOPICS.length]}; they said they have lived in ${CITIES[n % CITIES.length]} ` +
    `since spring and that ${nameOf(Math.max(0, n - 1))} helped them settle in, which they were grateful for.`;
  return text.padEnd(200, ' .').slice(0, 220);
}

/** Batch b of a memory: 100 groups of 5 commands, ids unique within the memory. */
function batch(b: number): Command[] {
  const commands: Command[] = [];
  for (let k = 0; k < GROUPS; k++) {
    const n = b * GROUPS + k;
    const person = `p${n}`;
    const known = `p${Math.max(0, n - 1)}`;
    const day = new Date(Date.UTC(2023, 0, 1) + n * 3_600_000).toISOString();
    const later = new Date(Date.UTC(2023, 0, 1) + n * 3_600_000 + 1_800_000).toISOString();
    const source = `conversation ${Math.floor(n / 10)}, turn ${n % 10}`;
    const reason = `extracted from ${source} by the ingest agent`;
    commands.push(
      {
        op: 'UPSERT_ENTITY',
        commandId: `c${n}-entity`,
        entityId: person,
        name: nameOf(n),
        aliases: [FIRST[n % FIRST.length]!, `${LAST[Math.floor(n / FIRST.length) % LAST.length]} (${n})`],
        types: ['person'],
        reason,
      },
      {
        op: 'UPSERT_EDGE',
        commandId: `c${n}-lives`,
        factId: `f${n}-lives`,
        src: person,
        rel: 'lives_in',
        dst: { literal: `${CITIES[n % CITIES.length]}, ${10 + (n % 80)} Harbour Street`, datatype: 'string' },
        validFrom: day,
        source,
        reason,
      },
      { op: 'UPSERT_EDGE', commandId: `c${n}-knows`, factId: `f${n}-knows`, src: person, rel: 'knows', dst: known, validFrom: day, source, reason },
      {
        op: 'UPSERT_EVENT',
        commandId: `c${n}-event`,
        eventId: `ev${n}`,
        summary: `${nameOf(n)} met ${nameOf(Math.max(0, n - 1))} to talk about ${TOPICS[n % TOPICS.length]}`,
        participants: [
          { entityId: person, role: 'host' },
          { entityId: known, role: 'guest' },
        ],
        includesFacts: [`f${n}-knows`],
        timeSpan: { from: day, to: later },
        reason,
      },
      {
        op: 'RECORD_MENTION',
        commandId: `c${n}-mention`,
        mentionId: `m${n}`,
        docId: `doc${Math.floor(n / 10)}`,
        text: mentionText(n),
        speaker: nameOf(n),
        occurredAt: day,
        reason,
      },
    );
  }
  return commands;
}

const median = (values: readonly number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
};
const int = (value: number) => Math.round(value).toLocaleString('en-US');
const pct = (value: number) => `${value >= 0 ? '+' : ''}${(value * 100).toFixed(1)} %`;
const spread = (values: readonly number[]) => `${int(Math.min(...values))}–${int(Math.max(...values))}`;

async function main(): Promise<void> {
  const db = await createTestDatabase();
  try {
    await migrate(db.pool, [...logStoreMigrations, ...subjectKeyMigrations]);
    const version = (await db.pool.query<{ v: string }>("SELECT current_setting('server_version') AS v")).rows[0]!.v;
    const raw = new PostgresLogStore(db.pool);
    const masterKey = await databaseMasterKey(db.pool);
    const keyStore = new CachingKeyStore(new PostgresSubjectKeyStore(db.pool, masterKey));
    const opening = new OpeningLogStore(raw, keyStore);
    const clock: Clock = { now: () => new Date().toISOString() };
    const sealed: Variant = { name: 'sealed', handler: new CommandHandler(opening, clock, keyStore), rates: [], records: 0 };
    const plain: Variant = { name: 'plain', handler: new PlainCommandHandler(raw, clock, keyStore), rates: [], records: 0 };
    console.log(
      `sealing bench on PostgreSQL ${version}: ${ROUNDS} rounds × ${BATCHES} batches of ${GROUPS * 5} commands per variant ` +
        `(load average ${loadavg()
          .map((l) => l.toFixed(2))
          .join(' ')})`,
    );

    // Round -1 warms both paths up (JIT, pool, caches) and is not counted.
    const ratios: number[] = [];
    for (let round = -1; round < ROUNDS; round++) {
      const order = round % 2 === 0 ? [sealed, plain] : [plain, sealed];
      const seconds = new Map<Variant, number>();
      for (const variant of order) {
        const memoryId = `${variant.name}-${round < 0 ? 'warmup' : round}`;
        const batches = Array.from({ length: BATCHES }, (_, b) => batch(b));
        let records = 0;
        const started = performance.now();
        for (const commands of batches) {
          const outcome = await variant.handler.handle(memoryId, commands);
          if (outcome.results.some((result) => result.status !== 'applied')) throw new Error(`${variant.name}: a command was not applied`);
          records += outcome.appended;
        }
        const elapsed = (performance.now() - started) / 1000;
        seconds.set(variant, elapsed);
        if (round < 0) continue;
        variant.rates.push((BATCHES * GROUPS * 5) / elapsed);
        variant.records = records;
      }
      if (round >= 0) ratios.push(seconds.get(sealed)! / seconds.get(plain)! - 1);
      if (round >= 0)
        console.log(
          `  round ${round + 1} (${order[0]!.name} first): sealed ${int(sealed.rates.at(-1)!)}, plain ${int(plain.rates.at(-1)!)} commands/s, ` +
            `time ${pct(ratios.at(-1)!)}`,
        );
    }
    await checkLogs(raw, opening, `sealed-${ROUNDS - 1}`, `plain-${ROUNDS - 1}`);

    const commands = BATCHES * GROUPS * 5;
    console.log(`per round and variant: ${int(commands)} commands = ${int(sealed.records)} log records, in ${BATCHES} batches`);
    for (const variant of [plain, sealed])
      console.log(
        `ingest, ${variant.name.padEnd(6)}: median ${int(median(variant.rates))} commands/s (${spread(variant.rates)}; ` +
          `median ${int((median(variant.rates) * variant.records) / commands)} log records/s)`,
      );
    console.log(
      `ingest overhead of sealing (time): ${pct(median(plain.rates) / median(sealed.rates) - 1)} from the medians ` +
        `(throughput ${pct(median(sealed.rates) / median(plain.rates) - 1)}); ` +
        `paired rounds ${pct(median(ratios))} (${pct(Math.min(...ratios))} to ${pct(Math.max(...ratios))})`,
    );

    const bytes = await db.pool.query<{ memory: string; bytes: string }>(
      `SELECT split_part(stream_id, '-', 2) AS memory, sum(pg_column_size(data) + pg_column_size(metadata))::bigint AS bytes
       FROM mt_events WHERE stream_id IN ($1, $2) GROUP BY 1`,
      [memoryStreamId(`sealed-${ROUNDS - 1}`), memoryStreamId(`plain-${ROUNDS - 1}`)],
    );
    const size = new Map(bytes.rows.map((row) => [row.memory, Number(row.bytes)]));
    console.log(
      `stored data + metadata per memory: plain ${int(size.get('plain')! / 1024)} KiB, sealed ${int(size.get('sealed')! / 1024)} KiB ` +
        `(${pct(size.get('sealed')! / size.get('plain')! - 1)})`,
    );

    await readSide(raw, opening, db.pool, masterKey);
    await breakdown(raw, keyStore);
  } finally {
    await db.drop();
  }
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
async function breakdown(raw: LogStore, keyStore: SubjectKeyStore): Promise<void> {
  const ms = { decide: 0, toNewRecords: 0, appendPlain: 0, seal: 0, appendSealed: 0 };
  for (const variant of ['plain', 'sealed'] as const) {
    const memoryId = `${variant}-parts`;
    const state = initialState();
    for (let b = 0; b < BATCHES; b++) {
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
  const commands = BATCHES * GROUPS * 5;
  const us = (value: number) => `${((value * 1000) / commands).toFixed(1)} µs`;
  console.log(
    `per command, taken apart: decide ${us(ms.decide / 2)}; plain: toNewRecords ${us(ms.toNewRecords)}, append ${us(ms.appendPlain)}; ` +
      `sealed: sealBatch ${us(ms.seal)}, append with the key set ${us(ms.appendSealed)}`,
  );
}

/** Whole-memory reads (`readStreamContent`, as the state cache and replay read), rotating over the rounds' memories. */
async function readSide(
  raw: LogStore,
  opening: LogStore,
  pool: ConstructorParameters<typeof PostgresSubjectKeyStore>[0],
  masterKey: Buffer,
): Promise<void> {
  const kinds = {
    'raw store, plain memory': (round: number) => raw.readStreamContent(memoryStreamId(`plain-${round}`)),
    'raw store, sealed memory': (round: number) => raw.readStreamContent(memoryStreamId(`sealed-${round}`)),
    'OpeningLogStore, keys cached': (round: number) => opening.readStreamContent(memoryStreamId(`sealed-${round}`)),
    // A new process: no key is cached, every key of the memory is read and unwrapped.
    'OpeningLogStore, key cache cold': (round: number) =>
      new OpeningLogStore(raw, new CachingKeyStore(new PostgresSubjectKeyStore(pool, masterKey))).readStreamContent(
        memoryStreamId(`sealed-${round}`),
      ),
  };
  const rates = new Map<string, number[]>(Object.keys(kinds).map((kind) => [kind, []]));
  for (const read of Object.values(kinds)) await read(0); // warm-up
  for (let i = 0; i < 2 * ROUNDS; i++) {
    const entries = Object.entries(kinds);
    // Rotate the order too, so no kind always reads right after another.
    for (let k = 0; k < entries.length; k++) {
      const [kind, read] = entries[(i + k) % entries.length]!;
      const started = performance.now();
      const records = await read(i % ROUNDS);
      rates.get(kind)!.push(records.length / ((performance.now() - started) / 1000));
    }
  }
  const base = median(rates.get('raw store, plain memory')!);
  for (const [kind, values] of rates)
    console.log(
      `read whole memory, ${kind.padEnd(32)}: median ${int(median(values))} log records/s (${spread(values)}), ` +
        `time ${pct(base / median(values) - 1)} vs raw plain`,
    );
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
