import { newRecord } from '../testing/helpers';
import { usePostgresStore } from '../testing/postgres-store';
import { LOG_PAGE_PLANNER_SETTINGS, READ_ALL_CONTENT_PAGE, READ_ALL_PAGE } from './rows';

interface PlanNode {
  'Node Type': string;
  'Index Name'?: string;
  'Relation Name'?: string;
  Plans?: PlanNode[];
}

const nodes = (plan: PlanNode): PlanNode[] => [plan, ...(plan.Plans ?? []).flatMap(nodes)];

/**
 * A log page is one ordered scan of the position index even when the planner would guess
 * otherwise: on a log without column statistics (growing faster than autovacuum analyzes it)
 * it planned a bitmap scan of every record after the cursor plus a sort, per page.
 */
describe('log page plans', () => {
  const opened = usePostgresStore();

  beforeAll(async () => {
    const { db, store } = opened;
    for (let stream = 0; stream < 20; stream++) {
      await store.append(
        `memory-${stream}`,
        Array.from({ length: 1_000 }, (_, i) => newRecord({ i })),
        { expectedRevision: 'any' },
      );
    }
    // As a freshly grown log is: no statistics yet.
    await db.pool.query(`DELETE FROM pg_statistic WHERE starelid = 'mt_events'::regclass`);
  }, 60_000);

  const plan = async (text: string, settings: string): Promise<PlanNode[]> => {
    const client = await opened.db.pool.connect();
    try {
      await client.query(`BEGIN; ${settings}`);
      const { rows } = await client.query<{ 'QUERY PLAN': [{ Plan: PlanNode }] }>(`EXPLAIN (FORMAT JSON) ${text}`, [100, 1_000, 'memory-']);
      return nodes(rows[0]!['QUERY PLAN'][0].Plan);
    } finally {
      await client.query('ROLLBACK');
      client.release();
    }
  };

  it.each([
    ['READ_ALL_PAGE', READ_ALL_PAGE],
    ['READ_ALL_CONTENT_PAGE', READ_ALL_CONTENT_PAGE],
  ])('%s reads the page by the position index, without a bitmap scan or a sort', async (_, text) => {
    const withSettings = await plan(text, LOG_PAGE_PLANNER_SETTINGS);
    const types = withSettings.map((n) => n['Node Type']);
    expect(types).not.toContain('Sort');
    expect(types).not.toContain('Bitmap Heap Scan');
    expect(types).not.toContain('Seq Scan');
    expect(withSettings.filter((n) => n['Node Type'] === 'Index Scan' && n['Relation Name'] === 'mt_events').map((n) => n['Index Name'])).toContain(
      'mt_events_pkey',
    );
    // What the settings prevent: the planner's own choice on a log without statistics.
    expect((await plan(text, 'SELECT 1')).map((n) => n['Node Type'])).toEqual(expect.arrayContaining(['Bitmap Heap Scan', 'Sort']));
  });

  it('reads pages in position order across the whole log', async () => {
    const { store } = opened;
    const all: number[] = [];
    for (let from = 0; ;) {
      const page = await store.readAll({ fromPosition: from, maxCount: 1_500, streamPrefix: 'memory-' });
      if (page.length === 0) break;
      all.push(...page.map((e) => e.position));
      from = page[page.length - 1]!.position;
    }
    expect(all).toHaveLength(20_000);
    expect(all.every((p, i) => i === 0 || p > all[i - 1]!)).toBe(true);
  });
});
