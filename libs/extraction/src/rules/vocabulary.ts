import nlp from 'compromise';

/** Verb forms and relation names of the rules extractor's statements; the vocabulary itself is ../relations.ts. */

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

/** Irregular past participles whose dictionary form the tagger does not give ("seen" -> "see"). */
const PARTICIPLES: Record<string, string> = Object.fromEntries(
  (
    'seen:see known:know taken:take given:give gone:go done:do been:be written:write eaten:eat driven:drive ridden:ride ' +
    'spoken:speak broken:break chosen:choose forgotten:forget gotten:get begun:begin sung:sing swum:swim drunk:drink ' +
    'flown:fly grown:grow thrown:throw drawn:draw worn:wear torn:tear shown:show hidden:hide bitten:bite fallen:fall ' +
    'forgiven:forgive frozen:freeze mistaken:mistake stolen:steal woken:wake risen:rise shaken:shake'
  )
    .split(' ')
    .map((pair) => pair.split(':') as [string, string]),
);

/** A verb's dictionary form from the tagger's root, where the tagger left an irregular participle as it is. */
export function lemmaOf(root: string): string {
  return PARTICIPLES[root] ?? root;
}
