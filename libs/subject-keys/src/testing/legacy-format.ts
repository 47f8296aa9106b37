import { createCipheriv, randomBytes } from 'node:crypto';
import type pg from 'pg';
import { legacyDataKey } from '../content-seal';
import { wrapKey } from '../key-wrap';
import { KEY_BYTES, type KeyRef, keyRefString } from '../subject-key-store';

/**
 * Writers of the first stored format, which the service now only reads: tests make with them what
 * a log sealed before key sets existed holds.
 */

/** A box of the first format: base64 of iv|tag|ciphertext under the data key of `keys` (in that order). */
export function sealLegacyContent(keys: readonly Buffer[], aad: Buffer, value: unknown): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', legacyDataKey(keys), iv, { authTagLength: 16 });
  cipher.setAAD(aad);
  const body = cipher.update(JSON.stringify(value), 'utf8');
  cipher.final();
  return Buffer.concat([iv, cipher.getAuthTag(), body]).toString('base64');
}

/** Fresh keys of the first format for `refs`, stored (wrapped under the master key) as that format stored them. */
export async function writeLegacyKeys(
  pool: Pick<pg.Pool, 'query'>,
  masterKey: Buffer,
  memoryId: string,
  refs: readonly KeyRef[],
): Promise<Map<string, Buffer>> {
  const keys = new Map(refs.map((ref) => [keyRefString(ref), randomBytes(KEY_BYTES)]));
  await pool.query(
    `INSERT INTO mt_subject_keys (memory_id, subject_kind, subject_id, generation, wrapped)
     SELECT $1, kind, id, generation, wrapped FROM unnest($2::text[], $3::text[], $4::integer[], $5::bytea[]) AS r(kind, id, generation, wrapped)`,
    [
      memoryId,
      refs.map((r) => r.kind),
      refs.map((r) => r.id),
      refs.map((r) => r.generation),
      refs.map((r) => wrapKey(masterKey, memoryId, keyRefString(r), keys.get(keyRefString(r))!)),
    ],
  );
  return keys;
}
