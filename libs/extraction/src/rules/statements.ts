import { type Clause, FILLERS, type Subject } from './clauses';
import { type EntityKind, type NameRun, nameRuns } from './names';
import { capitalised, has, type Token, wordSet } from './tokens';
import type { CanonicalRelation } from '../relations';
import { formsOf, OCCUPATIONS, snake } from './vocabulary';

/**
 * Statements: what a clause says of its subject, as a fact in third person, `subject rel object`.
 * A clause that says one of the canonical things (where someone lives or works, their children,
 * what they like or seek) is named for it (`lives_in`, `has_child`, `seeks`); any other is named
 * for its verb as said, in its tense, with its negation ("lost", "is_starting", "does_not_eat",
 * "plans_to"), and its object is what the verb says of the subject, compactly ("job as a banker").
 */

export type StatementObject = { literal: string } | { entity: string; kind: EntityKind };

export interface Statement {
  subject: Subject;
  rel: string;
  object: StatementObject;
  /** Named for one of the canonical relations (vocabulary.ts), not for its verb. */
  canonical: boolean;
  /** Says what the subject means to do ("plans_to", "wants_to"): a happening to come, when it has a time. */
  intent?: true;
  clause: Clause;
  why: string;
}

const ARTICLES = new Set(['a', 'an', 'the']);
const PREPOSITIONS = new Set(
  'in at on to for with about from into of by after near around over through as like without towards toward onto upon'.split(' '),
);
/** Verbs whose clause says nothing of the subject's life ("I know", "I mean", "I guess so"). */
const SAYS_NOTHING = new Set(
  'know mean guess bet agree understand thank imagine suppose wonder say tell ask let hear wait forget promise sure relate'.split(' '),
);
const VAGUE = wordSet(
  'it that this these those them one so done lot much more something anything everything nothing',
  'stuff things thing way sure right same well fun',
);
const SECOND_PERSON = new Set(['you', 'your', 'yours', 'yourself', 'ya', 'u', 'ur']);
/** Verbs of wanting, planning and trying: named for themselves, their object the verb phrase that follows. */
const INTENT: Record<string, [present: string, past: string]> = {
  want: ['wants_to', 'wanted_to'],
  wanna: ['wants_to', 'wanted_to'],
  hope: ['hopes_to', 'hoped_to'],
  plan: ['plans_to', 'planned_to'],
  intend: ['plans_to', 'planned_to'],
  aim: ['plans_to', 'planned_to'],
  decide: ['decided_to', 'decided_to'],
  try: ['is_trying_to', 'tried_to'],
  need: ['needs_to', 'needed_to'],
  wish: ['wishes_to', 'wished_to'],
  love: ['likes_to', 'liked_to'],
  like: ['likes_to', 'liked_to'],
  prefer: ['prefers_to', 'preferred_to'],
};
const CHILDREN = new Set('kid kids child children son sons daughter daughters baby babies twins toddler toddlers stepson stepdaughter'.split(' '));
const FAMILY = new Set(
  (
    'husband wife partner boyfriend girlfriend fiance fiancé fiancee mom mum mother dad father parents sister sisters brother brothers ' +
    'siblings sibling grandma grandmother grandpa grandfather grandparents aunt uncle cousin cousins niece nephew family'
  ).split(' '),
);
const PETS = wordSet(
  'dog dogs cat cats puppy puppies kitten kittens pet pets turtle turtles hamster hamsters rabbit rabbits bunny',
  'parrot bird birds horse horses snake fish guinea',
);
const KIN = new Set([...CHILDREN, ...FAMILY, ...PETS]);
const STATUSES = new Set(['single', 'married', 'engaged', 'divorced', 'separated', 'widowed', 'dating']);
const LIKE_VERBS = new Set(['like', 'love', 'enjoy', 'adore']);
const DISLIKE_VERBS = new Set(['hate', 'dislike', 'detest', 'loathe']);
const LIKE_PHRASES = [
  ['into'],
  ['passionate', 'about'],
  ['a', 'fan', 'of'],
  ['a', 'big', 'fan', 'of'],
  ['a', 'huge', 'fan', 'of'],
  ['fan', 'of'],
  ['obsessed', 'with'],
  ['fond', 'of'],
  ['crazy', 'about'],
  ['keen', 'on'],
  ['in', 'love', 'with'],
];
const SEEK_VERBS = new Set(['seek', 'search', 'hunt', 'look']);
const JOB_WORDS = new Set(['job', 'position', 'role', 'gig', 'internship', 'career']);
const EVENTS = new Set(
  (
    'parade conference concert festival fair workshop meetup group seminar rally march marathon race competition tournament exhibition exhibit ' +
    'convention retreat lecture ceremony fundraiser gala show game match protest event class course party wedding funeral reunion ' +
    'camp session meeting service'
  ).split(' '),
);
const GROUPS = wordSet(
  'group club team program programme gym church community organization organisation band choir class league',
  'society association crew studio center centre shelter network',
);
const PLACE_RELATION: Record<string, CanonicalRelation> = { Country: 'visited_country', City: 'visited_city', Region: 'visited_state_or_region' };

