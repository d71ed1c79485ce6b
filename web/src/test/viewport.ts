/**
 * A viewport width for component tests: `window.matchMedia` answers `(min-width: Npx)` /
 * `(max-width: Npx)` queries against it, and `resizeTo` notifies the listeners, as a browser does
 * when the window is resized across a breakpoint.
 */
import { act } from '@testing-library/react';
import { vi } from 'vitest';

type Listener = (event: MediaQueryListEvent) => void;

function evaluate(query: string, width: number): boolean {
  const min = /\(min-width:\s*(\d+)px\)/.exec(query);
  const max = /\(max-width:\s*(\d+)px\)/.exec(query);
  if (min && width < Number(min[1])) return false;
  if (max && width > Number(max[1])) return false;
  return Boolean(min || max);
}

export function setViewportWidth(initial: number) {
  let width = initial;
  const listeners = new Map<string, Set<Listener>>();
  vi.stubGlobal('matchMedia', (query: string): MediaQueryList => {
    const set = listeners.get(query) ?? new Set<Listener>();
    listeners.set(query, set);
    return {
      get matches() {
        return evaluate(query, width);
      },
      media: query,
      onchange: null,
      addListener: (l: Listener) => set.add(l),
      removeListener: (l: Listener) => set.delete(l),
      addEventListener: (_: string, l: Listener) => set.add(l),
      removeEventListener: (_: string, l: Listener) => set.delete(l),
      dispatchEvent: () => false,
    } as unknown as MediaQueryList;
  });
  return {
    resizeTo(next: number) {
      act(() => {
        width = next;
        listeners.forEach((set, query) =>
          set.forEach((l) => l({ matches: evaluate(query, width), media: query } as MediaQueryListEvent)),
        );
      });
    },
  };
}
