import { ArrowLeft, CircleCheck, LinkIcon } from 'lucide-react';
import { useState } from 'react';
import type { FormEvent } from 'react';
import { Link } from 'react-router';
import { resetPassword } from '../../api/account';
import { errorMessage } from '../../api/http';
import { AuthCard } from '../../components/AuthCard';
import { PasswordField } from '../../components/Field';
import { FormError } from '../../components/FormError';
import { Spinner } from '../../components/Spinner';
import { ui } from '../../components/ui';
import { es } from '../../i18n/es';
import { useDocumentTitle } from '../../lib/title';
import { usePublicSettings } from './PublicLayout';
import { useFragmentToken } from './useFragmentToken';

const t = es.resetPassword;

/**
 * `/reset-password#token=…`, reached from the recovery mail: a new password and its confirmation,
 * sent with the link's one-time token to `POST /api/client/reset-password`. The token is read from
 * the fragment and removed from the address bar at once. Without a token the page says the link is
 * not valid and offers a new one.
 */
export function ResetPassword() {
  useDocumentTitle(es.titles.resetPassword);
  const settings = usePublicSettings();
  const token = useFragmentToken();
  const [password, setPassword] = useState('');
  const [confirmation, setConfirmation] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [done, setDone] = useState<string | null>(null);

  async function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    if (busy || !token) return;
    if (!password || !confirmation) return setError(es.msg.passwordsBlank);
    if (password !== confirmation) return setError(t.passwordsMismatch);
    setBusy(true);
    setError(null);
    try {
      setDone((await resetPassword(token, password)) || es.msg.resetDone);
    } catch (err) {
      setError(errorMessage(err, es.common.requestError));
    } finally {
      setBusy(false);
    }
  }

  const brandTo = settings.show_landing ? '/' : undefined;
  const footer = (
    <p>
      <Link to="/login" className="inline-flex items-center gap-1 hover:text-white">
        <ArrowLeft className="size-4" aria-hidden="true" />
        {t.backToLogin}
      </Link>
    </p>
  );

  if (done) {
    return (
      <AuthCard title={t.doneTitle} brandTo={brandTo}>
        <div className="flex flex-col items-center gap-4 text-center">
          <CircleCheck className="size-14 text-emerald-400" aria-hidden="true" />
          <p className="text-slate-200" role="status">
            {done}
          </p>
          <Link to="/login" className={ui.buttonPrimary}>
            {t.goToLogin}
          </Link>
        </div>
      </AuthCard>
    );
  }

  if (!token) {
    return (
      <AuthCard title={t.invalidTitle} brandTo={brandTo} footer={footer}>
        <div className="flex flex-col items-center gap-4 text-center">
          <LinkIcon className="size-12 text-red-400" aria-hidden="true" />
          <p className="text-slate-200">{es.msg.resetInvalid}</p>
          {settings.allow_password_recovery && (
            <Link to="/password-recovery" className={ui.buttonSecondary}>
              {t.requestNew}
            </Link>
          )}
        </div>
      </AuthCard>
    );
  }

  return (
    <AuthCard title={t.title} subtitle={t.subtitle} brandTo={brandTo} footer={footer}>
      <form noValidate onSubmit={(e) => void submit(e)} className="space-y-4">
        <FormError message={error} />
        {/* Lets password managers file the new password under the right account. */}
        <input type="text" name="username" autoComplete="username" hidden readOnly value="" />
        <PasswordField
          label={t.newPassword}
          name="new-password"
          autoComplete="new-password"
          autoFocus
          value={password}
          onChange={(e) => setPassword(e.target.value)}
          disabled={busy}
        />
        <PasswordField
          label={t.confirmPassword}
          name="confirm-password"
          autoComplete="new-password"
          value={confirmation}
          onChange={(e) => setConfirmation(e.target.value)}
          disabled={busy}
        />
        <button type="submit" className={`${ui.buttonPrimary} w-full`} disabled={busy}>
          {busy && <Spinner className="size-4" />}
          {busy ? es.auth.processing : t.submit}
        </button>
        {error === es.msg.resetInvalid && settings.allow_password_recovery && (
          <p className="text-center text-sm">
            <Link to="/password-recovery" className={ui.link}>
              {t.requestNew}
            </Link>
          </p>
        )}
      </form>
    </AuthCard>
  );
}
