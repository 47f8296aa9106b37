export * from './records';
export { sealBatch, openRecords, erasuresOf, type SealedBatch, type Sealer, type SealedParts, type SealedBox } from './sealing';
export { OpeningLogStore } from './opening-log-store';
