import { ENTITY_HUB, ItemGraph, expand } from './expand';
import type { Candidate } from './items';
import { itemKey } from './recall-backend';

const T = '2024-05-06T09:00:00.000Z';
const mention = (id: string, docId = 'chat'): Candidate => ({ kind: 'mention', id, text: id, recordedFrom: T, evidence: [], docId });
const fact = (id: string, entities: string[], evidence: string[] = []): Candidate => ({
  kind: 'fact',
  id,
  text: id,
  recordedFrom: T,
  evidence: evidence.map((m) => ({ kind: 'mention', id: m })),
  entities,
});
const event = (id: string, facts: string[], entities: string[]): Candidate => ({
  kind: 'event',
  id,
  text: id,
  recordedFrom: T,
  evidence: facts.map((f) => ({ kind: 'fact', id: f })),
  entities,
});
const key = (kind: string, id: string) => itemKey({ kind, id });
const options = { seeds: 1, depth: 1, fanOut: 4, decay: 0.5, earlierTurnFactor: 1, citationFactor: 1 };

describe('graph expansion', () => {
  it('reaches the neighbouring turns of a retrieved mention, in natural id order (D1:9 < D1:10)', () => {
    const graph = new ItemGraph([mention('D1:8'), mention('D1:9'), mention('D1:10'), mention('D1:11'), mention('D2:10', 'other')]);
    const out = expand(new Map([[key('mention', 'D1:10'), 1]]), graph, options);
    expect([...out.keys()].sort()).toEqual([key('mention', 'D1:10'), key('mention', 'D1:11'), key('mention', 'D1:9')].sort());
    expect(out.get(key('mention', 'D1:9'))).toBe(0.5);
  });

  it('follows includes_fact, evidence, and entity links, from the best seeds only', () => {
    const graph = new ItemGraph([
      event('ev', ['f1'], ['alice']),
      fact('f1', ['alice', 'acme'], ['m1']),
      fact('f2', ['acme']),
      mention('m1'),
      mention('m9', 'far'),
    ]);
    const fromEvent = expand(new Map([[key('event', 'ev'), 1]]), graph, options);
    expect(fromEvent.has(key('fact', 'f1'))).toBe(true); // includes_fact
    const fromFact = expand(
      new Map([
        [key('fact', 'f1'), 1],
        [key('mention', 'm9'), 0.1],
      ]),
      graph,
      options,
    );
    expect(fromFact.has(key('mention', 'm1'))).toBe(true); // evidence
    expect(fromFact.has(key('event', 'ev'))).toBe(true); // included by
    expect(fromFact.has(key('fact', 'f2'))).toBe(true); // same entity acme
    expect(fromFact.size).toBe(5); // m9 was no seed: nothing reached from it
  });

  it('caps depth and fan-out', () => {
    const turns = Array.from({ length: 9 }, (_, i) => mention(`D1:${i + 1}`));
    const graph = new ItemGraph(turns);
    const deep = expand(new Map([[key('mention', 'D1:5'), 1]]), graph, { ...options, depth: 2 });
    expect(deep.size).toBe(5); // D1:3..D1:7
    expect(deep.get(key('mention', 'D1:3'))).toBe(0.25);
    const shared = new ItemGraph([fact('hub', ['x']), ...Array.from({ length: 10 }, (_, i) => fact(`f${i}`, ['x']))]);
    expect(expand(new Map([[key('fact', 'hub'), 1]]), shared, { ...options, fanOut: 3 }).size).toBe(4);
  });

  it('links no item through an entity that more than ENTITY_HUB items name (a speaker names most facts)', () => {
    const named = (n: number) => Array.from({ length: n }, (_, i) => fact(`f${i}`, ['maya', ...(i === 0 ? ['luna'] : [])]));
    const hub = new ItemGraph([...named(ENTITY_HUB + 1), fact('pet', ['luna'])]);
    expect(hub.neighbours(key('fact', 'f0'), 4)).toEqual([key('fact', 'pet')]); // through luna only
    expect(hub.neighbours(key('fact', 'f1'), 4)).toEqual([]);
    const linked = new ItemGraph(named(ENTITY_HUB));
    expect(linked.neighbours(key('fact', 'f1'), 4)).toEqual([key('fact', 'f0'), key('fact', 'f2'), key('fact', 'f3'), key('fact', 'f4')]);
  });

  it('scores the turn before lower than the turn after (a reply carries the answer), per step back', () => {
    const graph = new ItemGraph([mention('D1:8'), mention('D1:9'), mention('D1:10'), mention('D1:11'), mention('D1:12')]);
    const out = expand(new Map([[key('mention', 'D1:10'), 1]]), graph, { ...options, depth: 2, earlierTurnFactor: 0.8 });
    expect(out.get(key('mention', 'D1:11'))).toBe(0.5);
    expect(out.get(key('mention', 'D1:12'))).toBe(0.25);
    expect(out.get(key('mention', 'D1:9'))).toBeCloseTo(0.4, 12);
    expect(out.get(key('mention', 'D1:8'))).toBeCloseTo(0.16, 12);
    // Links other than turn order are not turns: an evidence mention keeps the plain decay.
    const linked = new ItemGraph([fact('f1', ['alice'], ['m1']), mention('m1')]);
    expect(expand(new Map([[key('fact', 'f1'), 1]]), linked, { ...options, earlierTurnFactor: 0.8 }).get(key('mention', 'm1'))).toBe(0.5);
  });

  it('scales the link between a fact and a turn it cites, either way, by citationFactor (0: no link)', () => {
    const graph = new ItemGraph([fact('f1', ['alice'], ['m1']), mention('m1')]);
    const from = (seed: string, citationFactor: number) => expand(new Map([[seed, 1]]), graph, { ...options, citationFactor });
    expect(from(key('fact', 'f1'), 0.4).get(key('mention', 'm1'))).toBeCloseTo(0.2, 12);
    expect(from(key('mention', 'm1'), 0.4).get(key('fact', 'f1'))).toBeCloseTo(0.2, 12);
    expect(from(key('fact', 'f1'), 0).has(key('mention', 'm1'))).toBe(false);
    expect(from(key('mention', 'm1'), 0).has(key('fact', 'f1'))).toBe(false);
  });

  it('keeps the higher score: a direct hit is never lowered by expansion', () => {
    const graph = new ItemGraph([mention('D1:1'), mention('D1:2')]);
    const out = expand(
      new Map([
        [key('mention', 'D1:1'), 1],
        [key('mention', 'D1:2'), 0.9],
      ]),
      graph,
      { ...options, seeds: 2 },
    );
    expect(out.get(key('mention', 'D1:2'))).toBe(0.9);
  });
});
