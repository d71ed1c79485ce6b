/** Texts of the console's fleet slice: Servidores, the Resumen charts and Ajustes → pasarelas. */
import { formatUsd } from '../lib/money';

import { esServerState } from './es.serverState';

const number = new Intl.NumberFormat('es-ES');
const usd = { format: formatUsd };

/** 1536 → "1,5 KB" (powers of 1024; units as operators read them). */
export function formatBytes(bytes: number): string {
  const units = ['B', 'KB', 'MB', 'GB', 'TB'];
  let value = bytes;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit++;
  }
  return `${new Intl.NumberFormat('es-ES', { maximumFractionDigits: unit === 0 ? 0 : 1 }).format(value)} ${units[unit]}`;
}

export const esFleet = {
  servers: {
    search: 'Buscar servidores',
    searchPlaceholder: 'Nombre, host o ubicación',
    empty: 'Aún no hay servidores.',
    noMatch: 'Ningún servidor coincide con la búsqueda.',
    columns: {
      name: 'Nombre',
      endpoint: 'Endpoint',
      ubication: 'Ubicación',
      agent: 'Agente',
      state: 'Estado',
      peers: 'Peers',
      relay: 'Descubrimiento',
    },
    relayOn: 'Reenvía',
    relayOff: 'No reenvía',
    relayFailing: 'Falla',
    relayFailingTitle: (reason: string) =>
      `El sistema del servidor rechazó las reglas del reenvío: ${reason}. Los peers se aplican igual; el agente lo reintenta.`,
    relayUnknown: 'Sin datos',
    relayTitle: 'Si el agente reenvía a cada sala el descubrimiento de juegos (difusión y multicast)',
    online: esServerState.online,
    offline: esServerState.offline,
    enabled: esServerState.active,
    disabled: esServerState.inactive,
    outdated: 'desactualizado',
    outdatedTitle: (latest: string | null) =>
      latest ? `Más antiguo que la versión ${latest} que sirve el panel` : 'Más antiguo que el del panel',
    openDetail: (name: string) => `Ver el servidor ${name}`,
  },
  detail: {
    close: 'Cerrar detalle',
    status: 'Estado en vivo',
    agent: 'Agente',
    version: 'Versión del agente',
    versionValue: (version: string | null, node: string | null) =>
      version ? (node ? `${version} (Node ${node})` : version) : '—',
    latest: 'Versión disponible en el panel',
    notBuilt: 'Sin compilar',
    upgrade: 'Actualizar agente',
    upgradeRequested: 'Actualización pedida al agente',
    upgradeDone: 'Agente actualizado',
    upgradeTitle: 'Actualización del agente',
    upgradePending: (v: string | null) =>
      `Pedida la actualización a la versión ${v ?? '—'}: el agente la descarga…`,
    upgradeRestarting: (v: string | null) =>
      `El agente instaló la versión ${v ?? '—'} y se está reiniciando (los túneles siguen funcionando).`,
    upgradeFailed: (v: string | null, error: string | null) =>
      `La actualización a la versión ${v ?? '—'} falló y sigue funcionando la versión anterior: ${error ?? 'sin motivo'}`,
    lastSeen: 'Último contacto',
    never: 'Nunca',
    lag: 'Cambios pendientes de aplicar',
    lagValue: (n: number) => (n === 0 ? 'Al día' : `${number.format(n)} revisión(es)`),
    onlinePeers: 'Peers en línea (últimos 3 min)',
    rooms: 'Salas',
    roomsOn: 'Permitidas',
    roomsOff: 'No permitidas',
    relay: 'Descubrimiento de juegos',
    relayValue: (
      active: boolean | null,
      allowed: boolean,
      relayed: number,
      dropped: number,
      error: string | null,
    ) =>
      active === null
        ? 'El agente aún no informó (un agente anterior no lo reenvía)'
        : error !== null
          ? `No reenvía: el sistema del servidor rechazó sus reglas (${error}). Los peers se aplican igual y el agente lo reintenta.`
          : `${active ? 'Reenvía' : allowed ? 'No reenvía (apagado en Ajustes)' : 'No reenvía (apagado en este servidor)'} · ${number.format(relayed)} reenviados, ${number.format(dropped)} descartados`,
    peers: 'Peers del servidor',
    peersSearch: 'Buscar peers del servidor',
    peersPlaceholder: 'Nombre o dirección',
    noPeers: 'Este servidor no tiene peers.',
    peerColumns: {
      name: 'Nombre',
      customer: 'Cliente',
      address: 'Dirección',
      state: 'Estado',
      online: 'Conexión',
    },
    peerActive: 'Activo',
    peerInactive: 'Inactivo',
    edit: 'Editar',
    drain: 'Drenar',
    remove: 'Eliminar',
    rotate: 'Rotar token',
    drainTitle: 'Progreso del drenado',
    drainProgress: (moved: number, total: number) =>
      `${number.format(moved)} de ${number.format(total)} peers movidos`,
    drainDone: 'Drenado completado',
    drainRunning: 'Drenando…',
  },
  edit: {
    title: 'Editar servidor',
    description: 'Un cambio de host o puerto llega a las configuraciones y enlaces espejo de los clientes.',
    name: 'Nombre',
    host: 'Host',
    port: 'Puerto',
    ubication: 'Ubicación',
    active: 'Activo (admite peers nuevos y traslados)',
    allowRooms: 'Permitir salas',
    allowDiscovery: 'Descubrimiento de juegos en las salas (difusión y multicast)',
    submit: 'Guardar cambios',
    saved: 'Servidor actualizado correctamente',
    portInvalid: 'El puerto debe estar entre 1 y 65535',
    required: 'Completa el nombre y el host.',
  },
  drain: {
    title: 'Drenar servidor',
    description: (name: string, peers: number) =>
      `Se desactivará ${name} y sus ${number.format(peers)} peers se moverán a otros servidores activos, conservando sus direcciones. Los clientes lo verán en vivo.`,
    reason: 'Motivo (opcional)',
    confirm: 'Drenar',
    confirmNamed: (name: string) => `Drenar ${name}`,
    started: 'Drenado iniciado',
  },
  remove: {
    title: 'Eliminar servidor',
    description: (name: string) => `Se eliminará ${name}. Esta acción no se puede deshacer.`,
    confirm: 'Eliminar',
    /** Dangerous confirmations name what they act on (issue 34). */
    confirmNamed: (name: string) => `Eliminar ${name}`,
    rotateNamed: (name: string) => `Rotar el token de ${name}`,
    done: 'Servidor eliminado',
  },
  install: {
    title: 'Instalar el agente',
    description: (name: string) =>
      `Pega esta línea como root en el servidor ${name} (Debian 12 o 13, Ubuntu 24.04): instala WireGuard, nftables y Node.js de la distribución, descarga el agente, comprueba su SHA-256 y lo arranca con systemd. Volver a pegarla lo actualiza.`,
    warning: 'Copia el comando ahora: el token que contiene no se volverá a mostrar.',
    commandLabel: 'Comando de instalación',
    copy: 'Copiar',
    copied: 'Copiado',
    copyCommand: 'Copiar el comando de instalación',
    commandCopied: 'Comando de instalación copiado',
    copiedToast: 'Copiado al portapapeles',
    copyError: 'No se pudo copiar al portapapeles',
  },
  charts: {
    range: 'Periodo',
    ranges: { '7': 'Últimos 7 días', '30': 'Últimos 30 días', '90': 'Últimos 90 días', '365': 'Último año' },
    revenue: 'Ingresos por día',
    customers: 'Clientes nuevos por día',
    activePeers: 'Peers activos',
    serversOnline: 'Servidores: peers y peers en línea',
    traffic: 'Tráfico por servidor (recibido + enviado)',
    peers: 'Peers',
    onlinePeers: 'En línea',
    loading: 'Cargando gráficos…',
    agentOnline: 'agente en línea',
    agentOffline: 'agente sin conexión',
    noServers: 'Aún no hay servidores.',
    usd: (v: number) => usd.format(v),
    number: (v: number) => number.format(v),
    bytes: formatBytes,
    /** The legend's first entry: the day under the pointer. */
    day_: 'Día',
    /**
     * Under a chart: each outage shaded in red, ongoing ("Madrid desde el 11 ene, 06:00 UTC") or
     * past ("Madrid el 11 ene de 02:00 a 04:10 UTC"; another day's end is dated too).
     */
    outage: (list: { name: string; since: string; until?: string | null }[]) => {
      const utc = { timeZone: 'UTC' } as const;
      const day = new Intl.DateTimeFormat('es-ES', { day: 'numeric', month: 'short', ...utc });
      const time = new Intl.DateTimeFormat('es-ES', { hour: '2-digit', minute: '2-digit', ...utc });
      const both = new Intl.DateTimeFormat('es-ES', {
        day: 'numeric',
        month: 'short',
        hour: '2-digit',
        minute: '2-digit',
        ...utc,
      });
      const said = (o: { name: string; since: string; until?: string | null }) => {
        const [from, to] = [new Date(o.since), o.until ? new Date(o.until) : null];
        if (!to) return `${o.name} desde el ${both.format(from)} UTC`;
        if (o.since.slice(0, 10) === to.toISOString().slice(0, 10))
          return `${o.name} el ${day.format(from)} de ${time.format(from)} a ${time.format(to)} UTC`;
        return `${o.name} del ${both.format(from)} al ${both.format(to)} UTC`;
      };
      return `Sin conexión (sombreado en rojo): ${list.map(said).join('; ')}`;
    },
    /** "2026-01-10" → "10 ene" */
    day: (iso: string) =>
      new Intl.DateTimeFormat('es-ES', { day: 'numeric', month: 'short', timeZone: 'UTC' }).format(
        new Date(`${iso}T00:00:00Z`),
      ),
  },
  gateways: {
    title: 'Pasarelas de pago',
    subtitle:
      'Credenciales cifradas en la base de datos; nunca se muestran. Sin ellas se usan las del entorno.',
    qvapay: 'QvaPay',
    remesita: 'Remesita',
    switchQvapay: 'Pagos con QvaPay',
    switchRemesita: 'Pagos con Remesita',
    source: { console: 'Configurado en Ajustes', env: 'Configurado por el entorno', none: 'No configurado' },
    configured: 'Configurado',
    notConfigured: 'No configurado',
    fields: {
      app_id: 'App ID',
      app_secret: 'App Secret',
      api_key: 'API key',
      api_secret: 'API secret',
      business_id: 'ID de la unidad de negocio',
      base_url: 'URL de la API (opcional)',
    },
    baseUrlHint: 'Vacía: la de REMESITA_BASE_URL (https://api.remesita.com por defecto).',
    save: 'Guardar credenciales',
    forget: 'Olvidar credenciales',
    saved: 'Credenciales guardadas',
    forgotten: 'Credenciales olvidadas: se usan las del entorno, si las hay',
    switched: 'Pasarela actualizada',
    required: 'Completa todos los campos.',
    secretHint: 'Se guarda cifrado y no se vuelve a mostrar.',
  },
};
