import type { EntityKind } from './entities';

/** The relations the rules derive; `one` relations supersede through the DSL (a move ends the previous `lives_in`). */
export const RELATIONS = {
  lives_in: 'one',
  from: 'one',
  works_at: 'one',
  works_as: 'one',
  relationship_status: 'one',
  studies: 'many',
  has_pet: 'many',
  has_family: 'many',
  likes: 'many',
  plans: 'many',
  does: 'many',
  does_activity: 'many',
  plays_instrument: 'many',
  read_book: 'many',
  watched: 'many',
  plays_game: 'many',
  visited: 'many',
  visited_country: 'many',
  visited_city: 'many',
  visited_state_or_region: 'many',
  attended_event: 'many',
  joined: 'many',
  told: 'many',
} as const satisfies Record<string, 'one' | 'many'>;

export type Relation = keyof typeof RELATIONS;

/** A first-person statement of a relation: its object is a named entity or a literal phrase. */
export interface RelationMatch {
  rel: Relation;
  dst: { entity: string; kind: EntityKind } | { literal: string };
  confidence: number;
  why: string;
}

const NAME = String.raw`((?:[A-Z][\p{L}'’.-]+)(?:\s+(?:of\s+|de\s+|the\s+)?[A-Z][\p{L}'’.-]+){0,3})`;
/** A short object phrase: up to the end of the clause. */
const CLAUSE_END = ['and', 'but', 'because', 'so', 'since', 'which', 'who', 'when', 'while', 'with', 'as', 'for', 'after', 'before', 'if']
  .concat(['lately', 'recently', 'now', 'again', 'too', 'yet'])
  .join('|');
const PHRASE = String.raw`([\p{L}\p{N}'’ -]{2,60}?)(?=\s*(?:[.,;:!?)]|$|\s(?:${CLAUSE_END})\b))`;
const I = String.raw`\b(?:I|[Ww]e)`;
const ADVERB_WORDS = ['just', 'recently', 'finally', 'actually', 'really', 'also', 'still', 'now', 'currently', 'totally', 'absolutely', 'always']
  .concat(['even', 'already', 'kinda', 'kind of', 'sort of'])
  .join('|');
const ADVERBS = String.raw`(?:(?:${ADVERB_WORDS})\s+)*`;

const FAMILY = [
  'husband',
  'wife',
  'partner',
  'boyfriend',
  'girlfriend',
  'fiance',
  'fiancé',
  'fiancee',
  'son',
  'daughter',
  'kids',
  'children',
  'child',
  'mom',
  'mum',
  'mother',
  'dad',
  'father',
  'parents',
  'sister',
  'brother',
  'siblings',
  'grandma',
  'grandmother',
  'grandpa',
  'grandfather',
  'aunt',
  'uncle',
  'cousin',
  'niece',
  'nephew',
  'family',
];
const PETS = [
  'dog',
  'dogs',
  'cat',
  'cats',
  'puppy',
  'puppies',
  'kitten',
  'kittens',
  'pet',
  'pets',
  'turtle',
  'turtles',
  'hamster',
  'rabbit',
  'bunny',
  'parrot',
  'bird',
  'horse',
  'snake',
  'guinea pig',
  'fish',
];

/** Objects of "I love ..." that say nothing about the speaker's tastes. */
const VAGUE_WORDS = ['you', 'u', 'it', 'that', 'this', 'these', 'those', 'them', 'him', 'her', 'how', 'what', 'when', 'the way', 'your']
  .concat(['to hear', 'hearing', 'seeing', 'to see', 'reading about', 'the idea', 'the sound', 'the thought', 'the vibe', 'the pic', 'the photo'])
  .concat(['the picture', 'the support', 'ya', "y'all", 'ur', 'one', 'so much', 'a lot', 'all', 'everything', 'anything', 'something', 'some'])
  .join('|');
const VAGUE = new RegExp(`^(?:${VAGUE_WORDS})\\b`, 'i');

const JOB_VERBS = ['work', 'worked', 'working', 'started working', 'got a job', 'got hired', 'landed a job', 'got a new job', 'joined']
  .concat(['interning', 'got an internship'])
  .join('|');
const STUDY_VERBS = 'studying|study|studied|majoring in|major in|taking (?:a |an |some )?(?:class|classes|course|courses|lessons) (?:in|on)';
const PLAN_VERBS = ['planning', 'plan', 'hoping', 'going', 'gonna', 'about', 'aiming', 'intending', 'intend', 'thinking of', 'thinking about']
  .concat(['considering', 'looking forward to', 'excited to', 'going to'])
  .join('|');
