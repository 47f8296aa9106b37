import { BrokerOutage, errorText, isRejoin } from './broker-outage';

function logger() {
  const said: string[] = [];
  const log = { warn: (_detail: object, message?: string) => void said.push(message ?? String(_detail)) };
  return { said, log: log as never };
}

describe('BrokerOutage', () => {
  it('says an outage once, quiet on every retry, and says when the broker is back', () => {
    const { said, log } = logger();
    const outage = new BrokerOutage(log);
    expect(outage.away('Connection error: connect ECONNREFUSED 127.0.0.1:9092')).toBe(true);
    expect(outage.away('Failed to connect to seed broker, trying another broker from the list')).toBe(true);
    expect(outage.away('Restarting the consumer in 300ms')).toBe(true);
    outage.back();
    outage.back();
    expect(said).toEqual([
      'kafka: the broker is unavailable (Connection error: connect ECONNREFUSED 127.0.0.1:9092); retrying until it is back',
      'kafka: the broker is available again',
    ]);
  });

  it('leaves any other report to be said as it comes', () => {
    const { said, log } = logger();
    const outage = new BrokerOutage(log);
    expect(outage.away('Restarting the consumer in 300ms')).toBe(false);
    expect(outage.away('The topic does not exist')).toBe(false);
    outage.back();
    expect(said).toEqual([]);
  });

  it('says a long outage again after a minute', () => {
    const { said, log } = logger();
    const outage = new BrokerOutage(log);
    const now = jest.spyOn(Date, 'now').mockReturnValue(1_000_000);
    try {
      outage.away('Connection error: read ECONNRESET');
      now.mockReturnValue(1_059_000);
      outage.away('Connection error: read ECONNRESET');
      now.mockReturnValue(1_061_000);
      outage.away('Connection error: read ECONNRESET');
    } finally {
      now.mockRestore();
    }
    expect(said).toHaveLength(2);
  });

  it('reads an error with its causes', () => {
    expect(errorText(new Error('send failed', { cause: new Error('connect ECONNREFUSED') }))).toBe('send failed: connect ECONNREFUSED');
  });
});

describe('isRejoin', () => {
  it('knows the reports of a group that forgot or rebalances its member, and no others', () => {
    expect(isRejoin('Response Heartbeat(key: 12, version: 3) The coordinator is not aware of this member')).toBe(true);
    expect(isRejoin('Response OffsetCommit(key: 8, version: 5) The group is rebalancing, so a rejoin is needed')).toBe(true);
    expect(isRejoin('Response Heartbeat(key: 12, version: 3) Specified group generation id is not valid')).toBe(true);
    expect(isRejoin('The topic does not exist')).toBe(false);
    expect(isRejoin('Connection error: connect ECONNREFUSED 127.0.0.1:9092')).toBe(false);
  });
});
