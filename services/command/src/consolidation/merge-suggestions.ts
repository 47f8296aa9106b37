// Merge suggestions for a memory's consolidation: pairs of canonical entities that look like one
// thing named twice, each with a score, the rule that found it and the evidence it rests on. A
// suggestion is never a merge: a client or an operator decides. The module is pure and
// deterministic: the same input gives the same suggestions in the same order.

export interface EntityInput {
  entityId: string;
  name: string | null;
  aliases: readonly string[];
  types: readonly string[];
}

/** A fact between two entities, or an entity and a literal (dst string = entity id). */
export interface FactInput {
  factId: string;
  src: string;
  rel: string;
  dst: string | { literal: unknown };
  evidence: readonly string[];
}

export interface MentionInput {
  mentionId: string;
  docId: string;
  speaker: string | null;
  text: string | null;
}

export interface MergeSuggestion {
  srcId: string;
  dstId: string;
  score: number;
  why: string;
  evidence: string[];
}

const DEFAULT_MIN_SCORE = 0.5;
const DEFAULT_MAX = 100;
/** A blocking key shared by more entities than this names nothing in particular (a common first name, a prefix); its block is not compared. */
const MAX_BLOCK = 200;
/** Longest name, in words, looked for in a mention's text. */
const MAX_NAME_TOKENS = 8;
const MAX_EVIDENCE = 10;
/** Documents named in a `why` before the rest are counted. */
const MAX_DOCS_NAMED = 3;

const SCORE_EXACT = 0.95;
const SCORE_ORGANISATION = 0.9;
const SCORE_FUZZY = 0.7;
const SCORE_NICKNAME_BASE = 0.6;
const SCORE_NICKNAME_PER_TIE = 0.05;
const SCORE_NICKNAME_MAX = 0.85;

/** Words that end an organisation's name without telling organisations apart; their presence marks a name as an organisation's. */
const CORPORATE_SUFFIXES = new Set(['inc', 'incorporated', 'corp', 'corporation', 'co', 'company', 'ltd', 'limited', 'llc', 'llp', 'plc', 'gmbh']);
/** Also dropped from a name already known to be an organisation's, but too common to mark one by themselves. */
const ORGANISATION_WORDS = new Set([...CORPORATE_SUFFIXES, 'group']);

/** Common English diminutives and the full names they stand for. */
const DIMINUTIVES: ReadonlyMap<string, readonly string[]> = new Map(
  Object.entries({
    alex: ['alexander', 'alexandra'],
    andy: ['andrew'],
    becky: ['rebecca'],
    ben: ['benjamin'],
    bill: ['william'],
    bob: ['robert'],
    charlie: ['charles'],
    chris: ['christopher', 'christine'],
    dan: ['daniel'],
    dave: ['david'],
    ed: ['edward'],
    greg: ['gregory'],
    jack: ['john'],
    jen: ['jennifer'],
    jim: ['james'],
    joe: ['joseph'],
    jon: ['jonathan'],
    kate: ['katherine'],
    kathy: ['katherine'],
    liz: ['elizabeth'],
    maggie: ['margaret'],
    matt: ['matthew'],
    mel: ['melanie', 'melissa'],
    mike: ['michael'],
    nate: ['nathan', 'nathaniel'],
    nick: ['nicholas'],
    pat: ['patrick', 'patricia'],
    peggy: ['margaret'],
    rob: ['robert'],
    sam: ['samantha', 'samuel'],
    steve: ['steven', 'stephen'],
    sue: ['susan'],
    ted: ['edward'],
    tim: ['timothy'],
    tom: ['thomas'],
    tony: ['anthony'],
    will: ['william'],
  }),
);
const FULL_NAMES = new Set([...DIMINUTIVES.values()].flat());

/** Kinds of thing an entity type can name; two entities of different kinds are two things. */
const PERSON = 1;
const ORGANISATION = 2;
const PLACE = 4;
const TYPE_WORDS: ReadonlyMap<string, number> = new Map([
  ...['person', 'people', 'human', 'individual', 'man', 'woman', 'boy', 'girl', 'child'].map((w) => [w, PERSON] as const),
  ...['organization', 'organisation', 'org', 'company', 'corporation', 'business', 'institution', 'firm', 'agency', 'nonprofit', 'startup'].map(
    (w) => [w, ORGANISATION] as const,
  ),
  ...['place', 'location', 'city', 'country', 'town', 'village', 'region', 'state', 'province', 'address', 'venue', 'landmark'].map(
    (w) => [w, PLACE] as const,
  ),
]);
/** Parts of a compound type (`TechCompany`, `organizationunit`) that still say organisation. */
const ORGANISATION_STEMS = ['organization', 'organisation', 'company'];

