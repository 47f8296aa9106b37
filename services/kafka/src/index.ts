export * from './command-message';
export * from './command-consumer';
export * from './log-relay';
export * from './kafka-bridge';
export * from './kafka-client';
export * from './messages';
export * from './position-filter';
export * from './relay-checkpoint';
