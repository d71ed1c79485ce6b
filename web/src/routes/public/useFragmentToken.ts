import { useEffect, useState } from 'react';
import { useLocation, useNavigate } from 'react-router';
import { tokenFromHash } from '../../api/account';

/**
 * The one-time token of an e-mailed link (`…#token=XYZ`), read once when the page opens. The
 * fragment is then dropped from the address bar (a history replace, no new entry), so the token is
 * not left in the history, in a bookmark or on screen. The page keeps it in state.
 */
export function useFragmentToken(): string | null {
  const location = useLocation();
  const navigate = useNavigate();
  const [token] = useState(() => tokenFromHash(location.hash));
  const hasFragment = location.hash !== '';

  useEffect(() => {
    if (!hasFragment) return;
    void navigate(
      { pathname: location.pathname, search: location.search, hash: '' },
      { replace: true, state: location.state as unknown },
    );
  }, [hasFragment, navigate, location.pathname, location.search, location.state]);

  return token;
}
