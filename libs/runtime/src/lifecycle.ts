/**
 * Runs `shutdown` once on SIGINT/SIGTERM/SIGHUP (exit 0) or on an uncaught error
 * (exit 1), so an embedded PostgreSQL is never left running behind the process.
 */
export function onShutdown(shutdown: () => Promise<void>, log: (message: string) => void): void {
  let stopping = false;
  const stop = (reason: string, exitCode = 0) => {
    if (stopping) return;
    stopping = true;
    log(`${reason}, shutting down`);
    shutdown().then(
      () => process.exit(exitCode),
      (error: Error) => {
        log(`shutdown failed: ${error.message}`);
        process.exit(1);
      },
    );
  };
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) process.on(signal, () => stop(`${signal} received`));
  process.on('uncaughtException', (error) => stop(`uncaught error: ${error.stack ?? error.message}`, 1));
  process.on('unhandledRejection', (error) => stop(`unhandled rejection: ${String(error)}`, 1));
}
