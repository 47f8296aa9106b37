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

  it('names an instrument played, a book read and a title watched, a film unless it runs in episodes', () => {
    expect(pairs('Yeah, I play clarinet! Started when I was young.')).toEqual([['plays_instrument', 'clarinet']]);
    expect(pairs('I have been practicing my violin every morning.')).toEqual([['plays_instrument', 'violin']]);
    expect(pairs('I recently finished rereading "The Alchemist" - it was inspiring.')).toEqual([['read_book', 'The Alchemist']]);
    expect(pairs('I just watched “Little Women” and it was amazing!')).toEqual([['watched', 'Little Women (movie)']]);
    expect(pairs('I started watching "The Office" again, season 3 is the best.')).toEqual([['watched', 'The Office (TV series)']]);
  });

  it('names a game played by its title and whether it is played on a board or a screen', () => {
    expect(pairs('I\'m currently playing this awesome fantasy RPG called "Xenoblade Chronicles".')).toEqual([
      ['plays_game', 'Xenoblade Chronicles (video game)'],
    ]);
    expect(pairs('We played the board game "Catan" last night.')).toEqual([['plays_game', 'Catan (board game)']]);
  });

  it('names a place went to as a place entity, and an event attended or a group joined as a kind', () => {
    expect(pairs('I snapped that pic on my trip to the Smoky Mountains last year.')).toEqual([['visited', 'Smoky Mountains']]);
    expect(pairs('Last week I went to an LGBTQ+ pride parade.')).toEqual([['attended_event', 'lgbtq+ pride parade']]);
    expect(pairs('I just joined a new LGBTQ activist group last Tuesday.')).toEqual([['joined', 'new lgbtq activist group']]);
  });

  it('names a country, a city or a state a trip went to by its kind, wherever the sentence names it', () => {
    expect(pairs('I took a short trip to Rome to clear my mind.')).toEqual([['visited_city', 'Rome']]);
    expect(pairs('Last year I took a solo trip and took this pic in Spain.')).toEqual([['visited_country', 'Spain']]);
    expect(pairs('I went to a castle during my trip to the UK last Friday!')).toEqual([['visited_country', 'UK']]);
    expect(pairs('I just got back from Paris, France!')).toEqual([
      ['visited_country', 'France'],
      ['visited_city', 'Paris'],
    ]);
    expect(pairs('I live in Texas and went to Ohio last week.')).toEqual([['visited_state_or_region', 'Ohio']]);
  });

  it('names no visit in a wish, a plan, a move or a home town', () => {
    expect(pairs('I want to go to Japan someday.')).toEqual([]);
    expect(pairs("I'm going to Boston next month.")).toEqual([]);
    expect(pairs('I moved from Sweden to Boston four years ago.')).toEqual([]);
    expect(pairs("I'm from Sweden and those pics remind me of it.")).toEqual([]);
  });

  it('names nothing in a question, a negation, or a sentence not in the first person', () => {
    expect(pairs('Have you ever gone camping?')).toEqual([]);
    expect(pairs("I don't play guitar anymore.")).toEqual([]);
    expect(pairs('She loves swimming and went to Paris.')).toEqual([]);
    expect(pairs('I went to The beach.')).toEqual([]);
  });
});