/** The statements a clause makes, canonical first; none for a clause that says nothing of its subject. */
/** `when`: the clause's own time in words, when it says one (what a statement of a bare happening holds). */
export function statementsOf(clause: Clause, when?: string): Statement[] {
  return readStatements(clause, when).map((s) => unrepeated(s));
}

/**
 * A literal of six words or more that the clause says word for word repeats the turn instead of saying what it
 * says: it is cut to its first five words, at the last preposition or conjunction among them when there is one.
 */
function unrepeated(statement: Statement): Statement {
  if (!('literal' in statement.object)) return statement;
  const words = statement.object.literal.split(/\s+/u);
  const said = statement.clause.text.toLowerCase().replace(/\s+/gu, ' ');
  if (words.length < COPY_WORDS || !said.includes(statement.object.literal.toLowerCase())) return statement;
  const head = words.slice(0, COPY_WORDS - 1);
  let cut = head.length;
  for (let i = head.length - 1; i >= 2; i--) {
    if (PREPOSITIONS.has(head[i]!.toLowerCase()) || head[i] === 'and' || head[i] === 'or') {
      cut = i;
      break;
    }
  }
  return { ...statement, object: { literal: head.slice(0, cut).join(' ') } };
}

/** Words from which a text found as it is in its turn is a copy of it (the statement scorer's measure). */
const COPY_WORDS = 6;

function readStatements(clause: Clause, when: string | undefined): Statement[] {
  if (clause.subject.kind === 'topic') return viewOf(clause);
  if (!worthReading(clause)) return [];
  const object = clause.object;
  const names = nameRuns(object);
  const canonical = canonicalOf(clause, names);
  const found = canonical !== null ? [canonical].flat() : [genericOf(clause, names, when)].filter((x) => x !== null);
  // "My brother helps out", "with my sister Leila": whatever else the clause says, the speaker has them.
  const kin = kinOf(clause).filter((k) => !found.some((f) => f.rel === k.rel && sameObject(f.object, k.object)));
  return [...found, ...kin];
}

/**
 * The family, children and pets a clause calls the speaker's ("my brother", "our dog", "my sister Leila"):
 * the speaker has them, named as an entity when the clause names them.
 */
function kinOf(clause: Clause): Statement[] {
  const found: Statement[] = [];
  const tokens = clause.tokens;
  for (let i = 0; i < tokens.length; i++) {
    if (tokens[i]!.word !== 'my' && tokens[i]!.word !== 'our') continue;
    let j = i + 1;
    while (j < tokens.length && j <= i + 3 && has(tokens[j], 'Adjective') && !KIN.has(tokens[j]!.word)) j++;
    const noun = tokens[j]?.word ?? '';
    const rel = CHILDREN.has(noun) ? 'has_child' : FAMILY.has(noun) ? 'has_family' : PETS.has(noun) ? 'has_pet' : null;
    // "My family" says only that the speaker has one.
    if (rel === null || noun === 'family') continue;
    let end = j + 1;
    while (end < tokens.length && end <= j + 3 && has(tokens[end], 'ProperNoun') && capitalised(tokens[end]!)) end++;
    const name = tokens
      .slice(j + 1, end)
      .map((t) => t.text)
      .join(' ');
    // "My kids" in passing says little; "my daughter Sara", or "my brother" the clause is about, says who they are.
    if (name === '' && !(clause.subject.kind === 'possessed' && i === 0)) continue;
    const object: StatementObject = name !== '' ? { entity: name, kind: rel === 'has_pet' ? 'animal' : 'person' } : { literal: noun };
    if (!found.some((f) => sameObject(f.object, object))) {
      found.push({ subject: { kind: 'speaker' }, rel, object, canonical: true, clause, why: `"my ${noun}${name !== '' ? ` ${name}` : ''}"` });
    }
  }
  return found;
}

