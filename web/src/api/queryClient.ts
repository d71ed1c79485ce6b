import { QueryClient } from '@tanstack/react-query';
import { ApiError } from './http';

/**
 * Retries only what may heal by itself: network failures and 5xx other than 503 (maintenance is
 * answered at once by sending the user to /maintenance). 4xx answers are final.
 */
export function shouldRetry(failureCount: number, error: unknown): boolean {
  if (failureCount >= 2) return false;
  if (!(error instanceof ApiError)) return false;
  return error.status === 0 || (error.status >= 500 && error.status !== 503);
}

/** The app's one QueryClient (tests build their own with `retry: false`). */
export function createQueryClient(): QueryClient {
  return new QueryClient({
    defaultOptions: {
      queries: { retry: shouldRetry, refetchOnWindowFocus: false },
      mutations: { retry: false },
    },
  });
}
