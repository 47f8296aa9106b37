import { AccessControl, hashApiKey, parseApiKeys } from '@memotrace/http-kit';
import { type CommandMessage, assignedCommandId, readCommandMessage } from './command-message';
import { deadLetter, refusalResults, sourceOf } from './messages';
import { PositionFilter } from './position-filter';

const open = new AccessControl([]);
const message = (key: string | null, value: unknown, headers: CommandMessage['headers'] = {}): CommandMessage => ({
  topic: 'memotrace.commands',
  partition: 2,
  offset: '41',
  key: key === null ? null : Buffer.from(key),
  value: value === null ? null : Buffer.from(typeof value === 'string' ? value : JSON.stringify(value)),
  headers,
});
const entity = { op: 'UPSERT_ENTITY', commandId: 'c-1', entityId: 'alice', name: 'Alice' };

describe('reading a command message (same contract as POST .../commands)', () => {
  it('accepts a batch keyed by memory, or one command', () => {
    const batch = readCommandMessage(message('mem-1', { commands: [entity] }), open);
    expect(batch).toMatchObject({ ok: true, memoryId: 'mem-1', commands: [{ op: 'UPSERT_ENTITY', commandId: 'c-1' }] });
    expect(readCommandMessage(message('mem-1', entity), open)).toEqual(batch);
    expect(readCommandMessage(message(null, { memoryId: 'mem-1', commands: [entity] }), open)).toEqual(batch);
  });

  it('gives a command without commandId one derived from its place in the topic, the same on redelivery', () => {
    const { commandId: _omitted, ...anonymous } = entity;
    const first = readCommandMessage(message('mem-1', { commands: [anonymous, anonymous] }), open);
    const again = readCommandMessage(message('mem-1', { commands: [anonymous, anonymous] }), open);
    if (!first.ok || !again.ok) throw new Error('expected accepted batches');
    expect(first.commands.map((c) => c.commandId)).toEqual(again.commands.map((c) => c.commandId));
    expect(first.commands[0]!.commandId).toBe(assignedCommandId({ topic: 'memotrace.commands', partition: 2, offset: '41' }, 0));
    expect(first.commands[0]!.commandId).not.toBe(first.commands[1]!.commandId);
  });

  it.each([
    ['no value', message('mem-1', null), /empty message/],
    ['bad JSON', message('mem-1', '{"commands": ['), /not valid JSON/],
    [
      'bad UTF-8',
      { ...message('mem-1', null), value: Buffer.from([...Buffer.from('{"op":"UPSERT_ENTITY","name":"Ren'), 0xe9, ...Buffer.from('e"}')]) },
      /not valid UTF-8/,
    ],
    ['an array', message('mem-1', [entity]), /must be a JSON object/],
    ['neither commands nor op', message('mem-1', { hello: 1 }), /"commands".*"op"/],
    ['no memory id', message(null, entity), /no memory id/],
    ['a bad memory id', message('Bad Memory', entity), /invalid memory id/],
    ['key and value disagree', message('mem-1', { memoryId: 'mem-2', commands: [entity] }), /differs from the message key/],
    ['an unknown op', message('mem-1', { commands: [{ op: 'DROP_TABLE', commandId: 'c-9' }] }), /invalid commands/],
    ['an unknown field', message('mem-1', { commands: [{ ...entity, extra: true }] }), /invalid commands/],
    ['an empty batch', message('mem-1', { commands: [] }), /invalid commands/],
    ['a polluting key', message('mem-1', '{"commands": [], "__proto__": {"x": 1}}'), /invalid commands/],
  ])('refuses %s as INVALID_REQUEST, for the dead-letter topic', (_name, input, reason) => {
    const read = readCommandMessage(input, open);
    expect(read).toMatchObject({ ok: false, code: 'INVALID_REQUEST', deadLetter: true });
    if (!read.ok) expect(read.message).toMatch(reason);
  });

  it('locates zod problems per field, and remembers the commandIds it was sent', () => {
    const read = readCommandMessage(message('mem-1', { commands: [entity, { ...entity, commandId: 'c-2', name: 42 }] }), open);
    expect(read).toMatchObject({ ok: false, commandIds: ['c-1', 'c-2'], details: [{ path: 'commands.1.name' }] });
  });
});

