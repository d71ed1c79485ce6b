/**
 * The manager console's confirmation of sensitive operations (issue 17, M3): when the server answers
 * 403 `reauth_required` (any change of who can sign in — creating, editing, disabling or deleting a
 * manager, resetting a two-factor — one's own two-factor, gateway credentials),
 * api/session.ts asks this dialog for the password and, with two-factor on, a code; it sends them to
 * `POST /api/admin/me/reauth` and the refused call goes again with the confirmation. Cancelling
 * leaves the call refused, with the server's message.
 */
import { ShieldCheck } from 'lucide-react';
import { useEffect, useRef, useState } from 'react';
import { confirmReauth } from '../api/adminManagers';
import { errorMessage } from '../api/http';
import { rememberReauth, setReauthPrompt } from '../api/session';
import { es } from '../i18n/es';
import { esManagers } from '../i18n/es.manager.managers';
import { PasswordField, TextField } from './Field';
import { FormDialog } from './FormDialog';

export function ReauthDialog() {
  const t = esManagers.reauth;
  const answer = useRef<((token: string | null) => void) | null>(null);
  const [open, setOpen] = useState(false);
  const [password, setPassword] = useState('');
  const [code, setCode] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);

  useEffect(
    () =>
      setReauthPrompt(
        () =>
          new Promise<string | null>((resolve) => {
            answer.current?.(null);
            answer.current = resolve;
            setPassword('');
            setCode('');
            setError(null);
            setOpen(true);
          }),
      ),
    [],
  );

  const finish = (token: string | null) => {
    answer.current?.(token);
    answer.current = null;
    setOpen(false);
  };

  async function submit() {
    if (!password) return setError(t.passwordRequired);
    setBusy(true);
    setError(null);
    try {
      const proof = await confirmReauth({ password, ...(code.trim() ? { code: code.trim() } : {}) });
      rememberReauth(proof.token, proof.expires_in);
      finish(proof.token);
    } catch (err) {
      setError(errorMessage(err, es.common.requestError));
    } finally {
      setBusy(false);
    }
  }

  return (
    <FormDialog
      open={open}
      onClose={() => finish(null)}
      title={t.title}
      description={t.description}
      submitLabel={
        <>
          <ShieldCheck className="size-4" aria-hidden="true" />
          {t.submit}
        </>
      }
      onSubmit={() => void submit()}
      busy={busy}
      error={error}
    >
      <PasswordField
        label={t.password}
        name="password"
        autoComplete="current-password"
        required
        autoFocus
        value={password}
        onChange={(e) => setPassword(e.target.value)}
        disabled={busy}
      />
      <TextField
        label={t.code}
        name="code"
        autoComplete="one-time-code"
        inputMode="numeric"
        maxLength={20}
        value={code}
        onChange={(e) => setCode(e.target.value)}
        disabled={busy}
      />
    </FormDialog>
  );
}
