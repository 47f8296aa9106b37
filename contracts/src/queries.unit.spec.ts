import { zodIssuesToDetails } from './errors';
import {
  auditQuery,
  changesQuery,
  entitiesQuery,
  entityParams,
  episodesQuery,
  entityQuery,
  eventsQuery,
  exportQuery,
  factParams,
  factsQuery,
  historyQuery,
  MAX_LISTED_IDS,
  PAGE,
  memoryParams,
  mentionParams,
  mentionQuery,
  mentionsQuery,
  searchRequest,
} from './queries';

const T = '2024-05-01T11:30:00+02:00';
const TC = '2024-05-01T09:30:00.000Z';

function paths(schema: { safeParse(x: unknown): { success: boolean; error?: unknown } }, input: unknown): string[] {
  const r = schema.safeParse(input);
  if (r.success) throw new Error(`expected failure for ${JSON.stringify(input)}`);
  return zodIssuesToDetails(r.error as never).map((d) => d.path);
}

describe('facts query', () => {
  it('parses strings into values with defaults', () => {
    expect(factsQuery.parse({})).toStrictEqual({ consistency: 'projection' });
    expect(
      factsQuery.parse({ validAt: '*', recordedAt: T, src: 'alice', rel: 'works_at', dst: 'acme', consistency: 'replay', minPosition: '42' }),
    ).toStrictEqual({
      validAt: '*',
      recordedAt: TC,
      src: ['alice'],
      rel: 'works_at',
      dst: 'acme',
      consistency: 'replay',
      minPosition: 42,
    });
    expect(factsQuery.parse({ validAt: T, minPosition: '0' })).toMatchObject({ validAt: TC, minPosition: 0 });
  });

  it.each([
    [{ validAt: 'now' }, ['validAt']],
    [{ validAt: '2024-05-01T09:30:00' }, ['validAt']],
    [{ recordedAt: '*' }, ['recordedAt']],
    [{ consistency: 'eventual' }, ['consistency']],
    [{ minPosition: '-1' }, ['minPosition']],
    [{ minPosition: '1.5' }, ['minPosition']],
    [{ minPosition: '' }, ['minPosition']],
    [{ minPosition: '1e3' }, ['minPosition']],
    [{ minPosition: '99999999999999999' }, ['minPosition']],
    [{ src: '' }, ['src.0']],
    [{ dst: 'a\u0000' }, ['dst']],
    [{ src: [] }, ['src']],
    [{ src: ['a', ''] }, ['src.1']],
    [{ src: Array.from({ length: MAX_LISTED_IDS + 1 }, (_, i) => `e${i}`) }, ['src']],
    [{ rel: ['a', 'b'] }, ['rel']],
    [{ limit: '0' }, ['limit']],
    [{ limit: '1001' }, ['limit']],
    [{ after: '' }, ['after']],
    [{ offset: '10' }, ['offset']],
  ])('rejects %j', (input, expected) => {
    expect(paths(factsQuery, input)).toEqual(expected);
  });

  it('takes several src (the parameter once per id, duplicates dropped) and a page by factId', () => {
    expect(factsQuery.parse({ src: ['a', 'b', 'a'], limit: '50', after: 'f-9', include: 'entities' })).toStrictEqual({
      src: ['a', 'b'],
      limit: 50,
      after: 'f-9',
      include: ['entities'],
      consistency: 'projection',
    });
    expect(factsQuery.parse({ include: ['mentions', 'entities', 'mentions'] }).include).toEqual(['mentions', 'entities']);
    expect(paths(factsQuery, { include: 'events' })).toEqual(['include.0']);
    expect(paths(factsQuery, { include: [] })).toEqual(['include']);
    expect(factsQuery.parse({ src: Array.from({ length: MAX_LISTED_IDS }, (_, i) => `e${i}`) }).src).toHaveLength(MAX_LISTED_IDS);
  });
});

