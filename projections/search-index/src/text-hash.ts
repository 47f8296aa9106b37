import { createHash } from 'node:crypto';

/** Content address of a searchable text: vectors are stored and found by it. */
export function textHash(text: string): string {
  return createHash('sha256').update(text).digest('base64url').slice(0, 32);
}
