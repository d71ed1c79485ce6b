/**
 * The route table (spec "Screens and routes"). Public pages sit under the public gate, the customer
 * dashboard under its own gate, the manager area under the manager gate. Each public route names
 * itself in `handle.publicPage` so the gate can apply the spec's rules without string-matching paths.
 * The root element holds the app's one push websocket (`api/RealtimeProvider.tsx`).
 */
import { Navigate, Outlet } from 'react-router';
import type { RouteObject } from 'react-router';
import { RealtimeProvider } from '../api/RealtimeProvider';
import { RouteErrorFallback } from '../components/ErrorFallback';
import { DashboardLayout } from './dashboard/DashboardLayout';
import { Help } from './dashboard/Help';
import { Home } from './dashboard/Home';
import { Partys } from './dashboard/Partys';
import { Payment } from './dashboard/Payment';
import { Peers } from './dashboard/peers/Peers';
import { DashboardPlans } from './dashboard/Plans';
import { AccountSettings } from './dashboard/Settings';
import { ManagerAudit } from './manager/Audit';
import { ManagerContent } from './manager/Content';
import { ManagerLayout } from './manager/ManagerLayout';
import { ManagerLogin } from './manager/ManagerLogin';
import { ManagerManualPeer } from './manager/ManualPeer';
import { ManagerOverview } from './manager/Overview';
import { ManagerServers } from './manager/Servers';
import { ManagerSettings } from './manager/Settings';
import type { PublicHandle } from './public/gate';
import { Landing } from './public/Landing';
import { Login } from './public/Login';
import { Maintenance } from './public/Maintenance';
import { NotFound } from './public/NotFound';
import { PasswordRecovery } from './public/PasswordRecovery';
import { Plans } from './public/Plans';
import { PublicLayout } from './public/PublicLayout';
import { Register } from './public/Register';
import { ResetPassword } from './public/ResetPassword';
import { VerifyEmail } from './public/VerifyEmail';

const page = (publicPage: PublicHandle['publicPage']): PublicHandle => ({ publicPage });

export const routes: RouteObject[] = [
  {
    // The live connection lives above every page: it opens and closes as the path changes.
    element: (
      <RealtimeProvider>
        <Outlet />
      </RealtimeProvider>
    ),
    errorElement: <RouteErrorFallback />,
    children: [
      {
        path: '/dashboard',
        element: <DashboardLayout />,
        children: [
          { index: true, element: <Navigate to="/dashboard/home" replace /> },
          { path: 'home', element: <Home /> },
          { path: 'peers', element: <Peers /> },
          { path: 'partys', element: <Partys /> },
          { path: 'plans', element: <DashboardPlans /> },
          { path: 'help', element: <Help /> },
          { path: 'settings', element: <AccountSettings /> },
          { path: 'payment', element: <Payment /> },
          { path: '*', element: <Navigate to="/dashboard/home" replace /> },
        ],
      },
      { path: '/manager', element: <Navigate to="/manager/dashboard" replace /> },
      { path: '/manager/login', element: <ManagerLogin /> },
      {
        path: '/manager/dashboard',
        element: <ManagerLayout />,
        children: [
          { index: true, element: <ManagerOverview /> },
          { path: 'servers', element: <ManagerServers /> },
          { path: 'settings', element: <ManagerSettings /> },
          { path: 'content', element: <ManagerContent /> },
          { path: 'peer', element: <ManagerManualPeer /> },
          { path: 'audit', element: <ManagerAudit /> },
          { path: '*', element: <Navigate to="/manager/dashboard" replace /> },
        ],
      },
      {
        element: <PublicLayout />,
        children: [
          { index: true, element: <Landing />, handle: page('landing') },
          { path: '/plans', element: <Plans />, handle: page('plans') },
          { path: '/login', element: <Login />, handle: page('login') },
          { path: '/register', element: <Register />, handle: page('register') },
          { path: '/password-recovery', element: <PasswordRecovery />, handle: page('recovery') },
          { path: '/reset-password', element: <ResetPassword />, handle: page('resetPassword') },
          { path: '/verify-email', element: <VerifyEmail />, handle: page('verifyEmail') },
          { path: '/maintenance', element: <Maintenance />, handle: page('maintenance') },
          { path: '*', element: <NotFound />, handle: page('notFound') },
        ],
      },
    ],
  },
];
