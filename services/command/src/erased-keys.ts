import type { MemoryRecord } from '@memotrace/domain';
import type { SubjectKeyStore } from '@memotrace/subject-keys';

/**
 * Destroys the keys the erasures among these records end, once they are in the log. A crash
 * before this leaves them to the next reader of the log (`openRecords` destroys them too):
 * destroying is idempotent.
 */
export async function destroyErasedKeys(keyStore: SubjectKeyStore, memoryId: string, records: readonly MemoryRecord[]): Promise<void> {
  for (const record of records) {
    if (record.type === 'SubjectErased') await keyStore.destroy(memoryId, record.data.subject, record.data.generation);
  }
}
