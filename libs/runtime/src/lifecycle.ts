/** Runs `shutdown` once on SIGINT/SIGTERM, then exits. */
export function onShutdown(shutdown: () => Promise<void>, log: (message: string) => void): void {
  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    log(`${signal} received, shutting down`);
    shutdown().then(
      () => process.exit(0),
      (error: Error) => {
        log(`shutdown failed: ${error.message}`);
        process.exit(1);
      },
    );
  };
  process.on('SIGINT', () => stop('SIGINT'));
  process.on('SIGTERM', () => stop('SIGTERM'));
}
