import { capitalised, has, type Sentence, type Token, wordSet } from './tokens';
import { irregularPast, lemmaOf } from './vocabulary';

/**
 * Clauses of a sentence, each read for who it is about, what is said of them and when: the
 * grammar a statement is rewritten from. A clause is about the speaker ("I", "we", or a clause that
 * leaves "I" out, as talk does: "Lost my job yesterday"), about something of the speaker's ("my
 * kids love the beach"), or about a person named as its subject. Clauses about the listener ("you"),
 * about "it" or "that", questions and conditions say nothing to keep and are not read.
 */

export type Subject =
  | { kind: 'speaker' }
  | { kind: 'possessed'; noun: string }
  | { kind: 'named'; name: string }
  /** A thing the speaker says what it is like ("Pottery's so relaxing"): their view of it. */
  | { kind: 'topic'; noun: string };

/**
 * How the clause places what it says in time: `past` (it happened), `perfect` (it has happened),
 * `ongoing` (it is going on), `perfect_ongoing` (it has been going on), `present` (it is so, or
 * habitually), `used_to` (it was so, habitually), `future` (it will happen).
 */
export type Mode = 'past' | 'perfect' | 'ongoing' | 'perfect_ongoing' | 'present' | 'used_to' | 'future';

export interface Clause {
  subject: Subject;
  /** The verb the statement is named for, in its dictionary form ("lose"), and as said. */
  lemma: string;
  surface: string;
  /** Every lexical verb of the verb group, in order, dictionary forms: "decide start look". */
  chain: string[];
  /** A particle of a phrasal verb ("up" of "pick up"). */
  particle: string | null;
  mode: Mode;
  negative: boolean;
  /** A form of "be" with no other verb: the object is what the subject is. */
  copula: boolean;
  /** Said with "can": what the subject is able to do. */
  can: boolean;
  /** What the verb says of the subject, as written, without time words, fillers and possessives. */
  object: Token[];
  /** The clause's own words, for its time expression (with a time said alone before it: "Yesterday, I ..."). */
  text: string;
  /** The clause's tokens, for the names it says. */
  tokens: Token[];
  /** Said of the moment just before the telling ("just got", "finally got", "recently started"). */
  recent: boolean;
  /** The word that joins the clause to the one before ("because", "and"), if any. */
  joiner: string | null;
}

