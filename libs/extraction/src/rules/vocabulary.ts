import nlp from 'compromise';

/**
 * The relations statements are named with. The canonical ones hold what people most often say of
 * themselves; the `one` relations among them hold one value at a time, so a later statement
 * supersedes an earlier one through the DSL (a move ends the previous `lives_in`, a job the
 * "not working" before it). Any other statement is named for its verb as said, in the tense it was
 * said in ("lost", "is_starting", "plans_to"), and a relation the memory knows already under another
 * spelling is reused.
 */
export const CANONICAL = {
  lives_in: 'one',
  from: 'one',
  works_at: 'one',
  works_as: 'one',
  relationship_status: 'one',
  studies: 'many',
  has_child: 'many',
  has_family: 'many',
  has_pet: 'many',
  likes: 'many',
  dislikes: 'many',
  seeks: 'many',
  plans_to: 'many',
  wants_to: 'many',
  visited: 'many',
  visited_country: 'many',
  visited_city: 'many',
  visited_state_or_region: 'many',
  attended_event: 'many',
  joined: 'many',
  plays_instrument: 'many',
  read_book: 'many',
  watched: 'many',
  plays_game: 'many',
} as const satisfies Record<string, 'one' | 'many'>;

export type CanonicalRelation = keyof typeof CANONICAL;

/**
 * What people say of themselves plainly enough to keep whatever the rest of the turn is like: where they
 * live, come from and work, their family, children and pets, what they study and seek, and what they do not do.
 */
const PLAIN = new Set<string>([
  'lives_in',
  'from',
  'works_at',
  'works_as',
  'relationship_status',
  'studies',
  'has_child',
  'has_family',
  'has_pet',
  'seeks',
]);

export function statedPlainly(rel: string): boolean {
  return PLAIN.has(rel) || rel.startsWith('does_not_');
}

export function cardinalityOf(rel: string): 'one' | 'many' {
  return (CANONICAL as Record<string, 'one' | 'many'>)[rel] ?? 'many';
}

interface Forms {
  past: string;
  present: string;
  gerund: string;
  participle: string;
}

const FORMS = new Map<string, Forms>();
const IRREGULAR: Record<string, Forms> = {
  be: { past: 'was', present: 'is', gerund: 'being', participle: 'been' },
  have: { past: 'had', present: 'has', gerund: 'having', participle: 'had' },
  do: { past: 'did', present: 'does', gerund: 'doing', participle: 'done' },
};

/** A verb's forms from its dictionary form (compromise's conjugation, kept: a memory says few verbs). */
export function formsOf(lemma: string): Forms {
  const known = IRREGULAR[lemma] ?? FORMS.get(lemma);
  if (known !== undefined) return known;
  const c = (nlp(lemma).verbs().conjugate() as Record<string, string>[])[0] ?? {};
  const forms = {
    past: c['PastTense'] ?? `${lemma}ed`,
    present: c['PresentTense'] ?? `${lemma}s`,
    gerund: c['Gerund'] ?? `${lemma}ing`,
    participle: c['Participle'] ?? c['PastTense'] ?? `${lemma}ed`,
  };
  if (FORMS.size < 5000) FORMS.set(lemma, forms);
  return forms;
}

/** `is looking for` -> `is_looking_for`. */
export function snake(words: readonly string[]): string {
  return words
    .join(' ')
    .toLowerCase()
    .replace(/[^a-z0-9]+/gu, '_')
    .replace(/^_+|_+$/gu, '');
}

/** The key under which two spellings of a relation are one: `worksAt`, `works_at` and `works at` agree. */
export function relationKey(rel: string): string {
  return rel
    .replace(/(\p{Ll})(\p{Lu})/gu, '$1 $2')
    .toLowerCase()
    .split(/[^a-z0-9]+/u)
    .filter((w) => w !== '')
    .join(' ');
}

/** A relation the memory knows under another spelling is the memory's: its spelling, else `rel`. */
export function reuse(rel: string, known: ReadonlyMap<string, string>): string {
  return known.get(relationKey(rel)) ?? rel;
}
