export { type Projection, type ProjectedRecord, projectedRecordOf, recordsFor, toProjectedRecord } from './contract';
export { startProjector, projectedPosition, projectedPositionSql, type Projector, type ProjectorOptions } from './runner';
export { partitionOf, checkpointName, checkpointsOfSql, layoutCheckpoints, isCheckpointOf, type Partition } from './partitions';
