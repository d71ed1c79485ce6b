/**
 * The agent's control loop without an interface, for bench/stats-memory.bench.ts: the compiled
 * reconciler and connection of `dist/` (as in production), a UAPI client on the socket the parent
 * serves (a FakeDevice), no wireguard-go, no firewall. Arguments: control-plane URL, token, socket.
 */
import { AgentConnection } from '../dist/connection.js';
import { createLogger } from '../dist/log.js';
import { Reconciler } from '../dist/reconcile.js';
import { UapiClient } from '../dist/uapi.js';

const [url, token, socket] = process.argv.slice(2);
const log = createLogger('error');
const applyDriver = new UapiClient(socket);
const statsDriver = new UapiClient(socket);
let name = null;
const backend = {
  kind: async () => 'wireguard-go',
  ensureInterface: async (spec) => {
    name = spec.name;
  },
  driver: () => applyDriver,
  statsReader: () => statsDriver,
  get interfaceName() {
    return name;
  },
  runner: null,
  isAlive: async () => true,
};
const reconciler = new Reconciler({ backend, log, firewall: false, healthIntervalMs: 0 });
const connection = new AgentConnection({
  url,
  token,
  log,
  handler: {
    hello: async () => ({ revision: reconciler.revision, backend: 'wireguard-go' }),
    applySnapshot: async (s) => (await reconciler.applySnapshot(s))?.revision ?? null,
    applyDelta: async (d) => (await reconciler.applyDelta(d))?.revision ?? null,
    collectStats: (onlyChanged, emit) => reconciler.collectStats(onlyChanged, emit),
  },
});
reconciler.start();
connection.start();
process.on('SIGTERM', () => process.exit(0));
