import { RebuildJob } from './rebuild-job';

describe('RebuildJob', () => {
  it('reports a rebuild that fails in its thread as failed, with the reason, and can start again', async () => {
    const job = new RebuildJob('postgres://postgres@127.0.0.1:1/nowhere', Buffer.alloc(32)); // nothing listens on port 1
    expect(job.start(undefined)).toMatchObject({ started: true, status: { state: 'running', to: null } });
    expect(job.start('2024-05-01T00:00:00Z').started).toBe(false);
    await job.settled();
    expect(job.current()).toMatchObject({ state: 'failed', error: expect.stringMatching(/ECONNREFUSED/) });
    expect(job.start('2024-05-01T00:00:00Z')).toMatchObject({ started: true, status: { state: 'running', to: '2024-05-01T00:00:00Z' } });
    await job.settled();
    expect(job.current().state).toBe('failed');
  });
});
