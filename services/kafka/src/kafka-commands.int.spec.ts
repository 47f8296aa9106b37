import { hashApiKey, parseApiKeys } from '@memotrace/http-kit';
import { type TestService, startTestService } from '@memotrace/memotrace/testing';
import type { KafkaConfig } from '@memotrace/runtime';
import type { Kafka, Producer } from 'kafkajs';
import { type ReadMessage, TopicReader, describeWithKafka, testKafka, testKafkaConfig, testProducer } from './testing/kafka-test-kit';

/** Issue 3 (commands in) and issue 6 (access control through Kafka), against a real broker. */

const at = (day: number) => `2024-05-0${day}T09:00:00Z`;
const story = (prefix: string) => [
  { op: 'UPSERT_ENTITY', commandId: `${prefix}-1`, entityId: 'alice', name: 'Alice', recordedAt: at(6) },
  { op: 'UPSERT_ENTITY', commandId: `${prefix}-2`, entityId: 'acme', name: 'Acme', recordedAt: at(6) },
  { op: 'DEFINE_RELATION', commandId: `${prefix}-3`, rel: 'works_at', cardinality: 'one', recordedAt: at(6) },
  {
    op: 'UPSERT_EDGE',
    commandId: `${prefix}-4`,
    factId: 'alice-acme',
    src: 'alice',
    rel: 'works_at',
    dst: 'acme',
    validFrom: '2024-05-06T00:00:00Z',
    recordedAt: at(6),
    actor: 'hr-agent',
  },
];

const resultsFor = (reader: TopicReader, config: KafkaConfig, commandId: string) =>
  reader.on(config.topics.results).filter((m) => m.key === commandId);
const withoutSource = ({ source: _source, memoryId: _memoryId, position: _position, ...rest }: any) => rest;

