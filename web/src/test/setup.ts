import '@testing-library/jest-dom/vitest';
import { cleanup } from '@testing-library/react';
import { toast } from 'react-hot-toast';
import { afterEach } from 'vitest';

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

afterEach(() => {
  cleanup();
  toast.remove();
  window.localStorage.clear();
  window.sessionStorage.clear();
});