const SPEAKER = new Set(['i', 'we']);
const OTHER_SUBJECTS = new Set(['you', 'he', 'she', 'they', 'it', 'this', 'that', 'there', 'here', 'these', 'those', 'everything', 'everyone']);
const SPLIT_BEFORE = new Set(['i', 'we', 'he', 'she', 'they']);
const JOINERS = new Set(['and', 'but', 'so', 'because', 'cause', "'cause", 'since', 'while', 'although', 'though', 'whereas', 'yet', 'or']);
/** A clause joined by these is a condition, not something stated. */
const CONDITIONS = new Set(['if', 'unless', 'whether', 'whenever']);
/** A clause joined by these is a background time: stated when it tells of the past ("after we went camping"), else not ("when I have time"). */
const TIMES = new Set(['when', 'while', 'until', 'till', 'before', 'after', 'once', 'as', 'since']);
const NOT_STATED = new Set([...CONDITIONS, ...TIMES]);
const SUBORDINATORS = new Set([...NOT_STATED, 'because', 'cause', "'cause", 'although', 'though', 'whereas', 'that']);
const DISCOURSE = new Set(
  (
    'oh ah aw aww well yeah yea yes yep yup no nope also actually anyway anyways plus and but so then honestly hey hi hello wow whoa woah ' +
    'um uh haha hah lol omg ok okay btw now still besides sure right totally absolutely definitely basically seriously alright man dude ' +
    'luckily fortunately unfortunately sadly thankfully lately recently finally anyhow guess oops hmm ugh yay phew gosh geez'
  ).split(' '),
);
const BE = new Set(['am', 'is', 'are', 'was', 'were', 'be', 'been', 'being']);
const HAVE = new Set(['have', 'has', 'had', 'having']);
const DO = new Set(['do', 'does', 'did']);
const MODALS = new Set(['would', 'should', 'can', 'could', 'may', 'might', 'must', 'shall']);
const NEGATIONS = new Set(['not', 'never', "n't", 'no']);
/** Adverbs that say nothing of what happened: left out of the verb group and the object. */
export const FILLERS = new Set(
  (
    'just really so very super pretty totally also actually definitely literally kinda sorta quite even already still currently ' +
    'usually always often sometimes finally recently lately truly completely absolutely honestly seriously basically now too ' +
    'probably maybe mostly constantly simply especially fully certainly surely gladly officially only lol haha'
  ).split(' '),
);
const PARTICLES = new Set(['up', 'out', 'off', 'down', 'back', 'over', 'away', 'around', 'along', 'together', 'through']);
/** Words that begin a relative clause: the object ends before them. */
const RELATIVES = new Set(['which', 'who', 'whom', 'whose', 'where']);
/** A time word's modifiers and prepositions, removed from the object with it. */
const TIME_LEAD = new Set([
  'on',
  'in',
  'at',
  'since',
  'during',
  'for',
  'last',
  'next',
  'this',
  'past',
  'coming',
  'the',
  'a',
  'few',
  'couple',
  'of',
  'every',
  'each',
  'early',
  'late',
  'mid',
  'over',
  'around',
  'about',
  'until',
  'till',
  'from',
  'by',
]);
const MAX_OBJECT_WORDS = 14;
const RECENT = new Set(['just', 'finally', 'recently']);
const STATIVE = new Set(['need', 'want', 'love', 'like', 'hope', 'miss', 'appreciate', 'enjoy']);
const SAYING = new Set(['saying', 'telling', 'asking', 'stating', 'announcing', 'explaining']);
const SPECIFIC_TIME = wordSet(
  'yesterday today tonight tomorrow monday tuesday wednesday thursday friday saturday sunday mon tue tues wed thu thurs fri sat sun',
  'january february march april may june july august september october november december jan feb mar apr jun jul aug sep sept oct nov dec',
);

/** The clauses of a sentence that state something of someone, in order. */
export function readClauses(sentence: Sentence): Clause[] {
  const clauses: Clause[] = [];
  let previous: Subject | null = null;
  let time = '';
  const parts = segments(sentence.tokens);
  // A question asks only in its own clause: "I finished another project - want to see a pic?" states the first.
  if (sentence.question) parts.pop();
  for (const segment of parts) {
    // A time said on its own before a clause ("Last week, I ...") is that clause's time.
    if (segment.tokens.every((t) => has(t, 'Date') || has(t, 'Duration') || TIME_LEAD.has(t.word) || has(t, 'Value'))) {
      time = `${time}${segment.tokens.map((t) => t.text).join(' ')} `;
      continue;
    }
    const clause = readClause(segment.tokens, segment.joiner, segment.first ? null : previous);
    if (clause === undefined) continue;
    previous = clause === null ? null : clause.subject;
    const joiner = segment.joiner;
    // A clause of time tells something that happened ("after we went camping") or a background ("since I was a kid").
    const background = joiner !== null && TIMES.has(joiner) && clause !== null && (clause.mode !== 'past' || clause.copula);
    const stated = !segment.unstated && !(joiner !== null && CONDITIONS.has(joiner)) && !background;
    if (clause !== null && stated) clauses.push({ ...clause, text: time + clause.text });
    time = '';
  }
  return clauses;
}

interface Segment {
  tokens: Token[];
  joiner: string | null;
  first: boolean;
  /** Not stated: a wish or a condition ("I wish I had ..."), or a relative clause without "that" ("the trip we took"). */
  unstated: boolean;
}

/** After these a clause is wished, imagined or supposed, not stated. */
const UNSTATED_AFTER = new Set(['wish', 'wished', 'wishing', 'hope', 'hoping', 'hoped', 'imagine', 'pretend', 'dream', 'if', 'unless', 'suppose']);