describeWithKafka('Kafka commands in (no API keys)', () => {
  let config: KafkaConfig;
  let svc: TestService;
  let kafka: Kafka;
  let producer: Producer;
  let reader: TopicReader;

  beforeAll(async () => {
    config = testKafkaConfig();
    svc = await startTestService({ kafka: config });
    kafka = testKafka(config);
    producer = await testProducer(kafka);
    reader = await TopicReader.start(kafka, [config.topics.results, config.topics.deadLetter]);
  });
  afterAll(async () => {
    await reader?.stop();
    await producer?.disconnect();
    await svc?.stop();
  });

  const send = (key: string | null, value: unknown, headers?: Record<string, string>) =>
    producer.send({
      topic: config.topics.commands,
      acks: -1,
      messages: [{ key, value: typeof value === 'string' ? value : JSON.stringify(value), ...(headers ? { headers } : {}) }],
    });

  it('applies a batch exactly as HTTP does: same results, same log', async () => {
    const overHttp = await svc.commands('via-http', story('s'));
    expect(overHttp.status).toBe(200);
    await send('via-kafka', { commands: story('s') });
    await reader.waitFor(() => story('s').every((c) => resultsFor(reader, config, c.commandId).length > 0), 'the four results');
    const overKafka = story('s').map((c) => resultsFor(reader, config, c.commandId)[0]!.value);
    expect(overKafka.map(withoutSource)).toEqual(overHttp.body.results);
    expect(overKafka.every((r: any) => r.memoryId === 'via-kafka' && r.position > 0)).toBe(true);
    const exported = async (memoryId: string) => (await svc.get(`/v1/memories/${memoryId}/export`)).text;
    expect(await exported('via-kafka')).toBe(await exported('via-http'));
  });

  it('answers a repeated commandId with duplicate and writes nothing', async () => {
    await send('dup', { op: 'UPSERT_ENTITY', commandId: 'dup-1', entityId: 'bob', name: 'Bob' });
    await reader.waitFor(() => resultsFor(reader, config, 'dup-1').length === 1, 'the first result');
    const before = (await svc.get('/v1/memories/dup/export')).text;
    await send('dup', { memoryId: 'dup', commands: [{ op: 'UPSERT_ENTITY', commandId: 'dup-1', entityId: 'bob', name: 'Bob' }] });
    await reader.waitFor(() => resultsFor(reader, config, 'dup-1').length === 2, 'the second result');
    const [first, second] = resultsFor(reader, config, 'dup-1').map((m) => m.value);
    expect(first).toMatchObject({ status: 'applied', memoryId: 'dup' });
    expect(second).toMatchObject({ status: 'duplicate', recordedAt: first.recordedAt, ids: first.ids });
    expect((await svc.get('/v1/memories/dup/export')).text).toBe(before);
    // And HTTP sees the same idempotency record.
    const overHttp = await svc.commands('dup', [{ op: 'UPSERT_ENTITY', commandId: 'dup-1', entityId: 'bob', name: 'Bob' }]);
    expect(overHttp.body.results[0]).toMatchObject({ status: 'duplicate', recordedAt: first.recordedAt });
  });

  it('publishes a domain error as an error result, keeps the batch atomic', async () => {
    await send('errs', {
      commands: [
        { op: 'UPSERT_ENTITY', commandId: 'e-1', entityId: 'carol', name: 'Carol' },
        { op: 'ARCHIVE_EDGE', commandId: 'e-2', factId: 'nope' },
      ],
    });
    await reader.waitFor(() => resultsFor(reader, config, 'e-1').length > 0 && resultsFor(reader, config, 'e-2').length > 0, 'the error results');
    const overHttp = await svc.commands('errs-http', [
      { op: 'UPSERT_ENTITY', commandId: 'e-1', entityId: 'carol', name: 'Carol' },
      { op: 'ARCHIVE_EDGE', commandId: 'e-2', factId: 'nope' },
    ]);
    for (const id of ['e-1', 'e-2']) {
      expect(resultsFor(reader, config, id)[0]!.value).toMatchObject({ status: 'error', memoryId: 'errs', error: overHttp.body.error });
    }
    // Nothing of the batch was written, so the memory never came to exist.
    const exported = await svc.get('/v1/memories/errs/export');
    expect([exported.status, exported.body.error?.code]).toEqual([404, 'UNKNOWN_MEMORY']);
  });

  it('sends malformed messages to the dead-letter topic with the reason, and keeps consuming', async () => {
    const malformed: [string | null, string][] = [
      ['dlq', '{not json'],
      ['dlq', JSON.stringify({ commands: [{ op: 'NOPE', commandId: 'bad-op' }] })],
      ['Not A Memory!', JSON.stringify({ op: 'UPSERT_ENTITY', commandId: 'bad-mem', name: 'X' })],
      [null, JSON.stringify({ op: 'UPSERT_ENTITY', name: 'no memory id' })],
      ['dlq', JSON.stringify([1, 2, 3])],
    ];
    for (const [key, value] of malformed) await send(key, value, { 'x-trace': 'keep-me' });
    await send('dlq', { op: 'UPSERT_ENTITY', commandId: 'after-dlq', entityId: 'dave', name: 'Dave' });
    await reader.waitFor(
      () =>
        ['after-dlq', 'bad-op', 'bad-mem'].every((id) => resultsFor(reader, config, id).length > 0) &&
        reader.on(config.topics.deadLetter).length >= malformed.length,
      'the command after the malformed ones, and the dead letters',
    );
    expect(resultsFor(reader, config, 'after-dlq')[0]!.value).toMatchObject({ status: 'applied' });

    const letters = reader.on(config.topics.deadLetter);
    expect(letters).toHaveLength(malformed.length);
    expect(letters.map((l) => l.value.payload).sort()).toEqual(malformed.map(([, v]) => v).sort());
    for (const letter of letters) {
      expect(letter.value).toMatchObject({ code: 'INVALID_REQUEST', reason: expect.any(String), source: { topic: config.topics.commands } });
      expect(letter.headers).toMatchObject({ 'x-trace': 'keep-me', 'dlq-code': 'INVALID_REQUEST' });
    }
    const unknownOp = letters.find((l) => l.value.payload.includes('NOPE'))!;
    expect(unknownOp.value.details).toEqual(expect.arrayContaining([expect.objectContaining({ path: expect.stringContaining('commands.0') })]));
    // A sender who named a commandId hears about the refusal on the results topic too.
    expect(resultsFor(reader, config, 'bad-op')[0]!.value).toMatchObject({ status: 'error', error: { code: 'INVALID_REQUEST' } });
    expect(resultsFor(reader, config, 'bad-mem')[0]!.value).toMatchObject({ status: 'error', error: { code: 'INVALID_REQUEST' } });
  });

  it("keeps each memory's commands in order (one key, one partition)", async () => {
    const count = 60;
    const messages = [];
    for (let i = 0; i < count; i++) {
      for (const memory of ['order-a', 'order-b']) {
        // Each command depends on the one before: an edge to the entity the previous message created.
        const commands: unknown[] = [{ op: 'UPSERT_ENTITY', commandId: `${memory}-e${i}`, entityId: `n${i}`, name: `N${i}` }];
        if (i === 0) commands.push({ op: 'DEFINE_RELATION', commandId: `${memory}-rel`, rel: 'next', cardinality: 'many' });
        else commands.push({ op: 'UPSERT_EDGE', commandId: `${memory}-x${i}`, src: `n${i - 1}`, rel: 'next', dst: `n${i}` });
        messages.push({ key: memory, value: JSON.stringify({ commands }) });
      }
    }
    await producer.send({ topic: config.topics.commands, acks: -1, messages });
    // Results are keyed by commandId, so they arrive over several partitions: wait for all of them.
    const resultsOf = (memory: string) => reader.on(config.topics.results).filter((m) => m.value.memoryId === memory);
    await reader.waitFor(() => resultsOf('order-a').length >= 2 * count && resultsOf('order-b').length >= 2 * count, 'every result', 60_000);
    for (const memory of ['order-a', 'order-b']) {
      const mine = resultsOf(memory);
      expect(mine.every((m) => m.value.status === 'applied')).toBe(true);
      expect(mine).toHaveLength(2 * count);
      // Applied in the order sent: the log positions grow with the message index.
      const positions = Array.from({ length: count }, (_, i) => resultsFor(reader, config, `${memory}-e${i}`)[0]!.value.position);
      expect(positions).toEqual([...positions].sort((x, y) => x - y));
      expect(new Set(mine.map((m) => m.value.source.partition)).size).toBe(1);
    }
  });
});

