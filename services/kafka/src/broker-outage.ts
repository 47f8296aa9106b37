import type { Logger } from 'pino';

/** A report that says the broker cannot be reached (it restarts, or a network is cut), not that something is wrong. */
const AWAY = new RegExp(
  [
    'ECONNREFUSED|ECONNRESET|ETIMEDOUT|EHOSTUNREACH|EPIPE',
    'Connection error|Connection timeout|Closed connection|seed broker',
    'coordinator is not available|not the correct coordinator|no leader|leadership election',
  ].join('|'),
  'iu',
);

/** How long an outage report stays said: a longer outage is said again, so a log read later still shows it. */
const REPEAT_MS = 60_000;

/**
 * The log of a Kafka outage: kafkajs reports every failed connection of every client (the consumer, its
 * producer, the relay) on every retry; here the first says the broker is unavailable, the rest are quiet
 * until REPEAT_MS passes, and the first success after it says the broker is back. Anything else is said as it comes.
 */
export class BrokerOutage {
  private saidAt: number | null = null;

  constructor(private readonly log: Logger) {}

  /** Whether `text` reports the broker away (said once per outage); false for any other report. */
  away(text: string, detail: object = {}): boolean {
    // kafkajs restarts a consumer that crashed on the outage: part of the outage already said.
    if (this.saidAt !== null && /^Restarting the consumer/u.test(text)) return true;
    if (!AWAY.test(text)) return false;
    const now = Date.now();
    if (this.saidAt === null || now - this.saidAt >= REPEAT_MS) {
      this.log.warn(detail, `kafka: the broker is unavailable (${text}); retrying until it is back`);
      this.saidAt = now;
    }
    return true;
  }

  /** A request the broker answered: an outage said before ends here. */
  back(): void {
    if (this.saidAt === null) return;
    this.saidAt = null;
    this.log.warn('kafka: the broker is available again');
  }
}

/** The text of an error and its causes, for `away`. */
export function errorText(error: unknown): string {
  const parts: string[] = [];
  for (let e = error as { message?: unknown; cause?: unknown } | undefined, depth = 0; e && depth < 5; e = e.cause as typeof e, depth++) {
    parts.push(String(e.message ?? e));
  }
  return parts.join(': ');
}
