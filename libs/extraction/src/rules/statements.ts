import nlp from 'compromise';

/** What a sentence tells of the speaker: something that happened, will happen, goes on, or is so. */
export type StatementKind = 'past' | 'future' | 'ongoing' | 'state';

/** One sentence of a turn, read for what it states about its speaker. */
export interface Statement {
  text: string;
  kind: StatementKind;
  /** How clearly the sentence states something of the speaker's own life, in [0, 1]. */
  score: number;
  why: string;
  people: string[];
  places: string[];
  organizations: string[];
}

const FIRST_PERSON = /\b(?:i|i'm|i've|i'd|i'll|me|my|mine|myself|we|we're|we've|we'd|we'll|us|our|ours)\b/gu;
const FIRST_PERSON_SUBJECT = new RegExp(
  [
    String.raw`(?:^|[,;:–—-]\s*|\b(?:and|but|so|then|because|when|since|after|before|also|just|actually|finally|recently|`,
    String.raw`yesterday|today|lately|now)\s+)(?:i|we)(?:'m|'ve|'d|'ll)?\s+(?!hope\b|bet\b|guess\b|agree\b|know\b|mean\b|`,
    String.raw`understand\b|can imagine\b|can't imagine\b|wish\b|appreciate\b|see\b|totally agree\b|can see\b|can tell\b|`,
    String.raw`feel you\b|can relate\b)`,
  ].join(''),
  'u',
);
const MY_NOUN = /\b(?:my|our)\s+(?!pleasure\b|bad\b|gosh\b|god\b|goodness\b|heart goes\b|thoughts\b)[a-z]/u;
const SECOND_PERSON = /\b(?:you|your|you're|you've|you'll|yours|yourself|u|ur)\b/gu;
const SMALL_TALK = new RegExp(
  [
    String.raw`^(?:thanks|thank you|thx|wow|whoa|haha|hah|lol|omg|aww+|awesome|cool|great|nice|sweet|yeah|yep|yes|no|nope|ok|`,
    String.raw`okay|sure|congrats|congratulations|hey|hi|hello|bye|goodbye|take care|see you|see ya|talk soon|good luck|`,
    String.raw`sounds|that's|that sounds|that is|it's great|glad|so glad|i'm glad|i'm so glad|i'm happy for|i'm so happy for|`,
    String.raw`i'm proud of|i'm so proud of|i'm sorry|sorry|i hope|hope|i bet|i agree|agreed|totally|absolutely|definitely|`,
    String.raw`exactly|true|right|same|me too|love that|love it|you|your|keep|let's|let me know|good for you|well done|`,
    String.raw`way to go|amazing|incredible|what a|how|cheers)\b`,
  ].join(''),
  'u',
);
const CHIT_CHAT_VERB = new RegExp(
  [
    String.raw`\b(?:i|we)(?:'m| am| are|'re)?\s+(?:so\s+|really\s+|very\s+|totally\s+)?(?:glad|happy for|proud of|sorry|`,
    String.raw`thankful for you|grateful for you|lucky to have you|here for you|rooting for you|with you)\b|\b(?:thanks|`,
    String.raw`thank you)\b|\b(?:can't wait to (?:see|hear))\b|\bkeep (?:it up|going|up the)\b|\blet me know\b|`,
    String.raw`\bwe got this\b|\byou got this\b|\bsounds (?:great|awesome|fun|amazing|like)\b`,
  ].join(''),
  'u',
);
const FUTURE = new RegExp(
  [
    String.raw`\b(?:will|'ll|gonna|going to|plan to|plans to|planning|plan on|hoping to|hope to|intend|about to|next (?:week|`,
    String.raw`month|year|weekend|time|summer|spring|fall|winter)|tomorrow|tonight|soon|upcoming|looking forward to|`,
    String.raw`can't wait to|want to|wanna|thinking of|thinking about|considering|decided to)\b`,
  ].join(''),
  'u',
);
const ONGOING =
  /\b(?:(?:i|we)(?:'ve| have) been|lately|these days|currently|right now|nowadays|always|every (?:day|week|morning|night|weekend)|usually|often)\b/u;
const TIME_WORDS = new RegExp(
  [
    String.raw`\b(?:yesterday|today|tonight|tomorrow|last|next|ago|weekend|week|month|year|monday|tuesday|wednesday|thursday|`,
    String.raw`friday|saturday|sunday|january|february|march|april|may|june|july|august|september|october|november|december|`,
    String.raw`summer|winter|spring|fall|morning|evening|(?:19|20)\d\d)\b`,
  ].join(''),
  'u',
);
const EXPERIENCE = new RegExp(
  [
    String.raw`\b(?:went|visited|attended|joined|started|finished|got|took|bought|made|tried|won|met|found|saw|watched|read|`,
    String.raw`learned|learnt|moved|adopted|signed up|volunteered|travel(?:l)?ed|ran|hiked|played|painted|wrote|created|`,
    String.raw`built|launched|opened|completed|graduated|received|gave|had|organized|hosted|performed|competed|celebrated|`,
    String.raw`camped|baked|cooked|lost|quit|left|decided|became|managed|spent|participated|taught|helped|drew|recorded|`,
    String.raw`released|published|bought|sold|picked up|taken|been to|gone)\b`,
  ].join(''),
  'u',
);
const CONTENT = /\b[a-z]{5,}\b/gu;

/** Typographic quotes as plain ones, so patterns need only one spelling. */
export function normalise(text: string): string {
  return text.replace(/[’‘]/gu, "'").replace(/[“”]/gu, '"');
}

/** The turn-level signals the selection model weighs (see ./selection.ts). */
export interface TurnSignals {
  words: number;
  firstPerson: number;
  sentences: number;
  questions: number;
  firstPersonSubjects: number;
  possessives: number;
  past: number;
  experience: number;
  plans: number;
  ongoing: number;
  times: number;
  names: number;
  secondPerson: number;
  thirdPerson: number;
  smallTalkStart: number;
  chitChat: number;
  relations: number;
  content: number;
}

export interface TurnReading {
  /** The sentences stating something of the speaker, best first. */
  statements: Statement[];
  signals: TurnSignals;
}

const THIRD_PERSON = /\b(?:he|she|they|him|her|his|hers|them|their)\b/gu;

/**
 * Splits a turn into sentences and reads each for stating something of the speaker's life:
 * a first-person subject, a past or planned happening, a time, names and content words
 * count for it; a question, a reply about the other speaker ("you", "glad", "thanks") and
 * small talk count against it. Names come from compromise's people, places and organisations;
 * `relationsOf` counts the first-person relations of a sentence.
 */
export function readTurn(turnText: string, relationsOf: (sentence: string) => number): TurnReading {
  const text = normalise(turnText);
  const lowerTurn = text.toLowerCase();
  const signals: TurnSignals = {
    words: lowerTurn.split(/\s+/u).filter((w) => /[a-z0-9]/u.test(w)).length,
    firstPerson: (lowerTurn.match(FIRST_PERSON) ?? []).length,
    sentences: 0,
    questions: 0,
    firstPersonSubjects: 0,
    possessives: 0,
    past: 0,
    experience: 0,
    plans: 0,
    ongoing: 0,
    times: 0,
    names: 0,
    secondPerson: (lowerTurn.match(SECOND_PERSON) ?? []).length,
    thirdPerson: (lowerTurn.match(THIRD_PERSON) ?? []).length,
    smallTalkStart: SMALL_TALK.test(lowerTurn) ? 1 : 0,
    chitChat: 0,
    relations: 0,
    content: (lowerTurn.match(CONTENT) ?? []).length,
  };
  const statements: Statement[] = [];
  const doc = nlp(text);
  doc.sentences().forEach((view) => {
    const s = view as typeof doc;
    const sentenceText = s.text().trim();
    const lower = sentenceText.toLowerCase();
    signals.sentences++;
    if (sentenceText.endsWith('?')) {
      signals.questions++;
      return;
    }
    const words = lower.split(/\s+/u).filter((w) => /[a-z0-9]/u.test(w)).length;
    const subject = FIRST_PERSON_SUBJECT.test(lower);
    const possessive = MY_NOUN.test(lower);
    const past = s.has('#PastTense') || /\b(?:i|we)(?:'ve| have) (?!been\b)[a-z]+ed\b/u.test(lower);
    const future = FUTURE.test(lower);
    const ongoing = ONGOING.test(lower);
    const timed = TIME_WORDS.test(lower);
    const experience = EXPERIENCE.test(lower);
    const chitChat = CHIT_CHAT_VERB.test(lower);
    const people = s.people().out('array') as string[];
    const places = s.places().out('array') as string[];
    const organizations = s.organizations().out('array') as string[];
    const named = people.length + places.length + organizations.length > 0;
    const relations = subject || possessive ? relationsOf(sentenceText) : 0;
    signals.firstPersonSubjects += subject ? 1 : 0;
    signals.possessives += possessive ? 1 : 0;
    signals.past += past ? 1 : 0;
    signals.experience += experience ? 1 : 0;
    signals.plans += future ? 1 : 0;
    signals.ongoing += ongoing ? 1 : 0;
    signals.times += timed ? 1 : 0;
    signals.names += named ? 1 : 0;
    signals.chitChat += chitChat ? 1 : 0;
    signals.relations += relations;
    if (words < 4) return;
    const secondPerson = (lower.match(SECOND_PERSON) ?? []).length;
    const content = (lower.match(CONTENT) ?? []).length;
    let score = subject ? 0.35 : possessive ? 0.25 : 0.1;
    const why: string[] = [subject ? 'first person' : possessive ? 'first-person possessive' : 'statement'];
    if (past) {
      score += 0.15;
      why.push('past');
    }
    if (experience) {
      score += 0.1;
      why.push('experience');
    }
    if (future) {
      score += 0.1;
      why.push('plan');
    }
    if (ongoing) {
      score += 0.05;
      why.push('ongoing');
    }
    if (timed) {
      score += 0.1;
      why.push('time');
    }
    if (named) {
      score += 0.1;
      why.push('names');
    }
    if (relations > 0) {
      score += 0.15;
      why.push('relation');
    }
    score += Math.min(0.15, content * 0.03);
    if (words >= 10) score += 0.05;
    if (secondPerson > 0) score -= Math.min(0.3, 0.12 * secondPerson);
    if (SMALL_TALK.test(lower)) score -= 0.15;
    if (chitChat) score -= 0.2;
    const kind: StatementKind = past && !future ? 'past' : future ? 'future' : ongoing ? 'ongoing' : 'state';
    statements.push({ text: sentenceText, kind, score: Math.max(0, Math.min(1, score)), why: why.join(', '), people, places, organizations });
  });
  statements.sort((a, b) => b.score - a.score);
  return { statements, signals };
}
