import nlp from 'compromise';

/** One word of a sentence as compromise tags it. */
export interface Token {
  /** As written; the expanded part of a contraction ("am" of "I'm") as its expansion. */
  text: string;
  /** As it stands in the text: a contraction whole on its first token ("I'm"), nothing on the others. */
  raw: string;
  /** Lower case, contractions expanded: "i", "am", "not", "going", "to". */
  word: string;
  tags: ReadonlySet<string>;
  /** The dictionary form ("lose" for "lost"), else `word`. */
  root: string;
  /** What comes before and after the word in the text: spaces, quotes and punctuation. */
  pre: string;
  post: string;
}

export interface Sentence {
  text: string;
  tokens: Token[];
  question: boolean;
}

interface TermJson {
  text: string;
  normal?: string;
  implicit?: string;
  root?: string;
  tags: string[];
  pre: string;
  post: string;
}

/** Typographic quotes as plain ones, so patterns need only one spelling. */
export function normalise(text: string): string {
  return text.replace(/[’‘]/gu, "'").replace(/[“”]/gu, '"');
}

/**
 * The sentences of a text, each as tagged tokens: one compromise parse a turn. A contraction
 * comes as two tokens ("I'm": "i" + "am"), so the reader sees every auxiliary and negation.
 */
export function readSentences(raw: string): Sentence[] {
  const doc = nlp(normalise(raw));
  doc.compute('root');
  // `root` is an option of compromise's json that its typings leave out.
  const options = { terms: { normal: true, tags: true, root: true, offset: false } } as Parameters<typeof doc.json>[0];
  const sentences = doc.json(options) as { text: string; terms: TermJson[] }[];
  return sentences.map((s) => {
    const tokens: Token[] = [];
    for (const term of s.terms) {
      const expanded = term.implicit !== undefined && term.implicit !== '';
      const word = (expanded ? term.implicit! : (term.normal ?? term.text)).toLowerCase();
      if (word === '') continue;
      tokens.push({
        text: expanded && term.text.length === 0 ? term.implicit! : expanded ? contractionHead(term.text, term.implicit!) : term.text,
        raw: term.text,
        word,
        tags: new Set(term.tags),
        root: (term.root ?? word).toLowerCase(),
        pre: term.pre,
        post: term.post,
      });
    }
    const text = s.text.trim();
    return { text, tokens, question: /\?["')\s]*$/u.test(text) };
  });
}

/** The first part of a contraction as written ("I" of "I'm", "do" of "don't"). */
function contractionHead(text: string, implicit: string): string {
  return text.toLowerCase().startsWith(implicit.toLowerCase()) ? text.slice(0, implicit.length) : implicit;
}

/** A set of the words of space-separated lists (word lists stay readable, one line each). */
export function wordSet(...lists: string[]): Set<string> {
  return new Set(lists.flatMap((list) => list.split(/\s+/u).filter((w) => w !== '')));
}

export function has(token: Token | undefined, tag: string): boolean {
  return token !== undefined && token.tags.has(tag);
}

/** Written with a capital letter (a name, unless it starts the sentence). */
export function capitalised(token: Token): boolean {
  return /^\p{Lu}/u.test(token.text);
}

/**
 * The sentence with "your", "yours", "yourself" and an object "you" said as the listener's name
 * ("I love your painting" -> "I love Gina's painting"), so what the speaker says of the listener's
 * things is said of them. "You" as a subject stays: what the speaker tells the listener they are or do
 * is the speaker's talk, not a statement.
 */
export function addressedTo(sentence: Sentence, listener: string): Sentence {
  const tokens = sentence.tokens.map((t, i) => {
    const before = sentence.tokens[i - 1];
    const object = t.word === 'you' && before !== undefined && (has(before, 'Verb') || has(before, 'Preposition')) && !has(before, 'Auxiliary');
    if (t.word === 'your' || t.word === 'ur') return name(t, `${listener}'s`, ['Possessive']);
    if (t.word === 'yours' || t.word === 'yourself' || object) return name(t, listener, []);
    return t;
  });
  return { ...sentence, tokens };
}

function name(t: Token, text: string, tags: string[]): Token {
  return { ...t, text, raw: text, word: text.toLowerCase(), root: text.toLowerCase(), tags: new Set(['Noun', 'ProperNoun', 'Person', ...tags]) };
}