/** Splits a sentence where a new subject begins, after punctuation that ends a clause, and at a joining word before one. */
function segments(tokens: readonly Token[]): Segment[] {
  const out: Segment[] = [];
  let current: Token[] = [];
  let joiner: string | null = null;
  let unstated = false;
  const flush = (next: string | null) => {
    // A joining word at the end of a segment belongs to the next one ("..., and I went"), with the fillers after it
    // ("but now I live"); fillers alone stay ("not working right now").
    const joining = (t: Token) => JOINERS.has(t.word) || SUBORDINATORS.has(t.word);
    let end = current.length;
    while (end > 0 && FILLERS.has(current[end - 1]!.word)) end--;
    if (end > 0 && end < current.length && joining(current[end - 1]!)) current.length = end;
    while (current.length > 0 && joining(current.at(-1)!)) {
      next = current.at(-1)!.word;
      current.pop();
    }
    const last = current.at(-1);
    if (current.length > 0) out.push({ tokens: current, joiner, first: out.length === 0, unstated });
    // "the trip we took": a pronoun right after a noun, in a clause with a verb, begins a relative clause; not after a
    // clause of time or reason ("after finishing my screenplay I got ..."), which the pronoun's clause completes.
    const background = current.find((t) => !DISCOURSE.has(t.word) && !has(t, 'ProperNoun') && !has(t, 'Expression'));
    const relative =
      last !== undefined &&
      !(background !== undefined && SUBORDINATORS.has(background.word)) &&
      !(joiner !== null && SUBORDINATORS.has(joiner)) &&
      has(last, 'Noun') &&
      !has(last, 'Pronoun') &&
      !last.word.endsWith('ing') &&
      !has(last, 'Date') &&
      !has(last, 'Duration') &&
      current.some((t) => has(t, 'Verb')) &&
      !/[,;:!?.\-–—]/u.test(last.post);
    unstated = last !== undefined && next === null && (UNSTATED_AFTER.has(last.word) || relative);
    current = [];
    joiner = next;
  };
  for (let i = 0; i < tokens.length; i++) {
    const token = tokens[i]!;
    const before = tokens[i - 1];
    const brokenBefore = before !== undefined && /[;:]|\s[-–—]\s|[–—]/u.test(before.post);
    const comma = before !== undefined && /,/u.test(before.post);
    if (i > 0 && (brokenBefore || SPLIT_BEFORE.has(token.word))) flush(null);
    else if (
      i > 0 &&
      (JOINERS.has(token.word) || SUBORDINATORS.has(token.word)) &&
      (comma || tokens[i + 1]?.word === 'my' || tokens[i + 1]?.word === 'our' || OTHER_SUBJECTS.has(tokens[i + 1]?.word ?? ''))
    ) {
      flush(token.word);
      continue;
    } else if (i > 0 && comma && RELATIVES.has(token.word)) flush(null);
    // "I'm good, just got back from ...": after a comma, a past verb (after "just", "then") goes on with the same subject.
    else if (i > 0 && comma && (pastVerb(token) || (FILLERS.has(token.word) && pastVerb(tokens[i + 1])))) {
      flush('and');
    }
    current.push(token);
  }
  flush(null);
  return out;
}

/** The clause a segment states, `null` for one about no one it can name, `undefined` for no clause at all. */
function readClause(raw: Token[], joiner: string | null, inherited: Subject | null): Clause | null | undefined {
  let i = 0;
  // Interjections, discourse words and a name the speaker addresses ("Gina, ...") say nothing of the subject.
  while (i < raw.length && (DISCOURSE.has(raw[i]!.word) || has(raw[i], 'Expression') || vocative(raw, i))) i++;
  const tokens = raw.slice(i);
  if (tokens.length < 2) return undefined;
  const thanked = thanksFor(tokens, joiner);
  if (thanked !== undefined) return thanked;
  const found = subjectOf(tokens, joiner, inherited);
  if (found === null) return null;
  const group = verbGroup(tokens, found.end);
  if (group === null) return null;
  const { end, ...verb } = group;
  const object = objectOf(tokens.slice(end));
  return { subject: found.subject, ...verb, object, text: textOf(tokens), tokens, joiner };
}

