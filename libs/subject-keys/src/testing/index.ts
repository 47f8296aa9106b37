export { InMemorySubjectKeyStore } from './in-memory-key-store';
export { sealLegacyContent, writeLegacyKeys } from './legacy-format';
