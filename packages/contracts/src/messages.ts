/**
 * Spanish texts that both the server and the SPA must agree on (validation and API errors).
 * The strings quoted by the product spec are used verbatim.
 */
/** A Spanish list: 'A', 'A y B', 'A, B y C'. */
export function listOf(items: string[]): string {
  return items.length <= 1
    ? (items[0] ?? '')
    : `${items.slice(0, -1).join(', ')} y ${items[items.length - 1]}`;
}

const usd = new Intl.NumberFormat('es-ES', { style: 'currency', currency: 'USD' });

/**
 * The one price format of the site, the console and the Telegram bot (issue 32): es-ES writes an
 * amount in dollars "3,00 US$" (decimal comma, the currency after the number, no grouping below
 * 10 000). Prices are in USD (spec). 3 → "3,00 US$"; "1234.5" → "1234,50 US$".
 */
export function formatUsd(amount: number | string): string {
  return usd.format(Number(amount));
}

export const msg = {
  captchaRequired: 'Por favor, complete el captcha',
  captchaInvalid: 'La verificación humana no es válida. Por favor, inténtalo de nuevo.',
  credentialsRequired: 'El usuario y contraseña son obligatorios',
  passwordsMismatch: 'Las contraseñas no coinciden',
  usernameTaken: 'El nombre de usuario ya está en uso',
  usernameFormat: 'El usuario debe tener entre 3 y 32 caracteres: letras, números, punto, guion o guion bajo',
  passwordTooShort: 'La contraseña debe tener al menos 8 caracteres',
  passwordTooLong: 'La contraseña no puede tener más de 128 caracteres',
  emailInvalid: 'El email no es válido',
  emailTaken: 'El email ya está en uso',
  emailNotAllowed: 'El registro con email no está habilitado',
  registrationClosed: 'El registro de nuevos usuarios está deshabilitado',
  registered: 'Usuario registrado correctamente',
  invalidCredentials: 'Usuario o contraseña incorrectos',
  accountDisabled: 'La cuenta está deshabilitada',
  tooManyAttempts: 'Demasiados intentos. Por favor, espera un momento e inténtalo de nuevo.',
  loginCaptchaRequired: 'Demasiados intentos fallidos. Completa el captcha para iniciar sesión.',
  loginSlowDown: (seconds: number) =>
    `Demasiados intentos fallidos con este usuario desde tu conexión. Espera ${seconds} s e inténtalo de nuevo.`,
  loginCaptchaHarder:
    'Siguen llegando intentos fallidos para este usuario: completa de nuevo el captcha (ahora tarda algo más).',
  recoveryCaptchaRequired: 'Demasiadas solicitudes para este usuario. Completa el captcha para continuar.',
  passwordCheckBusy: 'El servidor está ocupado comprobando contraseñas. Inténtalo de nuevo en unos segundos.',
  invalidRefresh: 'La sesión ha expirado. Por favor, inicia sesión de nuevo.',
  unauthorized: 'No autorizado. Por favor, inicia sesión.',
  forbidden: 'No tienes permiso para realizar esta acción',
  roleForbidden: 'Su rol ({role}) no tiene permiso para realizar esta acción',
  diskFull:
    'El servidor no tiene espacio en disco para guardar cambios: no se ha modificado nada. Inténtalo de nuevo más tarde.',
  maintenance: 'El servicio está en mantenimiento. Por favor, inténtalo más tarde.',
  notFound: 'Recurso no encontrado',
  invalidCharacters: 'La solicitud contiene caracteres no válidos',
  invalidRequest: 'La solicitud no es válida',
  urlTooLong: 'La dirección de la solicitud es demasiado larga',
  invalidJson: 'El cuerpo de la solicitud no es un JSON válido',
  bodyTooLarge: 'La solicitud es demasiado grande',
  internal: 'Ocurrió un error inesperado en el servidor',
  loggedOut: 'Sesión cerrada correctamente',
  peerNotFound: 'Peer no encontrado',
  peerInactiveDownload: 'No se puede descargar la configuración de un peer inactivo',
  peerNotInRoom:
    'Este peer no está en ninguna sala: la configuración solo para la Sala existe mientras el peer esté en una.',
  peerInactive: 'Peer no activo',
  peerBusy: 'El peer tiene una operación en curso. Espera a que termine.',
  serverNotFound: 'Servidor no encontrado',
  serverUnavailable: 'El servidor seleccionado no está disponible',
  sameServer: 'El peer ya está en ese servidor',
  noServers: 'No hay servidores disponibles temporalmente.',
  // A new_peer purchase refused before payment: no server is switched on with its agent answering.
  noServersOnline:
    'Ahora mismo ningún servidor puede recibir un peer nuevo. No se te ha cobrado nada: inténtalo de nuevo en unos minutos o renueva uno de tus peers.',
  mirrorRegenerated: 'Mirror link regenerado correctamente',
  peerRegenerated: 'Peer {name} regenerado correctamente',
  peerMoved: 'Peer {name} movido al servidor {server}',
  peerOpFailed: 'No se pudo aplicar el cambio del peer {name}. Inténtalo de nuevo.',
  agentOffline:
    'El servidor {server} está desconectado: el cambio del peer {name} se aplicará en cuanto vuelva a estar en línea.',
  /** One or several servers (issue 32: "Los servidores Miami 1 y Madrid 1 están desconectados"). */
  serversOffline: (servers: string[], name: string) =>
    servers.length === 1
      ? `El servidor ${servers[0]} está desconectado: el cambio del peer ${name} se aplicará en cuanto vuelva a estar en línea.`
      : `Los servidores ${listOf(servers)} están desconectados: el cambio del peer ${name} se aplicará en cuanto vuelvan a estar en línea.`,
  peerExpired:
    'El peer {name} ha vencido y se ha deshabilitado. Renuévalo para volver a conectarte: no tendrás que importar nada de nuevo.',
  peerManagerDisabled: 'Un administrador deshabilitó este peer. Contacta con soporte para reactivarlo.',
  /** Bulk actions (issue 34): one notice per customer, whatever the number of their peers. */
  bulkExtended: 'Tu servicio se amplió {days} días para compensar una interrupción.',
  bulkDisabled: 'Un administrador desactivó tus peers. Si no sabes por qué, contacta con soporte.',
  bulkEnabled: 'Un administrador volvió a activar tus peers.',
  peerManagerDisabledPush:
    'Un administrador deshabilitó el peer {name}. Contacta con soporte para reactivarlo.',
  purchaseManagerDisabled: 'Un administrador deshabilitó este peer: contacta con soporte antes de renovarlo',
  peerDataNotice:
    'El peer {name} ha usado el 80 % de los datos de su plan. Añade un plan para ampliarlos antes de que se agoten.',
  peerDataExhausted:
    'El peer {name} ha agotado los datos de su plan y se ha deshabilitado. Añade un plan para volver a conectarte: no tendrás que importar nada de nuevo.',
  /** Issue 35: held at the plan's reduced speed instead of cut ({speed}: '256 kbit/s'). */
  peerSpeedReducedData:
    'El peer {name} agotó los datos de su plan: sigue conectado a velocidad reducida ({speed}) hasta que añadas un plan, que le devuelve su velocidad al instante.',
  peerSpeedReducedExpired:
    'El plan del peer {name} venció: sigue conectado a velocidad reducida ({speed}) hasta el {until}, y después se deshabilitará. Renuévalo para recuperar su velocidad al instante.',
  planNotFound: 'Plan no encontrado',
  customerNotFound: 'Cliente no encontrado',
  peerNameRequired: 'El nombre del peer es obligatorio',
  peerNameTooLong: 'El nombre del peer no puede tener más de 40 caracteres',
  nameControlChars: 'El nombre no puede contener saltos de línea, tabuladores ni otros caracteres de control',
  peerNameTaken: 'Ya tienes un peer con ese nombre',
  poolExhausted: 'No quedan direcciones libres en la red',
  serverNameRequired: 'El nombre del servidor es obligatorio',
  endpointInvalid: 'El endpoint debe tener la forma host:puerto',
  emailBlank: 'El email no puede estar en blanco',
  emailSame: 'El nuevo email no puede ser igual q el anterior',
  emailDisabled: 'El uso de email no está habilitado',
  emailChanged: 'Email modificado correctamente. Te enviamos un enlace para verificarlo.',
  emailDeleted: 'Email eliminado correctamente',
  noEmail: 'La cuenta no tiene email',
  passwordsBlank: 'Las contraseñas no pueden estar en blanco.',
  passwordSame: 'La nueva contraseña no puede ser igual a la anterior.',
  passwordWrong: 'La contraseña actual no es correcta',
  emailPasswordRequired: 'Indica tu contraseña actual para cambiar el email',
  passwordChanged: 'Contraseña modificada correctamente',
  aliasBlank: 'El alias no puede estar en blanco',
  aliasFormat:
    'El alias debe tener entre 3 y 24 caracteres: letras, números, espacio, punto, guion o guion bajo',
  aliasTaken: 'El alias ya está en uso',
  aliasDisabled: 'Las salas no están habilitadas',
  aliasSet: 'Alias configurado correctamente',
  aliasChanged: 'Alias modificado correctamente',
  recoveryDisabled: 'La recuperación de contraseña no está habilitada',
  recoverySent:
    'Si la cuenta tiene un email verificado o un chat de Telegram vinculado, recibirás allí un enlace para restablecer la contraseña.',
  resetInvalid: 'El enlace no es válido o ha caducado',
  resetDone: 'Contraseña restablecida. Ya puedes iniciar sesión.',
  emailVerified: 'Email verificado correctamente',
  roomLimit: 'No se pueden crear más de 5 salas',
  roomNameRequired: 'Por favor, ingrese un nombre para la sala',
  roomNameTooLong: 'El nombre de la sala no puede tener más de 40 caracteres',
  roomNameTaken: 'Ya existe una sala con ese nombre',
  roomFieldsRequired: 'Por favor, complete todos los campos',
  roomPeerRequired: 'Por favor, selecciona un peer para añadir',
  roomNotFound: 'Sala no encontrada',
  roomJoinFailed: 'Nombre de sala o contraseña incorrectos',
  roomAliasRequired: 'Configura un alias en tu cuenta antes de usar las salas',
  roomPeerBusy: 'El peer ya está en una sala',
  roomFull: (max: number) =>
    `La sala está llena: admite hasta ${max} peers. Pídele al administrador de la sala que libere un lugar.`,
  roomPeerServer: 'El servidor del peer no permite salas. Cámbialo a uno que las permita.',
  roomPeerNotMember: 'El peer no está en esta sala',
  roomOwnerOnly: 'Solo el administrador de la sala puede hacer esto',
  roomCreated: 'Sala creada correctamente',
  roomJoined: 'Te has unido a la sala',
  roomLeft: 'Haz salido de una sala',
  roomPeerRemoved: 'Peer removido de la sala',
  roomPeerAdded: 'Peer añadido a la sala',
  roomDeleted: 'Party eliminada',
  roomPasswordRegenerated: 'Contraseña regenerada correctamente',
  purchasePeerRequired: 'Por favor, seleccione un peer existente o ingrese un nombre para el nuevo peer',
  purchaseManualPeer: 'Este peer se gestiona con pago manual: contacta con soporte para renovarlo',
  noGateway: 'No hay pasarelas de pago disponibles en este momento',
  gatewayFailed: 'La pasarela de pago no respondió. Por favor, inténtalo de nuevo más tarde.',
  invoiceNotFound: 'Factura no encontrada',
  // A payment the gateway reported but that does not settle this invoice: nothing is credited.
  paymentNotThisInvoice:
    'El pago no corresponde a esta factura, así que no se ha acreditado nada. Si pagaste, contacta con soporte indicando el número de factura.',
  paymentAmountLow:
    'El importe pagado es menor que el de la factura, así que no se ha acreditado nada. Contacta con soporte indicando el número de factura.',
  paymentAmountUnknown:
    'La pasarela no informó un importe válido para este pago, así que no se ha acreditado nada. Contacta con soporte indicando el número de factura.',
  paymentCurrency:
    'La pasarela informó el pago en otra moneda que la de la factura (USD), así que no se ha acreditado nada. Contacta con soporte indicando el número de factura.',
  paymentUnverifiable:
    'No pudimos comprobar el pago con la pasarela en este momento. No se ha acreditado nada todavía: si pagaste, se acreditará en cuanto la pasarela lo confirme.',
  paymentNotFound: 'No hay ninguna factura pendiente con ese pago.',
  gatewayUnavailable: 'La pasarela de pago elegida no está disponible. Elige otra.',
} as const;

/** Fills a message's `{placeholders}` ('Peer {name} regenerado…'); a missing value becomes ''. */
export const fill = (text: string, values: Record<string, string>) =>
  text.replace(/\{(\w+)\}/g, (_, k: string) => values[k] ?? '');