/** What the rules read of an entity, computed once. */
interface Entity {
  readonly id: string;
  readonly name: string;
  /** Normalised name and its words. */
  readonly norm: string;
  readonly tokens: readonly string[];
  readonly aliases: ReadonlySet<string>;
  /** Kinds its types name (PERSON | ORGANISATION | PLACE), or its corporate suffix; 0 when nothing names a kind. */
  readonly kinds: number;
  readonly organisation: boolean;
  /** Whether the name may be a person's: not an organisation's, and its types name a person or no kind at all. */
  readonly person: boolean;
  /** The name without corporate suffixes when the entity is an organisation's, else the name. */
  readonly core: string;
  /** Whether a word of the name is long enough, and free of digits, for a one-letter slip in it to be told from another name. */
  readonly fuzzy: boolean;
}

type Rule = 'exact' | 'alias' | 'organisation' | 'nickname' | 'fuzzy';

/** A pair the names alone make a candidate; the conversation decides the rest. */
interface Candidate {
  readonly a: Entity;
  readonly b: Entity;
  readonly rules: ReadonlySet<Rule>;
  /** For a nickname: the short name, the full one and how they relate. */
  readonly nickname?: { short: Entity; full: Entity; how: 'short form' | 'first name' };
}

/** Where a name appears: per document, the mentions naming it and whether it speaks there. */
type Appearances = ReadonlyMap<string, { mentions: string[]; speaks: boolean }>;
const NOWHERE: Appearances = new Map();

/** A candidate the memory does not keep apart, scored and directed; its words are written only if it is returned. */
interface Assessment {
  readonly candidate: Candidate;
  readonly rule: Rule;
  readonly score: number;
  readonly src: Entity;
  readonly dst: Entity;
  readonly sharedDocs: readonly string[];
  readonly sharedNeighbours: readonly { key: string; factIds: readonly string[] }[];
}

/**
 * Proposes pairs of canonical entities that are probably one thing, best first. Candidates are
 * found within blocks of entities sharing a key (name, core name, first word, its first letters,
 * the full form of a diminutive, a word's first or last letters), so a large memory is never
 * compared pair by pair.
 */
export function suggestMerges(
  input: { entities: readonly EntityInput[]; facts: readonly FactInput[]; mentions: readonly MentionInput[] },
  options: { minScore?: number; max?: number } = {},
): MergeSuggestion[] {
  const minScore = options.minScore ?? DEFAULT_MIN_SCORE;
  const max = options.max ?? DEFAULT_MAX;
  if (max <= 0) return [];

  const entities = prepareEntities(input.entities);
  const candidates = findCandidates(entities);
  if (candidates.length === 0) return [];

  const involved = new Set<string>();
  const wanted = new Set<string>();
  for (const { a, b } of candidates) {
    involved.add(a.id).add(b.id);
    wanted.add(a.norm).add(b.norm);
  }
  const facts = indexFacts(input.facts, involved);
  const appearances = findAppearances(input.mentions, entities, wanted);

  const assessed: Assessment[] = [];
  for (const candidate of candidates) {
    const assessment = assess(candidate, facts, appearances);
    if (assessment !== null && assessment.score >= minScore) assessed.push(assessment);
  }
  assessed.sort((x, y) => y.score - x.score || compare(x.src.id, y.src.id) || compare(x.dst.id, y.dst.id));
  const names = new Map(entities.map((e) => [e.id, e.name]));
  return assessed.slice(0, max).map((assessment) => describe(assessment, appearances, names));
}

