import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { createBrowserRouter } from 'react-router';
import { createQueryClient } from './api/queryClient';
import { App } from './App';
import { loadRuntimeConfig } from './config/runtime';
import { routes } from './routes';
import './index.css';

async function start() {
  // Runtime config first: the company name, captcha provider and support URL come from the server.
  const config = await loadRuntimeConfig();
  document.title = config.company_name;
  const root = document.getElementById('root');
  if (!root) throw new Error('Falta el elemento #root');
  createRoot(root).render(
    <StrictMode>
      <App config={config} queryClient={createQueryClient()} router={createBrowserRouter(routes)} />
    </StrictMode>,
  );
}

void start();
