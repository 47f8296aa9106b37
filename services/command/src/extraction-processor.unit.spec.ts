import type { ClaimedJob, ExtractionJobs } from '@memotrace/runtime';
import { ExtractionProcessor, type ExtractionProcessorOptions } from './extraction-processor';
import type { TurnExtraction } from './turn-extraction';

/** The processor's lease renewal, over a job table kept in memory (the table's own rules have their int spec). */
function jobTable(ids: number[]) {
  const renewals: number[][] = [];
  let claimed = false;
  const table = {
    renewals,
    claim: async (): Promise<ClaimedJob[]> => {
      if (claimed) return [];
      claimed = true;
      return ids.map((id) => ({
        id,
        memoryId: 'm',
        sessionId: 's',
        mentionIds: [],
        turnCommandIds: [],
        extractor: 'x@1',
        attempts: 0,
        createdAt: new Date(),
        leaseUntil: new Date(id),
      }));
    },
    renew: async (leases: readonly { id: number; leaseUntil: Date }[]) => {
      renewals.push(leases.map((l) => l.id));
      return new Map(leases.map((l) => [l.id, new Date(l.leaseUntil.getTime() + 1)]));
    },
    release: async () => undefined,
  };
  return table;
}

function processor(table: ReturnType<typeof jobTable>, leaseMs: number): ExtractionProcessor {
  const options: ExtractionProcessorOptions = {
    jobs: table as unknown as ExtractionJobs,
    handler: {} as ExtractionProcessorOptions['handler'],
    extraction: { label: 'x@1' } as TurnExtraction,
    pollMs: 0,
    retryMs: 1000,
    leaseMs,
    logger: { warn: () => undefined },
  };
  return new ExtractionProcessor(options);
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('extraction processor leases', () => {
  it('renews the leases of the jobs it holds while it runs them, and stops once each has its outcome', async () => {
    const table = jobTable([1, 2]);
    const worker = processor(table, 30);
    const running: number[] = [];
    // A slow first job (many lease periods), a quick second one.
    worker.run = async (job) => {
      running.push(job.id);
      await sleep(job.id === 1 ? 120 : 1);
      return 'done';
    };
    expect(await worker.runDue()).toBe(2);
    expect(running).toEqual([1, 2]);
    // While job 1 ran, both were held; job 2 ran after job 1 had its outcome, and no renewal follows the end of the batch.
    expect(table.renewals.length).toBeGreaterThanOrEqual(1);
    expect(table.renewals[0]).toEqual([1, 2]);
    const count = table.renewals.length;
    await sleep(60);
    expect(table.renewals.length).toBe(count);
  });
});
