import { createServer, type Server, type Socket } from 'node:net';
import { describeLogStoreConformance } from '../testing/conformance';
import { KurrentLogStore } from './kurrent-log-store';

/**
 * The shared conformance suite against a real KurrentDB / EventStoreDB, e.g.
 *   EVENTSTORE_URL='kurrentdb://admin:changeit@127.0.0.1:2113?tls=false' npm run test:eventstore
 * ($all reads need a user that may read $all, or an --insecure server).
 * Without EVENTSTORE_URL there is no server to run it against: the file then checks that the
 * adapter loads and builds its client from a connection string without connecting.
 */
const url = process.env.EVENTSTORE_URL;

if (url) {
  describeLogStoreConformance('KurrentLogStore', async () => {
    const store = KurrentLogStore.fromConnectionString(url);
    return { store, teardown: () => store.close() };
  });
} else {
  describe('KurrentLogStore (EVENTSTORE_URL not set: no server to run the conformance suite against)', () => {
    let server: Server;
    const connections: Socket[] = [];

    beforeAll(async () => {
      // A listener that counts connection attempts: the client must not make any.
      server = createServer((socket) => {
        connections.push(socket);
        socket.destroy();
      });
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    });
    afterAll(async () => {
      await new Promise<void>((resolve) => server.close(() => resolve()));
    });

    it('loads the adapter and constructs a client from a connection string without connecting', async () => {
      const { port } = server.address() as { port: number };
      const store = KurrentLogStore.fromConnectionString(`kurrentdb://127.0.0.1:${port}?tls=false`);
      expect(store).toBeInstanceOf(KurrentLogStore);
      await new Promise((resolve) => setTimeout(resolve, 300));
      await store.close();
      expect(connections).toHaveLength(0);
      // Closed means closed: no call reaches the (never connected) client.
      await expect(store.readStream('any-stream')).rejects.toThrow(/closed/);
    });
  });
}
