import { LogIn } from 'lucide-react';
import { useState } from 'react';
import type { FormEvent } from 'react';
import { errorMessage } from '../api/http';
import { login } from '../api/session';
import type { Realm } from '../api/session';
import { es } from '../i18n/es';
import { PasswordField, TextField } from './Field';
import { FormError } from './FormError';
import { Spinner } from './Spinner';
import { ui } from './ui';

interface LoginFormProps {
  realm: Realm;
  /** Called after the tokens are stored. */
  onSuccess: () => void;
}

/**
 * Username, password (show/hide), 'Recordarme'. While the call runs every control is disabled and
 * the button reads 'Procesando...'; a failure shows the server's message (or the spec's fallback)
 * in a red box. Shared by the customer and the manager login.
 */
export function LoginForm({ realm, onSuccess }: LoginFormProps) {
  const [username, setUsername] = useState('');
  const [password, setPassword] = useState('');
  const [remember, setRemember] = useState(false);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);

  async function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    if (busy) return;
    setBusy(true);
    setError(null);
    try {
      await login(realm, { username: username.trim(), password, remember });
      onSuccess();
    } catch (err) {
      setError(errorMessage(err, es.login.error));
      setBusy(false);
    }
  }

  return (
    <form onSubmit={submit} className="space-y-4">
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
      <button type="submit" className={`${ui.buttonPrimary} w-full`} disabled={busy}>
        {busy ? <Spinner className="size-4" /> : <LogIn className="size-4" aria-hidden="true" />}
        {busy ? es.auth.processing : es.login.submit}
      </button>
    </form>
  );
}
