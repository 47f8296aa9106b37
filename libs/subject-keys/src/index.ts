export { type SubjectKind, type KeyRef, type KeysOptions, type SubjectKeyStore, SUBJECT_KINDS, KEY_BYTES, keyRefString } from './subject-key-store';
export { PostgresSubjectKeyStore } from './postgres-subject-key-store';
export { CachingKeyStore, type CachingKeyStoreOptions } from './caching-key-store';
export { sealContent, openContent } from './content-seal';
export { masterKeyFrom, databaseMasterKey, MASTER_KEY_FILE } from './master-key';
export { subjectKeyMigrations, SubjectKeysSchema1796100000000, SubjectKeyTombstones1796400000000 } from './migrations';
