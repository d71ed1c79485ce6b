import '@testing-library/jest-dom/vitest';
import { cleanup, configure } from '@testing-library/react';
import { toast } from 'react-hot-toast';
import { afterEach, beforeEach, vi } from 'vitest';
import { rememberReauth } from '../api/session';
import { routes } from '../routes';
import { resolveAll } from '../routes/resolve';
import { FakeWebSocket } from './websocket';

// findBy*/waitFor give up after testing-library's default 1 s of wall time. Beside the other suites
// (CI, load 13–32 on two cores) a page's render and its fake API's answers took longer than that:
// Rooms.test failed three different tests on two runs at load 32 and passed alone. What a test waits
// for still has to happen; it only gets the time a starved machine needs (the test's own timeout,
// 20 s in vitest.config.ts, stays the bound).
configure({ asyncUtilTimeout: 10_000 });

// Pages are lazy chunks in the app; tests render them at once, as before the split.
await resolveAll(routes);

// jsdom lacks matchMedia (react-hot-toast asks for prefers-reduced-motion): answer "no match".
if (!window.matchMedia) {
  window.matchMedia = (query: string): MediaQueryList => ({
    matches: false,
    media: query,
    onchange: null,
    addListener: () => undefined,
    removeListener: () => undefined,
    addEventListener: () => undefined,
    removeEventListener: () => undefined,
    dispatchEvent: () => false,
  });
}

// No test opens a real socket: the app's push connection gets the fake (see `websocket.ts`).
beforeEach(() => {
  FakeWebSocket.instances = [];
  vi.stubGlobal('WebSocket', FakeWebSocket);
});

afterEach(() => {
  cleanup();
  toast.remove();
  // A manager's fresh confirmation lives in the page's module for five minutes: one test's must not
  // answer the next test's reauth_required (files share a worker, isolate: false).
  rememberReauth('', 0);
  window.localStorage.clear();
  window.sessionStorage.clear();
});