describe('access control: the bearer token in the authorization header', () => {
  const keys = parseApiKeys(
    JSON.stringify([
      { id: 'agent-a', hash: hashApiKey('mt_a'), memories: ['mem-a'], access: 'write' },
      { id: 'reader-a', hash: hashApiKey('mt_ra'), memories: ['mem-a'], access: 'read' },
      { id: 'dpo-a', hash: hashApiKey('mt_admin'), memories: ['mem-a'], access: 'admin' },
    ]),
  );
  const access = new AccessControl(keys);
  const bearer = (token: string) => ({ authorization: Buffer.from(`Bearer ${token}`) });

  it('makes the key the actor of every command', () => {
    const read = readCommandMessage(message('mem-a', { ...entity, actor: 'someone-else' }, bearer('mt_a')), access);
    expect(read).toMatchObject({ ok: true, principal: 'agent-a', commands: [{ actor: 'agent-a' }] });
    expect(readCommandMessage(message('mem-a', entity, { Authorization: 'Bearer mt_a' }), access)).toMatchObject({ ok: true });
  });

  it('refuses another memory or a read-only key with FORBIDDEN (an error result, not a dead letter)', () => {
    expect(readCommandMessage(message('mem-b', entity, bearer('mt_a')), access)).toMatchObject({
      ok: false,
      code: 'FORBIDDEN',
      deadLetter: false,
      memoryId: 'mem-b',
    });
    expect(readCommandMessage(message('mem-a', entity, bearer('mt_ra')), access)).toMatchObject({ ok: false, code: 'FORBIDDEN' });
  });

  it('refuses a batch with an ERASE unless the key is an admin key: the whole batch, as a FORBIDDEN error result', () => {
    const erase = { op: 'ERASE', commandId: 'c-2', subject: { entityId: 'alice' }, reason: 'data subject request' };
    expect(readCommandMessage(message('mem-a', { commands: [entity, erase] }, bearer('mt_a')), access)).toMatchObject({
      ok: false,
      code: 'FORBIDDEN',
      deadLetter: false,
      memoryId: 'mem-a',
      commandIds: ['c-1', 'c-2'],
    });
    const refused = readCommandMessage(message('mem-a', erase, bearer('mt_a')), access);
    if (refused.ok) throw new Error('expected a refusal');
    expect(refused.message).toMatch(/admin/);
    expect(readCommandMessage(message('mem-a', { commands: [entity, erase] }, bearer('mt_admin')), access)).toMatchObject({
      ok: true,
      principal: 'dpo-a',
      commands: [{ op: 'UPSERT_ENTITY' }, { op: 'ERASE', actor: 'dpo-a' }],
    });
    // Without keys configured, everything is allowed.
    expect(readCommandMessage(message('mem-a', erase), open)).toMatchObject({ ok: true });
  });

  it('refuses a missing or invalid key with UNAUTHORIZED, before reading the commands', () => {
    expect(readCommandMessage(message('mem-a', entity), access)).toMatchObject({ ok: false, code: 'UNAUTHORIZED', deadLetter: true });
    expect(readCommandMessage(message('mem-a', { commands: 'junk' }, bearer('mt_nope')), access)).toMatchObject({ ok: false, code: 'UNAUTHORIZED' });
  });

  it('keeps the token out of the dead letter', () => {
    const input = message('mem-a', entity, { ...bearer('mt_nope'), 'x-trace': 't-1' });
    const read = readCommandMessage(input, access);
    if (read.ok) throw new Error('expected a refusal');
    const letter = deadLetter(input, read);
    expect(Object.keys(letter.headers ?? {})).toEqual(['x-trace', 'dlq-code', 'dlq-reason']);
    expect(JSON.parse(String(letter.value))).toMatchObject({
      code: 'UNAUTHORIZED',
      payload: JSON.stringify(entity),
      source: { partition: 2, offset: '41', key: 'mem-a' },
    });
    expect(refusalResults(read, sourceOf(input)).map((m) => m.key)).toEqual(['c-1']);
  });
});

describe('PositionFilter (consumers of the events topic)', () => {
  it('drops repeats per memory, keeps everything new', () => {
    const filter = new PositionFilter();
    const seen = [
      { memoryId: 'a', position: 1 },
      { memoryId: 'b', position: 2 },
      { memoryId: 'a', position: 3 },
      { memoryId: 'a', position: 1 }, // the relay re-sent its last batch after a crash
      { memoryId: 'a', position: 3 },
      { memoryId: 'b', position: 2 },
      { memoryId: 'a', position: 4 },
    ].filter((e) => filter.accept(e));
    expect(seen.map((e) => e.position)).toEqual([1, 2, 3, 4]);
    expect(filter.snapshot()).toEqual(
      new Map([
        ['a', 4],
        ['b', 2],
      ]),
    );
  });
});
