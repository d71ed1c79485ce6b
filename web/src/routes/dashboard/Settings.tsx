import { useMutation, useQueryClient } from '@tanstack/react-query';
import { AtSign, KeyRound, Mail, Trash2, UserRound } from 'lucide-react';
import type { LucideIcon } from 'lucide-react';
import { lazy, Suspense, useState } from 'react';
import type { ReactNode } from 'react';
import toast from 'react-hot-toast';
import { applySettingsAnswer, deleteEmail, patchSettings } from '../../api/account';
import type { SettingsPatchBody } from '../../api/account';
import { errorMessage } from '../../api/http';
import type { CurrentUser } from '../../api/types';
import { ConfirmDialog } from '../../components/ConfirmDialog';
import { PasswordField, TextField } from '../../components/Field';
import { FormDialog } from '../../components/FormDialog';
import { ui } from '../../components/ui';
import { es } from '../../i18n/es';
import { useCurrentUser } from './DashboardLayout';
import { PageHeader } from './PageHeader';

const t = es.dashboard.settings;
/** Telegram's link and switches: a chunk of its own, fetched when Settings opens. */
const TelegramSettings = lazy(() => import('./TelegramSettings'));

type DialogName = 'alias' | 'email' | 'deleteEmail' | 'password';

/**
 * `/dashboard/settings` (spec "Settings"): the username, read-only; the alias (only where rooms are
 * allowed); the e-mail (only where e-mail is allowed), with its verified state, change and delete;
 * and the password. Each change has its own dialog that first applies the spec's validations with
 * its exact texts, then shows the server's message; a success closes the dialog with the server's
 * toast and the answer's user replaces the cached one.
 *
 * Decision: while a dialog is open its validation and server messages show in the dialog's red box
 * (next to the fields, announced as an alert) rather than in a toast as spec §8 says of server
 * messages in general: a toast shows in a corner, far from the form, and is gone after 4 s. The e-mail
 * deletion, whose confirmation closes at once, toasts its failures.
 */
export function AccountSettings() {
  const user = useCurrentUser();
  const [dialog, setDialog] = useState<DialogName | null>(null);
  const close = () => setDialog(null);
  const { allow_partys, allow_email } = user.web_settings;
  const queryClient = useQueryClient();
  // Lives here, not in the confirmation (which closes, and unmounts, as soon as it is confirmed).
  const removeEmail = useMutation({
    mutationFn: deleteEmail,
    onSuccess: (answer) => {
      applySettingsAnswer(queryClient, answer);
      toast.success(answer.message);
    },
    onError: (error) => void toast.error(errorMessage(error, es.common.requestError)),
  });

  return (
    <>
      <PageHeader title={t.title} subtitle={t.subtitle} />
      <ul className={`${ui.card} divide-y divide-slate-800`}>
        <SettingRow icon={UserRound} label={t.username} value={user.username} hint={t.usernameHint} />
        {allow_partys && (
          <SettingRow
            icon={AtSign}
            label={t.alias}
            value={user.alias ?? t.notSet}
            hint={t.aliasHint}
            actions={
              <button type="button" className={ui.buttonSecondary} onClick={() => setDialog('alias')}>
                {user.alias ? t.changeAlias : t.configureAlias}
              </button>
            }
          />
        )}
        {allow_email && (
          <SettingRow
            icon={Mail}
            label={t.email}
            value={user.email ?? t.notSet}
            badge={
              user.email ? (
                <span
                  className={`rounded-full px-2 py-0.5 text-xs font-medium ${
                    user.email_verified
                      ? 'bg-emerald-500/15 text-emerald-300'
                      : 'bg-amber-500/15 text-amber-300'
                  }`}
                >
                  {user.email_verified ? t.verified : t.notVerified}
                </span>
              ) : undefined
            }
            hint={
              !user.email
                ? t.emailHintNone
                : user.email_verified
                  ? t.emailHintVerified
                  : t.emailHintUnverified
            }
            actions={
              <>
                <button type="button" className={ui.buttonSecondary} onClick={() => setDialog('email')}>
                  {user.email ? t.changeEmail : t.addEmail}
                </button>
                {user.email && (
                  <button
                    type="button"
                    className={`${ui.buttonGhost} text-red-300 hover:text-red-200`}
                    disabled={removeEmail.isPending}
                    onClick={() => setDialog('deleteEmail')}
                  >
                    <Trash2 className="size-4" aria-hidden="true" />
                    {t.deleteEmail}
                  </button>
                )}
              </>
            }
          />
        )}
        <SettingRow
          icon={KeyRound}
          label={t.password}
          value="••••••••"
          hint={t.passwordHint}
          actions={
            <button type="button" className={ui.buttonSecondary} onClick={() => setDialog('password')}>
              {t.changePassword}
            </button>
          }
        />
      </ul>
      <Suspense fallback={null}>
        <TelegramSettings />
      </Suspense>

      {dialog === 'alias' && <AliasDialog user={user} onClose={close} />}
      {dialog === 'email' && <EmailDialog user={user} onClose={close} />}
      {dialog === 'deleteEmail' && user.email && (
        <ConfirmDialog
          open
          onOpenChange={(open) => !open && close()}
          title={t.deleteEmail}
          description={t.deleteEmailText(user.email)}
          confirmLabel={t.deleteEmailConfirm}
          onConfirm={() => removeEmail.mutate()}
        />
      )}
      {dialog === 'password' && <PasswordDialog onClose={close} />}
    </>
  );
}

