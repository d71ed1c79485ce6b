import { RefreshCw, TriangleAlert } from 'lucide-react';
import { es } from '../i18n/es';

interface ErrorPanelProps {
  message: string;
  title?: string;
  onRetry?: () => void;
  retryLabel?: string;
}

/** A failed load: what happened and a way to try again. */
export function ErrorPanel({ message, title, onRetry, retryLabel = es.common.retry }: ErrorPanelProps) {
  return (
    <div
      role="alert"
      className="mx-auto flex max-w-xl flex-col items-center gap-4 rounded-2xl border border-red-500/30 bg-red-500/10 px-6 py-10 text-center"
    >
      <TriangleAlert className="size-10 text-red-400" aria-hidden="true" />
      {title && <h2 className="text-lg font-semibold text-white">{title}</h2>}
      <p className="text-slate-200">{message}</p>
      {onRetry && (
        <button
          type="button"
          onClick={onRetry}
          className="inline-flex items-center gap-2 rounded-lg bg-white/10 px-4 py-2 font-medium text-white hover:bg-white/20"
        >
          <RefreshCw className="size-4" aria-hidden="true" />
          {retryLabel}
        </button>
      )}
    </div>
  );
}
