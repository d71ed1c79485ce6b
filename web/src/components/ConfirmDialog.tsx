import * as AlertDialog from '@radix-ui/react-alert-dialog';
import type { ReactNode } from 'react';
import { es } from '../i18n/es';
import { ui } from './ui';

interface ConfirmDialogProps {
  open: boolean;
  onOpenChange: (open: boolean) => void;
  title: string;
  description: ReactNode;
  confirmLabel: string;
  onConfirm: () => void;
  /** Extra content under the description (a warning, a note). */
  children?: ReactNode;
  /**
   * The action destroys or takes back (delete, disable, rotate a token): the button is red and
   * its label names what it acts on ("Eliminar Miami 1"), issue 34.
   */
  danger?: boolean;
}

/**
 * A yes/no question before an action that cannot be undone (Radix alert dialog: focus trapped,
 * Escape and 'Cancelar' dismiss, the confirm button closes it and runs the action).
 */
export function ConfirmDialog({
  open,
  onOpenChange,
  title,
  description,
  confirmLabel,
  onConfirm,
  children,
  danger = false,
}: ConfirmDialogProps) {
  return (
    <AlertDialog.Root open={open} onOpenChange={onOpenChange}>
      <AlertDialog.Portal>
        <AlertDialog.Overlay className="fixed inset-0 z-40 bg-black/60 backdrop-blur-sm" />
        <AlertDialog.Content className="fixed top-1/2 left-1/2 z-50 w-[calc(100vw-2rem)] max-w-md -translate-x-1/2 -translate-y-1/2 rounded-2xl border border-slate-700 bg-navy-900 p-6 shadow-2xl shadow-black/40">
          <AlertDialog.Title className="text-lg font-semibold text-white">{title}</AlertDialog.Title>
          <AlertDialog.Description className="mt-2 text-sm text-slate-300">
            {description}
          </AlertDialog.Description>
          {children}
          <div className="mt-6 flex flex-col-reverse gap-3 sm:flex-row sm:justify-end">
            <AlertDialog.Cancel className={ui.buttonSecondary}>{es.common.cancel}</AlertDialog.Cancel>
            <AlertDialog.Action className={danger ? ui.buttonDanger : ui.buttonPrimary} onClick={onConfirm}>
              {confirmLabel}
            </AlertDialog.Action>
          </div>
        </AlertDialog.Content>
      </AlertDialog.Portal>
    </AlertDialog.Root>
  );
}