function SettingRow({
  icon: Icon,
  label,
  value,
  badge,
  hint,
  actions,
}: {
  icon: LucideIcon;
  label: string;
  value: string;
  badge?: ReactNode;
  hint?: string;
  actions?: ReactNode;
}) {
  return (
    <li className="flex flex-col gap-4 px-6 py-5 sm:flex-row sm:items-center">
      <Icon className="hidden size-5 shrink-0 text-slate-400 sm:block" aria-hidden="true" />
      <div className="min-w-0 flex-1">
        <h2 className="text-sm font-medium text-slate-400">{label}</h2>
        <p className="mt-0.5 flex flex-wrap items-center gap-2 break-all text-slate-100">
          {value}
          {badge}
        </p>
        {hint && <p className="mt-1 text-xs text-slate-400">{hint}</p>}
      </div>
      {actions && <div className="flex flex-wrap items-center gap-2">{actions}</div>}
    </li>
  );
}

/**
 * One settings change: `PATCH /api/client/settings`, then the answer replaces the cached user (and
 * the tokens, for a password change) and its message is toasted.
 */
function useSettingsChange(onDone: () => void, onError: (message: string) => void) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (body: SettingsPatchBody) => patchSettings(body),
    onSuccess: (answer) => {
      applySettingsAnswer(queryClient, answer);
      toast.success(answer.message);
      onDone();
    },
    onError: (error) => onError(errorMessage(error, es.common.requestError)),
  });
}

interface DialogProps {
  onClose: () => void;
}

export function AliasDialog({ user, onClose }: DialogProps & { user: CurrentUser }) {
  const [alias, setAlias] = useState(user.alias ?? '');
  const [error, setError] = useState<string | null>(null);
  const change = useSettingsChange(onClose, setError);

  function submit() {
    const value = alias.trim();
    if (!value) return setError(es.msg.aliasBlank);
    setError(null);
    change.mutate({ alias: value });
  }

  return (
    <FormDialog
      onClose={onClose}
      title={user.alias ? t.changeAlias : t.configureAlias}
      description={t.aliasDialogText}
      submitLabel={t.save}
      onSubmit={submit}
      busy={change.isPending}
      error={error}
    >
      <TextField
        label={t.alias}
        name="alias"
        autoComplete="nickname"
        autoFocus
        maxLength={64}
        value={alias}
        onChange={(e) => setAlias(e.target.value)}
        disabled={change.isPending}
      />
    </FormDialog>
  );
}

function EmailDialog({ user, onClose }: DialogProps & { user: CurrentUser }) {
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const [error, setError] = useState<string | null>(null);
  const change = useSettingsChange(onClose, setError);

  function submit() {
    const value = email.trim();
    if (!value) return setError(es.msg.emailBlank);
    if (user.email && value.toLowerCase() === user.email.toLowerCase()) return setError(es.msg.emailSame);
    // The current password confirms the change (a stolen session must not redirect recovery mail).
    if (!password) return setError(es.msg.emailPasswordRequired);
    setError(null);
    change.mutate({ email: value, password });
  }

  return (
    <FormDialog
      onClose={onClose}
      title={user.email ? t.changeEmail : t.addEmail}
      description={t.emailDialogText}
      submitLabel={t.save}
      onSubmit={submit}
      busy={change.isPending}
      error={error}
    >
      <TextField
        label={t.newEmail}
        name="email"
        type="email"
        autoComplete="email"
        autoFocus
        placeholder={user.email ?? undefined}
        value={email}
        onChange={(e) => setEmail(e.target.value)}
        disabled={change.isPending}
      />
      <PasswordField
        label={t.currentPassword}
        name="current-password"
        autoComplete="current-password"
        value={password}
        onChange={(e) => setPassword(e.target.value)}
        disabled={change.isPending}
      />
    </FormDialog>
  );
}

function PasswordDialog({ onClose }: DialogProps) {
  const [current, setCurrent] = useState('');
  const [next, setNext] = useState('');
  const [confirmation, setConfirmation] = useState('');
  const [error, setError] = useState<string | null>(null);
  const change = useSettingsChange(onClose, setError);

  function submit() {
    // The spec's order: none blank, new equals its confirmation, new differs from the old one.
    if (!current || !next || !confirmation) return setError(es.msg.passwordsBlank);
    if (next !== confirmation) return setError(t.passwordsMismatch);
    if (next === current) return setError(es.msg.passwordSame);
    setError(null);
    change.mutate({ old_password: current, new_password: next });
  }

  const busy = change.isPending;
  return (
    <FormDialog
      onClose={onClose}
      title={t.changePassword}
      description={t.passwordDialogText}
      submitLabel={t.save}
      onSubmit={submit}
      busy={busy}
      error={error}
    >
      <PasswordField
        label={t.currentPassword}
        name="current-password"
        autoComplete="current-password"
        autoFocus
        value={current}
        onChange={(e) => setCurrent(e.target.value)}
        disabled={busy}
      />
      <PasswordField
        label={t.newPassword}
        name="new-password"
        autoComplete="new-password"
        value={next}
        onChange={(e) => setNext(e.target.value)}
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
    </FormDialog>
  );
}