/** The tokens as written, spaces and punctuation included. */
function textOf(tokens: readonly Token[]): string {
  return tokens
    .map((t) => t.pre + t.raw + t.post)
    .join('')
    .trim();
}

/** A verb in a past form, whatever else the tagger calls it ("got back" is a phrasal verb to it). */
function pastVerb(t: Token | undefined): boolean {
  return has(t, 'Verb') && !has(t, 'PresentTense') && !has(t, 'Infinitive') && !has(t, 'Gerund') && !has(t, 'Participle') && !has(t, 'Copula');
}

/** The words as a noun phrase says them: lower case, names as written, one space between them. */
function words(tokens: readonly Token[]): string {
  return tokens.map((t) => (has(t, 'ProperNoun') ? t.text : t.word)).join(' ');
}

/**
 * "Thanks for the recommendation", "Thank you so much for your support": what the speaker appreciates, said of a
 * thing (a noun); thanks for "asking" or "sharing" is talk.
 */
function thanksFor(tokens: readonly Token[], joiner: string | null): Clause | undefined {
  // "Thank you" reads "you" as the listener, by name.
  const you = tokens[1] !== undefined && (tokens[1].word === 'you' || has(tokens[1], 'Person'));
  let i = tokens[0]!.word === 'thanks' ? 1 : tokens[0]!.word === 'thank' && you ? 2 : 0;
  if (i === 0) return undefined;
  while (i < tokens.length && (FILLERS.has(tokens[i]!.word) || ['much', 'a', 'lot', 'again'].includes(tokens[i]!.word))) i++;
  if (tokens[i]?.word !== 'for') return undefined;
  const object = objectOf(tokens.slice(i + 1));
  if (!object.some((t) => has(t, 'Noun') && !has(t, 'Pronoun') && !has(t, 'Gerund'))) return undefined;
  const text = textOf(tokens);
  const base = { subject: { kind: 'speaker' } as const, lemma: 'appreciate', surface: 'appreciate', chain: ['appreciate'], particle: null };
  return { ...base, mode: 'present', negative: false, copula: false, can: false, object, text, tokens: [...tokens], recent: false, joiner };
}

function vocative(tokens: readonly Token[], i: number): boolean {
  const t = tokens[i]!;
  return has(t, 'ProperNoun') && /[,!]/u.test(t.post) && (i === 0 || DISCOURSE.has(tokens[i - 1]!.word));
}

