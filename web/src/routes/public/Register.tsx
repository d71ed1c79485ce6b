import { ArrowLeft, CircleCheckBig, UserPlus } from 'lucide-react';
import { useRef, useState } from 'react';
import type { FormEvent } from 'react';
import { Link } from 'react-router';
import { ApiError, errorMessage, publicRequest } from '../../api/http';
import type { RegisterBody } from '../../api/types';
import { AuthCard } from '../../components/AuthCard';
import { Captcha } from '../../components/Captcha';
import type { CaptchaHandle } from '../../components/Captcha';
import { PasswordField, TextField } from '../../components/Field';
import { FormError } from '../../components/FormError';
import { Spinner } from '../../components/Spinner';
import { ui } from '../../components/ui';
import { es } from '../../i18n/es';
import { useDocumentTitle } from '../../lib/title';
import { usePublicSettings } from './PublicLayout';

/**
 * The client-side checks, in the spec's order: captcha, then username and password, then the
 * confirmation. Returns the message to show, or null when the form may be sent.
 */
export function validateRegistration(input: {
  captchaToken: string | null;
  username: string;
  password: string;
  confirm: string;
}): string | null {
  if (!input.captchaToken) return es.msg.captchaRequired;
  if (!input.username.trim() || !input.password) return es.msg.credentialsRequired;
  if (input.password !== input.confirm) return es.msg.passwordsMismatch;
  return null;
}

interface Done {
  message: string | null;
  email: string | null;
}

/** `/register`. Errors (client checks and server answers) show in the form's red box. */
export function Register() {
  useDocumentTitle(es.titles.register);
  const settings = usePublicSettings();
  const captcha = useRef<CaptchaHandle>(null);
  const [username, setUsername] = useState('');
  const [password, setPassword] = useState('');
  const [confirm, setConfirm] = useState('');
  const [email, setEmail] = useState('');
  const [captchaToken, setCaptchaToken] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [done, setDone] = useState<Done | null>(null);

  /** Every attempt spends the captcha (the server accepts a solution once): start a new one. */
  function resetCaptcha() {
    setCaptchaToken(null);
    captcha.current?.reset();
  }

  async function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    if (busy) return;
    const invalid = validateRegistration({ captchaToken, username, password, confirm });
    if (invalid) {
      setError(invalid);
      resetCaptcha();
      return;
    }
    const trimmedEmail = email.trim();
    const body: RegisterBody = { username: username.trim(), password, captcha_token: captchaToken ?? '' };
    if (settings.allow_email && trimmedEmail) body.email = trimmedEmail;

    setBusy(true);
    setError(null);
    try {
      const { MessageBody } = await import('@vpn/contracts');
      const answer = await publicRequest('/api/client/register', { method: 'PUT', body }, MessageBody);
      setDone({ message: answer.message, email: body.email ?? null });
    } catch (err) {
      const fallback =
        err instanceof ApiError && err.status === 0 ? es.register.errorNetwork : es.register.error;
      setError(errorMessage(err, fallback));
    } finally {
      setBusy(false);
      resetCaptcha();
    }
  }

  if (done) {
    return (
      <AuthCard title={es.register.successTitle} brandTo={settings.show_landing ? '/' : undefined}>
        <div className="flex flex-col items-center gap-4 text-center">
          <CircleCheckBig className="size-14 text-emerald-400" aria-hidden="true" />
          <p className="text-slate-200">{es.register.successText}</p>
          {done.email && <p className="text-slate-300">{es.register.successEmail(done.email)}</p>}
          <Link to="/login" className={`${ui.buttonPrimary} mt-2 w-full`}>
            {es.register.goToLogin}
          </Link>
        </div>
      </AuthCard>
    );
  }

  return (
    <AuthCard
      title={es.register.title}
      subtitle={es.register.subtitle}
      brandTo={settings.show_landing ? '/' : undefined}
      footer={
        <p>
          <Link to="/login" className="inline-flex items-center gap-1 hover:text-white">
            <ArrowLeft className="size-4" aria-hidden="true" />
            {es.register.backToLogin}
          </Link>
        </p>
      }
    >
      {/* noValidate: the spec's own messages, in its order, replace the browser's bubbles. */}
      <form method="post" onSubmit={submit} className="space-y-4" noValidate>
        <FormError message={error} />
        <TextField
          label={es.auth.username}
          name="username"
          autoComplete="username"
          value={username}
          onChange={(e) => setUsername(e.target.value)}
          disabled={busy}
        />
        <PasswordField
          label={es.auth.password}
          name="password"
          autoComplete="new-password"
          value={password}
          onChange={(e) => setPassword(e.target.value)}
          disabled={busy}
        />
        <PasswordField
          label={es.auth.confirmPassword}
          name="confirm"
          autoComplete="new-password"
          value={confirm}
          onChange={(e) => setConfirm(e.target.value)}
          disabled={busy}
        />
        {settings.allow_email && (
          <TextField
            label={es.auth.emailOptional}
            name="email"
            type="email"
            autoComplete="email"
            hint={es.auth.emailHint}
            value={email}
            onChange={(e) => setEmail(e.target.value)}
            disabled={busy}
          />
        )}
        <fieldset>
          <legend className={ui.label}>{es.register.captchaLabel}</legend>
          <Captcha ref={captcha} onToken={setCaptchaToken} />
        </fieldset>
        <button type="submit" className={`${ui.buttonPrimary} w-full`} disabled={busy}>
          {busy ? <Spinner className="size-4" /> : <UserPlus className="size-4" aria-hidden="true" />}
          {busy ? es.auth.processing : es.register.submit}
        </button>
      </form>
    </AuthCard>
  );
}
