/**
 * The audit log in words (issue 34): the Spanish sentence for each action the control plane records
 * (`server.create`, `invoice.refund`…), and the names of the fields its changes list. The server's
 * audit presenter (server/src/services/site/auditWords.ts) fills them with names; its test checks
 * that every action the code writes has a sentence here.
 */

/** What a sentence is built from: who, the target's name, and the facts the entry recorded. */
export interface AuditFacts {
  /** The manager's username, or "El sistema". */
  who: string;
  /** The target's name as it reads in a sentence ("Miami 1", "Móvil de juan"…). */
  target: string;
  /** The changed fields in words ("Salas: sí → no; Puerto: 51820 → 51821"), or ''. */
  changes: string;
  /** Amount with its currency ("3,00 US$"), when the entry recorded one. */
  amount?: string;
  /** Whose (customer's username), when the target belongs to one. */
  owner?: string;
  /** Another name the action concerns: a plan, a server moved to, a version… */
  other?: string;
  /** How many (bulk actions, peers affected). */
  count?: string;
  /** Days (a bulk extension). */
  days?: number;
}

const with_ = (changes: string) => (changes ? `: ${changes}` : '');
const of = (owner?: string) => (owner ? ` de ${owner}` : '');

/** One sentence per action; the key is the action as stored. */
export const AUDIT_SENTENCES: Record<string, (f: AuditFacts) => string> = {
  'server.create': (f) => `${f.who} añadió el servidor ${f.target}`,
  'server.update': (f) => `${f.who} editó el servidor ${f.target}${with_(f.changes)}`,
  'server.delete': (f) => `${f.who} eliminó el servidor ${f.target}`,
  'server.rotate_token': (f) => `${f.who} rotó el token del agente de ${f.target}`,
  'server.drain': (f) =>
    `${f.who} drenó el servidor ${f.target}${f.count ? ` (${f.count} peers a otros servidores)` : ''}`,
  'server.agent_upgrade': (f) =>
    `${f.who} pidió actualizar el agente de ${f.target}${f.other ? ` a la versión ${f.other}` : ''}`,
  'peer.create': (f) =>
    `${f.who} creó el peer ${f.target}${of(f.owner)}${f.other ? ` con el plan ${f.other}` : ''}`,
  'peer.grant': (f) => `${f.who} concedió el plan ${f.other ?? ''} al peer ${f.target}${of(f.owner)}`,
  'peer.change_server': (f) =>
    `${f.who} movió el peer ${f.target}${of(f.owner)}${f.other ? ` al servidor ${f.other}` : ''}`,
  'peer.disable': (f) => `${f.who} desactivó el peer ${f.target}${of(f.owner)}`,
  'peer.enable': (f) => `${f.who} activó el peer ${f.target}${of(f.owner)}`,
  'peer.update': (f) => `${f.who} modificó el peer ${f.target}${of(f.owner)}${with_(f.changes)}`,
  'customer.disable': (f) =>
    `${f.who} deshabilitó la cuenta de ${f.target}${f.count ? ` (${f.count} peers desactivados)` : ''}`,
  'customer.enable': (f) => `${f.who} habilitó la cuenta de ${f.target}`,
  'customer.password_reset': (f) => `${f.who} envió a ${f.target} un enlace para restablecer la contraseña`,
  'manager.create': (f) => `${f.who} creó el gestor ${f.target}${f.other ? ` (${f.other})` : ''}`,
  'manager.update': (f) => `${f.who} modificó al gestor ${f.target}${with_(f.changes)}`,
  'manager.delete': (f) => `${f.who} eliminó al gestor ${f.target}`,
  'manager.totp_enable': (f) => `${f.who} activó su verificación en dos pasos`,
  'manager.totp_disable': (f) => `${f.who} desactivó su verificación en dos pasos`,
  'manager.totp_reset': (f) => `${f.who} restableció la verificación en dos pasos de ${f.target}`,
  'plan.create': (f) => `${f.who} creó el plan ${f.target}`,
  'plan.update': (f) => `${f.who} editó el plan ${f.target}${with_(f.changes)}`,
  'plan.hide': (f) => `${f.who} ocultó el plan ${f.target}`,
  'plan.show': (f) => `${f.who} volvió a mostrar el plan ${f.target}`,
  'plan.delete': (f) => `${f.who} eliminó el plan ${f.target}`,
  'invoice.mark_paid': (f) =>
    `${f.who} marcó como pagada la factura ${f.target}${of(f.owner)}${f.amount ? ` (${f.amount})` : ''}`,
  'invoice.refund': (f) => `${f.who} reembolsó ${f.amount ?? ''} de la factura ${f.target}${of(f.owner)}`,
  'payment.resolve': (f) =>
    `${f.who} resolvió el pago sin factura ${f.target}${f.amount ? ` (${f.amount})` : ''}`,
  'party.delete': (f) => `${f.who} eliminó la sala ${f.target}${of(f.owner)}`,
  'announcement.create': (f) =>
    `${f.who} publicó el anuncio «${f.target}»${f.other ? ' y lo envió por Telegram' : ''}`,
  'announcement.withdraw': (f) => `${f.who} retiró el anuncio «${f.target}»`,
  'client_version.create': (f) => `${f.who} publicó la versión ${f.target} de la aplicación`,
  'settings.update': (f) => `${f.who} cambió los ajustes${with_(f.changes)}`,
  'settings.gateways': (f) => `${f.who} cambió las pasarelas de pago${with_(f.changes)}`,
  'settings.concurrent_use': (f) => `${f.who} cambió la política de uso simultáneo${with_(f.changes)}`,
  'settings.links': (f) => `${f.who} cambió los enlaces del sitio${with_(f.changes)}`,
  'settings.telegram': (f) => `${f.who} cambió el bot de Telegram${with_(f.changes)}`,
  'bulk.extend': (f) =>
    `${f.who} amplió en ${f.days ?? 0} días el vencimiento de ${f.count ?? '0'} peers${f.target ? ` (${f.target})` : ''}`,
  'bulk.disable': (f) => `${f.who} desactivó ${f.count ?? '0'} peers${f.target ? ` (${f.target})` : ''}`,
  'bulk.enable': (f) => `${f.who} activó ${f.count ?? '0'} peers${f.target ? ` (${f.target})` : ''}`,
  'bulk.move': (f) =>
    `${f.who} movió ${f.count ?? '0'} peers${f.other ? ` al servidor ${f.other}` : ''}${f.target ? ` (${f.target})` : ''}`,
};

