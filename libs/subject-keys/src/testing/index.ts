export { InMemorySubjectKeyStore } from './in-memory-key-store';
