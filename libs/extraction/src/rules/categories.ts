import nlp from 'compromise';
import { cleanName } from './names';
import type { Relation, RelationMatch } from './relations';
import { normalise } from './statements';

/**
 * What kind of thing a first-person sentence names: an activity the speaker does, an
 * instrument they play, a book they read, a place they went to, an event they attended,
 * a group they joined. The relation's name carries the kind, a place's the kind compromise knows
 * it as ("Maria visited country Spain"), and an activity's its own kind ("Melanie does activity
 * camping (outdoor activity)"), so a question that asks by kind ("What activities does Melanie
 * ...?", "What countries has Maria been to?") meets the fact, and through its evidence the turn,
 * where the turn's own words never say it.
 */

/** The relations named for a kind of thing; stated plainly enough to derive from any turn. */
export const CATEGORY_RELATIONS: readonly Relation[] = [
  'does_activity',
  'plays_instrument',
  'read_book',
  'watched',
  'plays_game',
  'visited',
  'visited_country',
  'visited_city',
  'visited_state_or_region',
  'attended_event',
  'joined',
];

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
const EVENTS = ['parade', 'conference', 'concert', 'festival', 'fair', 'workshop', 'meetup', 'support group', 'seminar', 'rally', 'march']
  .concat(['marathon', 'race', 'competition', 'tournament', 'exhibition', 'exhibit', 'convention', 'retreat', 'lecture', 'ceremony'])
  .concat(['fundraiser', 'gala', 'show', 'art show', 'game', 'match', 'protest', 'charity event', 'event', 'events', 'class', 'course'])
  .join('|');
const GROUPS = ['group', 'club', 'team', 'program', 'programme', 'gym', 'church', 'community', 'organization', 'organisation', 'band']
  .concat(['choir', 'class', 'league', 'society', 'association', 'crew', 'studio', 'center', 'centre', 'shelter', 'network'])
  .join('|');

