/** Speeds as the customer reads them (issue 35): 'Hasta 2 Mbit/s', '256 kbit/s', 'Velocidad reducida'. */
import type { PeerSpeed } from '@vpn/contracts';
import { es } from '../i18n/es';
import { formatDate } from './format';

const number = new Intl.NumberFormat('es-ES', { maximumFractionDigits: 3 });

/** 2 → '2 Mbit/s', 0.5 → '500 kbit/s'. */
export function formatMbit(mbit: number): string {
  return mbit < 1 ? formatKbit(Math.round(mbit * 1000)) : es.speed.mbit(number.format(mbit));
}

/** 256 → '256 kbit/s', 2000 → '2 Mbit/s'. */
export function formatKbit(kbit: number): string {
  return kbit >= 1000 ? formatMbit(kbit / 1000) : es.speed.kbit(number.format(kbit));
}

/** A plan's or a peer's speed each way (Mbit/s, null = unlimited) in one line. */
export function speedLabel(down: number | null, up: number | null): string {
  if (down === null && up === null) return es.speed.unlimited;
  if (down === up && down !== null) return es.speed.upTo(formatMbit(down));
  if (up === null) return es.speed.downOnly(formatMbit(down!));
  if (down === null) return es.speed.upOnly(formatMbit(up));
  return es.speed.split(formatMbit(down), formatMbit(up));
}

/** Why the peer is at its reduced speed, and until when, or null at its plan's speed. */
export function reducedText(speed: PeerSpeed): string | null {
  const reduced = speed.reduced;
  if (!reduced) return null;
  const at = formatKbit(reduced.kbit);
  if (reduced.reason === 'data' || reduced.until === null) return es.speed.reducedData(at);
  return es.speed.reducedExpired(at, formatDate(reduced.until));
}
