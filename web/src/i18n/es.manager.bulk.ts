/** Texts of the console's bulk actions on peers (issue 34), in the console's "usted". */
const number = new Intl.NumberFormat('es-ES');
const n = (v: number) => number.format(v);
const peers = (v: number) => `${n(v)} ${v === 1 ? 'peer' : 'peers'}`;

export const esBulk = {
  title: 'Acciones masivas',
  subtitle:
    'Amplíe, desactive, active o mueva juntos los peers de un filtro: tras un corte, compense a los clientes en un paso. Cada acción queda como una sola entrada de la auditoría y cada cliente recibe un solo aviso.',
  open: 'Acciones masivas',
  filterTitle: 'Qué peers',
  actionTitle: 'Qué hacer',
  server: 'Servidor',
  plan: 'Plan',
  state: 'Estado',
  all: 'Todos',
  states: { active: 'Activos', disabled: 'Desactivados', expired: 'Vencidos' },
  operation: 'Acción',
  operations: {
    extend: 'Ampliar el vencimiento',
    disable: 'Desactivar',
    enable: 'Activar',
    move: 'Mover a otro servidor',
  },
  days: 'Días que se añaden',
  daysHint: 'De 1 a 365. Un peer vencido que vuelva a estar en su periodo se reactiva.',
  target: 'Servidor de destino',
  chooseTarget: 'Elija un servidor',
  reason: 'Motivo (opcional)',
  reasonPlaceholder: 'Corte de 6 h en Miami',
  previewTitle: 'Vista previa',
  counting: 'Contando…',
  /** The preview: how many peers the action would change. */
  willChange: (count: number) =>
    count === 0 ? 'Ningún peer cambiaría con este filtro.' : `Cambiarán ${peers(count)}.`,
  enableNote: 'Los peers vencidos no se activan: amplíe su vencimiento.',
  moveNote:
    'Los clientes recibirán su configuración nueva. Los peers en una Sala solo van a un servidor con Salas.',
  reauthNote: 'Por su tamaño se le pedirá su contraseña para confirmar.',
  apply: 'Aplicar…',
  confirmTitle: 'Confirmar la acción masiva',
  /** The red confirm button names the count (and the target). */
  confirm: {
    extend: (count: number, days: number) =>
      `Ampliar ${days} ${days === 1 ? 'día' : 'días'} a ${peers(count)}`,
    disable: (count: number) => `Desactivar ${peers(count)}`,
    enable: (count: number) => `Activar ${peers(count)}`,
    move: (count: number, to: string) => `Mover ${peers(count)} a ${to}`,
  },
  confirmBody: (filter: string) =>
    `Filtro: ${filter}. Los clientes afectados reciben un aviso cada uno (en el panel, por correo y por Telegram si lo tienen vinculado).`,
  done: (count: number, customers: number) =>
    `Hecho: ${peers(count)} ${count === 1 ? 'cambiado' : 'cambiados'}; ${n(customers)} ${customers === 1 ? 'cliente avisado' : 'clientes avisados'}.`,
  nothing: 'No hay peers que cambiar con este filtro.',
};
