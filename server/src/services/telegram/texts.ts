/** Every text the bot writes (Spanish, plain text: no parse_mode, so nothing needs escaping). */

/** Dates in chats: the customers' time (Cuba), said so, as in the reminder mails. */
const dateFormat = new Intl.DateTimeFormat('es-ES', {
  dateStyle: 'long',
  timeStyle: 'short',
  timeZone: 'America/Havana',
});
export const formatDate = (d: Date) => `${dateFormat.format(d)} (hora de Cuba)`;

export const t = {
  welcome: (company: string) =>
    `Hola. Soy el asistente de ${company}.\n\nPara vincular su cuenta, entre en el panel, abra Ajustes y pulse «Vincular Telegram». Luego escriba /ayuda para ver lo que puedo hacer.`,
  linkedCustomer: (username: string) =>
    `Listo: este chat está vinculado a la cuenta «${username}». Recibirá aquí sus avisos.\n\nÓrdenes: /peers, /config, /renovar, /ayuda. Para desvincular: /desvincular.`,
  linkedManager: (username: string) =>
    `Listo: este chat está vinculado al gestor «${username}». Recibirá aquí las alertas del servicio.\n\nÓrdenes: /estado, /ayuda. Para desvincular: /desvincular.`,
  codeInvalid:
    'Este código de vinculación no es válido, ya se usó o caducó (vale 10 minutos). Pida uno nuevo desde el panel con «Vincular Telegram».',
  managerNotAllowed:
    'Esta cuenta de gestor no puede vincular Telegram: hace falta el rol de propietario u operaciones y la verificación en dos pasos activada.',
  notLinked:
    'Este chat no está vinculado a ninguna cuenta. Entre en el panel, abra Ajustes y pulse «Vincular Telegram».',
  notLinkedManager: 'Este chat no está vinculado a ningún gestor. Vincúlelo desde Seguridad en la consola.',
  unlinked: 'Chat desvinculado: ya no recibirá avisos aquí. Puede volver a vincularlo desde el panel.',
  privateOnly: 'Por seguridad solo respondo en chats privados.',
  throttled: 'Demasiadas órdenes seguidas. Espere un minuto y vuelva a intentarlo.',
  unknown: 'No entiendo esa orden. Escriba /ayuda para ver las disponibles.',
  failed: 'No se pudo completar la orden. Inténtelo de nuevo en unos minutos.',
  noPeers: 'No tiene peers todavía. Puede comprar uno desde el panel.',
  peersTitle: 'Sus peers:',
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
  configWhich: 'Elija el peer cuya configuración quiere recibir:',
  configNone: 'No tiene peers activos. Renueve uno con /renovar.',
  configNoSuch: (name: string) =>
    `No tiene ningún peer llamado «${name}». Escriba /peers para ver los suyos.`,
  configCaption: (name: string) =>
    `Configuración de «${name}»: impórtela en la app WireGuard (o escanee el QR). No la comparta: quien la tenga usa su conexión.`,
  qrCaption: (name: string) => `QR de «${name}» para la app WireGuard del móvil.`,
  renewPlan: 'Elija el plan:',
  renewPeer: (plan: string) => `Plan «${plan}». Elija el peer que quiere renovar:`,
  renewNoPlans: 'No hay planes a la venta ahora mismo.',
  renewNoPeers: 'No tiene peers que se puedan renovar desde aquí. Use el panel.',
  renewLink: (plan: string, peer: string, url: string) =>
    `Factura creada: plan «${plan}» para «${peer}».\nPague aquí: ${url}\n\nEn cuanto se acredite el pago, el peer se renueva solo (no tiene que importar nada de nuevo).`,
  payButton: 'Pagar',
  help: (company: string, support: string | undefined, publicUrl?: string) =>
    [
      `Ayuda de ${company}`,
      '',
      '/peers: sus peers, su estado, vencimiento, si están en línea y los datos usados en este periodo.',
      '/config <peer>: la configuración (.conf) y su QR, solo de peers activos.',
      '/renovar: elija plan y peer y reciba el enlace de pago.',
      '/desvincular: deja de recibir avisos en este chat.',
      '',
      'Cada peer es un dispositivo. Para conectarse, instale la app oficial WireGuard:',
      '• Android e iOS: en la app pulse «+» y escanee el QR que le envía /config (desde otra pantalla), o importe el archivo .conf.',
      '• Windows y macOS: «Importar túnel(es) desde archivo» y elija el .conf.',
      '• MikroTik: el script está en el panel (Peers → acciones → «Script MikroTik»).',
      'Active el túnel. Si deja de funcionar, compruebe en /peers que el peer está activo, no ha vencido y le quedan datos. Al renovar no hay que importar nada de nuevo.',
      ...(publicUrl ? [`Centro de ayuda: ${publicUrl}/dashboard/help`] : []),
      support ? `Soporte: ${support}` : 'Soporte: escriba desde el panel.',
    ].join('\n'),
  helpManager:
    '/estado: servidores en línea, peers activos y (si su rol ve los ingresos) pagos de hoy.\n/desvincular: deja de recibir alertas aquí.',
  status: (s: { online: number; total: number; peers: number; paid?: { count: number; amount: string } }) =>
    [
      'Estado del servicio',
      `Servidores en línea: ${s.online} de ${s.total}`,
      `Peers activos: ${s.peers}`,
      ...(s.paid ? [`Pagos de hoy: ${s.paid.count} (${s.paid.amount} USD)`] : []),
    ].join('\n'),
  // Notifications (customers)
  reminder: (name: string, hours: number, expires: Date) =>
    `Su peer «${name}» vence ${hours === 24 ? 'en menos de 24 horas' : 'en menos de 3 días'}: el ${formatDate(expires)}.\nRenuévelo con /renovar para no quedarse sin conexión.`,
  data80: (name: string, used: string, allowance: string) =>
    `Su peer «${name}» ha usado el 80 % de sus datos (${used} de ${allowance}). Cuando se agoten, se deshabilitará hasta que añada un plan (/renovar).`,
  data100: (name: string) =>
    `Su peer «${name}» ha agotado sus datos y se ha deshabilitado. Añada un plan con /renovar y volverá a funcionar sin importar nada de nuevo.`,
  // Issue 35: reduced speed instead of a cut.
  data80Reduce: (name: string, used: string, allowance: string, speed: string) =>
    `Tu peer «${name}» ha usado el 80 % de sus datos (${used} de ${allowance}). Cuando se agoten, seguirá conectado a velocidad reducida (${speed}) hasta que añadas un plan (/renovar).`,
  dataReduced: (name: string, speed: string) =>
    `Tu peer «${name}» agotó sus datos: sigue conectado a velocidad reducida (${speed}). Añade un plan con /renovar y recuperará su velocidad al instante.`,
  graceReduced: (name: string, speed: string, until: Date) =>
    `El plan de tu peer «${name}» venció: sigue conectado a velocidad reducida (${speed}) hasta el ${formatDate(until)}, y después se deshabilitará. Renuévalo con /renovar para recuperar su velocidad al instante.`,
  paid: (plan: string, target: string, amount: string) =>
    `Pago acreditado: ${amount} USD, plan «${plan}» para «${target}». ¡Gracias!`,
  announcement: (company: string, text: string) => `${company}: ${text}`,
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
  { command: 'peers', description: 'Sus peers y su estado' },
  { command: 'config', description: 'Configuración y QR de un peer' },
  { command: 'renovar', description: 'Renovar un peer' },
  { command: 'estado', description: 'Estado del servicio (gestores)' },
  { command: 'ayuda', description: 'Ayuda y soporte' },
  { command: 'desvincular', description: 'Desvincular este chat' },
];

/** Errors of the linking and token routes. */
export const telegramMsg = {
  unavailable: 'Telegram no está configurado en este panel.',
  notLinked: 'Su cuenta no tiene Telegram vinculado.',
  managerRole: 'Solo los gestores propietario y de operaciones pueden vincular Telegram.',
  managerTotp: 'Active antes la verificación en dos pasos: es obligatoria para recibir alertas por Telegram.',
  tokenFormat: 'El token no tiene el formato de BotFather (123456789:ABC…).',
  tokenRefused: 'Telegram no acepta este token (getMe falló). Compruébelo en BotFather.',
};
