import { ArrowLeft, MailCheck } from 'lucide-react';
import { useRef, useState } from 'react';
import type { FormEvent } from 'react';
import { Link } from 'react-router';
import { requestPasswordRecovery } from '../../api/account';
import { ApiError, errorMessage } from '../../api/http';
import { AuthCard } from '../../components/AuthCard';
import { Captcha, type CaptchaHandle } from '../../components/Captcha';
import { TextField } from '../../components/Field';
import { FormError } from '../../components/FormError';
import { Spinner } from '../../components/Spinner';
import { ui } from '../../components/ui';
import { es } from '../../i18n/es';
import { useDocumentTitle } from '../../lib/title';
import { usePublicSettings } from './PublicLayout';

/**
 * `/password-recovery` (spec "Password recovery", made real): a username field only; submitting
 * sends `POST /api/client/password-recovery`, whose answer is the same sentence whether or not the
 * account exists or has a verified e-mail (no account enumeration), shown under 'Email enviado'
 * with a link to try again. Refusals (recovery switched off, too many attempts) show in the red box.
 * Past the per-username limit the server asks for a captcha (`captcha_required`): it is shown, and
 * the request goes again with it.
 */
export function PasswordRecovery() {
  useDocumentTitle(es.titles.recovery);
  const settings = usePublicSettings();
  const [username, setUsername] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [sent, setSent] = useState<string | null>(null);
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
      setSent(
        (await requestPasswordRecovery(username.trim(), captchaToken ?? undefined)) || es.recovery.sentText,
      );
    } catch (err) {
      if (err instanceof ApiError && err.code === 'captcha_required') setCaptchaShown(true);
      setError(errorMessage(err, es.common.requestError));
      if (captchaToken) {
        setCaptchaToken(null);
        captcha.current?.reset();
      }
    } finally {
      setBusy(false);
    }
  }

  const footer = (
    <p>
      <Link to="/login" className="inline-flex items-center gap-1 hover:text-white">
        <ArrowLeft className="size-4" aria-hidden="true" />
        {es.recovery.backToLogin}
      </Link>
    </p>
  );
  const brandTo = settings.show_landing ? '/' : undefined;

  if (sent) {
    return (
      <AuthCard title={es.recovery.sentTitle} brandTo={brandTo} footer={footer}>
        <div className="flex flex-col items-center gap-4 text-center">
          <MailCheck className="size-14 text-emerald-400" aria-hidden="true" />
          <p className="text-slate-200" role="status">
            {sent}
          </p>
          <p className="text-sm text-slate-400">{es.recovery.sentHint}</p>
          <a
            href="/password-recovery"
            className={ui.link}
            onClick={(e) => {
              // Back to the form in place (the page is already at this address).
              e.preventDefault();
              setSent(null);
              setUsername('');
            }}
          >
            {es.recovery.tryAgain}
          </a>
        </div>
      </AuthCard>
    );
  }

  return (
    <AuthCard title={es.recovery.title} subtitle={es.recovery.subtitle} brandTo={brandTo} footer={footer}>
      <form onSubmit={(e) => void submit(e)} className="space-y-4">
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
        {captchaShown && (
          <div>
            <span className={ui.label}>{es.register.captchaLabel}</span>
            <Captcha ref={captcha} onToken={setCaptchaToken} />
          </div>
        )}
        <button type="submit" className={`${ui.buttonPrimary} w-full`} disabled={busy}>
          {busy && <Spinner className="size-4" />}
          {busy ? es.auth.processing : es.recovery.submit}
        </button>
      </form>
    </AuthCard>
  );
}