/** Case-folds, drops accents, possessives, apostrophes and dots, and turns other punctuation into spaces. */
function normaliseName(text: string): string {
  return text
    .normalize('NFKD')
    .replace(/\p{M}/gu, '')
    .toLowerCase()
    .replace(/['’]s(?![\p{L}\p{N}])/gu, '')
    .replace(/['’.]/gu, '')
    .replace(/[^\p{L}\p{N}]+/gu, ' ')
    .trim();
}

const NO_ALIASES: ReadonlySet<string> = new Set();

function prepareEntities(inputs: readonly EntityInput[]): Entity[] {
  const entities: Entity[] = [];
  // A memory uses a handful of type lists for all its entities.
  const kindsByTypes = new Map<string, number>();
  for (const input of inputs) {
    // An erased entity has no name left to compare.
    if (input.name === null) continue;
    const norm = normaliseName(input.name);
    if (norm === '') continue;
    const tokens = norm.split(' ');
    const typesKey = input.types.join('\u0000');
    let typed = kindsByTypes.get(typesKey);
    if (typed === undefined) kindsByTypes.set(typesKey, (typed = kindsOf(input.types)));
    const organisation = (typed & ORGANISATION) !== 0 || (tokens.length > 1 && CORPORATE_SUFFIXES.has(tokens[tokens.length - 1]!));
    // An untyped name with a corporate suffix is an organisation's as surely as a typed one.
    const kinds = typed === 0 && organisation ? ORGANISATION : typed;
    const aliases =
      input.aliases.length === 0 ? NO_ALIASES : new Set(input.aliases.map(normaliseName).filter((alias) => alias !== '' && alias !== norm));
    entities.push({
      id: input.entityId,
      name: input.name,
      norm,
      tokens,
      aliases,
      kinds,
      organisation,
      person: !organisation && (kinds === 0 || (kinds & PERSON) !== 0),
      core: organisation ? coreOf(tokens) : norm,
      fuzzy: tokens.some(fuzzyWord),
    });
  }
  return entities;
}

function kindsOf(types: readonly string[]): number {
  let kinds = 0;
  for (const type of types) {
    const lower = type.toLowerCase();
    if (ORGANISATION_STEMS.some((stem) => lower.includes(stem))) kinds |= ORGANISATION;
    // Split camelCase and snake_case so `home_city` or `HomeCity` still say place.
    const words = type
      .replace(/([a-z])([A-Z])/g, '$1 $2')
      .toLowerCase()
      .split(/[^a-z]+/);
    for (const word of words) kinds |= TYPE_WORDS.get(word) ?? 0;
  }
  return kinds;
}

/** An organisation's name without a leading article and trailing corporate suffixes ("The Acme Company" → "acme"). */
function coreOf(tokens: readonly string[]): string {
  let start = 0;
  let end = tokens.length;
  if (end - start > 1 && tokens[start] === 'the') start++;
  while (end - start > 1 && ORGANISATION_WORDS.has(tokens[end - 1]!)) end--;
  return tokens.slice(start, end).join(' ');
}

/**
 * Short words that differ by a letter are usually different words ("Joan", "John"), and words
 * that differ by a digit are different things (rooms, versions, sequels).
 */
function fuzzyWord(word: string): boolean {
  return word.length >= 6 && !DIGIT.test(word);
}
const DIGIT = /\p{N}/u;

type Block = Entity | Entity[];

/** Which pairs of a block can meet a rule the block is for. */
type Pairing = (x: Entity, y: Entity) => boolean;
const ANY_PAIR: Pairing = () => true;
/** A nickname is a single word. */
const NICKNAME_PAIR: Pairing = (x, y) => x.tokens.length === 1 || y.tokens.length === 1;

/**
 * Blocks of entities that may name one thing, by kind of key: names (own name, core name,
 * aliases); first words and their first three letters (a first name or a short form of one);
 * the full form of a diminutive; and each long word of a name reduced to its first or its last
 * three letters, the other words kept (one edit leaves either the first or the last three
 * letters of a word of six or more as they are). Keys are hashes of the text they stand for,
 * which saves building a string per key: a collision only puts two more entities in one block,
 * and every pair of a block is checked by the rules themselves. A block holds one entity until
 * a second joins it.
 */
function blocksOf(entities: readonly Entity[]): [Map<number, Block>, Pairing][] {
  const names = new Map<number, Block>();
  const firsts = new Map<number, Block>();
  const prefixes = new Map<number, Block>();
  const diminutives = new Map<number, Block>();
  const slips = new Map<number, Block>();
  for (const entity of entities) {
    const { norm, tokens } = entity;
    const first = tokens[0]!;
    join(names, hash(norm, 0, norm.length), entity);
    if (entity.core !== norm) join(names, hash(entity.core, 0, entity.core.length), entity);
    for (const alias of entity.aliases) join(names, hash(alias, 0, alias.length), entity);
    join(firsts, hash(norm, 0, first.length), entity);
    if (first.length >= 3) join(prefixes, hash(norm, 0, 3), entity);
    for (const full of DIMINUTIVES.get(first) ?? []) join(diminutives, hash(full, 0, full.length), entity);
    if (FULL_NAMES.has(first)) join(diminutives, hash(first, 0, first.length), entity);
    if (!entity.fuzzy) continue;
    // Words are one space apart in a normalised name: `start` and `end` delimit word k in it.
    for (let k = 0, start = 0; k < tokens.length; start += tokens[k]!.length + 1, k++) {
      if (!fuzzyWord(tokens[k]!)) continue;
      const end = start + tokens[k]!.length;
      join(slips, hash(norm, end, norm.length, mix(hash(norm, 0, start + 3), 1)), entity);
      join(slips, hash(norm, end, norm.length, mix(hash(norm, end - 3, end, mix(hash(norm, 0, start), 2)), 2)), entity);
    }
  }
  return [
    [names, ANY_PAIR],
    [firsts, NICKNAME_PAIR],
    [prefixes, NICKNAME_PAIR],
    [diminutives, NICKNAME_PAIR],
    [slips, ANY_PAIR],
  ];
}

const FNV_OFFSET = 0x811c9dc5 | 0;
const FNV_PRIME = 0x01000193;

/** FNV-1a of `text[from, to)`, continuing from `seed`, kept to a small integer (a fast Map key). */
function hash(text: string, from: number, to: number, seed = FNV_OFFSET): number {
  let h = seed;
  for (let i = from; i < to; i++) h = Math.imul(h ^ text.charCodeAt(i), FNV_PRIME);
  return h & 0x3fffffff;
}

/** Folds a marker no normalised name contains (a control character) into a hash. */
function mix(h: number, marker: number): number {
  return Math.imul(h ^ marker, FNV_PRIME) & 0x3fffffff;
}

function join(blocks: Map<number, Block>, key: number, entity: Entity): void {
  const block = blocks.get(key);
  if (block === undefined) blocks.set(key, entity);
  else if (!Array.isArray(block)) {
    if (block !== entity) blocks.set(key, [block, entity]);
  } else if (block.length <= MAX_BLOCK && block[block.length - 1] !== entity) block.push(entity);
}

function findCandidates(entities: readonly Entity[]): Candidate[] {
  const candidates = new Map<string, Candidate>();
  for (const [blocks, pairing] of blocksOf(entities)) {
    for (const block of blocks.values()) {
      if (!Array.isArray(block) || block.length > MAX_BLOCK) continue;
      for (let i = 0; i < block.length; i++) {
        for (let j = i + 1; j < block.length; j++) {
          const x = block[i]!;
          const y = block[j]!;
          // An id given twice is one entity, not a pair.
          if (x.id === y.id || !pairing(x, y)) continue;
          const candidate = x.id < y.id ? match(x, y) : match(y, x);
          if (candidate === null) continue;
          const key = pairKey(x.id, y.id);
          if (!candidates.has(key)) candidates.set(key, candidate);
        }
      }
    }
  }
  return [...candidates.values()];
}

/** The rules the two names meet, or null when the names alone keep the entities apart. */
function match(a: Entity, b: Entity): Candidate | null {
  if (a.kinds !== 0 && b.kinds !== 0 && (a.kinds & b.kinds) === 0) return null;
  // Two full names with different surnames are two people, however alike their first names.
  if (a.person && b.person && a.tokens.length > 1 && b.tokens.length > 1 && a.tokens.at(-1) !== b.tokens.at(-1)) return null;

  // Most pairs of a block meet no rule: they are told apart before anything is allocated.
  const exact = a.norm === b.norm;
  const alias = a.aliases.has(b.norm) || b.aliases.has(a.norm);
  const organisation = (a.organisation || b.organisation) && a.core === b.core && !exact;
  const nickname = a.person && b.person ? (nicknameOf(a, b) ?? nicknameOf(b, a)) : undefined;
  const fuzzy = a.fuzzy && b.fuzzy && oneLetterApart(a.tokens, b.tokens);
  if (!exact && !alias && !organisation && nickname === undefined && !fuzzy) return null;
  const rules = new Set<Rule>();
  if (exact) rules.add('exact');
  if (alias) rules.add('alias');
  if (organisation) rules.add('organisation');
  if (nickname !== undefined) rules.add('nickname');
  if (fuzzy) rules.add('fuzzy');
  return { a, b, rules, nickname };
}

/** How the single-word name `short` stands for `full`: a first name, a prefix of its first name, or a known diminutive of it. */
function nicknameOf(short: Entity, full: Entity): Candidate['nickname'] {
  if (short.tokens.length !== 1 || short.norm === full.norm) return undefined;
  const word = short.tokens[0]!;
  const first = full.tokens[0]!;
  if (full.tokens.length > 1 && word === first) return { short, full, how: 'first name' };
  if (word.length >= 3 && word.length < first.length && first.startsWith(word)) return { short, full, how: 'short form' };
  if (DIMINUTIVES.get(word)?.includes(first)) return { short, full, how: 'short form' };
  return undefined;
}

/** Whether two names differ by one edit in one word, both forms of which are long and free of digits. */
function oneLetterApart(x: readonly string[], y: readonly string[]): boolean {
  if (x.length !== y.length) return false;
  let differing = -1;
  for (let i = 0; i < x.length; i++) {
    if (x[i] === y[i]) continue;
    if (differing !== -1) return false;
    differing = i;
  }
  if (differing === -1) return false;
  const p = x[differing]!;
  const q = y[differing]!;
  return fuzzyWord(p) && fuzzyWord(q) && withinOneEdit(p, q);
}

/** Levenshtein distance ≤ 1, in one pass. */
function withinOneEdit(p: string, q: string): boolean {
  if (Math.abs(p.length - q.length) > 1) return false;
  const [short, long] = p.length <= q.length ? [p, q] : [q, p];
  let i = 0;
  while (i < short.length && short[i] === long[i]) i++;
  if (short.length === long.length) return short.slice(i + 1) === long.slice(i + 1);
  return short.slice(i) === long.slice(i + 1);
}

interface FactIndex {
  /** Facts each involved entity takes part in, as src or dst. */
  readonly counts: ReadonlyMap<string, number>;
  /** Pairs of involved entities a fact links directly. */
  readonly linked: ReadonlySet<string>;
  /** Per involved entity, its fact neighbours (`out|rel|dst` or `in|rel|src`) and the facts behind each. */
  readonly neighbours: ReadonlyMap<string, ReadonlyMap<string, string[]>>;
}

/** Indexes the facts of the entities some candidate involves; the others' facts change no suggestion. */
function indexFacts(facts: readonly FactInput[], involved: ReadonlySet<string>): FactIndex {
  const counts = new Map<string, number>();
  const linked = new Set<string>();
  const neighbours = new Map<string, Map<string, string[]>>();
  const add = (entityId: string, key: string, factId: string): void => {
    counts.set(entityId, (counts.get(entityId) ?? 0) + 1);
    let own = neighbours.get(entityId);
    if (own === undefined) neighbours.set(entityId, (own = new Map()));
    const ids = own.get(key);
    if (ids === undefined) own.set(key, [factId]);
    else ids.push(factId);
  };
  for (const fact of facts) {
    const src = involved.has(fact.src);
    if (typeof fact.dst === 'string') {
      const dst = involved.has(fact.dst);
      if (src && dst) linked.add(pairKey(fact.src, fact.dst));
      if (src) add(fact.src, `out\u0000${fact.rel}\u0000e:${fact.dst}`, fact.factId);
      if (dst && fact.dst !== fact.src) add(fact.dst, `in\u0000${fact.rel}\u0000e:${fact.src}`, fact.factId);
    } else if (src) {
      add(fact.src, `out\u0000${fact.rel}\u0000l:${stableKey(fact.dst.literal)}`, fact.factId);
    }
  }
  return { counts, linked, neighbours };
}

/** A literal as a string that is the same for equal values, whatever the order of object keys. */
function stableKey(value: unknown): string {
  if (value === null || typeof value !== 'object') {
    return typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean' ? JSON.stringify(value) : String(value);
  }
  if (Array.isArray(value)) return `[${value.map(stableKey).join(',')}]`;
  const entries = Object.entries(value as Record<string, unknown>).sort(([x], [y]) => compare(x, y));
  return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${stableKey(v)}`).join(',')}}`;
}

/**
 * Where each wanted name appears in the mentions, word for word. At each word the longest name of
 * any entity is taken, so "Caroline Smith" in a text counts for that name and not also for
 * "Caroline".
 */
function findAppearances(mentions: readonly MentionInput[], entities: readonly Entity[], wanted: ReadonlySet<string>): Map<string, Appearances> {
  const known = new Set<string>();
  const firstWords = new Set<string>();
  let longest = 1;
  for (const entity of entities) {
    known.add(entity.norm);
    firstWords.add(entity.tokens[0]!);
    longest = Math.max(longest, Math.min(entity.tokens.length, MAX_NAME_TOKENS));
  }
  const appearances = new Map<string, Map<string, { mentions: string[]; speaks: boolean }>>();
  const record = (name: string, mention: MentionInput, speaks: boolean): void => {
    if (!wanted.has(name)) return;
    let byDoc = appearances.get(name);
    if (byDoc === undefined) appearances.set(name, (byDoc = new Map()));
    let here = byDoc.get(mention.docId);
    if (here === undefined) byDoc.set(mention.docId, (here = { mentions: [], speaks: false }));
    if (here.mentions[here.mentions.length - 1] !== mention.mentionId) here.mentions.push(mention.mentionId);
    here.speaks ||= speaks;
  };
  const scan = (text: string, mention: MentionInput, speaks: boolean): void => {
    const words = normaliseName(text).split(' ');
    for (let i = 0; i < words.length;) {
      let found: string | undefined;
      let length = 0;
      if (firstWords.has(words[i]!)) {
        let phrase = '';
        for (let n = 1; n <= longest && i + n <= words.length; n++) {
          phrase = n === 1 ? words[i]! : `${phrase} ${words[i + n - 1]!}`;
          if (known.has(phrase)) [found, length] = [phrase, n];
        }
      }
      if (found === undefined) i++;
      else {
        record(found, mention, speaks);
        i += length;
      }
    }
  };
  for (const mention of mentions) {
    if (mention.speaker !== null) scan(mention.speaker, mention, true);
    if (mention.text !== null) scan(mention.text, mention, false);
  }
  return appearances;
}

/** Scores and directs a candidate, or answers null when what the memory knows keeps the two apart. */
function assess(candidate: Candidate, facts: FactIndex, appearances: ReadonlyMap<string, Appearances>): Assessment | null {
  const { a, b, rules } = candidate;
  // Two entities that relate to each other are two things.
  if (facts.linked.has(pairKey(a.id, b.id))) return null;

  const inA = appearances.get(a.norm) ?? NOWHERE;
  const inB = appearances.get(b.norm) ?? NOWHERE;
  const sharedDocs: string[] = [];
  for (const [docId, here] of inA) {
    const there = inB.get(docId);
    if (there === undefined) continue;
    // Two speakers of one conversation are two people (one name speaking twice proves nothing).
    if (a.norm !== b.norm && here.speaks && there.speaks) return null;
    sharedDocs.push(docId);
  }
  const sharedNeighbours: { key: string; factIds: string[] }[] = [];
  const ofB = facts.neighbours.get(b.id);
  if (ofB !== undefined) {
    for (const [key, factIds] of facts.neighbours.get(a.id) ?? []) {
      const other = ofB.get(key);
      if (other !== undefined) sharedNeighbours.push({ key, factIds: [...factIds, ...other] });
    }
  }
  const ties = sharedDocs.length + sharedNeighbours.length;

  // The strongest rule speaks for the pair; among equals, the first in this order.
  let rule: Rule | undefined;
  let score = 0;
  const consider = (next: Rule, nextScore: number): void => {
    if (rules.has(next) && nextScore > score) [rule, score] = [next, nextScore];
  };
  consider('exact', SCORE_EXACT);
  consider('alias', SCORE_EXACT);
  consider('organisation', SCORE_ORGANISATION);
  // A short name alone is too weak: the conversation must tie the two together.
  if (ties > 0) consider('nickname', Math.min(SCORE_NICKNAME_MAX, SCORE_NICKNAME_BASE + SCORE_NICKNAME_PER_TIE * ties));
  consider('fuzzy', SCORE_FUZZY);
  if (rule === undefined) return null;

  const [src, dst] = keeps(a, b, facts.counts) ? [b, a] : [a, b];
  return { candidate, rule, score: Math.round(score * 100) / 100, src, dst, sharedDocs: sharedDocs.sort(compare), sharedNeighbours };
}

/** Whether `a` is the entity to keep: the one with more facts, then the longer name, then the smaller id. */
function keeps(a: Entity, b: Entity, counts: ReadonlyMap<string, number>): boolean {
  const factsA = counts.get(a.id) ?? 0;
  const factsB = counts.get(b.id) ?? 0;
  if (factsA !== factsB) return factsA > factsB;
  if (a.name.length !== b.name.length) return a.name.length > b.name.length;
  return a.id < b.id;
}

function describe(assessment: Assessment, appearances: ReadonlyMap<string, Appearances>, names: ReadonlyMap<string, string>): MergeSuggestion {
  const { candidate, rule, score, src, dst, sharedDocs, sharedNeighbours } = assessment;
  const { a, b } = candidate;
  const mentionIds = new Set<string>();
  for (const docId of sharedDocs) {
    for (const name of [a.norm, b.norm]) for (const id of appearances.get(name)?.get(docId)?.mentions ?? []) mentionIds.add(id);
  }
  const neighbours = [...sharedNeighbours].sort((x, y) => compare(x.key, y.key));
  const factIds = [...new Set(neighbours.flatMap((n) => n.factIds))].sort(compare);
  const tie = describeTies(sharedDocs, neighbours, names);
  const why = describeRule(rule, candidate);
  return {
    srcId: src.id,
    dstId: dst.id,
    score,
    why: tie === '' ? why : `${why}; ${tie}`,
    evidence: [...[...mentionIds].sort(compare), ...factIds].slice(0, MAX_EVIDENCE),
  };
}

function describeRule(rule: Rule, { a, b, nickname }: Candidate): string {
  switch (rule) {
    case 'exact':
      return `${quote(a.name)} and ${quote(b.name)} have the same name`;
    case 'alias': {
      const [named, known] = a.aliases.has(b.norm) ? [b, a] : [a, b];
      return `${quote(named.name)} is also a name of ${quote(known.name)}`;
    }
    case 'organisation':
      return `${quote(a.name)} and ${quote(b.name)} name the organisation ${quote(a.core)} with different corporate suffixes`;
    case 'nickname': {
      const { short, full, how } = nickname!;
      return `${quote(short.name)} is ${how === 'first name' ? 'the first name' : 'a short form'} of ${quote(full.name)}`;
    }
    case 'fuzzy':
      return `${quote(a.name)} and ${quote(b.name)} differ by one letter`;
  }
}

function describeTies(docs: readonly string[], neighbours: readonly { key: string }[], names: ReadonlyMap<string, string>): string {
  const parts: string[] = [];
  if (docs.length > 0) {
    const listed = docs.slice(0, MAX_DOCS_NAMED).join(', ');
    const more = docs.length > MAX_DOCS_NAMED ? ` and ${docs.length - MAX_DOCS_NAMED} more` : '';
    parts.push(`both appear in ${docs.length === 1 ? 'document' : 'documents'} ${listed}${more}`);
  }
  if (neighbours.length > 0) {
    const [, rel, other] = neighbours[0]!.key.split('\u0000') as [string, string, string];
    const what = other.startsWith('e:') ? quote(names.get(other.slice(2)) ?? other.slice(2)) : other.slice(2);
    const more = neighbours.length > 1 ? ` and ${neighbours.length - 1} more shared ${neighbours.length === 2 ? 'fact' : 'facts'}` : '';
    parts.push(`both have a ${quote(rel)} fact with ${what}${more}`);
  }
  return parts.join('; ');
}

function pairKey(x: string, y: string): string {
  return x < y ? `${x}\u0000${y}` : `${y}\u0000${x}`;
}

/** Code-unit order: the same everywhere, unlike a locale's. */
function compare(x: string, y: string): number {
  return x < y ? -1 : x > y ? 1 : 0;
}

function quote(text: string): string {
  return JSON.stringify(text);
}
