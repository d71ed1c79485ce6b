import { ArrowLeft, MailCheck } from 'lucide-react';
import { useState } from 'react';
import type { FormEvent } from 'react';
import { Link } from 'react-router';
import { AuthCard } from '../../components/AuthCard';
import { TextField } from '../../components/Field';
import { ui } from '../../components/ui';
import { es } from '../../i18n/es';
import { useDocumentTitle } from '../../lib/title';
import { usePublicSettings } from './PublicLayout';

/**
 * `/password-recovery`. For now (spec) submitting sends nothing: it only logs locally and shows the
 * 'Email enviado' confirmation; a later issue connects it to the server.
 */
export function PasswordRecovery() {
  useDocumentTitle(es.titles.recovery);
  const settings = usePublicSettings();
  const [username, setUsername] = useState('');
  const [sent, setSent] = useState(false);

  function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    console.info('Recuperación de contraseña solicitada para', username.trim());
    setSent(true);
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
          <p className="text-slate-200">{es.recovery.sentText}</p>
          <button
            type="button"
            className={ui.buttonSecondary}
            onClick={() => {
              setSent(false);
              setUsername('');
            }}
          >
            {es.recovery.tryAgain}
          </button>
        </div>
      </AuthCard>
    );
  }

  return (
    <AuthCard title={es.recovery.title} subtitle={es.recovery.subtitle} brandTo={brandTo} footer={footer}>
      <form onSubmit={submit} className="space-y-4">
        <TextField
          label={es.auth.username}
          name="username"
          autoComplete="username"
          required
          autoFocus
          value={username}
          onChange={(e) => setUsername(e.target.value)}
        />
        <button type="submit" className={`${ui.buttonPrimary} w-full`}>
          {es.recovery.submit}
        </button>
      </form>
    </AuthCard>
  );
}
