/**
 * The SPA rendered to HTML, in Node: the entry of the build's SSR bundle (`dist/ssr/render.js`).
 *
 * - At build time `scripts/prerender.ts` renders every public page for every combination of the
 *   public switches with it, with markers where only the installation's runtime configuration can
 *   say what goes (the company name, the support URL, the year).
 * - At run time the control plane uses only {@link renderPlanList}: the plans are the one part of a
 *   public page that is data (`server/src/plugins/webPages.ts`).
 *
 * The tree is the browser's (`AppProviders` + the same route table), so React hydrates it as is.
 */
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { renderToString } from 'react-dom/server';
import { MemoryRouter, StaticRouterProvider, createStaticHandler, createStaticRouter } from 'react-router';
import type { Plan, PublicSettings, RuntimeConfig } from '@vpn/contracts';
import { AppProviders } from '../App';
import { LoadingScreen } from '../components/LoadingScreen';
import { queryKeys } from '../api/queries';
import { es } from '../i18n/es';
import { setRenderedYear } from '../lib/year';
import { routes } from '../routes';
import { publicRedirect } from '../routes/public/gate';
import type { PublicPage } from '../routes/public/gate';
import { PlanList } from '../routes/public/Plans';

export { publicRedirect };

/** What the pre-render needs to know of each public page it renders. */
export interface PrerenderPage {
  name: PublicPage;
  /** Paths that show it (none for the not-found page, shown for any unknown path). */
  paths: string[];
  /** The path it is rendered at. */
  renderAt: string;
  title: string;
  /** Its module, to find its chunks in Vite's manifest (modulepreloads). */
  module: string;
  /** Has a form, which needs JavaScript: keeps the <noscript> note. */
  form: boolean;
}

export const PAGES: PrerenderPage[] = [
  { name: 'landing', paths: ['/'], title: es.titles.welcome, module: 'Landing', form: false },
  { name: 'plans', paths: ['/plans'], title: es.titles.plans, module: 'Plans', form: false },
  { name: 'login', paths: ['/login'], title: es.titles.login, module: 'Login', form: true },
  { name: 'register', paths: ['/register'], title: es.titles.register, module: 'Register', form: true },
  {
    name: 'recovery',
    paths: ['/password-recovery'],
    title: es.titles.recovery,
    module: 'PasswordRecovery',
    form: true,
  },
  {
    name: 'maintenance',
    paths: ['/maintenance'],
    title: es.titles.maintenance,
    module: 'Maintenance',
    form: false,
  },
  { name: 'notFound', paths: [], title: es.titles.notFound, module: 'NotFound', form: false },
].map((page) => ({
  ...page,
  name: page.name as PublicPage,
  renderAt: page.paths[0] ?? '/__pagina-inexistente__',
  module: `src/routes/public/${page.module}.tsx`,
}));

/**
 * Paths rendered in the browser only: the dashboard and the manager console (behind a session), and
 * the pages of e-mailed links, whose one-time token is in the URL fragment the server never sees.
 */
export const SPA_PREFIXES = ['/dashboard', '/manager', '/reset-password', '/verify-email'];

function queryClientWith(settings: PublicSettings | null, plans?: Plan[]): QueryClient {
  const client = new QueryClient({ defaultOptions: { queries: { retry: false, staleTime: Infinity } } });
  if (settings) client.setQueryData(queryKeys.publicSettings, settings);
  if (plans) client.setQueryData(queryKeys.plans, plans);
  return client;
}

/**
 * The body of the page at `path` with these settings and this configuration (plans still loading),
 * or null when the page redirects there.
 */
export async function renderPage(
  path: string,
  settings: PublicSettings,
  config: RuntimeConfig,
  year: string,
): Promise<string> {
  const handler = createStaticHandler(routes);
  const context = await handler.query(new Request(`http://prerender${path}`));
  if (context instanceof Response) throw new Error(`${path}: el enrutador respondió ${context.status}`);
  const router = createStaticRouter(handler.dataRoutes, context);
  setRenderedYear(year);
  try {
    return renderToString(
      <AppProviders config={config} queryClient={queryClientWith(settings)}>
        <StaticRouterProvider router={router} context={context} hydrate={false} />
      </AppProviders>,
    );
  } finally {
    setRenderedYear(null);
  }
}

/** The plan list of /plans as it shows `plans` (or, without them, while they load). */
export function renderPlanList(plans?: Plan[]): string {
  return renderToString(
    <QueryClientProvider client={queryClientWith(null, plans)}>
      <MemoryRouter>
        <PlanList />
      </MemoryRouter>
    </QueryClientProvider>,
  );
}

/**
 * What the pages rendered in the browser only (the dashboard, the console, e-mailed links) show
 * from the first paint until the application has drawn them: the app's own full-screen wait,
 * "Cargando información..." (issue 32: before, a blank page until ~170 KiB of JavaScript had run).
 */
export function renderShellBody(): string {
  return renderToString(<LoadingScreen label={es.common.loading} />);
}
