import { useEffect } from 'react';
import { useNavigate } from 'react-router';
import { clearTokens, LOGIN_PATH } from '../api/session';
import type { Realm } from '../api/session';

/** A refused token: forget it (so the login page does not send the user straight back) and log in again. */
export function RedirectToLogin({ realm }: { realm: Realm }) {
  const navigate = useNavigate();
  useEffect(() => {
    clearTokens(realm);
    navigate(LOGIN_PATH[realm], { replace: true });
  }, [realm, navigate]);
  return null;
}
