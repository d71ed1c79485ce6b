/** The look of a peer's ⋮ button, the same before and after its menu's code has arrived (`PeerMenu.tsx`). */
export const peerMenuTrigger = 'rounded-lg p-2 text-slate-300 hover:bg-white/5 hover:text-white';
