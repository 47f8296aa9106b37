import { normalise } from './tokens';
import type { CanonicalRelation } from '../relations';

type Relation = CanonicalRelation;

/**
 * What kind of thing a clause about the speaker names: an instrument they play, a title they read,
 * watched or played. The relation's name carries the kind, and a title's object its own kind ("Joanna
 * watched Little Women (movie)"), so a question that asks by kind ("What movies has Joanna seen?") meets
 * the fact, and through its evidence the turn, where the turn's own words never say it. These
 * statements come beside the clause's own.
 */

/** Activities by the kind a question may ask for them by ("What outdoor activities ...", "What martial arts ..."). */
const ACTIVITY_KINDS: Record<string, string> = {
  'outdoor activity':
    'camping|hiking|fishing|kayaking|canoeing|sailing|climbing|rock climbing|surfing|skiing|snowboarding|birdwatching|bird watching|' +
    'horseback riding|horse riding|road trip|road trips|biking|cycling|backpacking|mountaineering|hunting|stargazing|snorkeling|' +
    'scuba diving|diving|paddleboarding|rafting',
  sport:
    'basketball|football|soccer|baseball|tennis|golf|volleyball|hockey|skating|ice skating|roller skating|skateboarding|swimming|' +
    'cricket|rugby|badminton|table tennis|ping pong|softball|lacrosse|wrestling|fencing|gymnastics|bowling|archery|rowing|triathlon',
  'martial art': 'boxing|kickboxing|karate|judo|taekwondo|jiu-jitsu|jiu jitsu|kung fu|aikido|muay thai|krav maga',
  exercise: 'running|jogging|yoga|pilates|weightlifting|lifting weights|crossfit|working out|aerobics|zumba',
  art: 'painting|drawing|sketching|pottery|ceramics|sculpting|sculpture|photography|calligraphy|printmaking|watercolor|filmmaking',
  craft: 'knitting|sewing|crocheting|crochet|embroidery|quilting|woodworking|scrapbooking|origami|jewelry making',
  music: 'singing|songwriting|composing',
  hobby:
    'meditation|dancing|dance|gardening|cooking|baking|reading|writing|journaling|volunteering|gaming|video games|board games|' +
    'chess|puzzles|traveling|travelling|blogging|podcasting|coding|programming',
};
const KIND_OF_ACTIVITY = new Map(Object.entries(ACTIVITY_KINDS).flatMap(([kind, names]) => names.split('|').map((name) => [name, kind] as const)));
const INSTRUMENTS = ['violin', 'viola', 'cello', 'guitar', 'bass', 'piano', 'keyboard', 'drums', 'flute', 'clarinet', 'saxophone', 'sax']
  .concat(['trumpet', 'trombone', 'ukulele', 'harp', 'harmonica', 'banjo', 'accordion', 'oboe', 'bassoon'])
  .join('|');

const NEGATION = /\b(?:don't|didn't|never|not|can't|won't|wouldn't|no longer|isn't|haven't)\b/iu;

const ACTIVITY_RE = new RegExp(`\\b(${[...KIND_OF_ACTIVITY.keys()].join('|')})\\b`, 'giu');
const PLAY = String.raw`(?:play|plays|playing|played|learn(?:ing|ed)?(?: to play)?|practic(?:e|ing|ed))`;
const INSTRUMENT_RE = new RegExp(`\\b${PLAY}\\s+(?:the\\s+|my\\s+|a\\s+)?(${INSTRUMENTS})\\b|\\bmy\\s+(${INSTRUMENTS})\\b`, 'iu');
const BOOK_RE = /\b(?:(?:re)?read|(?:re)?reading|book|novel)\b[^"]{0,40}"([^"]{2,60})"/iu;
const WATCH_RE = /\b(?:watched|watching|saw|seen|rewatched|movie|film|series|show)\b[^"]{0,40}"([^"]{2,60})"/iu;
/** A title watched is a film unless the sentence says it runs in episodes. */
const TV = /\b(?:show|shows|series|episodes?|seasons?|tv|sitcom|netflix)\b/iu;
const GAME_RE = /\b(?:play|plays|playing|played|game|games|gaming|rpg)\b[^"]{0,40}"([^"]{2,60})"/iu;
const BOARD_GAME = /\b(?:board|card|tabletop)\s+games?\b/iu;
/** A kind-named statement of a clause: the relation and its object. */
export interface CategoryMatch {
  rel: Relation;
  literal: string;
  why: string;
}

/** The kinds of thing a clause about the speaker says they play, read or watched, each once. */
export function matchCategories(clause: string): CategoryMatch[] {
  const text = normalise(clause);
  if (NEGATION.test(text) || text.trim().endsWith('?')) return [];
  const found: CategoryMatch[] = [];
  const seen = new Set<string>();
  const add = (rel: Relation, literal: string, why: string) => {
    const key = `${rel}\u0000${literal}`;
    if (literal.length < 3 || seen.has(key)) return;
    seen.add(key);
    found.push({ rel, literal, why });
  };
  // Kinds of thing are common nouns, kept in lower case; titles keep their own spelling.
  const kind = (phrase: string) => phrase.trim().replace(/\s+/gu, ' ').toLowerCase();
  for (const m of text.matchAll(ACTIVITY_RE)) {
    const activity = kind(m[1]!);
    add('does_activity', `${activity} (${KIND_OF_ACTIVITY.get(activity)!})`, 'an activity');
  }
  const instrument = INSTRUMENT_RE.exec(text);
  if (instrument) add('plays_instrument', kind(instrument[1] ?? instrument[2]!), '"plays" an instrument');
  const book = BOOK_RE.exec(text);
  if (book) add('read_book', book[1]!.trim(), 'a title read');
  const watched = WATCH_RE.exec(text);
  if (watched && watched[1] !== book?.[1]) add('watched', `${watched[1]!.trim()} (${TV.test(text) ? 'TV series' : 'movie'})`, 'a title watched');
  const game = GAME_RE.exec(text);
  if (game && game[1] !== book?.[1] && game[1] !== watched?.[1]) {
    add('plays_game', `${game[1]!.trim()} (${BOARD_GAME.test(text) ? 'board game' : 'video game'})`, 'a title played');
  }
  return found;
}
