import { createHash } from 'node:crypto';
import type { QueryConfig } from 'pg';

/** Names of the texts seen so far: the texts are built from a few shapes, so there are few of them. */
const names = new Map<string, string>();

/**
 * A statement named by its text: PostgreSQL parses it once per connection, and once it has planned it
 * for a few parameter values it may keep one plan for any values, so a frequent read is no longer
 * parsed and planned per request. Texts built the same way share a name; different texts never do.
 * Only for texts that hold no values (those are parameters): each text stays prepared on every connection.
 */
export function namedStatement(text: string, values: unknown[]): QueryConfig {
  let name = names.get(text);
  if (name === undefined) {
    name = `memotrace-${createHash('sha256').update(text).digest('base64url').slice(0, 32)}`;
    names.set(text, name);
  }
  return { name, text, values };
}
