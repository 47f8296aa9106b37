import { matchCategories } from './categories';

const pairs = (clause: string) => matchCategories(clause).map((m) => [m.rel, m.literal]);

describe('kinds of thing a clause about the speaker names', () => {
  it('names an instrument played, a book read and a title watched, a film unless it runs in episodes', () => {
    expect(pairs('Yeah, I play clarinet!')).toEqual([['plays_instrument', 'clarinet']]);
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

  it('names nothing in a question or a negation', () => {
    expect(pairs('Have you ever played "Catan"?')).toEqual([]);
    expect(pairs("I don't play guitar anymore.")).toEqual([]);
  });
});
