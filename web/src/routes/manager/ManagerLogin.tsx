import { ShieldCheck } from 'lucide-react';
import { useState, type FormEvent } from 'react';
import { Navigate, useNavigate } from 'react-router';
import { ApiError, errorMessage } from '../../api/http';
import { hasSession, login } from '../../api/session';
import { AuthCard } from '../../components/AuthCard';
import { TextField } from '../../components/Field';
import { FormError } from '../../components/FormError';
import { Captcha } from '../../components/Captcha';
import { LoginForm, captchaQuery } from '../../components/LoginForm';
import { Spinner } from '../../components/Spinner';
import { ui } from '../../components/ui';
import { es } from '../../i18n/es';
import { esManagers } from '../../i18n/es.manager.managers';
import { useDocumentTitle } from '../../lib/title';

type Credentials = { username: string; password: string; remember: boolean };

/**
 * `/manager/login`: the customer login form, posting to /api/admin/login and keeping manager
 * tokens. A manager with two-factor sign-in then gives the 6-digit code of their app (or a
 * recovery code) in a second step; the password is kept in memory only for that step.
 */
export function ManagerLogin() {
  useDocumentTitle(es.titles.login);
  const navigate = useNavigate();
  const [pending, setPending] = useState<Credentials | null>(null);
  if (hasSession('manager')) return <Navigate to="/manager/dashboard" replace />;
  const done = () => navigate('/manager/dashboard', { replace: true });
  if (pending)
    return (
      <AuthCard title={esManagers.login.totpTitle} subtitle={es.manager.loginSubtitle}>
        <TotpStep credentials={pending} onSuccess={done} onBack={() => setPending(null)} />
      </AuthCard>
    );
  return (
    <AuthCard title={es.manager.loginTitle} subtitle={es.manager.loginSubtitle}>
      <LoginForm realm="manager" onSuccess={done} onTotpRequired={setPending} />
    </AuthCard>
  );
}

function TotpStep({
  credentials,
  onSuccess,
  onBack,
}: {
  credentials: Credentials;
  onSuccess: () => void;
  onBack: () => void;
}) {
  const t = esManagers.login;
  const [recovery, setRecovery] = useState(false);
  const [code, setCode] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  // Past the username's failure limit every try needs a solved captcha, the code's step too.
  const [captchaShown, setCaptchaShown] = useState(false);
  const [captchaToken, setCaptchaToken] = useState<string | null>(null);
  const [captchaKey, setCaptchaKey] = useState(0);

  async function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    if (busy || !code.trim()) return;
    if (captchaShown && !captchaToken) {
      setError(es.msg.captchaRequired);
      return;
    }
    setBusy(true);
    setError(null);
    try {
      await login('manager', {
        ...credentials,
        totp: code.trim(),
        ...(captchaToken ? { captcha_token: captchaToken } : {}),
      });
      onSuccess();
    } catch (err) {
      if (err instanceof ApiError && err.code === 'captcha_required') setCaptchaShown(true);
      setError(errorMessage(err, es.login.error));
      setCode('');
      setBusy(false);
      if (captchaToken) {
        setCaptchaToken(null);
        setCaptchaKey((k) => k + 1);
      }
    }
  }

  return (
    <form onSubmit={submit} className="space-y-4">
      <p className="text-sm text-slate-300">{recovery ? t.recoveryIntro : t.totpIntro}</p>
      <FormError message={error} />
      <TextField
        key={recovery ? 'recovery' : 'totp'}
        label={recovery ? t.recoveryCode : t.code}
        name="totp"
        autoComplete="one-time-code"
        inputMode={recovery ? 'text' : 'numeric'}
        maxLength={recovery ? 20 : 6}
        required
        autoFocus
        value={code}
        onChange={(e) => setCode(e.target.value)}
        disabled={busy}
      />
      {captchaShown && (
        <div>
          <span className={ui.label}>{es.register.captchaLabel}</span>
          <Captcha
            key={captchaKey}
            onToken={setCaptchaToken}
            query={captchaQuery('manager', credentials.username)}
          />
        </div>
      )}
      <button type="submit" className={`${ui.buttonPrimary} w-full`} disabled={busy}>
        {busy ? <Spinner className="size-4" /> : <ShieldCheck className="size-4" aria-hidden="true" />}
        {busy ? es.auth.processing : t.verify}
      </button>
      <div className="flex justify-between text-sm">
        <button type="button" className={ui.link} onClick={onBack} disabled={busy}>
          {t.back}
        </button>
        <button
          type="button"
          className={ui.link}
          disabled={busy}
          onClick={() => {
            setRecovery((r) => !r);
            setCode('');
            setError(null);
          }}
        >
          {recovery ? t.useApp : t.useRecovery}
        </button>
      </div>
    </form>
  );
}
