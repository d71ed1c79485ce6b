/** A green dot when the peer had a handshake within 3 minutes, grey otherwise. */
export function OnlineDot({ online }: { online: boolean }) {
  return (
    <span
      aria-hidden="true"
      className={`inline-block h-2 w-2 rounded-full ${online ? 'bg-emerald-400' : 'bg-slate-600'}`}
    />
  );
}
