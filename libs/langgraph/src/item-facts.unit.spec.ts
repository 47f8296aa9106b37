import { indexedText, itemEntityId, itemFactId, putCommands } from './item-facts';

describe('item facts', () => {
  it('derives the ids from namespace and key alone, without confusing labels that join alike', () => {
    expect(itemFactId(['a', 'b'], 'k')).toBe(itemFactId(['a', 'b'], 'k'));
    expect(itemFactId(['a', 'b'], 'k')).not.toBe(itemFactId(['a/b'], 'k'));
    expect(itemFactId(['a'], 'b/k')).not.toBe(itemFactId(['a', 'b'], 'k'));
    expect(itemEntityId(['a', 'b'], 'k')).not.toBe(itemEntityId(['a/b'], 'k'));
    expect(itemEntityId(['a', 'b'], 'k')).not.toBe(itemFactId(['a', 'b'], 'k'));
  });

  it('indexes the fields asked for, the whole value as JSON for $, nothing for false', () => {
    const value = { text: 'likes pizza', chapters: [{ content: 'one' }], tags: ['x', 'y'], n: 3 };
    expect(indexedText(value, ['$'])).toBe(JSON.stringify(value));
    expect(indexedText(value, ['text', 'tags[*]'])).toBe('likes pizza\nx\ny');
    expect(indexedText(value, ['missing'])).toBe('');
    expect(indexedText(value, false)).toBe('');
  });

  it('puts the value in the version and its text in a mention named as evidence; no mention without text', () => {
    const [entity, mention, edge] = putCommands(['users', 'u1'], 'k', { text: 'likes pizza' }, ['text']);
    expect(entity).toMatchObject({ op: 'UPSERT_ENTITY', entityId: itemEntityId(['users', 'u1'], 'k'), name: 'users/u1/k' });
    expect(mention).toMatchObject({ op: 'RECORD_MENTION', text: 'likes pizza' });
    expect((mention as { docId: string }).docId).toBe((mention as { mentionId: string }).mentionId); // a document of its own
    expect(edge).toMatchObject({
      op: 'UPSERT_EDGE',
      factId: itemFactId(['users', 'u1'], 'k'),
      src: itemEntityId(['users', 'u1'], 'k'),
      dst: { literal: 'k' },
    });
    expect(edge).toMatchObject({ evidence: [(mention as { mentionId: string }).mentionId] });
    expect(JSON.parse((edge as { source: string }).source)).toEqual({ namespace: ['users', 'u1'], key: 'k', value: { text: 'likes pizza' } });
    expect(putCommands(['users', 'u1'], 'k', { text: 'likes pizza' }, false).map((c) => c.op)).toEqual(['UPSERT_ENTITY', 'UPSERT_EDGE']);
  });
});