/** An action nobody wrote a sentence for yet: still a sentence, naming the action. */
export const auditUnknown = (who: string, action: string) => `${who} realizó la acción ${action}`;
export const AUDIT_SYSTEM = 'El sistema';

/** The fields the audit's changes name, as an operator reads them. */
export const AUDIT_FIELDS: Record<string, string> = {
  // servers
  name: 'Nombre',
  host: 'Host',
  port: 'Puerto',
  endpoint: 'Endpoint',
  ubication: 'Ubicación',
  active: 'Activo',
  allow_partys: 'Salas',
  allow_discovery: 'Descubrimiento de juegos',
  dns: 'DNS',
  mtu: 'MTU',
  interface_name: 'Interfaz',
  public_key: 'Clave pública',
  agent_token: 'Token del agente',
  agent_version: 'Versión del agente',
  // peers
  enabled: 'Activo',
  expires_at: 'Vence',
  server: 'Servidor',
  owner: 'Cliente',
  // plans
  description: 'Descripción',
  price: 'Precio',
  validity_days: 'Días de validez',
  hidden: 'Oculto',
  data_gb: 'Datos (GB)',
  sort_order: 'Orden',
  // managers, customers
  username: 'Usuario',
  role: 'Rol',
  disabled: 'Deshabilitado',
  totp_enabled: 'Verificación en dos pasos',
  password: 'Contraseña',
  // invoices
  status: 'Estado',
  marked_by: 'Marcada por',
  mark_reason: 'Motivo',
  // rooms, content
  members: 'Miembros',
  message: 'Mensaje',
  version: 'Versión',
  url: 'Enlace',
  // settings
  maintenance: 'Mantenimiento',
  allow_registration: 'Registro de clientes',
  allow_password_recovery: 'Recuperación de contraseña',
  show_landing: 'Página de inicio pública',
  allow_payments_qvapay: 'Pagos con QvaPay',
  allow_payments_remesita: 'Pagos con Remesita',
  allow_email: 'Correo electrónico',
  room_member_limit: 'Miembros por sala',
  support_url: 'Enlace de soporte',
  android_app_url: 'Enlace de la app de Android',
  qvapay_credentials: 'Credenciales de QvaPay',
  remesita_credentials: 'Credenciales de Remesita',
  bot_token: 'Token del bot',
  action: 'Acción',
  regenerate_after: 'Regenerar tras (alternancias)',
};

/** Values that are codes: their words. */
export const AUDIT_VALUES: Record<string, string> = {
  paid: 'pagada',
  refunded: 'reembolsada',
  pending: 'pendiente',
  cancelled: 'cancelada',
  failed: 'fallida',
  notify: 'avisar',
  regenerate: 'regenerar',
  owner: 'Propietario',
  operations: 'Operaciones',
  support: 'Soporte',
  finance: 'Finanzas',
};

export const AUDIT_WORDS = {
  yes: 'sí',
  no: 'no',
  none: 'sin valor',
  never: 'sin vencimiento',
};
