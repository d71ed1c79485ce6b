import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { ShieldCheck, ShieldOff } from 'lucide-react';
import { useState, type FormEvent } from 'react';
import toast from 'react-hot-toast';
import { confirmTotp, disableTotp, managerKeys, startTotp, totpStatusQuery } from '../../api/adminManagers';
import { errorMessage } from '../../api/http';
import { CopyButton } from '../../components/CopyButton';
import { PasswordField, TextField } from '../../components/Field';
import { FormDialog } from '../../components/FormDialog';
import { FormError } from '../../components/FormError';
import { QrCode } from '../../components/QrCode';
import { Spinner } from '../../components/Spinner';
import { ui } from '../../components/ui';
import { esManager } from '../../i18n/es.manager';
import { esManagers } from '../../i18n/es.manager.managers';
import { ManagerPageHeader, QueryView } from './shared';
import { SecurityTelegram } from './TelegramPanels';

const t = esManagers.security;

/**
 * `/manager/dashboard/security` (every role): the signed-in manager's two-factor sign-in. Enrol
 * with the QR code (or the key / `otpauth://` link), confirm with a first code, then see the
 * recovery codes once; or switch it off with a code or the password.
 */
export function ManagerSecurity() {
  const status = useQuery(totpStatusQuery());
  const queryClient = useQueryClient();
  const [enrolment, setEnrolment] = useState<{ secret: string; uri: string } | null>(null);
  const [recovery, setRecovery] = useState<string[] | null>(null);
  const [disabling, setDisabling] = useState(false);
  const refresh = () => queryClient.invalidateQueries({ queryKey: managerKeys.totp });

  const start = useMutation({
    mutationFn: startTotp,
    onSuccess: setEnrolment,
    onError: (e) => toast.error(errorMessage(e, esManager.requestError)),
  });

  return (
    <section>
      <ManagerPageHeader title={t.title} subtitle={t.subtitle} />
      <div className={`${ui.card} max-w-2xl p-6`}>
        <h2 className="flex items-center gap-2 text-lg font-semibold text-white">
          <ShieldCheck className="size-5 text-emerald-300" aria-hidden="true" />
          {t.sectionTitle}
        </h2>
        <QueryView query={status}>
          {(s) =>
            recovery ? (
              <RecoveryCodesPanel
                codes={recovery}
                onDone={() => {
                  setRecovery(null);
                  void refresh();
                }}
              />
            ) : enrolment ? (
              <Enrol
                enrolment={enrolment}
                onCancel={() => setEnrolment(null)}
                onEnabled={(codes) => {
                  setEnrolment(null);
                  setRecovery(codes);
                  toast.success(t.enabledToast);
                }}
              />
            ) : (
              <div className="mt-4 space-y-4">
                <p className="text-slate-300">{s.enabled ? t.on(s.recovery_codes_left) : t.off}</p>
                {s.enabled ? (
                  <button type="button" className={ui.buttonSecondary} onClick={() => setDisabling(true)}>
                    <ShieldOff className="size-4" aria-hidden="true" />
                    {t.disable}
                  </button>
                ) : (
                  <button
                    type="button"
                    className={ui.buttonPrimary}
                    disabled={start.isPending}
                    onClick={() => start.mutate()}
                  >
                    {start.isPending && <Spinner className="size-4" />}
                    {t.enable}
                  </button>
                )}
              </div>
            )
          }
        </QueryView>
      </div>
      <SecurityTelegram totpEnabled={status.data?.enabled ?? false} />
      {disabling && (
        <DisableDialog
          onClose={() => setDisabling(false)}
          onDisabled={() => {
            setDisabling(false);
            toast.success(t.disabledToast);
            void refresh();
          }}
        />
      )}
    </section>
  );
}

