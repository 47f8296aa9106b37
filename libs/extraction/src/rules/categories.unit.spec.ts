import { matchCategories } from './categories';

const pairs = (sentence: string) => matchCategories(sentence).map((m) => [m.rel, 'entity' in m.dst ? m.dst.entity : m.dst.literal]);

describe('kinds of thing a first-person sentence names', () => {
  it('names the activities the speaker does, each once, with the kind a question may ask for them by', () => {
    expect(pairs("I'm off to go swimming with the kids, then camping and more swimming.")).toEqual([
      ['does_activity', 'swimming (sport)'],
      ['does_activity', 'camping (outdoor activity)'],
    ]);
    expect(pairs("We went rock climbing last weekend, and I'm doing kickboxing.")).toEqual([
      ['does_activity', 'rock climbing (outdoor activity)'],
      ['does_activity', 'kickboxing (martial art)'],
    ]);
  });

  it('names an instrument played, a book read and a title watched', () => {
    expect(pairs('Yeah, I play clarinet! Started when I was young.')).toEqual([['plays_instrument', 'clarinet']]);
    expect(pairs('I have been practicing my violin every morning.')).toEqual([['plays_instrument', 'violin']]);
    expect(pairs('I recently finished rereading "The Alchemist" - it was inspiring.')).toEqual([['read_book', 'The Alchemist']]);
    expect(pairs('I just watched “Little Women” and it was amazing!')).toEqual([['watched', 'Little Women']]);
  });

  it('names a place went to as a place entity, and an event attended or a group joined as a kind', () => {
    expect(pairs('I took a short trip to Rome to clear my mind.')).toEqual([['visited', 'Rome']]);
    expect(pairs('Last week I went to an LGBTQ+ pride parade.')).toEqual([['attended_event', 'lgbtq+ pride parade']]);
    expect(pairs('I just joined a new LGBTQ activist group last Tuesday.')).toEqual([['joined', 'new lgbtq activist group']]);
  });

  it('names nothing in a question, a negation, or a sentence not in the first person', () => {
    expect(pairs('Have you ever gone camping?')).toEqual([]);
    expect(pairs("I don't play guitar anymore.")).toEqual([]);
    expect(pairs('She loves swimming and went to Paris.')).toEqual([]);
    expect(pairs('I went to The beach.')).toEqual([]);
  });
});
