/** Telegram texts of the customers' Settings (its own chunk); the console's are in es.telegram.manager.ts. */
export const esTelegram = {
  customer: {
    title: 'Telegram',
    hintOff:
      'Vincula tu Telegram para recibir avisos (vencimientos, datos, pagos) y pedir tu configuración con /config.',
    hintOn: 'Tu cuenta está vinculada a un chat de Telegram.',
    unavailable: 'Telegram no está disponible en este panel.',
    link: 'Vincular Telegram',
    unlink: 'Desvincular',
    opened:
      'Se abrió Telegram: pulsa «Iniciar» en el chat del bot. El enlace vale 10 minutos y sirve una sola vez.',
    openAgain: 'Abrir Telegram',
    refresh: 'Ya lo vinculé',
    unlinked: 'Telegram desvinculado.',
    saved: 'Avisos guardados.',
    notificationsTitle: 'Avisos por Telegram',
    prefs: {
      reminders: 'Vencimientos (72 h y 24 h antes)',
      allowance: 'Datos (80 % y agotados)',
      payments: 'Pagos acreditados',
      announcements: 'Anuncios',
      concurrent: 'Uso simultáneo detectado',
    },
  },
};
