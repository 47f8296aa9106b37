import { OutageNotice } from '@memotrace/runtime';
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

/**
 * The log of a Kafka outage: kafkajs reports every failed connection of every client (the consumer, its
 * producer, the relay) on every retry; here the first says the broker is unavailable, the rest are quiet
 * (a long outage is said again, as `OutageNotice` has it), and the first success after it says the broker
 * is back. Anything else is said as it comes.
 */
export class BrokerOutage {
  private readonly notice = new OutageNotice();

  constructor(private readonly log: Logger) {}

  /** Whether `text` reports the broker away (said once per outage); false for any other report. */
  away(text: string, detail: object = {}): boolean {
    // kafkajs restarts a consumer that crashed on the outage: part of the outage already said.
    if (this.notice.open && /^Restarting the consumer/u.test(text)) return true;
    if (!AWAY.test(text)) return false;
    if (this.notice.due('broker')) this.log.warn(detail, `kafka: the broker is unavailable (${text}); retrying until it is back`);
    return true;
  }

  /** A request the broker answered: an outage said before ends here. */
  back(): void {
    if (this.notice.end()) this.log.warn('kafka: the broker is available again');
  }
}

/**
 * A report that the group coordinator dropped this consumer or is rebalancing the group: after a broker
 * restart the coordinator has forgotten its members, and kafkajs rejoins by itself. Nothing is wrong.
 */
const REJOINING = /coordinator is not aware of this member|group is rebalancing|group generation id is not valid/iu;

export function isRejoin(text: string): boolean {
  return REJOINING.test(text);
}

/** The text of an error and its causes, for `away`. */
export function errorText(error: unknown): string {
  const parts: string[] = [];
  for (let e = error as { message?: unknown; cause?: unknown } | undefined, depth = 0; e && depth < 5; e = e.cause as typeof e, depth++) {
    parts.push(String(e.message ?? e));
  }
  return parts.join(': ');
}