function Enrol({
  enrolment,
  onCancel,
  onEnabled,
}: {
  enrolment: { secret: string; uri: string };
  onCancel: () => void;
  onEnabled: (codes: string[]) => void;
}) {
  const [code, setCode] = useState('');
  const [error, setError] = useState<string | null>(null);
  const confirm = useMutation({
    mutationFn: () => confirmTotp(code.trim()),
    onSuccess: (r) => onEnabled(r.recovery_codes),
    onError: (e) => setError(errorMessage(e, esManager.requestError)),
  });
  function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    if (!/^\d{6}$/.test(code.trim())) return setError(t.codeRequired);
    setError(null);
    confirm.mutate();
  }
  // The key in groups of four, as authenticator apps show it.
  const grouped = enrolment.secret.replace(/(.{4})/g, '$1 ').trim();
  return (
    <form onSubmit={submit} noValidate className="mt-4 space-y-4">
      <p className="text-sm text-slate-300">{t.scan}</p>
      <div className="flex flex-col gap-4 sm:flex-row sm:items-start">
        <QrCode text={enrolment.uri} label={t.qrLabel} className="size-48 shrink-0 rounded-lg" />
        <dl className="min-w-0 space-y-3 text-sm">
          <div>
            <dt className="text-slate-400">{t.secretLabel}</dt>
            <dd className="font-mono break-all text-white" aria-label={t.secretLabel}>
              {grouped}
            </dd>
          </div>
          <div>
            <dt className="text-slate-400">{t.uriLabel}</dt>
            <dd className="font-mono text-xs break-all text-slate-300" aria-label={t.uriLabel}>
              {enrolment.uri}
            </dd>
          </div>
        </dl>
      </div>
      <FormError message={error} />
      <TextField
        label={t.code}
        name="code"
        inputMode="numeric"
        autoComplete="one-time-code"
        maxLength={6}
        value={code}
        onChange={(e) => setCode(e.target.value)}
        disabled={confirm.isPending}
      />
      <div className="flex flex-col-reverse gap-3 sm:flex-row">
        <button type="button" className={ui.buttonSecondary} onClick={onCancel} disabled={confirm.isPending}>
          {t.cancel}
        </button>
        <button type="submit" className={ui.buttonPrimary} disabled={confirm.isPending}>
          {confirm.isPending && <Spinner className="size-4" />}
          {t.confirm}
        </button>
      </div>
    </form>
  );
}

function RecoveryCodesPanel({ codes, onDone }: { codes: string[]; onDone: () => void }) {
  return (
    <div className="mt-4 space-y-4">
      <h3 className="font-semibold text-white">{t.recoveryTitle}</h3>
      <p className="text-sm text-amber-200">{t.recoveryIntro}</p>
      <ul
        aria-label={t.recoveryListLabel}
        className="grid grid-cols-2 gap-2 rounded-lg bg-navy-950/60 p-4 font-mono text-sm text-white"
      >
        {codes.map((c) => (
          <li key={c}>{c}</li>
        ))}
      </ul>
      <div className="flex flex-wrap gap-3">
        <CopyButton
          text={codes.join('\n')}
          label={t.copy}
          copiedLabel={t.copied}
          ariaLabel={t.copyAria}
          ariaCopiedLabel={t.copiedAria}
          successToast={t.copiedToast}
          errorToast={t.copyError}
        />
        <button type="button" className={ui.buttonPrimary} onClick={onDone}>
          {t.done}
        </button>
      </div>
    </div>
  );
}

function DisableDialog({ onClose, onDisabled }: { onClose: () => void; onDisabled: () => void }) {
  const [code, setCode] = useState('');
  const [password, setPassword] = useState('');
  const [error, setError] = useState<string | null>(null);
  const disable = useMutation({
    mutationFn: () => disableTotp(code.trim() ? { code: code.trim() } : { password }),
    onSuccess: onDisabled,
    onError: (e) => setError(errorMessage(e, esManager.requestError)),
  });
  return (
    <FormDialog
      onClose={onClose}
      title={t.disableTitle}
      description={t.disableDescription}
      submitLabel={t.disableSubmit}
      busy={disable.isPending}
      error={error}
      onSubmit={() => {
        if (!code.trim() && !password) return setError(t.disableRequired);
        setError(null);
        disable.mutate();
      }}
    >
      <TextField
        label={t.disableCode}
        name="code"
        autoComplete="one-time-code"
        value={code}
        onChange={(e) => setCode(e.target.value)}
        disabled={disable.isPending}
      />
      <PasswordField
        label={t.disablePassword}
        name="password"
        autoComplete="current-password"
        value={password}
        onChange={(e) => setPassword(e.target.value)}
        disabled={disable.isPending}
      />
    </FormDialog>
  );
}
