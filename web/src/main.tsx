import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { createBrowserRouter } from 'react-router';
import { createQueryClient } from './api/queryClient';
import { App } from './App';
import { showFatalError } from './components/ErrorFallback';
import { loadRuntimeConfig } from './config/runtime';
import { routes } from './routes';
import './index.css';

async function start() {
  // Runtime config first: the company name, captcha provider and support URL come from the server.
  const config = await loadRuntimeConfig();
  document.title = config.company_name;
  const root = document.getElementById('root');
  if (!root) throw new Error('Falta el elemento #root');
  // The app's own boundaries catch render errors; an error that escapes them makes React unmount
  // the whole tree, which would leave a blank page: show the fallback screen instead.
  const reactRoot = createRoot(root, {
    onUncaughtError: (error) => {
      // After React's own error handling has finished with this root.
      setTimeout(() => {
        reactRoot.unmount();
        showFatalError(error);
      }, 0);
    },
  });
  reactRoot.render(
    <StrictMode>
      <App config={config} queryClient={createQueryClient()} router={createBrowserRouter(routes)} />
    </StrictMode>,
  );
}

void start().catch((error: unknown) => showFatalError(error));
