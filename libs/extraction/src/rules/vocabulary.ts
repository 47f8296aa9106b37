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
  'age',
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

/** Irregular past forms, for when the tagger reads one as something else ("got back": an auxiliary to it). */
const PAST: Record<string, string> = Object.fromEntries(
  (
    'went:go got:get took:take made:make saw:see came:come did:do had:have said:say gave:give found:find thought:think told:tell ' +
    'became:become left:leave felt:feel brought:bring began:begin kept:keep held:hold wrote:write stood:stand heard:hear meant:mean ' +
    'met:meet ran:run paid:pay sat:sit spoke:speak led:lead grew:grow lost:lose fell:fall sent:send built:build understood:understand ' +
    'drew:draw broke:break spent:spend drove:drive bought:buy wore:wear chose:choose caught:catch taught:teach sold:sell won:win ' +
    'fought:fight threw:throw sang:sing swam:swim flew:fly ate:eat drank:drink slept:sleep woke:wake hid:hide rode:ride shook:shake ' +
    'forgot:forget knew:know'
  )
    .split(' ')
    .map((pair) => pair.split(':') as [string, string]),
);

/** A verb's dictionary form from the tagger's root, where the tagger left an irregular form as it is. */
export function lemmaOf(root: string): string {
  return PARTICIPLES[root] ?? PAST[root] ?? root;
}

/** An irregular past form ("got", "went"). */
export function irregularPast(word: string): boolean {
  return word in PAST;
}

/** Occupations, for "I am a nurse": what someone works as. */
export const OCCUPATIONS = new Set(
  (
    'teacher nurse doctor lawyer engineer developer programmer accountant chef cook waiter waitress cashier driver mechanic electrician ' +
    'plumber carpenter firefighter officer soldier pilot farmer designer architect writer author journalist editor artist musician ' +
    'photographer dentist pharmacist therapist counselor counsellor librarian professor scientist researcher manager consultant ' +
    'salesperson realtor banker secretary receptionist nanny tutor coach trainer veterinarian vet paramedic surgeon janitor barista ' +
    'bartender baker butcher tailor hairdresser stylist actor actress dancer singer analyst clerk technician contractor builder ' +
    'cleaner caregiver babysitter translator interpreter lecturer instructor principal entrepreneur freelancer ' +
    'policeman policewoman detective judge psychologist psychiatrist physiotherapist optometrist surveyor welder miner fisherman'
  ).split(' '),
);
