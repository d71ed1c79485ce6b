/** Telegram texts of the console (Seguridad, Ajustes, Contenido). */
export const esTelegramManager = {
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
