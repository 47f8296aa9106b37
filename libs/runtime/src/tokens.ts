import type { LogStore } from '@memotrace/log-store';
import type { SubjectKeyStore } from '@memotrace/subject-keys';
import type { ServiceMetrics } from '@memotrace/http-kit';
import type { ServiceIdentifier } from 'inversify';
import type { Pool } from 'pg';
import type { RuntimeConfig } from './config';

/** Service identifiers shared by the composition roots. */
export const TOKENS = {
  config: Symbol.for('memotrace.config') as ServiceIdentifier<RuntimeConfig>,
  pool: Symbol.for('memotrace.pool') as ServiceIdentifier<Pool>,
  readPool: Symbol.for('memotrace.readPool') as ServiceIdentifier<Pool>,
  store: Symbol.for('memotrace.store') as ServiceIdentifier<LogStore>,
  keyStore: Symbol.for('memotrace.keyStore') as ServiceIdentifier<SubjectKeyStore>,
  clock: Symbol.for('memotrace.clock') as ServiceIdentifier<{ now(): string }>,
  metrics: Symbol.for('memotrace.metrics') as ServiceIdentifier<ServiceMetrics>,
};
