import '@testing-library/jest-dom/vitest';
import { cleanup } from '@testing-library/react';
import { toast } from 'react-hot-toast';
import { afterEach, beforeEach, vi } from 'vitest';
import { routes } from '../routes';
import { resolveAll } from '../routes/resolve';
import { FakeWebSocket } from './websocket';

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
  window.localStorage.clear();
  window.sessionStorage.clear();
});
