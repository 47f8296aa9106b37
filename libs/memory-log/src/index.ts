export * from './records';
export { sealBatch, openRecords, type SealedParts, type SealedBox } from './sealing';
export { OpeningLogStore } from './opening-log-store';
