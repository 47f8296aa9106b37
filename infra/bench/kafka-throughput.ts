import { startTestService } from '@memotrace/memotrace/testing';
import { TopicReader, testKafka, testKafkaConfig, testProducer } from '@memotrace/kafka-service/testing';

/**
 * `npm run bench:kafka`: commands/s through Kafka: N one-command messages over M
 * memories are produced to the commands topic at once; the clock stops when the
 * last result is on the results topic. Needs KAFKA_BROKERS (e.g. from
 * `infra/kafka/broker.sh start DIR`) and DATABASE_URL (a fresh database is created).
 */
const MESSAGES = Number(process.env['BENCH_MESSAGES'] ?? 5_000);
const MEMORIES = Number(process.env['BENCH_MEMORIES'] ?? 50);

async function main(): Promise<void> {
  if (!process.env['KAFKA_BROKERS'] || !process.env['DATABASE_URL']) throw new Error('set KAFKA_BROKERS and DATABASE_URL');
  const config = testKafkaConfig({ partitions: 6 });
  const svc = await startTestService({ kafka: config });
  const kafka = testKafka(config);
  const producer = await testProducer(kafka);
  const reader = await TopicReader.start(kafka, [config.topics.results]);
  try {
    const messages = Array.from({ length: MESSAGES }, (_, i) => ({
      key: `bench-${i % MEMORIES}`,
      value: JSON.stringify({ op: 'UPSERT_ENTITY', commandId: `c-${i}`, entityId: `e-${i}`, name: `Entity ${i}` }),
    }));
    const started = performance.now();
    for (let i = 0; i < messages.length; i += 1000)
      await producer.send({ topic: config.topics.commands, acks: -1, messages: messages.slice(i, i + 1000) });
    const produced = performance.now() - started;
    await reader.waitFor((seen) => seen.length >= MESSAGES, `${MESSAGES} results`, 600_000);
    const ms = performance.now() - started;
    const applied = reader.messages.filter((m) => m.value.status === 'applied').length;
    console.log(`kafka commands: ${MESSAGES} one-command messages over ${MEMORIES} memories, ${config.partitions} partitions`);
    console.log(`  produced in ${produced.toFixed(0)} ms; all ${applied} applied and answered in ${ms.toFixed(0)} ms`);
    console.log(`  throughput: ${Math.round((MESSAGES / ms) * 1000)} commands/s (Kafka -> CommandHandler -> PostgreSQL -> results topic)`);
  } finally {
    await reader.stop();
    await producer.disconnect();
    await svc.stop();
  }
}

main().catch((error: Error) => {
  console.error(error.message);
  process.exit(1);
});
