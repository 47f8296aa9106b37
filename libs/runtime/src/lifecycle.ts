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

/** A process entry point: runs `main`, and on a startup failure says so in one line and exits 1. */
export function runMain(name: string, main: () => Promise<void>): void {
  main().catch((error: Error) => {
    console.error(`${name} failed to start: ${error.message}`);
    process.exit(1);
  });
}

/** Listens, then on a signal closes the HTTP server before `closeRest` (projector, database). */
export async function serveUntilSignal(
  app: { listen(options: { host: string; port: number }): Promise<string>; close(): Promise<unknown> },
  config: { host: string; port: number },
  log: (message: string) => void,
  closeRest: () => Promise<void>,
): Promise<string> {
  const url = await app.listen({ host: config.host, port: config.port });
  onShutdown(async () => {
    await app.close();
    await closeRest();
  }, log);
  return url;
}
