import { Check, Copy } from 'lucide-react';
import { useEffect, useRef, useState } from 'react';
import toast from 'react-hot-toast';

/** Spec §9: how long the button shows its "copied" state. */
export const COPIED_MS = 2000;

interface CopyButtonProps {
  text: string;
  label: string;
  copiedLabel: string;
  /** Accessible names (the visible label alone does not say what is copied). */
  ariaLabel: string;
  ariaCopiedLabel: string;
  successToast: string;
  errorToast: string;
}

/** Copies `text` to the clipboard, shows the copied state for {@link COPIED_MS} and a success toast. */
export function CopyButton({
  text,
  label,
  copiedLabel,
  ariaLabel,
  ariaCopiedLabel,
  successToast,
  errorToast,
}: CopyButtonProps) {
  const [copied, setCopied] = useState(false);
  const timer = useRef<ReturnType<typeof setTimeout> | null>(null);
  useEffect(
    () => () => {
      if (timer.current) clearTimeout(timer.current);
    },
    [],
  );

  async function copy() {
    try {
      await navigator.clipboard.writeText(text);
    } catch {
      toast.error(errorToast);
      return;
    }
    setCopied(true);
    toast.success(successToast);
    if (timer.current) clearTimeout(timer.current);
    timer.current = setTimeout(() => setCopied(false), COPIED_MS);
  }

  return (
    <button
      type="button"
      onClick={() => void copy()}
      aria-label={copied ? ariaCopiedLabel : ariaLabel}
      className={`inline-flex items-center gap-1.5 rounded-lg border px-2.5 py-1.5 text-sm font-medium transition ${
        copied
          ? 'border-emerald-500/50 bg-emerald-500/15 text-emerald-300'
          : 'border-slate-700 text-slate-200 hover:border-slate-500 hover:bg-white/5'
      }`}
    >
      {copied ? (
        <Check className="size-4" aria-hidden="true" />
      ) : (
        <Copy className="size-4" aria-hidden="true" />
      )}
      {copied ? copiedLabel : label}
    </button>
  );
}
