/**
 * Runs before every server test file (vitest `setupFiles`): password hashes at a test cost
 * (scrypt N=2^10, r=8, p=1: about a millisecond instead of 0.3 s of CPU), so the hundreds of sign-ins
 * of the suites do not spend minutes hashing. crypto.test.ts restores and checks the production
 * parameters; the servers the tests start as child processes keep them too.
 *
 * A worker runs many files in one process (vitest.config.ts, `isolate: false`): whatever a file
 * left behind that is process-wide is reset here, before the next one (the password cost above,
 * and real timers after the file, even when a test failed between its fake timers and their end).
 */
import { afterAll, vi } from 'vitest';
import { setPasswordCostForTests } from '../src/lib/crypto.ts';

setPasswordCostForTests({ N: 1024, r: 8, p: 1 });
afterAll(() => {
  vi.useRealTimers();
});
