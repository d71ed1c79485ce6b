import { CircleAlert } from 'lucide-react';

/** The red box a form shows when it fails (login, register). */
export function FormError({ message }: { message: string | null }) {
  if (!message) return null;
  return (
    <div
      role="alert"
      className="flex items-start gap-2 rounded-lg border border-red-500/40 bg-red-500/15 px-3 py-2.5 text-sm text-red-200"
    >
      <CircleAlert className="mt-0.5 size-4 shrink-0 text-red-400" aria-hidden="true" />
      <p>{message}</p>
    </div>
  );
}
