import * as Dialog from '@radix-ui/react-dialog';
import { X } from 'lucide-react';
import type { FormEvent, ReactNode } from 'react';
import { es } from '../i18n/es';
import { FormError } from './FormError';
import { Spinner } from './Spinner';
import { ui } from './ui';

interface FormDialogProps {
  /** Whether it shows (default: shown; most dialogs are mounted only while open). */
  open?: boolean;
  /** Escape, the × and 'Cancelar' close it (never while busy). */
  onClose: () => void;
  title: string;
  description?: ReactNode;
  /** The fields. */
  children: ReactNode;
  /** The submit button's text (and icon); while busy it reads 'Procesando...'. */
  submitLabel: ReactNode;
  onSubmit: () => void;
  /** While true the controls are disabled, the button reads 'Procesando...' and the dialog stays open. */
  busy: boolean;
  /** A validation or server message, shown in the red box above the fields. */
  error: string | null;
  /** The submit destroys or takes back (a refund): a red button. */
  danger?: boolean;
}

/**
 * A dialog holding one small form (Radix dialog: focus trapped, Escape and 'Cancelar' close it).
 * The form skips the browser's own validation (`noValidate`) so the spec's Spanish messages are the
 * ones the customer reads.
 */
export function FormDialog({
  open = true,
  onClose,
  title,
  description,
  children,
  submitLabel,
  onSubmit,
  busy,
  danger = false,
  error,
}: FormDialogProps) {
  function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    if (!busy) onSubmit();
  }
  return (
    <Dialog.Root open={open} onOpenChange={(next) => (next || busy ? undefined : onClose())}>
      <Dialog.Portal>
        <Dialog.Overlay className="fixed inset-0 z-40 bg-black/60 backdrop-blur-sm" />
        <Dialog.Content
          className="fixed top-1/2 left-1/2 z-50 flex max-h-[calc(100vh-2rem)] w-[calc(100vw-2rem)] max-w-md -translate-x-1/2 -translate-y-1/2 flex-col rounded-2xl border border-slate-700 bg-navy-900 shadow-2xl shadow-black/40"
          {...(description ? {} : { 'aria-describedby': undefined })}
        >
          <div className="flex items-start gap-4 border-b border-slate-800 p-6 pb-4">
            <div className="flex-1">
              <Dialog.Title className="text-lg font-semibold text-white">{title}</Dialog.Title>
              {description && (
                <Dialog.Description className="mt-1 text-sm text-slate-400">{description}</Dialog.Description>
              )}
            </div>
            <Dialog.Close
              className="rounded-lg p-1.5 text-slate-400 hover:bg-white/5 hover:text-white disabled:opacity-50"
              aria-label={es.common.close}
              disabled={busy}
            >
              <X className="size-5" aria-hidden="true" />
            </Dialog.Close>
          </div>
          <form noValidate onSubmit={submit} className="flex min-h-0 flex-1 flex-col">
            <div className="space-y-4 overflow-y-auto p-6">
              <FormError message={error} />
              {children}
            </div>
            <div className="flex flex-col-reverse gap-3 border-t border-slate-800 px-6 py-4 sm:flex-row sm:justify-end">
              <Dialog.Close type="button" className={ui.buttonSecondary} disabled={busy}>
                {es.common.cancel}
              </Dialog.Close>
              <button type="submit" className={danger ? ui.buttonDanger : ui.buttonPrimary} disabled={busy}>
                {busy && <Spinner className="size-4" />}
                {busy ? es.auth.processing : submitLabel}
              </button>
            </div>
          </form>
        </Dialog.Content>
      </Dialog.Portal>
    </Dialog.Root>
  );
}

/**
 * One radio of a small choice inside a form dialog (a plan's destination, a gateway, how a refund is
 * made), styled as a card. Group them in a `<fieldset>` with a `<legend>`. Kept in this module so the
 * dialogs that use it fetch no extra file for it.
 */
export function Choice({
  name,
  checked,
  disabled,
  onChange,
  children,
}: {
  name: string;
  checked: boolean;
  disabled: boolean;
  onChange: () => void;
  children: ReactNode;
}) {
  return (
    <label
      className={`flex cursor-pointer items-center gap-2 rounded-lg border px-3 py-2.5 text-sm font-medium ${
        checked ? 'border-emerald-400 bg-emerald-500/10 text-white' : 'border-slate-700 text-slate-300'
      } ${disabled ? 'cursor-not-allowed opacity-50' : ''}`}
    >
      <input
        type="radio"
        name={name}
        checked={checked}
        onChange={onChange}
        disabled={disabled}
        className="accent-emerald-500"
      />
      {children}
    </label>
  );
}
