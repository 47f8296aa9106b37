import type { Statement } from './statements';
import { type Sentence, wordSet } from './tokens';

/**
 * How sure the extractor is of a statement: a logistic model over what the statement and its turn
 * show, the probability that the statement says something the speaker's dialog partner would
 * remember of them. Long, first-person, content-rich turns weigh for a statement; questions, talk
 * about the listener and small talk against; canonical relations, past happenings and objects with
 * nouns for it; bare feelings and short objects against. The weights are fitted on a development set
 * of annotated dialogs (`infra/bench/statement-tune.ts`); the features are general English.
 */

/** What a turn shows, the same for all its statements. */
export interface TurnSignals {
  words: number;
  sentences: number;
  questions: number;
  firstPerson: number;
  secondPerson: number;
  smallTalk: number;
  statements: number;
  /** Words of five letters or more: what a turn has to say. */
  content: number;
  /** Names said, other than at a sentence's start. */
  names: number;
  times: number;
  past: number;
  exclamations: number;
  chitChat: number;
  /** The turn answers a question the other speaker asked just before. */
  answers: number;
  /** The one other person of the dialog, in lower case, if known. */
  listener: string | null;
}

const FIRST_PERSON = new Set(['i', 'me', 'my', 'mine', 'myself', 'we', 'us', 'our', 'ours']);
const SECOND_PERSON = new Set(['you', 'your', 'yours', 'yourself', 'u', 'ur']);
const SMALL_TALK = new Set(
  (
    'thanks thank thx wow whoa haha lol omg aww awesome cool great nice sweet yeah yep yes no nope ok okay sure congrats congratulations hey hi ' +
    'hello bye goodbye sounds glad sorry hope agreed totally absolutely definitely exactly true right same amazing incredible cheers'
  ).split(' '),
);

const CHIT_CHAT = new RegExp(
  [
    String.raw`\b(?:thanks|thank you|glad|congrats|congratulations|sounds (?:great|awesome|fun|amazing|like)|can't wait|good luck|`,
    String.raw`take care|you got this|keep it up|keep going|hang in there|proud of you|happy for you|sorry to hear)\b`,
  ].join(''),
  'giu',
);
const TIME_WORDS = new RegExp(
  String.raw`\b(?:yesterday|today|tonight|tomorrow|last|next|ago|weekend|week|month|year|` +
    String.raw`monday|tuesday|wednesday|thursday|friday|saturday|sunday|(?:19|20)\d\d)\b`,
  'giu',
);

export function turnSignals(
  sentences: readonly Sentence[],
  statements: readonly Statement[],
  answers: boolean,
  listener: string | null,
): TurnSignals {
  const signals: TurnSignals = {
    words: 0,
    sentences: sentences.length,
    questions: 0,
    firstPerson: 0,
    secondPerson: 0,
    smallTalk: 0,
    statements: statements.length,
    content: 0,
    names: 0,
    times: 0,
    past: 0,
    exclamations: 0,
    chitChat: 0,
    answers: answers ? 1 : 0,
    listener: listener?.toLowerCase() ?? null,
  };
  for (const s of sentences) {
    if (s.question) signals.questions++;
    if (s.text.trim().endsWith('!')) signals.exclamations++;
    signals.chitChat += (s.text.match(CHIT_CHAT) ?? []).length;
    signals.times += (s.text.match(TIME_WORDS) ?? []).length;
    s.tokens.forEach((t, i) => {
      signals.words++;
      if (FIRST_PERSON.has(t.word)) signals.firstPerson++;
      if (SECOND_PERSON.has(t.word)) signals.secondPerson++;
      if (t.word.length >= 5 && /^[a-z]+$/u.test(t.word)) signals.content++;
      if (i > 0 && t.tags.has('ProperNoun') && /^\p{Lu}/u.test(t.text)) signals.names++;
      if (t.tags.has('PastTense')) signals.past++;
    });
  }
  const first = sentences[0]?.tokens[0]?.word;
  signals.smallTalk = first !== undefined && SMALL_TALK.has(first) ? 1 : 0;
  return signals;
}

