import { StrictMode, startTransition, useEffect } from 'react';
import { createRoot, hydrateRoot } from 'react-dom/client';
import type { Root } from 'react-dom/client';
import { createBrowserRouter } from 'react-router';
import { queryKeys } from './api/queries';
import { createQueryClient } from './api/queryClient';
import { App } from './App';
import { showFatalError } from './components/ErrorFallback';
import { loadRuntimeConfig, readBootData } from './config/runtime';
import { routes } from './routes';
import { resolveMatches } from './routes/resolve';
import { sendHeldForm, takeOverTypedFields } from './lib/takeOver';
import './index.css';

/** Renders nothing; once React has taken the pre-rendered page over, what the visitor did before. */
function TakenOver({ root }: { root: HTMLElement }) {
  useEffect(() => {
    takeOverTypedFields(root);
    sendHeldForm();
  }, [root]);
  return null;
}

async function start() {
  // The control plane puts the runtime config and the public settings (and, on /plans, the plans)
  // inline in every page it serves; /config.json is only asked when they are missing (`vite` dev).
  const boot = readBootData(document);
  const [config] = await Promise.all([
    boot?.config ?? loadRuntimeConfig(),
    resolveMatches(routes, window.location),
  ]);
  const queryClient = createQueryClient();
  if (boot?.settings) {
    queryClient.setQueryData(queryKeys.publicSettings, boot.settings);
    // The server read the maintenance switch when it served this page: that is /login's check "on
    // load" (`Login.tsx` takes it while fresh, instead of asking again).
    queryClient.setQueryData(queryKeys.status, { maintenance: boot.settings.maintenance });
  }
  if (boot?.plans) queryClient.setQueryData(queryKeys.plans, boot.plans);

  const root = document.getElementById('root');
  if (!root) throw new Error('Falta el elemento #root');
  const app = (
    <StrictMode>
      <App config={config} queryClient={queryClient} router={createBrowserRouter(routes)} />
      <TakenOver root={root} />
    </StrictMode>
  );
  // The app's own boundaries catch render errors; an error that escapes them makes React unmount
  // the whole tree, which would leave a blank page: show the fallback screen instead.
  let reactRoot: Root | null = null;
  const onUncaughtError = (error: unknown) => {
    // After React's own error handling has finished with this root.
    setTimeout(() => {
      reactRoot?.unmount();
      showFatalError(error);
    }, 0);
  };
  if (root.hasAttribute('data-prerendered')) {
    // The page is already painted (pre-rendered at build time, completed by the server): React
    // takes over the markup as it is.
    reactRoot = hydrateRoot(root, app, { onUncaughtError });
  } else {
    document.title = config.company_name;
    const fresh = createRoot(root, { onUncaughtError });
    reactRoot = fresh;
    // As a transition, React yields to the browser every few milliseconds while it builds the page
    // (the dashboard: ~1 s of work on a slow phone), instead of one long task that blocks taps and
    // paints (Lighthouse's Total Blocking Time, issue 32).
    startTransition(() => fresh.render(app));
  }
}

void start().catch((error: unknown) => showFatalError(error));
