/**
 * The route table (spec "Screens and routes"). Public pages sit under the public gate, the customer
 * dashboard under its own gate, the manager area under the manager gate. Each public route names
 * itself in `handle.publicPage` so the gate can apply the spec's rules without string-matching paths.
 * The dashboard and the manager console sit under the app's one push websocket
 * (`api/RealtimeProvider.tsx`, via `RealtimeLayout`).
 *
 * Every page is its own chunk, loaded when its route is first matched (`lazy`): a visitor of the
 * landing downloads neither the dashboard nor the manager console. Only the root and the public gate
 * are in the entry. The build reads this table (`scripts/prerender.ts`) to pre-render the public pages
 * and to list each one's chunks as `modulepreload`s, so a lazy page costs no extra round trip.
 */
import { Navigate, Outlet } from 'react-router';
import type { RouteObject } from 'react-router';
import type { ComponentType } from 'react';
import { RouteErrorFallback } from '../components/ErrorFallback';
import type { RequirePermission } from './manager/ManagerLayout';
import type { PublicHandle } from './public/gate';
import { PublicLayout } from './public/PublicLayout';

/** `lazy` for a module that exports the route's component under `name`. */
function load<M, K extends keyof M>(importer: () => Promise<M>, name: K): RouteObject['lazy'] {
  return async () => ({ Component: (await importer())[name] as ComponentType });
}

type Permission = Parameters<typeof RequirePermission>[0]['permission'];

/** `lazy` for a manager page shown only with `permission` (the console's own guard wraps it). */
function guarded<M, K extends keyof M>(
  importer: () => Promise<M>,
  name: K,
  permission: Permission,
): RouteObject['lazy'] {
  return async () => {
    const [{ RequirePermission: Guard }, module] = await Promise.all([
      import('./manager/ManagerLayout'),
      importer(),
    ]);
    const Page = module[name] as ComponentType;
    return {
      element: (
        <Guard permission={permission}>
          <Page />
        </Guard>
      ),
    };
  };
}

const page = (publicPage: PublicHandle['publicPage']): PublicHandle => ({ publicPage });

export const routes: RouteObject[] = [
  {
    element: <Outlet />,
    errorElement: <RouteErrorFallback />,
    children: [
      {
        // The push websocket is for the dashboard and the console only: its code (and the API schemas
        // it checks messages with) stays out of the public pages.
        lazy: load(() => import('./RealtimeLayout'), 'RealtimeLayout'),
        children: [
          {
            path: '/dashboard',
            lazy: load(() => import('./dashboard/DashboardLayout'), 'DashboardLayout'),
            children: [
              { index: true, element: <Navigate to="/dashboard/home" replace /> },
              { path: 'home', lazy: load(() => import('./dashboard/Home'), 'Home') },
              { path: 'peers', lazy: load(() => import('./dashboard/peers/Peers'), 'Peers') },
              { path: 'partys', lazy: load(() => import('./dashboard/Rooms'), 'Rooms') },
              { path: 'plans', lazy: load(() => import('./dashboard/Plans'), 'DashboardPlans') },
              { path: 'help', lazy: load(() => import('./dashboard/Help'), 'Help') },
              { path: 'settings', lazy: load(() => import('./dashboard/Settings'), 'AccountSettings') },
              { path: 'payment', lazy: load(() => import('./dashboard/Payment'), 'Payment') },
              { path: '*', element: <Navigate to="/dashboard/home" replace /> },
            ],
          },
          { path: '/manager', element: <Navigate to="/manager/dashboard" replace /> },
          { path: '/manager/login', lazy: load(() => import('./manager/ManagerLogin'), 'ManagerLogin') },
          {
            path: '/manager/dashboard',
            lazy: load(() => import('./manager/ManagerLayout'), 'ManagerLayout'),
            children: [
              { index: true, lazy: load(() => import('./manager/Overview'), 'ManagerOverview') },
              {
                path: 'servers',
                lazy: guarded(() => import('./manager/Servers'), 'ManagerServers', 'servers.read'),
              },
              {
                path: 'customers',
                lazy: guarded(
                  () => import('./manager/customers/Customers'),
                  'ManagerCustomers',
                  'customers.read',
                ),
              },
              {
                path: 'customers/:id',
                lazy: guarded(
                  () => import('./manager/customers/CustomerDetail'),
                  'ManagerCustomerDetail',
                  'customers.read',
                ),
              },
              {
                path: 'invoices',
                lazy: guarded(
                  () => import('./manager/customers/Invoices'),
                  'ManagerInvoices',
                  'invoices.read',
                ),
              },
              {
                path: 'invoices/:id',
                lazy: guarded(
                  () => import('./manager/customers/InvoiceDetail'),
                  'ManagerInvoiceDetail',
                  'invoices.read',
                ),
              },
              {
                path: 'settings',
                lazy: guarded(() => import('./manager/Settings'), 'ManagerSettings', 'settings.read'),
              },
              {
                path: 'managers',
                lazy: guarded(() => import('./manager/Managers'), 'ManagerManagers', 'managers.manage'),
              },
              { path: 'security', lazy: load(() => import('./manager/Security'), 'ManagerSecurity') },
              {
                path: 'content',
                lazy: guarded(() => import('./manager/Content'), 'ManagerContent', 'content.write'),
              },
              {
                path: 'peers',
                lazy: guarded(() => import('./manager/catalog/Peers'), 'ManagerPeers', 'peers.read'),
              },
              {
                path: 'peers/bulk',
                lazy: guarded(() => import('./manager/catalog/BulkPeers'), 'ManagerBulkPeers', 'peers.write'),
              },
              {
                path: 'plans',
                lazy: guarded(() => import('./manager/catalog/Plans'), 'ManagerPlans', 'plans.read'),
              },
              {
                path: 'partys',
                lazy: guarded(() => import('./manager/catalog/Rooms'), 'ManagerRooms', 'rooms.read'),
              },
              // 'Peer manual' is now a dialog of the Peers page; old links land there.
              { path: 'peer', element: <Navigate to="/manager/dashboard/peers" replace /> },
              { path: 'audit', lazy: guarded(() => import('./manager/Audit'), 'ManagerAudit', 'audit.read') },
              { path: '*', element: <Navigate to="/manager/dashboard" replace /> },
            ],
          },
        ],
      },
      {
        element: <PublicLayout />,
        children: [
          { index: true, lazy: load(() => import('./public/Landing'), 'Landing'), handle: page('landing') },
          { path: '/plans', lazy: load(() => import('./public/Plans'), 'Plans'), handle: page('plans') },
          { path: '/login', lazy: load(() => import('./public/Login'), 'Login'), handle: page('login') },
          {
            path: '/register',
            lazy: load(() => import('./public/Register'), 'Register'),
            handle: page('register'),
          },
          {
            path: '/password-recovery',
            lazy: load(() => import('./public/PasswordRecovery'), 'PasswordRecovery'),
            handle: page('recovery'),
          },
          {
            path: '/reset-password',
            lazy: load(() => import('./public/ResetPassword'), 'ResetPassword'),
            handle: page('resetPassword'),
          },
          {
            path: '/verify-email',
            lazy: load(() => import('./public/VerifyEmail'), 'VerifyEmail'),
            handle: page('verifyEmail'),
          },
          {
            path: '/maintenance',
            lazy: load(() => import('./public/Maintenance'), 'Maintenance'),
            handle: page('maintenance'),
          },
          { path: '*', lazy: load(() => import('./public/NotFound'), 'NotFound'), handle: page('notFound') },
        ],
      },
    ],
  },
];
