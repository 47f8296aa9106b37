import { type TestService, startTestService } from '@memotrace/memotrace/testing';
import type { KafkaConfig } from '@memotrace/runtime';
import { execFile, execFileSync } from 'node:child_process';
import { resolve } from 'node:path';
import { promisify } from 'node:util';
import { KAFKA_BROKERS, testKafkaConfig } from './testing/kafka-test-kit';

/** Issue 3: one command produced with kcat (Debian package `kafkacat`) is applied. Runs infra/kafka/kcat-demo.sh. */

function findKcat(): string | undefined {
  for (const name of ['kcat', 'kafkacat']) {
    try {
      return execFileSync('sh', ['-c', `command -v ${name}`], { encoding: 'utf8' }).trim() || undefined;
    } catch {
      // not this one
    }
  }
  return undefined;
}

const kcat = findKcat();
const why = KAFKA_BROKERS === '' ? 'KAFKA_BROKERS is unset' : kcat === undefined ? 'kcat is not installed (apt-get install -y kafkacat)' : undefined;
if (why) process.stderr.write(`kcat demo spec not selected: ${why}\n`);
const describeKcat = why ? describe.skip : describe;

describeKcat(`kcat demo (infra/kafka/kcat-demo.sh)${why ? ` [not selected: ${why}]` : ''}`, () => {
  let config: KafkaConfig;
  let svc: TestService;
  beforeAll(async () => {
    config = testKafkaConfig();
    svc = await startTestService({ kafka: config });
  });
  afterAll(async () => {
    await svc?.stop();
  });

  it('a command produced with kcat is applied and readable over HTTP', async () => {
    const env = {
      ...process.env,
      KAFKA_BROKERS: config.brokers.join(','),
      KAFKA_COMMANDS_TOPIC: config.topics.commands,
      KAFKA_RESULTS_TOPIC: config.topics.results,
      MEMOTRACE_URL: svc.url,
      MEMORY_ID: 'kcat-demo',
      COMMAND_ID: 'kcat-1',
    };
    const { stdout } = await promisify(execFile)('bash', [resolve(__dirname, '../../../infra/kafka/kcat-demo.sh')], { env, timeout: 60_000 });
    expect(stdout).toContain('"commandId":"kcat-1","status":"applied"');
    const entity = await svc.get('/v1/memories/kcat-demo/entities/ada');
    expect(entity.status).toBe(200);
    expect(entity.body).toMatchObject({ entityId: 'ada', name: 'Ada Lovelace' });
    const log = (await svc.get('/v1/memories/kcat-demo/export')).text.trim().split('\n');
    expect(log.map((line) => JSON.parse(line))).toEqual([expect.objectContaining({ commandId: 'kcat-1', op: 'UPSERT_ENTITY' })]);
  });
});
