import { hash } from 'node:crypto';

/** Content address of a searchable text: vectors are stored and found by it. */
export function textHash(text: string): string {
  return hash('sha256', text, 'base64url').slice(0, 32);
}
