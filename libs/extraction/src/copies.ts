/**
 * A copy: a derived text that repeats a turn's words, six words or more found as they are in the
 * turn (the measure of the statement scorer). A fact is read as the memory says it, "<subject>
 * <rel> <object>"; an event by its summary. The turn itself is the memory's mention: a statement
 * says what it says compactly, in third person, or not at all.
 */
export function isCopy(text: string, turnText: string): boolean {
  const said = text.trim();
  if (said.split(/\s+/u).length < 6) return false;
  return turnText.toLowerCase().includes(said.toLowerCase().replace(/[.!?]$/u, ''));
}