describeWithKafka('Kafka commands in, with API keys (bearer token in the authorization header)', () => {
  const TOKENS = { a: 'mt_kafka-key-for-a', b: 'mt_kafka-key-for-b', aRead: 'mt_kafka-read-key-for-a' };
  const keys = parseApiKeys(
    JSON.stringify([
      { id: 'agent-a', hash: hashApiKey(TOKENS.a), memories: ['mem-a'], access: 'write' },
      { id: 'reader-a', hash: hashApiKey(TOKENS.aRead), memories: ['mem-a'], access: 'read' },
      { id: 'agent-b', hash: hashApiKey(TOKENS.b), memories: ['mem-b'], access: 'write' },
    ]),
  );
  let config: KafkaConfig;
  let svc: TestService;
  let producer: Producer;
  let reader: TopicReader;
  const exportOf = async (memoryId: string, token: string) =>
    (await fetch(`${svc.url}/v1/memories/${memoryId}/export`, { headers: { authorization: `Bearer ${token}` } })).text();
  const send = (key: string, value: unknown, token?: string) =>
    producer.send({
      topic: config.topics.commands,
      acks: -1,
      messages: [{ key, value: JSON.stringify(value), ...(token !== undefined ? { headers: { authorization: `Bearer ${token}` } } : {}) }],
    });
  const entity = (commandId: string, entityId: string) => ({ op: 'UPSERT_ENTITY', commandId, entityId, name: entityId, actor: 'claimed-by-client' });
  const result = (commandId: string): ReadMessage | undefined => resultsFor(reader, config, commandId)[0];

  beforeAll(async () => {
    config = testKafkaConfig();
    svc = await startTestService({ kafka: config, apiKeys: keys });
    const kafka = testKafka(config);
    producer = await testProducer(kafka);
    reader = await TopicReader.start(kafka, [config.topics.results, config.topics.deadLetter]);
    await send('mem-b', entity('b-1', 'bob'), TOKENS.b);
    await reader.waitFor(() => result('b-1') !== undefined, 'b-1');
  });
  afterAll(async () => {
    await reader?.stop();
    await producer?.disconnect();
    await svc?.stop();
  });

  it('records the key as the actor, whatever the command claims', async () => {
    await send('mem-a', entity('a-1', 'alice'), TOKENS.a);
    await reader.waitFor(() => result('a-1') !== undefined, 'a-1');
    expect(result('a-1')!.value).toMatchObject({ status: 'applied' });
    expect(JSON.parse((await exportOf('mem-a', TOKENS.a)).trim().split('\n')[0]!)).toMatchObject({ commandId: 'a-1', actor: 'agent-a' });
  });

  it('a key for memory A cannot write memory B; an invalid or missing key changes nothing', async () => {
    const before = await exportOf('mem-b', TOKENS.b);
    await send('mem-b', entity('a-into-b', 'mallory'), TOKENS.a);
    await send('mem-b', { memoryId: 'mem-b', commands: [entity('read-only', 'mallory')] }, TOKENS.aRead);
    await send('mem-b', entity('forged', 'mallory'), 'mt_not-a-key');
    await send('mem-b', entity('anonymous', 'mallory'));
    await reader.waitFor(
      () =>
        ['a-into-b', 'read-only', 'forged', 'anonymous'].every((id) => result(id) !== undefined) && reader.on(config.topics.deadLetter).length >= 2,
      'four refusals, two dead letters',
    );
    expect(result('a-into-b')!.value).toMatchObject({ status: 'error', memoryId: 'mem-b', error: { code: 'FORBIDDEN' } });
    expect(result('read-only')!.value).toMatchObject({ status: 'error', error: { code: 'FORBIDDEN' } });
    expect(result('forged')!.value).toMatchObject({ status: 'error', error: { code: 'UNAUTHORIZED' } });
    expect(result('anonymous')!.value).toMatchObject({ status: 'error', error: { code: 'UNAUTHORIZED' } });
    // Unauthenticated messages are dead letters too, without the token.
    const letters = reader.on(config.topics.deadLetter);
    expect(letters.map((l) => l.value.code).sort()).toEqual(['UNAUTHORIZED', 'UNAUTHORIZED']);
    expect(letters.every((l) => l.headers['authorization'] === undefined)).toBe(true);
    expect(await exportOf('mem-b', TOKENS.b)).toBe(before);
  });
});