function sameObject(a: StatementObject, b: StatementObject): boolean {
  return 'literal' in a ? 'literal' in b && a.literal.toLowerCase() === b.literal.toLowerCase() : 'entity' in b && a.entity === b.entity;
}

function statement(clause: Clause, rel: string, object: StatementObject, why: string, canonical = true): Statement {
  return { subject: clause.subject, rel, object, canonical, clause, why };
}

const FAVOURITE = new Set(['favorite', 'favourite', 'fave', 'fav', 'thing', 'passion', 'go-to', 'pick', 'jam', 'hobby', 'escape']);

/**
 * What the speaker thinks of a thing they say what it is: one they call theirs ("Guitar's my thing",
 * "Contemporary is my top pick") they like; one they describe ("Pottery's so relaxing and creative")
 * they find so. Said of the speaker, by a subject that stands for them.
 */
function viewOf(clause: Clause): Statement[] {
  if (clause.subject.kind !== 'topic' || clause.negative) return [];
  const topic = clause.subject.noun;
  const view = (rel: string, literal: string, why: string, canonical = false): Statement[] =>
    literal.trim().length < 3 ? [] : [{ subject: { kind: 'speaker' }, rel, object: { literal }, canonical, clause, why }];
  const said = clause.tokens.filter((t) => !FILLERS.has(t.word) && !has(t, 'Expression'));
  const be = said.findIndex((t) => BE_WORDS.has(t.word));
  if (topic === 'it') {
    // "It's so important to support each other": the speaker values it; "It's freeing to ...": finds it so.
    const to = said.findIndex((t) => t.word === 'to');
    const adjectives = said.slice(be + 1, to).filter((t) => has(t, 'Adjective'));
    const doing = said.slice(to + 1, to + 1 + MAX_VIEW_WORDS);
    if (be < 0 || to < 0 || adjectives.length === 0 || !has(doing[0], 'Verb') || adjectives.length !== to - be - 1) return [];
    if (adjectives.some((t) => IMPORTANT.has(t.word))) return view('values', gerundPhrase(doing), `"it is ${adjectives[0]!.word} to"`);
    return view('finds', `it ${say(adjectives)} to ${say(doing)}`, `"it is ${adjectives[0]!.word} to"`);
  }
  if (clause.copula) {
    const after = said.slice(be + 1);
    if ((after[0]?.word === 'my' || after[0]?.word === 'our') && after.slice(1, 4).some((t) => FAVOURITE.has(t.word))) {
      return view('likes', topic, `"${topic} is my ${after[1]!.word}"`, true);
    }
    const adjectives = clause.object.filter((t) => !has(t, 'Conjunction') && !has(t, 'Adverb'));
    if (adjectives.some((t) => IMPORTANT.has(t.word)) && adjectives.length <= 3) return view('values', topic, `"${topic} is ${adjectives[0]!.word}"`);
    if (adjectives.length > 0 && adjectives.length <= 4 && adjectives.every((t) => has(t, 'Adjective'))) {
      return view('finds', `${topic} ${say(clause.object)}`, `"${topic} is ${say(clause.object)}"`);
    }
  }
  // "Gina's support means a lot": what the speaker appreciates.
  if (clause.lemma === 'mean' && ['lot', 'much', 'everything', 'world'].some((x) => clause.object.slice(0, 3).some((t) => t.word === x))) {
    return view('appreciates', topic, `"${topic} means a lot"`);
  }
  // Anything else the speaker says of a thing in the present ("Dance floors help avoid injuries") is what they believe.
  if (clause.mode !== 'present' || clause.object.length === 0) return [];
  // What the speaker believes, said of them in third person ("Art gives them a sense of freedom").
  const believed = said.slice(0, MAX_VIEW_WORDS).map((t) => (THIRD_PERSON[t.word] === undefined ? t : { ...t, text: THIRD_PERSON[t.word]! }));
  return view('believes', say(believed), 'a view of the speaker');
}

const THIRD_PERSON: Record<string, string> = { i: 'they', me: 'them', my: 'their', myself: 'themselves', mine: 'theirs' };
const BE_WORDS = new Set(['is', 'are', 'was', 'were', 'feels', 'felt', 'seems']);
const IMPORTANT = new Set(['important', 'essential', 'key', 'crucial', 'vital', 'necessary']);
const MAX_VIEW_WORDS = 14;

