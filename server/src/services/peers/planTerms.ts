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
  /** Issue 35: kbit/s each way (null = unlimited), what running out of data does, the reduced speed, grace days. */
  speedDownKbit: number | null;
  speedUpKbit: number | null;
  dataExhaustedAction: 'cut' | 'reduce';
  reducedKbit: number;
  graceDays: number;
}

/**
 * The peer columns of a plan's speed terms (issue 35): a plan applied gives the peer its speeds,
 * what running out of data does, the reduced speed and the grace, and ends any reduction at once.
 */
export function speedTerms(plan: Omit<PlanTerms, 'id' | 'name' | 'price' | 'validity' | 'dataGb'>) {
  return {
    speedDownKbit: plan.speedDownKbit,
    speedUpKbit: plan.speedUpKbit,
    reduceOnExhausted: plan.dataExhaustedAction === 'reduce',
    reducedKbit: plan.reducedKbit,
    graceDays: plan.graceDays,
    speedReducedAt: null,
    speedReducedReason: null,
  };
}

export function bytesOfGb(gb: string | null | undefined): number | null {
  if (gb === null || gb === undefined) return null;
  return Math.round(Number(gb) * GB);
}

/** The peer columns of a new period under a plan: its allowance, nothing used, nothing told. */
export function newPeriod(gb: string | null | undefined) {
  return { dataAllowance: bytesOfGb(gb), dataUsed: 0, dataNoticeAt: null, dataExhaustedAt: null };
}
