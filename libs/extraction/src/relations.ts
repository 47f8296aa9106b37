/**
 * The relations statements are named with, by every extractor. The canonical ones hold what people most often say of
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
  age: 'one',
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
  does_activity: 'many',
  plays_instrument: 'many',
  read_book: 'many',
  watched: 'many',
  plays_game: 'many',
} as const satisfies Record<string, 'one' | 'many'>;

export type CanonicalRelation = keyof typeof CANONICAL;

export function cardinalityOf(rel: string): 'one' | 'many' {
  return (CANONICAL as Record<string, 'one' | 'many'>)[rel] ?? 'many';
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
