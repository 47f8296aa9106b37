export {
  type SubjectKind,
  type KeyRef,
  type KeySet,
  type NewKeySet,
  type SubjectErasure,
  type SubjectKeyStore,
  type Transaction,
  SUBJECT_KINDS,
  KEY_BYTES,
  keyRefString,
} from './subject-key-store';
export { PostgresSubjectKeyStore, deleteMemoryKeysIn } from './postgres-subject-key-store';
export { CachingKeyStore, type CachingKeyStoreOptions } from './caching-key-store';
export { sealBox, openBox, openLegacyContent } from './content-seal';
export { masterKeyFrom, databaseMasterKey, MASTER_KEY_FILE } from './master-key';
export { subjectKeyMigrations, SubjectKeysSchema1796100000000, SubjectKeyTombstones1796400000000, ContentKeySets1796800000000 } from './migrations';
