/** Texts of the console's node health (issue 34): Servidores and Resumen. */
import { formatBytes } from './es.manager.fleet';

const number = new Intl.NumberFormat('es-ES');
const decimal = new Intl.NumberFormat('es-ES', { maximumFractionDigits: 2 });

/** How long ago, in words: "unos segundos", "12 min", "3 h 5 min", "2 días". */
export function ago(ms: number): string {
  const minutes = Math.floor(ms / 60_000);
  if (minutes < 1) return 'unos segundos';
  if (minutes < 60) return `${minutes} min`;
  const hours = Math.floor(minutes / 60);
  if (hours < 48) return minutes % 60 ? `${hours} h ${minutes % 60} min` : `${hours} h`;
  const days = Math.floor(hours / 24);
  return `${days} días`;
}

export const esHealth = {
  online: 'En línea',
  offlineFor: (ms: number) => `Sin conexión desde hace ${ago(ms)}`,
  neverConnected: 'Sin conexión: el agente nunca se conectó',
  /** A server switched on whose agent is away: not "Activo" in green beside "Sin conexión". */
  enabledOffline: 'Activo, sin agente',
  title: 'Estado de los nodos',
  subtitle: 'En vivo: cada servidor informa con sus estadísticas (cada 10 s).',
  noServers: 'Aún no hay servidores.',
  offlineAlert: (n: number) =>
    n === 1 ? '1 servidor sin conexión' : `${number.format(n)} servidores sin conexión`,
  allOnline: (n: number) =>
    n === 1 ? 'El servidor está en línea' : `Los ${number.format(n)} servidores están en línea`,
  noReport: 'Sin informe de salud (agente anterior o aún sin estadísticas)',
  figures: {
    handshakes: 'Conectados (3 min)',
    peers: 'Peers',
    in: 'Entrada',
    out: 'Salida',
    load: 'Carga',
    cpu: 'CPU',
    memory: 'Memoria',
  },
  rate: (bytesPerSecond: number | null) =>
    bytesPerSecond === null ? '—' : `${formatBytes(bytesPerSecond)}/s`,
  load: (load: number[] | null) => (load ? load.map((n) => decimal.format(n)).join(' · ') : '—'),
  cpu: (cpu: number | null) => (cpu === null ? '—' : `${decimal.format(cpu)} %`),
  memory: (memory: { total: number; available: number } | null) =>
    memory ? `${formatBytes(memory.total - memory.available)} de ${formatBytes(memory.total)}` : '—',
  count: (n: number) => number.format(n),
  column: 'Salud',
};
