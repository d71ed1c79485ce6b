/**
 * A reconciler backend over an in-memory device (fakeWg.ts): the real Reconciler, its diff and its
 * stats passes, without root or wireguard-go. Tests change `device`'s counters to make traffic;
 * `ensured` lists every interface the reconciler asked for.
 */
import type { InterfaceSpec } from '../backend.ts';
import type { ReconcilerBackend } from '../reconcile.ts';
import { createRunner, type CommandRunner } from '../exec.ts';
import { FakeDevice, FakeDriver } from './fakeWg.ts';

export function fakeReconcilerBackend(
  runner: CommandRunner = createRunner(null),
  device = new FakeDevice(),
): { device: FakeDevice; driver: FakeDriver; ensured: InterfaceSpec[]; backend: ReconcilerBackend } {
  const driver = new FakeDriver(device);
  const ensured: InterfaceSpec[] = [];
  let name: string | null = null;
  const backend: ReconcilerBackend = {
    kind: async () => 'wireguard-go',
    ensureInterface: async (spec) => {
      ensured.push(spec);
      name = spec.name;
    },
    driver: () => driver,
    statsReader: () => driver,
    get interfaceName() {
      return name;
    },
    runner,
    isAlive: async () => true,
  };
  return { device, driver, ensured, backend };
}
