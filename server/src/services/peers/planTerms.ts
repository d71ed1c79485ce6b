/**
 * A plan's terms as a peer receives them, and the byte arithmetic of its data allowance (issue 9).
 * Pure helpers with no imports, shared by PeerService (which starts a new period when a plan is
 * applied) and AllowanceService (which enforces it): kept apart so neither imports the other's module.
 */

/** GB as carriers count them: 10^9 bytes. */
export const GB = 1_000_000_000;

/** What applying a plan needs to know of it (the invoice keeps the name and price it was sold at). */
export interface PlanTerms {
  id: number;
  name: string;
  price: string;
  validity: string;
  /** GB for the validity (numeric as text), null when unlimited. */
  dataGb: string | null;
}

export function bytesOfGb(gb: string | null | undefined): number | null {
  if (gb === null || gb === undefined) return null;
  return Math.round(Number(gb) * GB);
}

/** The peer columns of a new period under a plan: its allowance, nothing used, nothing told. */
export function newPeriod(gb: string | null | undefined) {
  return { dataAllowance: bytesOfGb(gb), dataUsed: 0, dataNoticeAt: null, dataExhaustedAt: null };
}