function subjectOf(tokens: readonly Token[], joiner: string | null, inherited: Subject | null): { subject: Subject; end: number } | null {
  const first = tokens[0]!;
  if (SPEAKER.has(first.word) && has(first, 'Pronoun')) return { subject: { kind: 'speaker' }, end: 1 };
  if ((first.word === 'my' || first.word === 'our') && tokens.length > 2) {
    let end = 1;
    while (end < tokens.length && end <= 5 && (has(tokens[end], 'Noun') || has(tokens[end], 'Adjective')) && !has(tokens[end], 'Verb')) end++;
    // A name after the noun is who it is ("my daughter Sara started school"): the clause is about her.
    let named = end;
    while (named > 2 && has(tokens[named - 1], 'ProperNoun') && capitalised(tokens[named - 1]!)) named--;
    if (end > 1 && has(tokens[end], 'Verb') && named < end) {
      return {
        subject: {
          kind: 'named',
          name: tokens
            .slice(named, end)
            .map((t) => t.text)
            .join(' '),
        },
        end,
      };
    }
    if (end > 1 && has(tokens[end], 'Verb')) {
      const noun = tokens
        .slice(1, end)
        .map((t) => t.word)
        .join(' ');
      return { subject: { kind: 'possessed', noun }, end };
    }
    return null;
  }
  if (has(first, 'ProperNoun') && capitalised(first) && !has(first, 'Pronoun') && !has(first, 'Possessive')) {
    let end = 1;
    while (end < tokens.length && end < 3 && has(tokens[end], 'ProperNoun') && capitalised(tokens[end]!)) end++;
    const name = tokens
      .slice(0, end)
      .map((t) => t.text)
      .join(' ');
    if (has(tokens[end], 'Verb') && !/'s$/u.test(name) && (has(first, 'Person') || has(first, 'FirstName'))) {
      return { subject: { kind: 'named', name }, end };
    }
    return null;
  }
  // "It's so freeing to ...": what the speaker thinks of doing something.
  if (first.word === 'it' && ['is', 'was', 'feels', 'felt', 'seems'].includes(tokens[1]?.word ?? '') && tokens.some((t) => t.word === 'to')) {
    return { subject: { kind: 'topic', noun: 'it' }, end: 1 };
  }
  if (OTHER_SUBJECTS.has(first.word)) return null;
  // A bare noun phrase before its verb ("Pottery's so relaxing", "Guitar's my thing", "Dance floors help avoid
  // injuries"): what the speaker thinks of it.
  const article = first.word === 'the' ? 1 : 0;
  const head = tokens[article]!;
  // "Gina's support" (the listener's, as "your support" is read) is a thing too.
  const owned = has(head, 'Possessive') && has(head, 'ProperNoun') && has(tokens[article + 1], 'Noun');
  if ((has(head, 'Noun') || has(head, 'Adjective')) && !has(head, 'Pronoun') && !has(head, 'Determiner') && joiner === null && head !== undefined) {
    let end = article + 1;
    while (
      end < tokens.length &&
      end <= 4 &&
      (has(tokens[end], 'Noun') || has(tokens[end], 'Adjective') || tokens[end]!.word === 'and') &&
      !has(tokens[end], 'Verb')
    )
      end++;
    const verb = tokens[end];
    const finite = verb !== undefined && (BE.has(verb.word) || MODALS.has(verb.word) || (has(verb, 'PresentTense') && has(verb, 'Verb')));
    if (finite && has(tokens[end - 1], 'Noun') && (!has(head, 'ProperNoun') || owned) && !has(head, 'Date')) {
      return { subject: { kind: 'topic', noun: words(tokens.slice(article, end)) }, end };
    }
    return null;
  }
  // Talk leaves "I" out ("Lost my job yesterday", "Finishing up the choreography", "Just got back"), and a verb after
  // "and" shares the subject before it; an infinitive at the start is a request ("Check this out"), not a statement.
  let v = 0;
  while (v < tokens.length && (FILLERS.has(tokens[v]!.word) || NEGATIONS.has(tokens[v]!.word))) v++;
  const verb = tokens[v];
  if (verb === undefined || !has(verb, 'Verb')) return null;
  if (inherited !== null && joiner !== null && JOINERS.has(joiner)) return { subject: inherited, end: 0 };
  if (joiner !== null || inherited !== null) return null;
  // A gerund followed by a finite verb is the subject itself ("Starting a store is scary").
  const finiteLater = tokens
    .slice(v + 1)
    .some(
      (t) =>
        BE.has(t.word) ||
        t.word === 'has' ||
        (has(t, 'Verb') && ((has(t, 'PresentTense') && /s$/u.test(t.word)) || (has(t, 'PastTense') && !has(t, 'Participle')))),
    );
  if ((verb.word === 'speaking' || verb.word === 'talking') && (tokens[v + 1]?.word === 'of' || tokens[v + 1]?.word === 'about')) return null;
  // A gerund phrase before "is" is a thing the speaker says what it is ("Playing games is my escape").
  const copula = tokens.findIndex((t, i) => i > v && (t.word === 'is' || t.word === 'was'));
  if (v === 0 && has(verb, 'Gerund') && copula > 1 && copula <= 7 && !tokens.slice(1, copula).some((t) => has(t, 'Verb') && !has(t, 'Gerund'))) {
    return { subject: { kind: 'topic', noun: words(tokens.slice(0, copula)) }, end: copula };
  }
  const elliptic =
    (has(verb, 'PastTense') && !has(verb, 'Participle')) ||
    (has(verb, 'Gerund') && !finiteLater) ||
    ['gonna', 'going', 'been', 'gotta', 'wanna'].includes(verb.word) ||
    // A feeling or need said without "I" ("Need help with ...", "Appreciate the offer", "Love it").
    (v === 0 && STATIVE.has(verb.word)) ||
    (verb.word === 'have' && has(tokens[v + 1], 'PastTense'));
  return elliptic && (!has(verb, 'Imperative') || STATIVE.has(verb.word)) ? { subject: { kind: 'speaker' }, end: 0 } : null;
}

