import { type Command, type MemoryRecord, decideBatch, initialState } from '@memotrace/domain';
import { PostgresLogStore, logStoreMigrations } from '@memotrace/log-store';
import { memoryStreamId, toNewRecords } from '@memotrace/memory-log';
import { createTestDatabase, migrate } from '@memotrace/postgres';
import { readModelMigrations, rebuildReadModels } from '@memotrace/read-models';
import { readConfig } from '@memotrace/runtime';
import pino from 'pino';
import { startMemoTrace } from '../../services/memotrace/src/app';
import { Rng } from './scale/rng';

/**
 * `npm run bench:consolidate` (DATABASE_URL, or an embedded PostgreSQL started by the npm script): SPEC 5.4's
 * consolidation over one memory of BENCH_CONSOLIDATE_ITEMS items (default 100,000: 60 % turns, 30 % facts,
 * 10 % events) of 100 people talking about 40 subjects over two years, written as decided commands straight
 * into the log and bulk-loaded into the read models, then served by the all-in-one service (no embeddings).
 * Measured: the first `POST …/consolidate` (it folds the memory's log first), then a run after 1,000 new
 * turns written over HTTP; each with its time and the process's RSS after it.
 */
const ITEMS = Number(process.env['BENCH_CONSOLIDATE_ITEMS'] ?? 100_000);
const NEW_TURNS = 1_000;
const PEOPLE = 100;
const SUBJECTS = 40;
const PER_BATCH = 1_000;
const MEMORY = 'consolidate-bench';
const START = Date.UTC(2022, 0, 1);
const DAY = 86_400_000;

/** Plain English words for subjects and filler: each subject has its own few content words. */
const SUBJECT_WORDS = Array.from({ length: SUBJECTS }, (_, s) => [`garden${s}`, `project${s}`, `trip${s}`, `course${s}`]);
const FILLER = ['today', 'really', 'think', 'maybe', 'week', 'friend', 'great', 'nice', 'time', 'plan', 'soon', 'again'];

function sentence(rng: Rng, subject: number): string {
  const words = SUBJECT_WORDS[subject]!;
  const any = (list: readonly string[]) => list[rng.int(list.length)]!;
  return `I ${any(FILLER)} talked about the ${any(words)} and the ${any(words)} ${any(FILLER)}`;
}

function* memoryLog(rng: Rng): Generator<MemoryRecord[]> {
  const state = initialState();
  let at = Date.UTC(2024, 0, 1);
  const decide = (commands: Command[]) => decideBatch(MEMORY, state, commands, new Date((at += 1000)).toISOString()).records;
  const people = Array.from(
    { length: PEOPLE },
    (_, i) => ({ op: 'UPSERT_ENTITY', commandId: `e:p${i}`, entityId: `p${i}`, name: `Person ${i}` }) as Command,
  );
  const things = Array.from(
    { length: SUBJECTS },
    (_, i) => ({ op: 'UPSERT_ENTITY', commandId: `e:s${i}`, entityId: `s${i}`, name: `Subject ${i}` }) as Command,
  );
  yield decide([...people, ...things]);
  let n = 0;
  const facts: string[] = [];
  while (n < ITEMS) {
    const commands: Command[] = [];
    for (let i = 0; i < PER_BATCH && n < ITEMS; i++, n++) {
      const p = rng.int(PEOPLE);
      // Each person keeps to a few subjects: what topics gather.
      const subject = (p * 7 + rng.int(3)) % SUBJECTS;
      const when = new Date(START + rng.int(730) * DAY + rng.int(DAY)).toISOString();
      const kind = rng.int(10);
      if (kind < 6) {
        commands.push({
          op: 'RECORD_MENTION',
          commandId: `m${n}`,
          mentionId: `m${n}`,
          docId: `d${p}:${when.slice(0, 10)}`,
          text: sentence(rng, subject),
          speaker: `Person ${p}`,
          occurredAt: when,
        } as Command);
      } else if (kind < 9) {
        const factId = `f${n}`;
        facts.push(factId);
        commands.push({
          op: 'UPSERT_EDGE',
          commandId: factId,
          factId,
          src: `p${p}`,
          rel: 'works_on',
          dst: `s${subject}`,
          validFrom: when,
          validTo: null,
        } as Command);
      } else if (facts.length > 0) {
        commands.push({
          op: 'UPSERT_EVENT',
          commandId: `v${n}`,
          eventId: `v${n}`,
          summary: `Person ${p} finished the ${SUBJECT_WORDS[subject]![0]}`,
          participants: [{ entityId: `p${p}`, role: 'agent' }],
          includesFacts: [facts[rng.int(facts.length)]!],
          timeSpan: { from: when },
        } as Command);
      }
    }
    yield decide(commands);
  }
}

async function main(): Promise<void> {
  const db = await createTestDatabase();
  const rng = new Rng(11);
  try {
    await migrate(db.pool, [...logStoreMigrations, ...readModelMigrations]);
    const store = new PostgresLogStore(db.pool);
    for (const records of memoryLog(rng)) await store.append(memoryStreamId(MEMORY), toNewRecords(MEMORY, records), { expectedRevision: 'any' });
    const rebuilt = await rebuildReadModels({ pool: db.pool, store });
    console.log(`${ITEMS} items: ${rebuilt.applied} log records bulk-loaded in ${(rebuilt.elapsedMs / 1000).toFixed(1)} s`);
    await db.pool.query('VACUUM ANALYZE');
    await store.close();

    const config = { ...readConfig({}), databaseUrl: db.url, port: 0, host: '127.0.0.1', consolidateIntervalMs: 0 };
    const service = await startMemoTrace(config, pino({ level: 'warn' }), { embeddings: null });
    try {
      const consolidate = async (label: string) => {
        const started = performance.now();
        const response = await fetch(`${service.url}/v1/memories/${MEMORY}/consolidate`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: '{}',
        });
        const answer = (await response.json()) as { appended: { status: string; op: string }[]; mergeSuggestions: unknown[]; cooled: number };
        const ms = performance.now() - started;
        if (response.status !== 200) throw new Error(`consolidate answered ${response.status}: ${JSON.stringify(answer)}`);
        const applied = answer.appended.filter((a) => a.status === 'applied');
        const rss = process.memoryUsage().rss / 2 ** 20;
        console.log(
          `${label}: ${(ms / 1000).toFixed(2)} s, RSS ${rss.toFixed(0)} MiB; ${applied.filter((a) => a.op === 'UPSERT_TOPIC').length} topics and ` +
            `${applied.filter((a) => a.op === 'UPSERT_EPISODE').length} episodes applied of ${answer.appended.length}, ` +
            `${answer.mergeSuggestions.length} merge suggestions`,
        );
        return ms;
      };
      const first = await consolidate('first run');
      const turns = Array.from({ length: NEW_TURNS }, (_, i) => {
        const p = rng.int(PEOPLE);
        return {
          turnId: `new-${i}`,
          speaker: `Person ${p}`,
          text: sentence(rng, (p * 7) % SUBJECTS),
          at: new Date(START + (730 + rng.int(30)) * DAY).toISOString(),
        };
      });
      const written = await fetch(`${service.url}/v1/memories/${MEMORY}/turns`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ sessionId: 'new-session', turns, extraction: 'off' }),
      });
      if (written.status !== 200) throw new Error(`turns answered ${written.status}`);
      const second = await consolidate(`after ${NEW_TURNS} new turns`);
      console.log(`the second run costs ${((100 * second) / first).toFixed(0)} % of the first`);
    } finally {
      await service.close();
    }
  } finally {
    await db.drop();
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