describe('events, history, entity, audit, export queries', () => {
  it('parse their parameters and reject unknown ones', () => {
    expect(eventsQuery.parse({ validAt: '*', recordedAt: T })).toStrictEqual({ validAt: '*', recordedAt: TC, consistency: 'projection' });
    expect(historyQuery.parse({ recordedAt: T })).toStrictEqual({ recordedAt: TC });
    expect(entityQuery.parse({})).toStrictEqual({});
    expect(paths(eventsQuery, { src: 'a' })).toEqual(['src']);
    expect(eventsQuery.parse({ entity: 'alice', limit: '2', after: 'ev-1' })).toStrictEqual({
      entity: 'alice',
      limit: 2,
      after: 'ev-1',
      consistency: 'projection',
    });
    expect(paths(eventsQuery, { entity: ['a', 'b'] })).toEqual(['entity']);
    expect(paths(eventsQuery, { limit: '0' })).toEqual(['limit']);
    expect(paths(historyQuery, { validAt: T })).toEqual(['validAt']);
    expect(paths(entityQuery, { recordedAt: 'yesterday' })).toEqual(['recordedAt']);
    expect(paths(auditQuery, { x: '1' })).toEqual(['x']);
    expect(paths(exportQuery, { format: 'csv' })).toEqual(['format']);
  });
});

describe('episodes and entities queries', () => {
  it('episodes: a cut and a page, 100 by default', () => {
    expect(episodesQuery.parse({})).toStrictEqual({ limit: PAGE.default, consistency: 'projection' });
    expect(episodesQuery.parse({ validAt: '*', recordedAt: T, limit: '5', after: 'ep1', consistency: 'replay' })).toStrictEqual({
      validAt: '*',
      recordedAt: TC,
      limit: 5,
      after: 'ep1',
      consistency: 'replay',
    });
    expect(paths(episodesQuery, { limit: '1001' })).toEqual(['limit']);
    expect(paths(episodesQuery, { entity: 'a' })).toEqual(['entity']);
  });

  it('entities: ids, once per id', () => {
    expect(entitiesQuery.parse({ ids: 'alice' }).ids).toEqual(['alice']);
    expect(entitiesQuery.parse({ ids: ['alice', 'bob'] }).ids).toEqual(['alice', 'bob']);
    expect(paths(entitiesQuery, { ids: ['alice', '\u0007'] })).toEqual(['ids.1']);
  });

  it('entities: include=facts on a page that src can name (at most 100 entities)', () => {
    expect(entitiesQuery.parse({ include: 'facts' })).toMatchObject({ include: 'facts', limit: PAGE.default });
    expect(entitiesQuery.parse({ include: 'facts', limit: String(MAX_LISTED_IDS) }).limit).toBe(MAX_LISTED_IDS);
    expect(paths(entitiesQuery, { include: 'facts', limit: String(MAX_LISTED_IDS + 1) })).toEqual(['limit']);
    expect(entitiesQuery.parse({ limit: String(MAX_LISTED_IDS + 1) }).limit).toBe(MAX_LISTED_IDS + 1);
    expect(paths(entitiesQuery, { include: 'entities' })).toEqual(['include']);
  });
});

describe('changes query', () => {
  it('takes a page size', () => {
    expect(changesQuery.parse({ from: T, limit: '100' })).toStrictEqual({ from: TC, limit: 100 });
    expect(paths(changesQuery, { from: T, limit: '0' })).toEqual(['limit']);
  });

  it('takes [from, to), to optional and not before from', () => {
    expect(changesQuery.parse({ from: T, to: '2024-05-02T00:00:00Z' })).toStrictEqual({ from: TC, to: '2024-05-02T00:00:00.000Z' });
    expect(changesQuery.parse({ from: T })).toStrictEqual({ from: TC });
    expect(paths(changesQuery, { to: T })).toEqual(['from']);
    expect(changesQuery.parse({ from: T, to: TC })).toStrictEqual({ from: TC, to: TC });
    expect(paths(changesQuery, { from: '2024-05-02T00:00:00Z', to: T })).toEqual(['to']);
  });
});

