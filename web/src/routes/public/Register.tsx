import { ArrowLeft, ArrowRight, Check, CircleCheckBig, UserPlus } from 'lucide-react';
import { useRef, useState } from 'react';
import type { FormEvent } from 'react';
import { Link, useNavigate } from 'react-router';
import { PASSWORD_MIN, USERNAME_RE } from '@vpn/contracts/limits';
import { ApiError, errorMessage, publicRequest } from '../../api/http';
import { storeTokens } from '../../api/session';
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
  /** The new account's session (the server's answer): "Entrar a mi panel" uses it. */
  tokens: { access: string; refresh: string } | null;
}

/** The server's rules for a new account, shown as the customer types (each ticked when met). */
function Rules({ id, rules }: { id: string; rules: { text: string; met: boolean }[] }) {
  return (
    <ul id={id} className="-mt-1.5 space-y-0.5 text-xs" aria-live="polite">
      {rules.map(({ text, met }) => (
        <li key={text} className={`flex items-center gap-1.5 ${met ? 'text-emerald-300' : 'text-slate-400'}`}>
          {met ? (
            <Check className="size-3.5 shrink-0" aria-hidden="true" />
          ) : (
            // A ring drawn by CSS, not an icon: the page carries three of them (issue 32: bytes).
            <span className="mx-px size-3 shrink-0 rounded-full border border-current" aria-hidden="true" />
          )}
          {text}
          <span className="sr-only">{met ? es.register.ruleMet : es.register.ruleUnmet}</span>
        </li>
      ))}
    </ul>
  );
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
  const navigate = useNavigate();
  const rulesId = {
    username: 'register-rules-username',
    password: 'register-rules-password',
    confirm: 'register-rules-confirm',
  };

  /** Every attempt sent spends the captcha (the server accepts a solution once): start a new one. */
  function resetCaptcha() {
    setCaptchaToken(null);
    captcha.current?.reset();
  }

  async function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    if (busy) return;
    // Checked here, the captcha is not spent: only an attempt the server sees uses it up.
    const invalid = validateRegistration({ captchaToken, username, password, confirm });
    if (invalid) {
      setError(invalid);
      return;
    }
    const trimmedEmail = email.trim();
    const body: RegisterBody = { username: username.trim(), password, captcha_token: captchaToken ?? '' };
    if (settings.allow_email && trimmedEmail) body.email = trimmedEmail;

    setBusy(true);
    setError(null);
    try {
      const { RegisterAnswer } = await import('@vpn/contracts');
      const answer = await publicRequest(
        '/api/client/register',
        { method: 'PUT', body },
        RegisterAnswer.partial({ access: true, refresh: true }),
      );
      setDone({
        message: answer.message,
        email: body.email ?? null,
        tokens: answer.access && answer.refresh ? { access: answer.access, refresh: answer.refresh } : null,
      });
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
          {done.tokens && (
            <button
              type="button"
              className={`${ui.buttonPrimary} mt-2 w-full`}
              onClick={() => {
                // As a login without "Recordarme": this tab's session (api/session.ts).
                if (done.tokens) storeTokens('client', done.tokens, false);
                void navigate('/dashboard/home', { replace: true });
              }}
            >
              {es.register.enterDashboard}
              <ArrowRight className="size-4" aria-hidden="true" />
            </button>
          )}
          <Link to="/login" className={done.tokens ? ui.link : `${ui.buttonPrimary} mt-2 w-full`}>
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
          aria-describedby={rulesId.username}
        />
        <Rules
          id={rulesId.username}
          rules={[{ text: es.register.rules.username, met: USERNAME_RE.test(username.trim()) }]}
        />
        <PasswordField
          label={es.auth.password}
          name="password"
          autoComplete="new-password"
          value={password}
          onChange={(e) => setPassword(e.target.value)}
          disabled={busy}
          aria-describedby={rulesId.password}
        />
        <Rules
          id={rulesId.password}
          rules={[{ text: es.register.rules.length(PASSWORD_MIN), met: password.length >= PASSWORD_MIN }]}
        />
        <PasswordField
          label={es.auth.confirmPassword}
          name="confirm"
          autoComplete="new-password"
          value={confirm}
          onChange={(e) => setConfirm(e.target.value)}
          disabled={busy}
          aria-describedby={rulesId.confirm}
        />
        <Rules
          id={rulesId.confirm}
          rules={[{ text: es.register.rules.match, met: confirm !== '' && confirm === password }]}
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
          <Captcha ref={captcha} onToken={setCaptchaToken} auto />
        </fieldset>
        <button type="submit" className={`${ui.buttonPrimary} w-full`} disabled={busy}>
          {busy ? <Spinner className="size-4" /> : <UserPlus className="size-4" aria-hidden="true" />}
          {busy ? es.auth.processing : es.register.submit}
        </button>
      </form>
    </AuthCard>
  );
}