/** What the verb group says of the clause, and where its object begins. */
type VerbGroup = Pick<Clause, 'lemma' | 'surface' | 'chain' | 'particle' | 'mode' | 'negative' | 'copula' | 'can' | 'recent'> & { end: number };

/** The auxiliaries, negation and verbs after the subject, read for the head verb, its time and its polarity. */
function verbGroup(tokens: readonly Token[], start: number): VerbGroup | null {
  let negative = false;
  let be: string | null = null;
  let have: string | null = null;
  let did = false;
  let future = false;
  let usedTo = false;
  let recent = false;
  let can = false;
  let i = start;
  let head: Token | null = null;
  for (; i < tokens.length; i++) {
    const t = tokens[i]!;
    const w = t.word;
    if (NEGATIONS.has(w) && (w !== 'no' || tokens[i + 1]?.word === 'longer')) {
      negative = true;
      if (tokens[i + 1]?.word === 'longer') i++;
      continue;
    }
    if (FILLERS.has(w)) {
      if (RECENT.has(w)) recent = true;
      continue;
    }
    if (w === 'will' || w === 'shall' || w === 'gonna' || (w === 'going' && tokens[i + 1]?.word === 'to' && has(tokens[i + 2], 'Verb'))) {
      future = true;
      if (w === 'going') i++;
      continue;
    }
    if (w === 'used' && tokens[i + 1]?.word === 'to') {
      usedTo = true;
      i++;
      continue;
    }
    if (w === 'to' && (future || usedTo)) continue;
    if (BE.has(w) && be === null && nextVerb(tokens, i + 1)) {
      be = w;
      continue;
    }
    // "gotta", "have to", "got to": what the subject needs to do.
    if (w === 'gotta' || ((w === 'got' || HAVE.has(w)) && tokens[i + 1]?.word === 'to' && has(tokens[i + 2], 'Verb'))) {
      head = { ...t, word: 'need', root: 'need', tags: new Set(['Verb', 'PresentTense']) };
      if (w !== 'gotta') i++;
      break;
    }
    if (HAVE.has(w) && have === null && nextVerbOrBeen(tokens, i + 1)) {
      have = w;
      continue;
    }
    if (DO.has(w) && head === null && (negative || NEGATIONS.has(tokens[i + 1]?.word ?? '') || nextVerb(tokens, i + 1))) {
      did = w === 'did';
      continue;
    }
    if (MODALS.has(w)) {
      // "could", "might": not a statement of what is; "can" is what the subject is able to do.
      if (w === 'could' || w === 'might' || w === 'may' || w === 'should') return null;
      if (w === 'can') can = true;
      continue;
    }
    // "since we last spoke": "last" says when, before the verb.
    if (w === 'last' && has(tokens[i + 1], 'Verb')) continue;
    if (has(t, 'Verb') || BE.has(w) || HAVE.has(w)) {
      head = t;
      break;
    }
    return null;
  }
  if (head === null) return null;
  // "be" with a participle is what the subject is ("I'm excited to", "I was hired at"): the participle opens the object.
  const participle = be !== null && !has(head, 'Gerund') && !/ing$/u.test(head.word) && (has(head, 'PastTense') || has(head, 'Participle'));
  const copula = BE.has(head.word) || participle;
  const lemma = copula ? 'be' : lemmaOf(head.root);
  if (!participle) i++;
  // "I'm not a fan", "I am never late": a negation after the copula is the clause's.
  if (copula && !participle && NEGATIONS.has(tokens[i]?.word ?? '') && tokens[i]!.word !== 'no') {
    negative = true;
    i++;
  }
  let particle: string | null = null;
  const after = tokens[i + 1];
  const particleNext = after === undefined || !(has(after, 'Preposition') || after.word === 'to');
  if (!copula && PARTICLES.has(tokens[i]?.word ?? '') && (has(tokens[i], 'Particle') || has(tokens[i], 'PhrasalVerb') || particleNext)) {
    particle = tokens[i]!.word;
    i++;
  }
  const chain = [lemma];
  for (let j = i; j < tokens.length; j++) if (has(tokens[j], 'Verb') && !BE.has(tokens[j]!.word)) chain.push(tokens[j]!.root);
  const gerund = !participle && (has(head, 'Gerund') || /ing$/u.test(head.word));
  const pastForm = !participle && (has(head, 'PastTense') || has(head, 'Participle') || irregularPast(head.word));
  if (participle) head = { ...head, word: be!, root: 'be' };
  let mode: Mode;
  if (future) mode = 'future';
  else if (usedTo) mode = 'used_to';
  else if (have !== null && be === 'been' && gerund) mode = 'perfect_ongoing';
  else if (have !== null && (have === 'had' ? true : pastForm || copula)) mode = have === 'had' ? 'past' : 'perfect';
  else if (be !== null && gerund) mode = be === 'was' || be === 'were' ? 'past' : 'ongoing';
  else if (did || (pastForm && !copula) || (copula && (head.word === 'was' || head.word === 'were'))) mode = 'past';
  else if (participle && be === 'been') mode = 'perfect';
  else if (copula && head.word === 'been') mode = 'perfect';
  else if (gerund && be === null && have === null) mode = 'ongoing';
  else mode = 'present';
  return {
    lemma,
    surface: head.text,
    chain,
    particle,
    mode,
    negative,
    copula,
    can,
    recent: recent && (mode === 'past' || mode === 'perfect'),
    end: i,
  };
}

