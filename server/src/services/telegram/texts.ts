/** Every text the bot writes (Spanish, plain text: no parse_mode, so nothing needs escaping). */
import { formatUsd } from '@vpn/contracts';

/** Dates in chats: the customers' time (Cuba), said so, as in the reminder mails. */
const dateFormat = new Intl.DateTimeFormat('es-ES', {
  dateStyle: 'long',
  timeStyle: 'short',
  timeZone: 'America/Havana',
});
export const formatDate = (d: Date) => `${dateFormat.format(d)} (hora de Cuba)`;

export const t = {
  welcome: (company: string) =>
    `Hola. Soy el asistente de ${company}.\n\nPara vincular tu cuenta, entra en el panel, abre Configuración de cuenta y pulsa «Vincular Telegram». Luego escribe /ayuda para ver lo que puedo hacer.`,
  linkedCustomer: (username: string) =>
    `Listo: este chat está vinculado a la cuenta «${username}». Recibirás aquí tus avisos.\n\nÓrdenes: /peers, /config, /renovar, /ayuda. Para desvincular: /desvincular.`,
  linkedManager: (username: string) =>
    `Listo: este chat está vinculado al gestor «${username}». Recibirá aquí las alertas del servicio.\n\nÓrdenes: /estado, /ayuda. Para desvincular: /desvincular.`,
  codeInvalid:
    'Este código de vinculación no es válido, ya se usó o caducó (vale 10 minutos). Pide uno nuevo desde el panel con «Vincular Telegram».',
  managerNotAllowed:
    'Esta cuenta de gestor no puede vincular Telegram: hace falta el rol de propietario u operaciones y la verificación en dos pasos activada.',
  notLinked:
    'Este chat no está vinculado a ninguna cuenta. Entra en el panel, abre Configuración de cuenta y pulsa «Vincular Telegram».',
  notLinkedManager: 'Este chat no está vinculado a ningún gestor. Vincúlelo desde Seguridad en la consola.',
  unlinked: 'Chat desvinculado: ya no recibirás avisos aquí. Puedes volver a vincularlo desde el panel.',
  privateOnly: 'Por seguridad solo respondo en chats privados.',
  throttled: 'Demasiadas órdenes seguidas. Espera un minuto y vuelve a intentarlo.',
  unknown: 'No entiendo esa orden. Escribe /ayuda para ver las disponibles.',
  failed: 'No se pudo completar la orden. Inténtalo de nuevo en unos minutos.',
  noPeers: 'No tienes peers todavía. Puedes comprar uno desde el panel.',
  peersTitle: 'Tus peers:',
  peerLine: (p: { name: string; state: string; online: boolean; expires: Date | null; usage: string }) =>
    [
      `• ${p.name}: ${p.state}${p.online ? ', en línea' : ''}`,
      `  Vence: ${p.expires ? formatDate(p.expires) : 'sin fecha'}`,
      `  Datos de este periodo: ${p.usage}`,
    ].join('\n'),
  stateActive: 'activo',
  stateExpired: 'vencido',
  stateNoData: 'sin datos',
  stateOff: 'deshabilitado',
  stateManagerOff: 'deshabilitado por un administrador',
  usage: (used: string, allowance: string | null) =>
    allowance ? `${used} de ${allowance}` : `${used} (sin límite)`,
  configWhich: 'Elige el peer cuya configuración quieres recibir:',
  configNone: 'No tienes peers activos. Renueva uno con /renovar.',
  configNoSuch: (name: string) =>
    `No tienes ningún peer llamado «${name}». Escribe /peers para ver los tuyos.`,
  configCaption: (name: string) =>
    `Configuración de «${name}»: impórtala en la app WireGuard (o escanea el QR). No la compartas: quien la tenga usa tu conexión.`,
  qrCaption: (name: string) => `QR de «${name}» para la app WireGuard del móvil.`,
  renewPlan: 'Elige el plan:',
  /** A plan's button under «Elige el plan:», price in the one format: 'Mensual (3,00 US$)'. */
  renewPlanButton: (name: string, price: number | string) => `${name} (${formatUsd(price)})`,
  renewPeer: (plan: string) => `Plan «${plan}». Elige el peer que quieres renovar:`,
  renewNoPlans: 'No hay planes a la venta ahora mismo.',
  renewNoPeers: 'No tienes peers que se puedan renovar desde aquí. Usa el panel.',
  renewLink: (plan: string, peer: string, url: string) =>
    `Factura creada: plan «${plan}» para «${peer}».\nPaga aquí: ${url}\n\nEn cuanto se acredite el pago, el peer se renueva solo (no tienes que importar nada de nuevo).`,
  payButton: 'Pagar',
  help: (company: string, support: string | undefined, publicUrl?: string) =>
    [
      `Ayuda de ${company}`,
      '',
      '/peers: tus peers, su estado, vencimiento, si están en línea y los datos usados en este periodo.',
      '/config <peer>: la configuración (.conf) y su QR, solo de peers activos.',
      '/renovar: elige plan y peer y recibe el enlace de pago.',
      '/desvincular: deja de recibir avisos en este chat.',
      '',
      'Cada peer es un dispositivo. Para conectarte, instala la app oficial WireGuard:',
      '• Android e iOS: en la app pulsa «+» y escanea el QR que te envía /config (desde otra pantalla), o importa el archivo .conf.',
      '• Windows y macOS: «Importar túnel(es) desde archivo» y elige el .conf.',
      '• MikroTik: el script está en el panel (Peers → acciones → «Script MikroTik»).',
      'Activa el túnel. Si deja de funcionar, comprueba en /peers que el peer está activo, no ha vencido y le quedan datos. Al renovar no hay que importar nada de nuevo.',
      ...(publicUrl ? [`Centro de ayuda: ${publicUrl}/dashboard/help`] : []),
      ...(support ? [`Soporte: ${support}`] : []),
    ].join('\n'),
  helpManager:
    '/estado: servidores en línea, peers activos y (si su rol ve los ingresos) pagos de hoy.\n/desvincular: deja de recibir alertas aquí.',
  status: (s: { online: number; total: number; peers: number; paid?: { count: number; amount: string } }) =>
    [
      'Estado del servicio',
      `Servidores en línea: ${s.online} de ${s.total}`,
      `Peers activos: ${s.peers}`,
      ...(s.paid ? [`Pagos de hoy: ${s.paid.count} (${formatUsd(s.paid.amount)})`] : []),
    ].join('\n'),
  // Notifications (customers)
  reminder: (name: string, hours: number, expires: Date) =>
    `Tu peer «${name}» vence ${hours === 24 ? 'en menos de 24 horas' : 'en menos de 3 días'}: el ${formatDate(expires)}.\nRenuévalo con /renovar para no quedarte sin conexión.`,
  data80: (name: string, used: string, allowance: string) =>
    `Tu peer «${name}» ha usado el 80 % de sus datos (${used} de ${allowance}). Cuando se agoten, se deshabilitará hasta que añadas un plan (/renovar).`,
  data100: (name: string) =>
    `Tu peer «${name}» ha agotado sus datos y se ha deshabilitado. Añade un plan con /renovar y volverá a funcionar sin importar nada de nuevo.`,
  // Issue 35: reduced speed instead of a cut.
  data80Reduce: (name: string, used: string, allowance: string, speed: string) =>
    `Tu peer «${name}» ha usado el 80 % de sus datos (${used} de ${allowance}). Cuando se agoten, seguirá conectado a velocidad reducida (${speed}) hasta que añadas un plan (/renovar).`,
  dataReduced: (name: string, speed: string) =>
    `Tu peer «${name}» agotó sus datos: sigue conectado a velocidad reducida (${speed}). Añade un plan con /renovar y recuperará su velocidad al instante.`,
  graceReduced: (name: string, speed: string, until: Date) =>
    `El plan de tu peer «${name}» venció: sigue conectado a velocidad reducida (${speed}) hasta el ${formatDate(until)}, y después se deshabilitará. Renuévalo con /renovar para recuperar su velocidad al instante.`,
  paid: (plan: string, target: string, amount: string) =>
    `Pago acreditado: ${formatUsd(amount)}, plan «${plan}» para «${target}». ¡Gracias!`,
  announcement: (company: string, text: string) => `${company}: ${text}`,
  recovery: (company: string, username: string, url: string) =>
    `${company}: alguien (esperamos que tú) pidió restablecer la contraseña de la cuenta «${username}».\n\nElige una contraseña nueva aquí: ${url}\n\nEl enlace vale 1 hora y sirve una sola vez. Si no lo pediste, ignora este mensaje: tu contraseña no cambia.`,
  // Alerts (managers)
  agentOffline: (server: string) =>
    `⚠️ El agente del servidor «${server}» lleva más de 5 minutos desconectado.`,
  agentBack: (server: string) => `✅ El agente del servidor «${server}» vuelve a estar conectado.`,
  agentLagging: (server: string, lag: number) =>
    `⚠️ El servidor «${server}» lleva más de 2 minutos sin aplicar los cambios (${lag} revisiones pendientes).`,
  agentCaughtUp: (server: string) => `✅ El servidor «${server}» ya aplicó los cambios pendientes.`,
  deliveryFailed: (invoice: string, plan: string, customer: string, attempts: number) =>
    `⚠️ La factura ${invoice} (plan «${plan}», cliente «${customer}») está pagada pero no se pudo entregar (${attempts} intentos). Revise Facturas.`,
  databaseDown: '⚠️ La base de datos no responde: el panel está contestando 503 (mantenimiento).',
  databaseBack: '✅ La base de datos vuelve a responder.',
  unmatchedPayment: (gateway: string, reference: string, amount: string, reason: string | null) =>
    `⚠️ Pago sin factura abierta: ${gateway}, referencia ${reference}, ${amount}. ${reason ?? ''} No acreditó nada: revíselo en Facturas.`.trim(),
};

export const COMMANDS = [
  { command: 'peers', description: 'Tus peers y su estado' },
  { command: 'config', description: 'Configuración y QR de un peer' },
  { command: 'renovar', description: 'Renovar un peer' },
  { command: 'estado', description: 'Estado del servicio (gestores)' },
  { command: 'ayuda', description: 'Ayuda y soporte' },
  { command: 'desvincular', description: 'Desvincular este chat' },
];

/** Errors of the linking and token routes. */
export const telegramMsg = {
  unavailable: 'Telegram no está configurado en este panel.',
  notLinked: 'Tu cuenta no tiene Telegram vinculado.',
  managerRole: 'Solo los gestores propietario y de operaciones pueden vincular Telegram.',
  managerTotp: 'Active antes la verificación en dos pasos: es obligatoria para recibir alertas por Telegram.',
  tokenFormat: 'El token no tiene el formato de BotFather (123456789:ABC…).',
  tokenRefused: 'Telegram no acepta este token (getMe falló). Compruébelo en BotFather.',
};