const FIRST_PERSON = /\b(?:I|I'm|I've|I'd|me|my|we|we're|we've|us|our)\b/iu;
const NEGATION = /\b(?:don't|didn't|never|not|can't|won't|wouldn't|no longer|isn't|haven't)\b/iu;
const MODIFIERS = String.raw`(?:[\p{L}\p{N}+'-]+\s+){0,4}?`;
const NAME = String.raw`((?:[A-Z][\p{L}'.-]+)(?:\s+[A-Z][\p{L}'.-]+){0,2})`;

const ACTIVITY_RE = new RegExp(`\\b(${[...KIND_OF_ACTIVITY.keys()].join('|')})\\b`, 'giu');
const PLAY = String.raw`(?:play|plays|playing|played|learn(?:ing|ed)?(?: to play)?|practic(?:e|ing|ed))`;
const INSTRUMENT_RE = new RegExp(`\\b${PLAY}\\s+(?:the\\s+|my\\s+|a\\s+)?(${INSTRUMENTS})\\b|\\bmy\\s+(${INSTRUMENTS})\\b`, 'iu');
const BOOK_RE = /\b(?:(?:re)?read|(?:re)?reading|book|novel)\b[^"]{0,40}"([^"]{2,60})"/iu;
const WATCH_RE = /\b(?:watched|watching|saw|seen|rewatched|movie|film|series|show)\b[^"]{0,40}"([^"]{2,60})"/iu;
/** A title watched is a film unless the sentence says it runs in episodes. */
const TV = /\b(?:show|shows|series|episodes?|seasons?|tv|sitcom|netflix)\b/iu;
const GAME_RE = /\b(?:play|plays|playing|played|game|games|gaming|rpg)\b[^"]{0,40}"([^"]{2,60})"/iu;
const BOARD_GAME = /\b(?:board|card|tabletop)\s+games?\b/iu;
const WENT = ['went to', 'visited', 'visiting', 'been to', 'trip to', 'travel(?:l)?ed to', 'flew to', 'vacation in', 'holiday in']
  .concat(['was in', 'were in', 'pic in', 'photo in'])
  .join('|');
const VISIT_RE = new RegExp(`\\b(?:${WENT})\\s+(?:the\\s+)?${NAME}`, 'u');
/** Being somewhere, said of a past trip: the cue for a place compromise names anywhere in the sentence. */
const TRAVEL = new RegExp(
  String.raw`\b(?:went|gone|been|visit(?:ed|ing)?|trips?|travel(?:l)?(?:ed|ing)?|flew|vacation(?:ed|ing)?|holiday|toured|pics?|photos?|` +
    String.raw`back from|was in|were in|stayed in)\b`,
  'iu',
);
/** Wishes and plans are not visits; living somewhere and coming from there are other relations. */
const NOT_A_VISIT = /\b(?:will|'ll|going to|gonna|plan(?:ning)? to|want|wanna|wish|hope|hoping|dream|would love|'d love|someday|one day)\b/iu;
const NOT_VISITED_BEFORE = /(?:\b(?:live[sd]?|living|grew up|born|moved|settled)\s+(?:in|to|from)|(?<!back |came |got )\bfrom)\s+(?:the\s+)?$/iu;
const PLACE_RELATION: Record<string, Relation> = { Country: 'visited_country', City: 'visited_city', Region: 'visited_state_or_region' };
/** Countries compromise knows only as places or acronyms. */
const COUNTRIES_BY_ACRONYM = /\b(UK|U\.K\.|US|U\.S\.|USA|U\.S\.A\.|United States|United Kingdom)(?![\p{L}])/gu;
const ATTENDED = ['went to', 'go to', 'going to', 'attended', 'attending', 'joined', 'participated in', 'took part in', 'was at', 'were at']
  .concat(['signed up for', 'organized', 'hosted', 'held', 'won', 'competed in', 'played in', 'entered'])
  .join('|');
const EVENT_RE = new RegExp(`\\b(?:${ATTENDED})\\s+(?:(?:a|an|the|this|that|my|our|some)\\s+)?(${MODIFIERS}(?:${EVENTS}))\\b`, 'iu');
const JOIN_RE = new RegExp(
  `\\b(?:joined|joining|signed up for|became a member of)\\s+(?:(?:a|an|the|this|my|our)\\s+)?(${MODIFIERS}(?:${GROUPS}))\\b`,
  'iu',
);

/** The kinds of thing a sentence says the speaker does, plays, read, watched, went to, attended or joined, each once. */
export function matchCategories(sentence: string): RelationMatch[] {
  const text = normalise(sentence);
  if (!FIRST_PERSON.test(text) || NEGATION.test(text) || text.trim().endsWith('?')) return [];
  const found: RelationMatch[] = [];
  const seen = new Set<string>();
  const add = (rel: Relation, dst: RelationMatch['dst'], why: string) => {
    const object = 'entity' in dst ? dst.entity : dst.literal;
    const key = `${rel}\u0000${object}`;
    if (object.length < ('entity' in dst ? 2 : 3) || seen.has(key)) return;
    seen.add(key);
    found.push({ rel, dst, confidence: 0.7, why });
  };
  // Kinds of thing are common nouns, kept in lower case; titles and places keep their own spelling.
  const kind = (phrase: string) => ({ literal: phrase.trim().replace(/\s+/gu, ' ').toLowerCase() });
  for (const m of text.matchAll(ACTIVITY_RE)) {
    const activity = kind(m[1]!).literal;
    add('does_activity', { literal: `${activity} (${KIND_OF_ACTIVITY.get(activity)!})` }, 'first person, an activity');
  }
  const instrument = INSTRUMENT_RE.exec(text);
  if (instrument) add('plays_instrument', kind(instrument[1] ?? instrument[2]!), 'first person "I play"');
  const book = BOOK_RE.exec(text);
  if (book) add('read_book', { literal: book[1]!.trim() }, 'first person, a title read');
  const watched = WATCH_RE.exec(text);
  if (watched && watched[1] !== book?.[1]) {
    add('watched', { literal: `${watched[1]!.trim()} (${TV.test(text) ? 'TV series' : 'movie'})` }, 'first person, a title watched');
  }
  const game = GAME_RE.exec(text);
  if (game && game[1] !== book?.[1] && game[1] !== watched?.[1]) {
    add('plays_game', { literal: `${game[1]!.trim()} (${BOARD_GAME.test(text) ? 'board game' : 'video game'})` }, 'first person, a title played');
  }
  const places = placesVisited(text);
  const visit = VISIT_RE.exec(text);
  if (visit && !/^(?:I|We|The|My|Our)$/u.test(visit[1]!) && !places.some((p) => p.name === cleanName(visit[1]!))) {
    add('visited', { entity: visit[1]!, kind: 'place' }, 'first person "went to" a place');
  }
  for (const p of places) {
    add(p.rel, { entity: p.name, kind: 'place' }, `first person, a trip to a ${p.rel.slice('visited_'.length).replace(/_/gu, ' ')}`);
  }
  const event = EVENT_RE.exec(text);
  if (event) add('attended_event', kind(event[1]!), 'first person "went to" an event');
  const group = JOIN_RE.exec(text);
  if (group) add('joined', kind(group[1]!), 'first person "joined"');
  return found;
}

/** The countries, cities and states or regions compromise names in a sentence about a past trip, by kind. */
function placesVisited(text: string): { name: string; rel: Relation }[] {
  if (!TRAVEL.test(text) || NOT_A_VISIT.test(text)) return [];
  const doc = nlp(text);
  const named = Object.entries(PLACE_RELATION).flatMap(([tag, rel]) =>
    (doc.match(`#${tag}+`).json() as { terms: { text: string }[] }[]).map((m) => ({ name: m.terms.map((t) => t.text).join(' '), rel })),
  );
  const acronyms = [...text.matchAll(COUNTRIES_BY_ACRONYM)].map((m) => ({ name: m[1]!, rel: 'visited_country' as const }));
  return [...named, ...acronyms].filter((p) => {
    const at = text.indexOf(p.name);
    return p.name !== '' && at >= 0 && !NOT_VISITED_BEFORE.test(text.slice(0, at));
  });
}
