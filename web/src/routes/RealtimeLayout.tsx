import { Outlet } from 'react-router';
import { RealtimeProvider } from '../api/RealtimeProvider';

/**
 * Above the dashboard and the manager console: the live connection opens and closes as the path
 * changes (`RealtimeProvider`). A lazy chunk of its own, so public pages never download it.
 */
export function RealtimeLayout() {
  return (
    <RealtimeProvider>
      <Outlet />
    </RealtimeProvider>
  );
}
