/**
 * A reconciler backend over an in-memory device (fakeWg.ts): the real Reconciler, its diff and its
 * stats passes, without root or wireguard-go. Tests change `device`'s counters to make traffic.
 */
import type { ReconcilerBackend } from '../reconcile.ts';
import { createRunner } from '../exec.ts';
import { FakeDevice, FakeDriver } from './fakeWg.ts';

export function fakeReconcilerBackend(): { device: FakeDevice; backend: ReconcilerBackend } {
  const device = new FakeDevice();
  const driver = new FakeDriver(device);
  let name: string | null = null;
  const backend: ReconcilerBackend = {
    kind: async () => 'wireguard-go',
    ensureInterface: async (spec) => {
      name = spec.name;
    },
    driver: () => driver,
    statsReader: () => driver,
    get interfaceName() {
      return name;
    },
    runner: createRunner(null),
    isAlive: async () => true,
  };
  return { device, backend };
}
