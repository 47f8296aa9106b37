/**
 * One copy of each string a memory's facts repeat (entity ids, relation names, sources): each
 * command arrives as its own parsed JSON, so a million facts about one person would otherwise hold
 * a million copies of that person's id. A cache, private so that states folding the same log
 * compare equal; an erased source is forgotten, so erased content is not kept alive here.
 */
export class InternedStrings {
  readonly #pool = new Map<string, string>();

  intern(value: string): string {
    const known = this.#pool.get(value);
    if (known !== undefined) return known;
    this.#pool.set(value, value);
    return value;
  }

  forget(value: string): void {
    this.#pool.delete(value);
  }
}
