import type { PoolClient } from 'pg';
import { StatisticsAfterGrowth } from './read-models-projection';

describe('StatisticsAfterGrowth', () => {
  it('analyzes the version tables once each time the versions written pass 1,000, 10,000, 100,000...', async () => {
    const statements: string[] = [];
    const tx = { query: async (sql: string) => statements.push(sql) } as unknown as PoolClient;
    const statistics = new StatisticsAfterGrowth();
    const analyzedAfter = async (versions: number) => {
      const before = statements.length;
      await statistics.afterWriting(versions, tx);
      return statements.length - before;
    };
    expect(await analyzedAfter(999)).toBe(0);
    expect(await analyzedAfter(1)).toBe(1); // 1,000
    expect(await analyzedAfter(8_999)).toBe(0);
    expect(await analyzedAfter(100_000)).toBe(1); // past 10,000 and 100,000 at once: one ANALYZE
    expect(await analyzedAfter(800_000)).toBe(0); // 909,999
    expect(await analyzedAfter(90_001)).toBe(1); // 1,000,000
    expect(statements).toEqual(Array(3).fill('ANALYZE rm_fact_versions, rm_event_versions, rm_episode_versions'));
  });
});