/** "I'll ..." that promises nothing about the speaker's life. */
const NOT_PLANS = 'be|keep|let|try|do|remember|check|think|definitely|send|tell|talk|see';
const FAMILY_ADJECTIVES = 'little|big|younger|older|baby|oldest|youngest|eldest|amazing|awesome|lovely|sweet|dear|late|new';
const PET_ADJECTIVES = 'new|little|sweet|cute';

interface Pattern {
  rel: Relation;
  re: RegExp;
  /** The object: an entity of this kind when the capture is a capitalised name, else a literal. */
  kind?: EntityKind;
  confidence: number;
  why: string;
  /** Keep a lower-case capture as a literal (false: only names count). */
  literal?: boolean;
  /** A fixed literal object, regardless of the capture. */
  fixed?: string;
}

const PATTERNS: Pattern[] = [
  {
    rel: 'lives_in',
    re: new RegExp(`${I}\\s+${ADVERBS}(?:live|lived|living|moved|relocated|am living|'m living)\\s+(?:back\\s+)?(?:in|to)\\s+${NAME}`, 'u'),
    kind: 'place',
    confidence: 0.85,
    why: 'first person "I live in / moved to"',
  },
  {
    rel: 'from',
    re: new RegExp(`${I}(?:'m| am| are|'re)\\s+${ADVERBS}(?:originally\\s+)?from\\s+${NAME}`, 'u'),
    kind: 'place',
    confidence: 0.85,
    why: 'first person "I am from"',
  },
  { rel: 'from', re: new RegExp(`${I}\\s+grew up in\\s+${NAME}`, 'u'), kind: 'place', confidence: 0.8, why: 'first person "I grew up in"' },
  {
    rel: 'works_at',
    re: new RegExp(`${I}(?:'m| am)?\\s+${ADVERBS}(?:${JOB_VERBS})\\s+(?:at|for|with)?\\s*${NAME}`, 'u'),
    kind: 'organization',
    confidence: 0.8,
    why: 'first person "I work at"',
  },
  {
    rel: 'works_as',
    re: new RegExp(`${I}(?:'m| am)?\\s+${ADVERBS}(?:work|working|started working|got a job|got hired|employed)\\s+as\\s+(?:an?\\s+)?${PHRASE}`, 'iu'),
    confidence: 0.8,
    why: 'first person "I work as"',
    literal: true,
  },
  {
    rel: 'studies',
    re: new RegExp(`${I}(?:'m| am)?\\s+${ADVERBS}(?:${STUDY_VERBS})\\s+${PHRASE}`, 'iu'),
    confidence: 0.75,
    why: 'first person "I study"',
    literal: true,
  },
  {
    rel: 'relationship_status',
    re: /\bI(?:'m| am)\s+(?:now\s+|currently\s+|still\s+)?(single|married|engaged|divorced|dating someone)\b/iu,
    confidence: 0.8,
    why: 'first person "I am single/married"',
    literal: true,
  },
  {
    rel: 'likes',
    re: new RegExp(`${I}\\s+${ADVERBS}(?:love|like|enjoy|adore)\\s+${PHRASE}`, 'iu'),
    confidence: 0.7,
    why: 'first person "I love"',
    literal: true,
  },
  {
    rel: 'likes',
    re: new RegExp(
      `${I}(?:'m| am| are|'re)\\s+${ADVERBS}(?:really\\s+|so\\s+)?(?:into|passionate about|obsessed with|a (?:big |huge )?fan of)\\s+${PHRASE}`,
      'iu',
    ),
    confidence: 0.7,
    why: 'first person "I am into"',
    literal: true,
  },
  {
    rel: 'likes',
    re: new RegExp(`\\bmy\\s+(?:all-time\\s+)?fav(?:ou?rite)?\\s+[\\p{L} ]{2,30}?\\s+(?:is|are|was)\\s+${PHRASE}`, 'iu'),
    confidence: 0.75,
    why: 'first person "my favorite ... is"',
    literal: true,
  },
  {
    rel: 'plans',
    re: new RegExp(`${I}(?:'m| am| are|'re)?\\s+${ADVERBS}(?:${PLAN_VERBS})\\s+(?:to\\s+|on\\s+)?${PHRASE}`, 'iu'),
    confidence: 0.65,
    why: 'first person plan',
    literal: true,
  },
  {
    rel: 'plans',
    re: new RegExp(`${I}(?:'ll| will)\\s+${ADVERBS}(?!(?:${NOT_PLANS})\\b)${PHRASE}`, 'iu'),
    confidence: 0.6,
    why: 'first person "I will"',
    literal: true,
  },
  {
    rel: 'does',
    re: new RegExp(
      `${I}(?:'ve| have)\\s+${ADVERBS}been\\s+((?:[a-z]+ing)(?:\\s+[\\p{L}'’-]+){0,4}?)(?=\\s*(?:[.,;:!?)]|$|\\s(?:${CLAUSE_END}|a lot)\\b))`,
      'u',
    ),
    confidence: 0.65,
    why: 'first person "I have been doing"',
    literal: true,
  },
  {
    rel: 'does',
    re: new RegExp(`${I}\\s+${ADVERBS}(?:started|began|took up|picked up)\\s+${PHRASE}`, 'iu'),
    confidence: 0.7,
    why: 'first person "I started"',
    literal: true,
  },
];

const FAMILY_RE = new RegExp(`\\b[Mm]y\\s+(?:(?:${FAMILY_ADJECTIVES})\\s+)?(${FAMILY.join('|')})\\b(?:,?\\s+${NAME})?`, 'gu');
const HAVE_FAMILY_RE = new RegExp(
  `\\bI\\s+(?:have|had|got)\\s+(?:a|an|two|three|four|\\d+)\\s+(?:(?:little|big|younger|older)\\s+)?(${FAMILY.join('|')})\\b`,
  'gu',
);
const PET_RE = new RegExp(
  `\\b(?:[Mm]y|[Oo]ur)\\s+(?:(?:new|little|sweet|old|two|three|adorable|furry|cute)\\s+)*(${PETS.join('|')})\\b(?:,?\\s+${NAME})?`,
  'gu',
);
const HAVE_PET_RE = new RegExp(
  `${I}\\s+${ADVERBS}(?:have|had|got|adopted|rescued|bought)\\s+(?:a|an|two|three|\\d+)\\s+(?:(?:${PET_ADJECTIVES})\\s+)*` +
    `(${PETS.join('|')})\\b(?:\\s+(?:named|called)\\s+${NAME})?`,
  'gu',
);

/** Trims an object phrase of filler ("painting a lot" -> "painting"); empty when nothing is left or it says nothing. */
function literalOf(raw: string): string {
  const phrase = raw
    .replace(/\b(?:a lot|so much|very much|too|as well|again|right now|these days|lately)\b/giu, '')
    .replace(/\s+/gu, ' ')
    .trim()
    .replace(/^(?:to|on)\s+/iu, '');
  if (phrase.length < 3 || VAGUE.test(phrase)) return '';
  return phrase;
}

function pronounStart(s: string): boolean {
  return /^(?:I|We|It|He|She|They|You)$/u.test(s);
}

/** The relations a sentence states in the first person, each once. */
export function matchRelations(sentence: string): RelationMatch[] {
  const text = sentence.replace(/’/gu, "'");
  const found: RelationMatch[] = [];
  const seen = new Set<string>();
  const add = (match: RelationMatch) => {
    const key = `${match.rel}\u0000${'entity' in match.dst ? match.dst.entity : match.dst.literal}`;
    if (seen.has(key)) return;
    seen.add(key);
    found.push(match);
  };
  if (/\b(?:don't|didn't|never|not|can't|won't|wouldn't|no longer|isn't)\b/iu.test(text) && !/\bnot only\b/iu.test(text)) return found;
  for (const p of PATTERNS) {
    const m = p.re.exec(text);
    if (!m || m[1] === undefined) continue;
    const capture = m[1].trim();
    if (p.kind !== undefined) {
      if (pronounStart(capture.split(/\s+/u)[0]!)) continue;
      add({ rel: p.rel, dst: { entity: capture, kind: p.kind }, confidence: p.confidence, why: p.why });
    } else if (p.literal) {
      const literal = literalOf(capture);
      if (literal !== '') add({ rel: p.rel, dst: { literal }, confidence: p.confidence, why: p.why });
    }
  }
  for (const re of [FAMILY_RE, HAVE_FAMILY_RE]) {
    for (const m of text.matchAll(re)) {
      const role = m[1]!.toLowerCase();
      const name = m[2];
      if (name !== undefined && !pronounStart(name.split(/\s+/u)[0]!)) {
        add({ rel: 'has_family', dst: { entity: name, kind: 'person' }, confidence: 0.8, why: `first person "my ${role} ${name}"` });
      } else {
        add({ rel: 'has_family', dst: { literal: role }, confidence: 0.7, why: `first person "my ${role}"` });
      }
    }
  }
  for (const re of [PET_RE, HAVE_PET_RE]) {
    for (const m of text.matchAll(re)) {
      const animal = m[1]!.toLowerCase();
      const name = m[2];
      if (name !== undefined && !pronounStart(name.split(/\s+/u)[0]!)) {
        add({ rel: 'has_pet', dst: { entity: name, kind: 'animal' }, confidence: 0.8, why: `first person "my ${animal} ${name}"` });
      } else {
        add({ rel: 'has_pet', dst: { literal: animal }, confidence: 0.7, why: `first person "my ${animal}"` });
      }
    }
  }
  return found;
}