/** "support each other" -> "supporting each other": a verb phrase as the thing someone values. */
function gerundPhrase(tokens: readonly Token[]): string {
  const [verb, ...rest] = tokens;
  if (verb === undefined) return '';
  return [formsOf(verb.root).gerund, say(rest)].join(' ').trim();
}

/** The object's text as said, one space between words. */
function say(tokens: readonly Token[]): string {
  // Articles say nothing a statement needs ("job in call center or data entry"), except as part of a name ("The Office").
  return tokens
    .filter((t, i) => !ARTICLES.has(t.word) || (tokens[i + 1] !== undefined && capitalised(tokens[i + 1]!) && capitalised(t)))
    .map((t) => t.text)
    .join(' ')
    .replace(/\s+([,.;:!?%])/gu, '$1')
    .replace(/["“”]/gu, '')
    .replace(/[,.;:!?]+$/u, '')
    .trim();
}

function words(tokens: readonly Token[]): string[] {
  return tokens.map((t) => t.word);
}

function startsWith(tokens: readonly Token[], phrase: readonly string[]): boolean {
  return phrase.every((w, i) => tokens[i]?.word === w);
}

/** Leading articles and determiners off ("a small group" -> "small group"). */
function bare(tokens: readonly Token[]): Token[] {
  let i = 0;
  while (i < tokens.length && ['a', 'an', 'the', 'some', 'my', 'our', 'his', 'her', 'their'].includes(tokens[i]!.word)) i++;
  return tokens.slice(i);
}

/** The name the tokens are, whole: a name run of the object beginning at `start` and covering exactly them. */
function nameOf(tokens: readonly Token[], names: readonly NameRun[], start: number): NameRun | null {
  if (tokens.length === 0) return null;
  return names.find((n) => n.start === start && n.end === start + tokens.length) ?? null;
}

/** Where `tokens` (a tail of the object) begins in the object. */
function offsetIn(object: readonly Token[], tail: readonly Token[]): number {
  return tail.length === 0 ? object.length : object.indexOf(tail[0]!);
}

function literal(tokens: readonly Token[]): StatementObject | null {
  const text = say(tokens);
  return text.length >= 2 ? { literal: text } : null;
}

/** Verbs that say when something else starts, goes on or ends ("started working at"): the verb after them says what. */
const ASPECT = new Set(['start', 'begin', 'keep', 'continue', 'resume']);

function canonicalOf(clause: Clause, names: readonly NameRun[]): Statement | Statement[] | null {
  const next = clause.object[0];
  const aspect = ASPECT.has(clause.lemma) && next !== undefined && has(next, 'Verb') && next.word.endsWith('ing') && clause.object.length > 1;
  if (aspect) {
    const object = clause.object.slice(1);
    return canonicalOf({ ...clause, lemma: next.root, object, chain: clause.chain.slice(1) }, nameRuns(object));
  }
  const { lemma, object, mode, negative, copula } = clause;
  const w = words(object);
  const intent = mode === 'future' || clause.chain.length > 1 ? clause.chain : [lemma];
  const stated = mode !== 'future' && !intent.some((v) => v in INTENT && v !== 'love' && v !== 'like');
  // The name the object says from `from` on: the whole rest, or a name the rest begins with ("Acme Robotics as a ...").
  const entityAfter = (from: number, kind: EntityKind): StatementObject | null => {
    const tail = bare(object.slice(from));
    const start = offsetIn(object, tail);
    const name = nameOf(tail, names, start) ?? names.find((n) => n.start === start && PREPOSITIONS.has(object[n.end]?.word ?? '')) ?? null;
    return name === null ? null : { entity: name.name, kind: name.kind === 'thing' ? kind : name.kind };
  };

  // Where someone lives, comes from, works, and as what.
  if (stated && !negative && ['live', 'reside', 'settle', 'stay'].includes(lemma) && ['in', 'at', 'near'].includes(w[0] ?? '')) {
    const place = entityAfter(1, 'place');
    if (place !== null) return statement(clause, 'lives_in', place, `"${lemma} in" a place`);
  }
  if (stated && !negative && ['move', 'relocate'].includes(lemma) && (w[0] === 'to' || (w[0] === 'back' && w[1] === 'to'))) {
    const place = entityAfter(w[0] === 'to' ? 1 : 2, 'place');
    if (place !== null) return statement(clause, 'lives_in', place, '"moved to" a place');
  }
  if (stated && !negative && copula && w[0] === 'from') {
    const place = entityAfter(1, 'place');
    if (place !== null) return statement(clause, 'from', place, '"is from" a place');
  }
  if (stated && !negative && lemma === 'grow' && clause.particle === 'up' && w[0] === 'in') {
    const place = entityAfter(1, 'place');
    if (place !== null) return statement(clause, 'from', place, '"grew up in" a place');
  }
  if (stated && !negative && lemma === 'work' && (w[0] === 'at' || w[0] === 'for')) {
    const org = entityAfter(1, 'organization');
    if (org !== null) {
      const as = w.indexOf('as');
      const role = as > 1 ? literal(bare(object.slice(as + 1))) : null;
      const at = statement(clause, 'works_at', org, '"works at" an organisation');
      return role === null ? at : [at, statement(clause, 'works_as', role, '"works as"')];
    }
  }
  if (stated && !negative && lemma === 'work' && w[0] === 'as') {
    const role = literal(bare(object.slice(1)));
    if (role !== null) return statement(clause, 'works_as', role, '"works as"');
  }
  // Not working is a value of what someone works as: the job that follows supersedes it.
  if (stated && negative && ((lemma === 'work' && object.length === 0) || (lemma === 'have' && JOB_WORDS.has(bare(object)[0]?.word ?? '')))) {
    return statement(clause, 'works_as', { literal: 'not working' }, '"not working"');
  }
  if (stated && !negative && copula && (startsWith(object, ['unemployed']) || startsWith(object, ['out', 'of', 'work']))) {
    return statement(clause, 'works_as', { literal: 'not working' }, `"${say(object)}"`);
  }
  if (stated && !negative && copula && mode === 'present' && w[0] === 'retired' && object.length === 1) {
    return statement(clause, 'works_as', { literal: 'retired' }, '"retired"');
  }
  // "I'm a nurse at the Riverside Clinic": what someone works as, and where.
  if (stated && !negative && copula && mode === 'present' && !PREPOSITIONS.has(w[0] ?? '')) {
    const at = w.findIndex((x) => x === 'at' || x === 'in' || x === 'for');
    const role = bare(object.slice(0, at > 0 ? at : object.length));
    if (role.length > 0 && role.length <= 3 && OCCUPATIONS.has(role.at(-1)!.word)) {
      const org = at > 0 ? entityAfter(at + 1, 'organization') : null;
      // Where, when it is no organisation's name, is part of what they work as ("teacher at elementary school").
      const as = statement(clause, 'works_as', { literal: (org === null ? say(object) : say(role)).toLowerCase() }, `"is a ${role.at(-1)!.word}"`);
      return org === null ? as : [as, statement(clause, 'works_at', org, '"a ... at" an organisation')];
    }
  }
  // "I'm 32 years old": the age someone says.
  if (stated && !negative && copula && mode === 'present' && /^\d{1,3}$/u.test(w[0] ?? '') && (w[1] === 'years' || w[1] === undefined)) {
    return statement(clause, 'age', { literal: w[0]! }, '"years old"');
  }
  if (stated && !negative && ['get', 'land', 'start', 'accept', 'take', 'find', 'begin'].includes(lemma)) {
    const head = bare(object);
    const jobAt = head.findIndex((t) => JOB_WORDS.has(t.word));
    if (jobAt >= 0) {
      const after = head[jobAt + 1]?.word;
      if (after === 'as') {
        const role = literal(bare(head.slice(jobAt + 2)));
        if (role !== null) return statement(clause, 'works_as', role, `"${lemma} a job as"`);
      } else if (after === 'at' || after === 'with') {
        const org = entityAfter(offsetIn(object, head) + jobAt + 2, 'organization');
        if (org !== null) return statement(clause, 'works_at', org, `"${lemma} a job at"`);
      } else if (jobAt > 0 && jobAt <= 4 && (after === undefined || PREPOSITIONS.has(after)) && head.slice(0, jobAt).some((t) => has(t, 'Noun'))) {
        return statement(clause, 'works_as', { literal: say(head.slice(0, jobAt)).toLowerCase() }, `"${lemma} the ... job"`);
      }
    }
  }
  if (stated && ['study', 'major'].includes(lemma) && !negative) {
    const subject = literal(bare(w[0] === 'in' ? object.slice(1) : object));
    if (subject !== null) return statement(clause, 'studies', subject, `"${lemma}"`);
  }
  if (stated && !negative && copula && STATUSES.has(w[0] ?? '') && object.length <= 3) {
    return statement(clause, 'relationship_status', { literal: say(object).toLowerCase() }, `"is ${w[0]}"`);
  }

  // Children, family and pets someone has.
  // The pet or child is the verb's own object ("got a puppy"), not one a preposition brings ("got back from walking the dogs").
  const direct = clause.particle === null && !PREPOSITIONS.has(w[0] ?? '');
  if (stated && !negative && direct && ['have', 'adopt', 'get', 'rescue', 'raise'].includes(lemma) && object.length > 0 && object.length <= 6) {
    const head = bare(object);
    const nouns = head.filter((t) => has(t, 'Noun') && !has(t, 'Pronoun'));
    const noun = nouns.at(-1)?.word ?? '';
    const named = head.findIndex((t) => t.word === 'named' || t.word === 'called');
    if (PETS.has(noun) || (named > 0 && PETS.has(head[named - 1]!.word))) {
      const pet = named > 0 ? entityAfter(offsetIn(object, head) + named + 1, 'animal') : null;
      return statement(clause, 'has_pet', pet ?? { literal: say(named > 0 ? head.slice(0, named) : head) }, `"${lemma}" a pet`);
    }
    if (lemma === 'have' || lemma === 'adopt') {
      if (CHILDREN.has(noun)) return statement(clause, 'has_child', { literal: say(head) }, '"has" children');
      if (FAMILY.has(noun)) return statement(clause, 'has_family', { literal: say(head) }, '"has" family');
    }
  }

  // "My favorite dessert is this tart": what someone likes best.
  if (clause.subject.kind === 'possessed' && copula && !negative && clause.subject.noun.split(' ').some((n) => FAVOURITE.has(n))) {
    const liked = literal(bare(object));
    if (liked !== null) return statement({ ...clause, subject: { kind: 'speaker' } }, 'likes', liked, `"my ${clause.subject.noun} is"`);
  }

  // What someone likes, dislikes and seeks.
  if (stated && LIKE_VERBS.has(lemma) && mode !== 'past' && (!has(object[0], 'Verb') || has(object[0], 'Gerund')) && w[0] !== 'to') {
    const liked = literal(bare(object));
    if (liked !== null && !VAGUE.has(w[0] ?? '')) return statement(clause, negative ? 'does_not_like' : 'likes', liked, `"${lemma}"`);
  }
  if (stated && DISLIKE_VERBS.has(lemma) && !negative) {
    const disliked = literal(bare(object));
    if (disliked !== null && !VAGUE.has(w[0] ?? '')) return statement(clause, 'dislikes', disliked, `"${lemma}"`);
  }
  if (stated && copula) {
    const phrase = LIKE_PHRASES.find((p) => startsWith(object, p));
    if (phrase !== undefined) {
      const liked = literal(bare(object.slice(phrase.length)));
      if (liked !== null) return statement(clause, negative ? 'does_not_like' : 'likes', liked, `"is ${negative ? 'not ' : ''}${phrase.join(' ')}"`);
    }
  }
  const seeking = [lemma, ...clause.chain].find((v) => SEEK_VERBS.has(v));
  if (seeking !== undefined && !negative) {
    const forAt = w.indexOf('for');
    if ((seeking !== 'look' && seeking !== 'search' && seeking !== 'hunt') || forAt >= 0) {
      const sought = literal(bare(forAt >= 0 ? object.slice(forAt + 1) : object));
      if (sought !== null) return statement(clause, 'seeks', sought, `"${seeking} for"`);
    }
  }
  if (copula && !negative && startsWith(object, ['on', 'the', 'hunt', 'for'])) {
    const sought = literal(bare(object.slice(4)));
    if (sought !== null) return statement(clause, 'seeks', sought, '"on the hunt for"');
  }

  // Places visited, events attended, groups joined: in the past.
  const past = mode === 'past' || mode === 'perfect';
  if (past && !negative && (['visit', 'travel', 'fly', 'go', 'tour'].includes(lemma) || (copula && w[0] === 'to'))) {
    const at = w[0] === 'to' || w[0] === 'in' ? 1 : 0;
    if (at > 0 || lemma === 'visit' || lemma === 'tour') {
      const tail = bare(object.slice(at));
      const name = nameOf(tail, names, offsetIn(object, tail));
      if (name !== null && (name.kind === 'place' || name.kind === 'thing')) {
        const tag = Object.keys(PLACE_RELATION).find((t) => tail.some((x) => has(x, t)));
        return statement(clause, tag !== undefined ? PLACE_RELATION[tag]! : 'visited', { entity: name.name, kind: 'place' }, `"${lemma}" to a place`);
      }
      const head = tail.at(-1)?.word ?? '';
      if (EVENTS.has(head) && tail.length <= 5 && lemma !== 'visit') {
        return statement(clause, 'attended_event', { literal: say(tail) }, `"${lemma} to" an event`);
      }
    }
  }
  if (past && !negative && ['attend', 'join'].includes(lemma)) {
    const tail = bare(object);
    const head = tail.at(-1)?.word ?? '';
    if (lemma === 'attend' && tail.length > 0 && tail.length <= 6) return statement(clause, 'attended_event', { literal: say(tail) }, '"attended"');
    if (lemma === 'join' && (GROUPS.has(head) || nameOf(tail, names, offsetIn(object, tail)) !== null) && tail.length <= 6) {
      const name = nameOf(tail, names, offsetIn(object, tail));
      return statement(
        clause,
        'joined',
        name !== null ? { entity: name.name, kind: name.kind === 'thing' ? 'organization' : name.kind } : { literal: say(tail) },
        '"joined"',
      );
    }
  }
  return null;
}

/** The clause as a statement named for its verb, whether or not a canonical relation says it: an event's summary says what happened. */
export function verbStatement(clause: Clause): Statement | null {
  return worthReading(clause) ? genericOf(clause, nameRuns(clause.object)) : null;
}

/**
 * A clause that says something of its subject: not "I know", "I guess"; not about the listener ("I love
 * your painting"); not of "this" or "that" ("I got this"); not what the subject is sure or glad of
 * ("I'm sure it'll be great").
 */
function worthReading(clause: Clause): boolean {
  const object = clause.object;
  // "I know", "I guess so", "I mean that ...": talk; "I've known these friends for years" says something.
  const said = object[0];
  if (
    SAYS_NOTHING.has(clause.lemma) &&
    (said === undefined || has(said, 'Pronoun') || !(has(said, 'Noun') || has(said, 'Determiner')) || said.word === 'that')
  ) {
    return false;
  }
  if (object.some((t) => SECOND_PERSON.has(t.word))) return false;
  // A pronoun alone says nothing ("I got this"); a determiner before its noun does ("this amazing deal"), and so
  // does "it" with what was done with it ("made it to show my journey").
  const first = object[0]?.word ?? '';
  const determiner = has(object[1], 'Noun') || has(object[1], 'Adjective');
  const done = has(object[1], 'Preposition') || object[1]?.word === 'to';
  if (['this', 'that', 'these', 'those'].includes(first) && !determiner && !(done && object.length >= 4)) return false;
  if ((first === 'it' || first === 'them') && !(done && object.length >= 3)) return false;
  if (clause.copula && has(object[1], 'Pronoun') && !['my', 'our'].includes(object[1]!.word)) return false;
  return true;
}

/** A statement named for the clause's verb, in its tense and polarity; `when` says the clause's own time, if it has one. */
function genericOf(clause: Clause, names: readonly NameRun[], when?: string): Statement | null {
  const { lemma, mode, negative, copula, particle } = clause;
  let object = clause.object;
  const forms = formsOf(lemma);
  // The verb as said, where it is already the form wanted: "whipped", "living" (a tagger's lemma may not conjugate back).
  const said = clause.surface.toLowerCase();
  const past = mode === 'past' && said !== lemma && !said.endsWith('ing') && /^[a-z]+$/u.test(said) ? said : forms.past;
  // An irregular participle says the perfect as it is ("has known", "has seen"); a regular one is its past ("has started": "started").
  const perfect = /^[a-z]+$/u.test(said) && !said.endsWith('ed') && said !== forms.past && said !== lemma ? ['has', said] : [forms.past];
  const gerund = said.endsWith('ing') ? said : forms.gerund;
  const plural = clause.subject.kind === 'possessed' && /s$/u.test(clause.subject.noun);
  let rel: string[];
  let intent = false;
  if (copula) {
    const be = plural
      ? { present: ['are'], past: ['were'], perfect: ['have', 'been'] }
      : { present: ['is'], past: ['was'], perfect: ['has', 'been'] };
    rel =
      mode === 'past' || mode === 'used_to'
        ? be.past
        : mode === 'perfect' || mode === 'perfect_ongoing'
          ? be.perfect
          : mode === 'future'
            ? ['will', 'be']
            : be.present;
    if (negative) rel = [rel[0]!, 'not', ...rel.slice(1)];
    // A bare feeling ("I'm excited", "I was so tired") says little: a copula needs more than one word after it.
    if (object.length < 2 && !object.some((t) => has(t, 'Noun') && !has(t, 'Pronoun'))) return null;
  } else if (lemma in INTENT && ((has(object[0], 'Verb') && !has(object[0], 'Gerund')) || object[0]?.word === 'to')) {
    const [present, pastRel] = INTENT[lemma]!;
    rel = [mode === 'past' || mode === 'perfect' ? pastRel : present];
    if (negative) rel = [mode === 'past' ? 'did_not' : 'does_not', snake([lemma, 'to'])];
    if (object[0]?.word === 'to') object = object.slice(1);
    intent = true;
  } else if (clause.can && mode === 'present') {
    rel = negative ? ['cannot', lemma] : ['can', lemma];
    if (particle !== null) rel.push(particle);
  } else if (mode === 'future') {
    rel = negative ? ['will', 'not', lemma] : ['plans', 'to', lemma];
    if (particle !== null) rel.push(particle);
  } else {
    const verb =
      mode === 'used_to'
        ? ['used', 'to', lemma]
        : mode === 'past' || mode === 'perfect'
          ? negative
            ? ['did', 'not', lemma]
            : mode === 'perfect'
              ? perfect
              : [past]
          : mode === 'ongoing'
            ? [plural ? 'are' : 'is', ...(negative ? ['not'] : []), gerund]
            : mode === 'perfect_ongoing'
              ? [plural ? 'have' : 'has', 'been', gerund]
              : negative
                ? [plural ? 'do' : 'does', 'not', lemma]
                : [plural ? lemma : forms.present];
    rel = particle !== null ? [...verb, particle] : verb;
    // A leading preposition belongs to the verb ("rehearsed with", "went to"), so the object is what it governs.
    if (PREPOSITIONS.has(object[0]?.word ?? '') && object.length > 1 && object[0]!.word !== 'like') {
      rel.push(object[0]!.word);
      object = bare(object.slice(1));
    }
  }
  if (clause.subject.kind === 'possessed') rel = [...clause.subject.noun.split(' '), ...rel];
  object = bare(object);
  // "I graduated last week": what happened, with nothing it happened to; said with its time, the time is what the
  // statement holds ("graduated the week of 14 August 2023"), without one there is nothing to hold.
  if (object.length === 0)
    return when !== undefined && !copula && (mode === 'past' || mode === 'perfect')
      ? statement(clause, snake(rel), { literal: when }, `${mode} "${clause.surface}", its time`, false)
      : null;
  if (object.length === 1 && VAGUE.has(object[0]!.word)) return null;
  if (!object.some((t) => has(t, 'Noun') || has(t, 'Verb') || has(t, 'Adjective') || has(t, 'Value'))) return null;
  if (object.every((t) => has(t, 'Pronoun') || VAGUE.has(t.word))) return null;
  const start = offsetIn(clause.object, object);
  const name = nameOf(object, names, start);
  let dst: StatementObject | null = name !== null && name.kind !== 'thing' ? { entity: name.name, kind: name.kind } : literal(object);
  // "lost job at Door Dash", "in talks with Gatorade": a few words and a preposition before a name the object ends with
  // belong to the relation (lost_job_at), and the name is the entity it names.
  const last = names.find((n) => n.end === clause.object.length && n.start > start && n.start - start <= 4);
  const before = last === undefined ? undefined : clause.object[last.start - 1];
  if (!copula && last !== undefined && before !== undefined && PREPOSITIONS.has(before.word) && object.indexOf(before) > 0) {
    const kind = last.kind !== 'thing' ? last.kind : ['in', 'to', 'from', 'near', 'around'].includes(before.word) ? 'place' : 'organization';
    const words = object.slice(0, object.indexOf(before) + 1).filter((t) => !has(t, 'Determiner') && !ARTICLES.has(t.word) && t.word !== 'their');
    if (words.length <= 4 && words.every((t) => /^[a-z]+$/u.test(t.word))) {
      rel = [...rel, ...words.map((t) => t.word)];
      dst = { entity: last.name, kind };
    }
  }
  if (dst === null) return null;
  // What someone does not do, as a habit or a state ("does not eat meat"), is said as plainly as what they like.
  const habit = negative && mode === 'present' && !copula && clause.subject.kind === 'speaker';
  const made = statement(clause, snake(rel), dst, `${mode}${negative ? ', negated' : ''} "${clause.surface}"`, habit);
  return intent ? { ...made, intent: true } : made;
}
