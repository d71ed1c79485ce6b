import * as Dialog from '@radix-ui/react-dialog';
import { X } from 'lucide-react';
import type { ReactNode } from 'react';
import { es } from '../i18n/es';
import { ui } from './ui';

interface ModalProps {
  open: boolean;
  onOpenChange: (open: boolean) => void;
  title: string;
  description?: ReactNode;
  children: ReactNode;
  /** Tailwind max-width class of the panel. */
  size?: string;
}

/** A dialog with a title, a close button (× and 'Cerrar') and scrollable content (Radix dialog). */
export function Modal({ open, onOpenChange, title, description, children, size = 'max-w-lg' }: ModalProps) {
  return (
    <Dialog.Root open={open} onOpenChange={onOpenChange}>
      <Dialog.Portal>
        <Dialog.Overlay className="fixed inset-0 z-40 bg-black/60 backdrop-blur-sm" />
        <Dialog.Content
          className={`fixed top-1/2 left-1/2 z-50 flex max-h-[calc(100dvh-2rem)] w-[calc(100vw-2rem)] ${size} -translate-x-1/2 -translate-y-1/2 flex-col rounded-2xl border border-slate-700 bg-navy-900 shadow-2xl shadow-black/40`}
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
              className="rounded-lg p-1.5 text-slate-400 hover:bg-white/5 hover:text-white"
              aria-label={es.common.close}
            >
              <X className="size-5" aria-hidden="true" />
            </Dialog.Close>
          </div>
          {/* Focusable: a long body (a peer's Detalles) scrolls from the keyboard too (axe: scrollable-region-focusable). */}
          <div
            tabIndex={0}
            className="overflow-y-auto p-6 focus-visible:outline-2 focus-visible:outline-emerald-400"
          >
            {children}
          </div>
          <div className="flex justify-end border-t border-slate-800 px-6 py-4">
            <Dialog.Close className={ui.buttonSecondary}>{es.common.close}</Dialog.Close>
          </div>
        </Dialog.Content>
      </Dialog.Portal>
    </Dialog.Root>
  );
}