/** A word of a time expression ("yesterday", "last week", "in 2022", "two years ago"), not a noun such as "a great day". */
function timeWord(tokens: readonly Token[], i: number): boolean {
  const t = tokens[i]!;
  if (t.word === 'ago') return true;
  if (!has(t, 'Date') && !has(t, 'Duration')) return false;
  if (SPECIFIC_TIME.has(t.word) || /^(?:\d{4}|\d{1,2}(?:st|nd|rd|th))$/u.test(t.word)) return true;
  const before = tokens[i - 1]?.word ?? '';
  return (
    ['last', 'next', 'this', 'past', 'coming', 'every', 'each', 'few', 'couple', 'several'].includes(before) ||
    has(tokens[i - 1], 'Value') ||
    tokens[i + 1]?.word === 'ago' ||
    has(tokens[i + 1], 'Value')
  );
}

function nextVerb(tokens: readonly Token[], from: number): boolean {
  for (let i = from; i < tokens.length && i < from + 3; i++) {
    const t = tokens[i]!;
    if (NEGATIONS.has(t.word) || FILLERS.has(t.word)) continue;
    return has(t, 'Verb') && !has(t, 'Copula') ? true : t.word === 'going' || t.word === 'gonna';
  }
  return false;
}

function nextVerbOrBeen(tokens: readonly Token[], from: number): boolean {
  for (let i = from; i < tokens.length && i < from + 3; i++) {
    const t = tokens[i]!;
    if (NEGATIONS.has(t.word) || FILLERS.has(t.word)) continue;
    return t.word === 'been' || t.word === 'got' || has(t, 'PastTense') || has(t, 'Participle');
  }
  return false;
}

/**
 * What follows the verb group, up to a relative clause, without its time words (the time is read
 * from the clause's text), fillers, the speaker's possessives and a leading article: "lost my job as
 * a banker yesterday" -> "job as a banker"; cut at a preposition past MAX_OBJECT_WORDS.
 */
