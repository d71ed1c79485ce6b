/** Telegram texts (customer Settings, manager Seguridad and Ajustes); loaded with those pieces only. */
export const esTelegram = {
  customer: {
    title: 'Telegram',
    hintOff:
      'Vincule su Telegram para recibir avisos (vencimientos, datos, pagos) y pedir su configuración con /config.',
    hintOn: 'Su cuenta está vinculada a un chat de Telegram.',
    unavailable: 'Telegram no está disponible en este panel.',
    link: 'Vincular Telegram',
    unlink: 'Desvincular',
    opened:
      'Se abrió Telegram: pulse «Iniciar» en el chat del bot. El enlace vale 10 minutos y sirve una sola vez.',
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
  manager: {
    title: 'Alertas por Telegram',
    hint: 'Agentes caídos o atrasados, facturas pagadas sin entregar, pagos sin factura y la base de datos sin responder. Para propietarios y operaciones con la verificación en dos pasos activada.',
    linked: 'Este usuario recibe las alertas en Telegram.',
    notLinked: 'No vinculado.',
    needsTotp: 'Active antes la verificación en dos pasos (arriba).',
  },
  bot: {
    title: 'Bot de Telegram',
    subtitle:
      'El token que BotFather le dio a su bot. Se guarda cifrado y nunca se vuelve a mostrar; el guardado aquí manda sobre TELEGRAM_BOT_TOKEN.',
    token: 'Token del bot',
    tokenHint: '123456789:ABC… (BotFather → /mybots → API Token)',
    save: 'Guardar token',
    forget: 'Olvidar el token guardado',
    saved: 'Token guardado: el bot arranca en unos segundos.',
    forgotten: 'Token olvidado.',
    required: 'Escriba el token.',
    source: {
      console: 'Token guardado en Ajustes',
      env: 'Token de TELEGRAM_BOT_TOKEN',
      none: 'Sin token: el bot está apagado',
    },
    bot: (name: string) => `Bot activo: @${name}`,
    webhook: 'Recibe por webhook (PUBLIC_URL/api/telegram/webhook).',
    polling: 'Recibe por sondeo (long polling): no necesita dirección pública.',
  },
  content: {
    sendTelegram: 'Enviar por Telegram',
    sendTelegramHint: 'También a los clientes con Telegram vinculado que tengan los anuncios activados.',
  },
};
