/**
 * Validity stored and sent as Postgres-interval text: 'N days HH:MM:SS'. Defined here, not beside the
 * zod schemas (`common.ts` re-exports it), so the SPA's formatting does not pull zod in.
 */
export const VALIDITY_RE = /^(\d+) days? (\d{2}):(\d{2}):(\d{2})$/;

export interface ValidityParts {
  years: number;
  months: number;
  days: number;
}

/**
 * Splits a validity ('N days HH:MM:SS') into years, months and days using the spec's constants:
 * 24 hours a day, 720 hours (30 days) a month, 8760 hours (365 days) a year.
 */
export function splitValidity(validity: string): ValidityParts | null {
  const m = VALIDITY_RE.exec(validity.trim());
  if (!m) return null;
  const hours = Number(m[1]) * 24 + Number(m[2]) + Number(m[3]) / 60 + Number(m[4]) / 3600;
  const years = Math.floor(hours / 8760);
  let rest = hours - years * 8760;
  const months = Math.floor(rest / 720);
  rest -= months * 720;
  const days = Math.floor(rest / 24);
  return { years, months, days };
}

export function validityToSeconds(validity: string): number | null {
  const m = VALIDITY_RE.exec(validity.trim());
  if (!m) return null;
  return Number(m[1]) * 86400 + Number(m[2]) * 3600 + Number(m[3]) * 60 + Number(m[4]);
}
