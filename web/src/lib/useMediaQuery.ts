import { useCallback, useSyncExternalStore } from 'react';

/** Spec §9: the mobile layout is below 768 px. */
export const DESKTOP_QUERY = '(min-width: 768px)';

/**
 * Whether a CSS media query matches now, re-rendering when it starts or stops matching. Used where
 * the two layouts differ in structure (the peers table vs. cards), not just in style, so only one of
 * them is in the page (and in the accessibility tree) at a time.
 */
export function useMediaQuery(query: string): boolean {
  const subscribe = useCallback(
    (onChange: () => void) => {
      const list = window.matchMedia(query);
      list.addEventListener('change', onChange);
      return () => list.removeEventListener('change', onChange);
    },
    [query],
  );
  return useSyncExternalStore(
    subscribe,
    () => window.matchMedia(query).matches,
    () => false,
  );
}

export function useIsDesktop(): boolean {
  return useMediaQuery(DESKTOP_QUERY);
}
