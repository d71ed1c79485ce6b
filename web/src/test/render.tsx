import { QueryClient } from '@tanstack/react-query';
import { render } from '@testing-library/react';
import { createMemoryRouter } from 'react-router';
import { App } from '../App';
import type { RuntimeConfig } from '../api/types';
import { DEFAULT_CONFIG } from '../config/runtime';
import { routes } from '../routes';

export function testQueryClient(): QueryClient {
  return new QueryClient({
    defaultOptions: { queries: { retry: false, refetchOnWindowFocus: false }, mutations: { retry: false } },
  });
}

/** Renders the whole app (real routes, gates and session module) at `path`. */
export function renderApp(path: string, { config = DEFAULT_CONFIG }: { config?: RuntimeConfig } = {}) {
  const router = createMemoryRouter(routes, { initialEntries: [path] });
  const queryClient = testQueryClient();
  const utils = render(<App config={config} queryClient={queryClient} router={router} />);
  return { ...utils, router, queryClient, path: () => router.state.location.pathname };
}
