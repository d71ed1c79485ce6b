/** Shared Tailwind class sets, so buttons and fields look the same everywhere. */
export const ui = {
  /** Header cell of the data tables (Peers, Salas, the manager console). */
  th: 'px-4 py-3 text-xs font-semibold tracking-wide text-slate-400 uppercase',
  buttonPrimary:
    'inline-flex items-center justify-center gap-2 rounded-lg bg-emerald-500 px-4 py-2.5 font-semibold text-navy-950 shadow-lg shadow-emerald-500/20 transition hover:bg-emerald-400 disabled:cursor-not-allowed disabled:opacity-60',
  buttonSecondary:
    'inline-flex items-center justify-center gap-2 rounded-lg border border-slate-600 px-4 py-2.5 font-semibold text-slate-100 transition hover:border-slate-400 hover:bg-white/5 disabled:cursor-not-allowed disabled:opacity-60',
  /** An action that destroys or takes back (refund, delete, disable, rotate a token): red (issue 34). */
  buttonDanger:
    'inline-flex items-center justify-center gap-2 rounded-lg bg-red-600 px-4 py-2.5 font-semibold text-white shadow-lg shadow-red-600/20 transition hover:bg-red-500 disabled:cursor-not-allowed disabled:opacity-60',
  buttonGhost:
    'inline-flex items-center justify-center gap-2 rounded-lg px-3 py-2 font-medium text-slate-300 transition hover:bg-white/5 hover:text-white',
  input:
    'block w-full rounded-lg border border-slate-700 bg-navy-950/60 px-3 py-2.5 text-slate-100 placeholder:text-slate-500 focus:border-emerald-400 focus:ring-2 focus:ring-emerald-400/30 focus:outline-none disabled:cursor-not-allowed disabled:opacity-60',
  label: 'mb-1.5 block text-sm font-medium text-slate-200',
  link: 'font-medium text-emerald-400 hover:text-emerald-300 hover:underline',
  card: 'rounded-2xl border border-slate-800 bg-navy-900/70 shadow-xl shadow-black/20',
} as const;
