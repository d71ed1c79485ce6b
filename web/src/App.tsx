import { QueryClientProvider } from '@tanstack/react-query';
import type { QueryClient } from '@tanstack/react-query';
import { useEffect } from 'react';
import type { ReactNode } from 'react';
import { RouterProvider } from 'react-router';
import type { createBrowserRouter } from 'react-router';
import { onSessionEnd, setSessionNavigator } from './api/session';
import type { RuntimeConfig } from './api/types';
import { AppToaster } from './components/AppToaster';
import { AppErrorBoundary } from './components/ErrorFallback';
import { RuntimeConfigProvider } from './config/runtime';

export type AppRouter = ReturnType<typeof createBrowserRouter>;

interface AppProps {
  config: RuntimeConfig;
  queryClient: QueryClient;
  router: AppRouter;
}

/**
 * The providers around the router: the same in the browser and in the build's pre-render
 * (`prerender/render.tsx`, which puts a static router inside), so both render the same markup.
 */
export function AppProviders({
  config,
  queryClient,
  children,
}: {
  config: RuntimeConfig;
  queryClient: QueryClient;
  children: ReactNode;
}) {
  return (
    <AppErrorBoundary>
      <RuntimeConfigProvider value={config}>
        <QueryClientProvider client={queryClient}>
          {children}
          <AppToaster />
        </QueryClientProvider>
      </RuntimeConfigProvider>
    </AppErrorBoundary>
  );
}

/** Wires the app's singletons together: runtime config, the QueryClient, the router, the toaster. */
export function App({ config, queryClient, router }: AppProps) {
  useEffect(() => {
    // The session module redirects through the router (no full reload) and, when a session ends,
    // the data that belonged to it is dropped so the next user never sees it.
    setSessionNavigator((to) => void router.navigate(to, { replace: true }));
    return onSessionEnd((realm) => queryClient.removeQueries({ queryKey: [realm] }));
  }, [router, queryClient]);

  return (
    <AppProviders config={config} queryClient={queryClient}>
      <RouterProvider router={router} />
    </AppProviders>
  );
}
