import type { MatchCondition } from '@langchain/langgraph-checkpoint';
import { compareNamespaces, hasPrefix, listNamespaces, matchesCondition } from './namespaces';

describe('namespaces', () => {
  const held = [['users', 'u1', 'memories'], ['users', 'u1', 'prefs'], ['users', 'u2', 'memories'], ['docs', 'v1'], ['docs']];

  it('prefixes are whole labels', () => {
    expect(hasPrefix(['users', 'u10'], ['users', 'u1'])).toBe(false);
    expect(hasPrefix(['users', 'u1', 'x'], ['users', 'u1'])).toBe(true);
    expect(hasPrefix(['users'], [])).toBe(true);
    expect(hasPrefix(['users'], ['users', 'u1'])).toBe(false);
  });

  it('matches prefix and suffix conditions, * standing for any one label', () => {
    expect(matchesCondition(['users', 'u1', 'memories'], { matchType: 'suffix', path: ['memories'] })).toBe(true);
    expect(matchesCondition(['users', 'u1', 'memories'], { matchType: 'prefix', path: ['users', '*', 'memories'] })).toBe(true);
    expect(matchesCondition(['users', 'u1', 'memories'], { matchType: 'suffix', path: ['*', 'u1', 'memories'] })).toBe(true);
    expect(matchesCondition(['users', 'u1', 'memories'], { matchType: 'suffix', path: ['u1'] })).toBe(false);
    expect(matchesCondition(['docs'], { matchType: 'prefix', path: ['docs', '*'] })).toBe(false);
  });

  it('sorts label by label, a namespace before those under it', () => {
    expect([['b'], ['a', 'z'], ['a'], ['a', 'b']].sort(compareNamespaces)).toEqual([['a'], ['a', 'b'], ['a', 'z'], ['b']]);
  });

  it('lists distinct namespaces under every condition, cut to maxDepth, one page at a time', () => {
    expect(listNamespaces(held, { limit: 100, offset: 0 })).toEqual([
      ['docs'],
      ['docs', 'v1'],
      ['users', 'u1', 'memories'],
      ['users', 'u1', 'prefs'],
      ['users', 'u2', 'memories'],
    ]);
    expect(listNamespaces(held, { limit: 100, offset: 0, maxDepth: 2 })).toEqual([['docs'], ['docs', 'v1'], ['users', 'u1'], ['users', 'u2']]);
    const memories: MatchCondition = { matchType: 'suffix', path: ['memories'] };
    expect(listNamespaces(held, { limit: 100, offset: 0, matchConditions: [{ matchType: 'prefix', path: ['users'] }, memories] })).toEqual([
      ['users', 'u1', 'memories'],
      ['users', 'u2', 'memories'],
    ]);
    expect(listNamespaces(held, { limit: 2, offset: 1 })).toEqual([
      ['docs', 'v1'],
      ['users', 'u1', 'memories'],
    ]);
  });
});
