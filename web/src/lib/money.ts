/**
 * The one price format of the site and the console (issue 32): euros-style Spanish, as es-ES writes
 * an amount in dollars, "3,00 US$" (decimal comma, the currency after the number, no grouping below
 * 10 000). Prices are in USD (spec). Imports nothing, so every text module can use it.
 */
const usd = new Intl.NumberFormat('es-ES', { style: 'currency', currency: 'USD' });

/** 3 → "3,00 US$"; "1234.5" → "1234,50 US$". */
export function formatUsd(amount: number | string): string {
  return usd.format(Number(amount));
}
