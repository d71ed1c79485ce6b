import { useEffect } from 'react';
import { Toaster, toast, useToasterStore } from 'react-hot-toast';
import { useMediaQuery } from '../lib/useMediaQuery';

/** Spec §9: at most 20 toasts on screen at once. */
export const TOAST_LIMIT = 20;

/** Spec §9 (first reading): blank and error 4 s, success 2 s, loading until dismissed. */
export const TOAST_DURATIONS = { blank: 4000, error: 4000, success: 2000, loading: Infinity } as const;

/** The app's toaster: the spec's durations, and the oldest toasts dismissed beyond {@link TOAST_LIMIT}. */
export function AppToaster() {
  const { toasts } = useToasterStore();
  const wide = useMediaQuery('(min-width: 1024px)');

  useEffect(() => {
    // The store lists the newest toast first: everything after the limit is the oldest and goes.
    toasts
      .filter((t) => t.visible)
      .slice(TOAST_LIMIT)
      .forEach((t) => toast.dismiss(t.id));
  }, [toasts]);

  return (
    <Toaster
      // Bottom: at the top they covered the end of the navigation bars (the console's Auditoría).
      // From 1024 px, the bottom right corner: in the middle they covered what the action had just
      // changed (a refunded invoice's state, a list's rows; issue 34).
      position={wide ? 'bottom-right' : 'bottom-center'}
      toastOptions={{
        duration: TOAST_DURATIONS.blank,
        blank: { duration: TOAST_DURATIONS.blank },
        error: { duration: TOAST_DURATIONS.error },
        success: { duration: TOAST_DURATIONS.success },
        loading: { duration: TOAST_DURATIONS.loading },
        style: { background: '#122045', color: '#f1f5f9', border: '1px solid #1c2d5c' },
      }}
    />
  );
}
