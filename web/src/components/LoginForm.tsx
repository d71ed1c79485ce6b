import { LogIn } from 'lucide-react';
import { useRef, useState } from 'react';
import type { FormEvent } from 'react';
import { ApiError, errorMessage } from '../api/http';
import { login } from '../api/session';
import type { Realm } from '../api/session';
import { es } from '../i18n/es';
import { PasswordField, TextField } from './Field';
import { Captcha, type CaptchaHandle } from './Captcha';
import { FormError } from './FormError';
import { Spinner } from './Spinner';
import { ui } from './ui';

interface LoginFormProps {
  realm: Realm;
  /** Called after the tokens are stored. */
  onSuccess: () => void;
  /**
   * Managers with two-factor sign-in: the password was right and the server asks for the code
   * (401 `totp_required`); the page takes over with the code step.
   */
  onTotpRequired?: (credentials: { username: string; password: string; remember: boolean }) => void;
}

/** The server's answer after repeated wrong passwords: the next try needs a solved captcha. */
const CAPTCHA_CODES = new Set(['captcha_required']);

/** The challenge's query for this account: its work grows with the account's failures. */
export const captchaQuery = (realm: Realm, username: string) =>
  `username=${encodeURIComponent(username.trim())}${realm === 'manager' ? '&realm=manager' : ''}`;

/**
 * Username, password (show/hide), 'Recordarme'. While the call runs every control is disabled and
 * the button reads 'Procesando...'; a failure shows the server's message (or the spec's fallback)
 * in a red box. Shared by the customer and the manager login.
 *
 * After repeated wrong passwords for an account (or from the customer's shared address) the server
 * asks for a captcha (`captcha_required`): the form then shows the captcha, and the right password
 * together with it gets in. Each attempt spends the solution. A wait (`login_delay`, this address's
 * repeated failures for the account) is shown as the server words it; no captcha skips it.
 */
export function LoginForm({ realm, onSuccess, onTotpRequired }: LoginFormProps) {
  const [username, setUsername] = useState('');
  const [password, setPassword] = useState('');
  const [remember, setRemember] = useState(false);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [captchaShown, setCaptchaShown] = useState(false);
  const [captchaToken, setCaptchaToken] = useState<string | null>(null);
  const captcha = useRef<CaptchaHandle>(null);

  async function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    if (busy) return;
    if (captchaShown && !captchaToken) {
      setError(es.msg.captchaRequired);
      return;
    }
    setBusy(true);
    setError(null);
    try {
      await login(realm, {
        username: username.trim(),
        password,
        remember,
        ...(captchaToken ? { captcha_token: captchaToken } : {}),
      });
      onSuccess();
    } catch (err) {
      if (onTotpRequired && err instanceof ApiError && err.code === 'totp_required') {
        onTotpRequired({ username: username.trim(), password, remember });
        return;
      }
      if (err instanceof ApiError && err.code && CAPTCHA_CODES.has(err.code)) setCaptchaShown(true);
      setError(errorMessage(err, es.login.error));
      setBusy(false);
      if (captchaToken) {
        setCaptchaToken(null);
        captcha.current?.reset();
      }
    }
  }

  return (
    // method="post": should the form ever be sent without JavaScript, the password stays out of the URL.
    <form method="post" onSubmit={submit} className="space-y-4">
      <FormError message={error} />
      <TextField
        label={es.auth.username}
        name="username"
        autoComplete="username"
        required
        autoFocus
        value={username}
        onChange={(e) => setUsername(e.target.value)}
        disabled={busy}
      />
      <PasswordField
        label={es.auth.password}
        name="password"
        autoComplete="current-password"
        required
        value={password}
        onChange={(e) => setPassword(e.target.value)}
        disabled={busy}
      />
      <label className="flex w-fit cursor-pointer items-center gap-2 text-sm text-slate-300">
        <input
          type="checkbox"
          name="remember"
          checked={remember}
          onChange={(e) => setRemember(e.target.checked)}
          disabled={busy}
          className="size-4 rounded border-slate-600 bg-navy-950 accent-emerald-500"
        />
        {es.auth.remember}
      </label>
      {captchaShown && (
        <div>
          <span className={ui.label}>{es.register.captchaLabel}</span>
          <Captcha ref={captcha} onToken={setCaptchaToken} query={captchaQuery(realm, username)} />
        </div>
      )}
      <button type="submit" className={`${ui.buttonPrimary} w-full`} disabled={busy}>
        {busy ? <Spinner className="size-4" /> : <LogIn className="size-4" aria-hidden="true" />}
        {busy ? es.auth.processing : es.login.submit}
      </button>
    </form>
  );
}