const VIEWS = new Set(['values', 'finds', 'believes']);
const VAGUE = /\b(?:it|this|that|them|these|those|something|anything|things|stuff)\b/iu;
const FEELINGS = wordSet(
  'happy glad excited proud thrilled sorry thankful grateful lucky stoked pumped sure blessed',
  'relieved sad upset worried nervous amazed impressed',
);
const TIME =
  /\b(?:yesterday|today|tonight|tomorrow|last|next|ago|weekend|monday|tuesday|wednesday|thursday|friday|saturday|sunday|(?:19|20)\d\d)\b/iu;

/** The features of one statement in its turn, in the order of WEIGHTS; `index` is its place among the turn's statements. */
export function features(statement: Statement, turn: TurnSignals, index: number): number[] {
  const clause = statement.clause;
  const object = 'literal' in statement.object ? statement.object.literal : statement.object.entity;
  const objectWords = object.split(/\s+/u).length;
  const words = Math.max(1, turn.words);
  const view = VIEWS.has(statement.rel);
  const mode = clause.mode;
  return [
    1,
    Math.log1p(turn.words),
    turn.questions / Math.max(1, turn.sentences),
    turn.firstPerson / words,
    turn.secondPerson / words,
    turn.smallTalk,
    Math.log1p(turn.statements),
    Math.log1p(turn.content),
    Math.log1p(turn.names),
    Math.log1p(turn.times),
    Math.log1p(turn.past),
    turn.exclamations / Math.max(1, turn.sentences),
    Math.log1p(turn.chitChat),
    turn.answers,
    Math.log1p(index),
    statement.canonical ? 1 : 0,
    view ? 1 : 0,
    !view && clause.copula ? 1 : 0,
    clause.negative ? 1 : 0,
    !view && (mode === 'past' || mode === 'perfect') ? 1 : 0,
    !view && (mode === 'future' || statement.rel.endsWith('_to')) ? 1 : 0,
    !view && (mode === 'ongoing' || mode === 'perfect_ongoing') ? 1 : 0,
    mode === 'used_to' ? 1 : 0,
    clause.subject.kind === 'possessed' ? 1 : 0,
    clause.subject.kind === 'named' ? 1 : 0,
    Math.log1p(objectWords),
    objectWords >= 3 ? 1 : 0,
    'entity' in statement.object || /\b\p{Lu}/u.test(object.slice(1)) ? 1 : 0,
    TIME.test(clause.text) || clause.recent ? 1 : 0,
    turn.listener !== null && object.toLowerCase().includes(turn.listener) ? 1 : 0,
    VAGUE.test(object) ? 1 : 0,
    clause.copula && clause.object.some((t) => FEELINGS.has(t.word)) ? 1 : 0,
    Math.log1p(clause.object.filter((t) => t.tags.has('Noun') && !t.tags.has('Pronoun')).length),
    clause.object.some((t) => t.tags.has('Value')) ? 1 : 0,
    statement.rel === 'does_activity' ? 1 : 0,
    statement.rel === 'likes' || statement.rel === 'does_not_like' ? 1 : 0,
    clause.subject.kind === 'topic' ? 1 : 0,
    clause.joiner === null ? 0 : 1,
    clause.can ? 1 : 0,
  ];
}

/** Fitted weights of `features`, in order. */
const WEIGHTS = [
  -1.3045, -0.2952, 0.727, 1.8539, 0.2572, 0.147, 0.2131, 0.0708, 0.0266, 0.1029, -0.1125, 0.0101, -0.2377, 0.4395, -0.0325, 0.3147, -1.2432, 0.164,
  -0.3853, 0.4623, -0.3218, 0.5227, 1.659, 0.2946, 0.2344, 0.9117, 0.0156, 0.1779, 0.7026, -1.1582, -0.6632, -0.62, 0.4328, 0.1573, -1.8516, -0.2425,
  0.5255, 0.1438, -0.3579,
];

export function probability(statement: Statement, turn: TurnSignals, index: number, weights: readonly number[] = WEIGHTS): number {
  const x = features(statement, turn, index);
  let z = 0;
  for (let i = 0; i < x.length; i++) z += (weights[i] ?? 0) * x[i]!;
  return 1 / (1 + Math.exp(-z));
}
