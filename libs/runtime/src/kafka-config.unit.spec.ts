import { readConfig } from './config';
import { readKafkaConfig } from './kafka-config';

describe('Kafka settings (KAFKA_* environment)', () => {
  it('is off unless KAFKA_BROKERS is set', () => {
    expect(readKafkaConfig({})).toBeUndefined();
    expect(readKafkaConfig({ KAFKA_BROKERS: '  ' })).toBeUndefined();
    expect(readConfig({}).kafka).toBeUndefined();
  });

  it('has sensible defaults', () => {
    expect(readKafkaConfig({ KAFKA_BROKERS: 'localhost:9092' })).toEqual({
      brokers: ['localhost:9092'],
      clientId: 'memotrace',
      groupId: 'memotrace-commands',
      topics: {
        commands: 'memotrace.commands',
        results: 'memotrace.command-results',
        deadLetter: 'memotrace.commands.dlq',
        events: 'memotrace.events',
      },
      partitions: 6,
    });
  });

  it('reads every override, blank values meaning the default', () => {
    const config = readKafkaConfig({
      KAFKA_BROKERS: 'a:1, b:2,',
      KAFKA_GROUP_ID: 'g',
      KAFKA_COMMANDS_TOPIC: 'in',
      KAFKA_RESULTS_TOPIC: 'out',
      KAFKA_DLQ_TOPIC: 'dead',
      KAFKA_EVENTS_TOPIC: 'ev',
      KAFKA_TOPIC_PARTITIONS: '12',
      KAFKA_CLIENT_ID: '',
    });
    expect(config).toMatchObject({ brokers: ['a:1', 'b:2'], groupId: 'g', clientId: 'memotrace', partitions: 12 });
    expect(config?.topics).toEqual({ commands: 'in', results: 'out', deadLetter: 'dead', events: 'ev' });
  });

  it('refuses bad values in one line naming the variable', () => {
    expect(() => readKafkaConfig({ KAFKA_BROKERS: 'no-port' })).toThrow(/^KAFKA_BROKERS: .*host:port/);
    expect(() => readKafkaConfig({ KAFKA_BROKERS: 'a:1', KAFKA_EVENTS_TOPIC: 'bad topic!' })).toThrow(/^KAFKA_EVENTS_TOPIC: /);
    expect(() => readKafkaConfig({ KAFKA_BROKERS: 'a:1', KAFKA_TOPIC_PARTITIONS: '0' })).toThrow(/^KAFKA_TOPIC_PARTITIONS: /);
  });
});
