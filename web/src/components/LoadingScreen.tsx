import { Spinner } from './Spinner';

/** A full-screen wait (settings loading, 'Verificando acceso'). */
export function LoadingScreen({ label }: { label: string }) {
  return (
    <div className="grid min-h-screen place-items-center bg-navy-950 px-4" role="status" aria-live="polite">
      <div className="flex flex-col items-center gap-4 text-slate-300">
        <Spinner className="size-10 text-emerald-400" />
        <p className="text-base font-medium">{label}</p>
      </div>
    </div>
  );
}

/** An in-page wait. */
export function LoadingBlock({ label }: { label: string }) {
  return (
    <div
      className="flex items-center justify-center gap-3 py-16 text-slate-300"
      role="status"
      aria-live="polite"
    >
      <Spinner className="size-6 text-emerald-400" />
      <p>{label}</p>
    </div>
  );
}