function objectOf(tokens: readonly Token[]): Token[] {
  const out: Token[] = [];
  for (let i = 0; i < tokens.length; i++) {
    const t = tokens[i]!;
    const w = t.word;
    if (out.length > 0 && (RELATIVES.has(w) || (w === 'that' && (has(tokens[i + 1], 'Pronoun') || has(tokens[i + 1], 'Verb'))))) break;
    // "Knowing I'm helping create a world is amazing": the object ends where another verb's clause begins.
    if (out.length > 0 && (BE.has(w) || MODALS.has(w) || w === 'will')) break;
    // "as a banker", "after work": prepositions; "as I", "after we": a clause of its own.
    if (out.length > 0 && SUBORDINATORS.has(w) && w !== 'that' && (!TIMES.has(w) || w === 'when' || w === 'while' || has(tokens[i + 1], 'Pronoun')))
      break;
    // A name said to the listener at the end ("..., Nate!") is no part of the object.
    if (out.length > 0 && /,/u.test(tokens[i - 1]?.post ?? '') && tokens.slice(i).every((x) => has(x, 'ProperNoun'))) break;
    const ends = /[.!?,;:]/u.test(t.post) && i + 1 < tokens.length && out.length > 0;
    if (timeWord(tokens, i)) {
      while (out.length > 0 && (TIME_LEAD.has(out.at(-1)!.word) || has(out.at(-1), 'Value'))) out.pop();
      if (ends) break;
      continue;
    }
    if (FILLERS.has(w) || has(t, 'Expression')) {
      if (ends) break;
      continue;
    }
    // "right now", "at the moment", "these days": the time of the telling, not part of what is said.
    if ((w === 'right' && tokens[i + 1]?.word === 'now') || (w === 'at' && tokens[i + 1]?.word === 'the' && tokens[i + 2]?.word === 'moment')) {
      i += w === 'right' ? 1 : 2;
      continue;
    }
    if ((w === 'these' || w === 'those') && tokens[i + 1]?.word === 'days') {
      i++;
      continue;
    }
    if (w === 'me' || w === 'myself' || w === 'us' || w === 'ourselves') {
      // "near me", "with us": the preposition goes with the speaker it governs.
      if (has(out.at(-1), 'Preposition') || has(out.at(-1), 'Adjective')) out.pop();
      continue;
    }
    // The speaker's things are the subject's in third person, whoever says it: "their".
    if ((w === 'my' || w === 'our') && tokens[i + 1] !== undefined) {
      if (out.length > 0) out.push({ ...t, text: 'their', raw: 'their', word: 'their', root: 'their' });
      continue;
    }
    if (out.length === 0 && (w === 'a' || w === 'an' || w === 'the' || w === 'some')) continue;
    if (w === 'a' && tokens[i + 1]?.word === 'lot') {
      i++;
      continue;
    }
    out.push(t);
    // A comma ends the object, except in a list of things ("salads, sandwiches and desserts").
    const next = tokens[i + 1];
    const listed =
      next !== undefined && !has(next, 'Pronoun') && (has(next, 'Noun') || has(next, 'Adjective') || next.word === 'and' || next.word === 'or');
    if ((/[.!?;:]/u.test(t.post) || (/,/u.test(t.post) && !listed)) && i + 1 < tokens.length) break;
  }
  // A trailing preposition, article or verb of saying introduces what the object no longer holds ("an email saying").
  while (
    out.length > 0 &&
    (TIME_LEAD.has(out.at(-1)!.word) ||
      has(out.at(-1), 'Preposition') ||
      has(out.at(-1), 'Determiner') ||
      has(out.at(-1), 'Conjunction') ||
      SAYING.has(out.at(-1)!.word))
  )
    out.pop();
  if (out.length <= MAX_OBJECT_WORDS) return out;
  let cut = MAX_OBJECT_WORDS;
  for (let j = MAX_OBJECT_WORDS; j > 2; j--) {
    if (has(out[j], 'Preposition') || has(out[j], 'Conjunction')) {
      cut = j;
      break;
    }
  }
  return out.slice(0, cut);
}