describe('search request', () => {
  it('defaults k to 10 and canonicalises the cut', () => {
    expect(searchRequest.parse({ query: 'where does Alice work?' })).toStrictEqual({ query: 'where does Alice work?', k: 10, tiers: ['hot'] });
    expect(searchRequest.parse({ query: 'q', validAt: '*', recordedAt: T, k: 100, tokenBudget: 600 })).toStrictEqual({
      query: 'q',
      validAt: '*',
      recordedAt: TC,
      k: 100,
      tokenBudget: 600,
      tiers: ['hot'],
    });
  });
  it.each([
    [{}, ['query']],
    [{ query: '' }, ['query']],
    [{ query: '   ' }, ['query']],
    [{ query: 'a\u0000' }, ['query']],
    [{ query: 'a\ud800' }, ['query']],
    [{ query: 'x'.repeat(65537) }, ['query']],
    [{ query: 'q', k: -1 }, ['k']],
    [{ query: 'q', k: 1001 }, ['k']],
    [{ query: 'q', k: 2.5 }, ['k']],
    [{ query: 'q', k: '10' }, ['k']],
    [{ query: 'q', tokenBudget: -1 }, ['tokenBudget']],
    [{ query: 'q', tokenBudget: 2.5 }, ['tokenBudget']],
    [{ query: 'q', validAt: 'today' }, ['validAt']],
    [{ query: 'q', filters: {} }, ['filters']],
  ])('rejects %j', (input, expected) => {
    expect(paths(searchRequest, input)).toEqual(expected);
  });
});

describe('path parameters', () => {
  it('validate memoryId and ids', () => {
    expect(memoryParams.parse({ memoryId: 'conv-26' })).toStrictEqual({ memoryId: 'conv-26' });
    expect(paths(memoryParams, { memoryId: 'Conv 26' })).toEqual(['memoryId']);
    expect(paths(factParams, { memoryId: 'm', factId: 'x'.repeat(129) })).toEqual(['factId']);
    expect(paths(entityParams, { memoryId: 'm', entityId: '\u0007' })).toEqual(['entityId']);
  });
});

describe('mentions queries', () => {
  it('a document read takes a docId, a cut, a page (limit default and after) and a consistency', () => {
    expect(mentionsQuery.parse({ docId: 'session-1' })).toStrictEqual({
      docId: 'session-1',
      limit: PAGE.default,
      consistency: 'projection',
    });
    expect(
      mentionsQuery.parse({ docId: 's', validAt: '*', recordedAt: T, limit: '1000', after: 'D1:9', consistency: 'replay', minPosition: '3' }),
    ).toStrictEqual({ docId: 's', validAt: '*', recordedAt: TC, limit: 1000, after: 'D1:9', consistency: 'replay', minPosition: 3 });
    expect(mentionsQuery.parse({ docId: 's', limit: '1' }).limit).toBe(1);
  });

  it.each([
    [{}, ['docId']],
    [{ docId: '' }, ['docId']],
    [{ docId: 's', limit: '0' }, ['limit']],
    [{ docId: 's', limit: '1001' }, ['limit']],
    [{ docId: 's', limit: '10000' }, ['limit']],
    [{ docId: 's', limit: '-1' }, ['limit']],
    [{ docId: 's', limit: '2.5' }, ['limit']],
    [{ docId: 's', after: '' }, ['after']],
    [{ docId: 's', recordedAt: '*' }, ['recordedAt']],
    [{ docId: 's', offset: '10' }, ['offset']],
  ])('a document read rejects %j', (input, expected) => {
    expect(paths(mentionsQuery, input)).toEqual(expected);
  });

  it('one mention takes a record time and a consistency, by memory and mention id', () => {
    expect(mentionQuery.parse({ recordedAt: T })).toStrictEqual({ recordedAt: TC, consistency: 'projection' });
    expect(paths(mentionQuery, { validAt: T })).toEqual(['validAt']);
    expect(mentionParams.parse({ memoryId: 'm', mentionId: 'D1:3' })).toStrictEqual({ memoryId: 'm', mentionId: 'D1:3' });
    expect(paths(mentionParams, { memoryId: 'm', mentionId: '' })).toEqual(['mentionId']);
  });
});
