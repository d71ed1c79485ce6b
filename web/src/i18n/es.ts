/**
 * Every Spanish text of the SPA, in one place, so texts can be reviewed against the product spec and
 * another language can be added later. Strings quoted by the spec are used verbatim; texts that the
 * server and the SPA must agree on live in `@vpn/contracts` (`msg`) and are re-exported here.
 * Over 400 lines by design: it is every customer-facing text (the console's are in es.manager*.ts).
 */
import { listOf, msg } from '@vpn/contracts/messages';
import { formatUsd } from '../lib/money';

/** Spanish plural helper: `plural(2, 'mes', 'meses')` → '2 meses'. */
export function plural(n: number, one: string, many: string): string {
  return `${n} ${n === 1 ? one : many}`;
}

export const es = {
  appName: 'VPN Service',

  titles: {
    welcome: 'Bienvenido',
    plans: 'Planes',
    login: 'Login',
    register: 'Registro',
    recovery: 'Recuperar Contraseña',
    resetPassword: 'Restablecer Contraseña',
    verifyEmail: 'Verificar Email',
    maintenance: 'Servicio en Mantenimiento',
    dashboard: 'Dashboard',
    notFound: 'Página no encontrada',
    manager: 'Panel de administración',
  },

  common: {
    loading: 'Cargando información...',
    verifyingAccess: 'Verificando acceso',
    retry: 'Reintentar',
    update: 'Actualizar',
    cancel: 'Cancelar',
    close: 'Cerrar',
    backToHome: 'Volver al inicio',
    backToLogin: 'Volver al inicio de sesión',
    loadError: 'Hubo un error al intentar cargar los datos.',
    loadErrorTitle: 'No se pudo cargar la información',
    openInNewTab: '(se abre en una pestaña nueva)',
    requestError: 'Hubo un error al realizar la solicitud',
  },

  /** The shared list (components/DataTable.tsx). */
  table: {
    pagination: 'Paginación',
    previous: 'Página anterior',
    next: 'Página siguiente',
    pageOf: (page: number, pages: number) => `Página ${page} de ${pages}`,
    range: (from: number, to: number, count: number) =>
      `${from.toLocaleString('es-ES')}–${to.toLocaleString('es-ES')} de ${count.toLocaleString('es-ES')}`,
  },

  nav: {
    home: 'Inicio',
    plans: 'Planes',
    login: 'Iniciar sesión',
    register: 'Registrarse',
    mainNavigation: 'Navegación principal',
  },

  footer: {
    rights: (company: string, year: number | string) =>
      `© ${year} ${company}. Todos los derechos reservados.`,
    wireguardNote: 'WireGuard es una marca registrada de Jason A. Donenfeld.',
    support: 'Soporte',
  },

  landing: {
    badge: 'VPN compatible con WireGuard',
    heroTitle: 'Navega seguro, privado y rápido desde Cuba',
    heroText:
      'Protege tu conexión con una VPN moderna basada en WireGuard, con planes flexibles y métodos de pago adaptados a quienes viven en Cuba.',
    seePlans: 'Ver planes',
    createAccount: 'Crear cuenta',
    haveAccount: 'Ya tengo cuenta',
    featuresTitle: 'Todo lo que necesitas de una VPN',
    featuresText: 'Diseñada para las conexiones reales de Cuba: datos móviles, Wi‑Fi públicas y Nauta.',
    features: {
      security: {
        title: 'Seguridad',
        text: 'Cifrado moderno de WireGuard (ChaCha20 y Curve25519) en cada conexión, también en redes Wi‑Fi públicas.',
      },
      privacy: {
        title: 'Privacidad',
        text: 'Tu tráfico viaja cifrado hasta nuestros servidores: ni tu proveedor ni la red local pueden ver lo que haces.',
      },
      speed: {
        title: 'Velocidad',
        text: 'WireGuard es ligero y rápido: conecta en un instante y consume menos batería y datos que otras VPN.',
      },
    },
    paymentsTitle: 'Pagos pensados para Cuba',
    /** The methods the operator enabled, named (issue 32); none enabled: the general promise. */
    paymentsText: (methods: string[]) =>
      methods.length > 0
        ? `Sin tarjetas internacionales: paga tu plan con ${listOf(methods)}, pensados para Cuba y para quienes te ayudan desde el exterior.`
        : 'Sin tarjetas internacionales: paga tu plan con métodos de pago adaptados a Cuba y a quienes te ayudan desde el exterior.',
    plansTitle: 'Planes flexibles',
    plansText:
      'Elige la duración que mejor se adapte a ti y renueva cuando lo necesites. Cada plan activa un peer: un dispositivo conectado a la vez.',
    plansBullets: [
      'Planes por meses o por años',
      'Renueva un peer existente o crea uno nuevo',
      'Cambia de servidor cuando quieras desde tu panel',
    ],
    plansCta: 'Ver todos los planes',
    wireguardTitle: 'Compatible con WireGuard',
    wireguardText:
      'Usa las aplicaciones oficiales de WireGuard en Android, iOS, Windows, macOS y Linux, o tu router MikroTik con RouterOS 7.1 o superior. Descarga el archivo de configuración desde tu panel e impórtalo en segundos.',
    wireguardPlatforms: ['Android', 'iOS', 'Windows', 'macOS', 'Linux', 'MikroTik'],
    wireguardDownload: 'Descargar cliente WireGuard',
    ctaTitle: '¿Listo para conectarte?',
    ctaText: 'Crea tu cuenta en minutos y elige el plan que necesitas.',
  },

  plans: {
    title: 'Planes',
    subtitle: 'Elige el plan que mejor se adapte a tus necesidades.',
    loading: 'Cargando planes...',
    loadError: 'Hubo un problema al cargar los planes. Por favor, intente de nuevo más tarde.',
    emptyTitle: 'Planes Temporalmente No Disponibles',
    emptyText:
      'En este momento no hay planes a la venta. Vuelve a intentarlo en unos minutos o contacta con soporte.',
    acquire: 'Adquirir',
    select: 'Seleccionar Plan',
    validity: 'Vigencia',
    data: (size: string) => `${size} de datos`,
    unlimitedData: 'Datos ilimitados',
    listLabel: 'Planes disponibles',
    registerCta: 'Registrarse',
    registerPrompt: '¿Aún no tienes cuenta? Regístrate para adquirir un plan.',
    gatewayTitle: 'Paga con QvaPay',
    gatewayText: (methods: string[]) =>
      `Aceptamos pagos con ${listOf(methods)}: rápido, seguro y sin necesidad de tarjetas internacionales.`,
    /** The payment methods' names, as their own brands write them. */
    methods: { qvapay: 'QvaPay', remesita: 'Remesita' },
    price: (price: number) => formatUsd(price),
    lessThanADay: 'Menos de 1 día',
    noPlansDashboard: 'No hay planes disponibles en este momento.',
    contactSupport: 'Contactar con Soporte',
  },

  /** Plans sold by speed and "Velocidad reducida" (issue 35): web/src/lib/speed.ts builds the texts. */
  speed: {
    label: 'Velocidad',
    unlimited: 'Velocidad sin límite',
    upTo: (speed: string) => `Hasta ${speed}`,
    split: (down: string, up: string) => `Hasta ${down} de bajada y ${up} de subida`,
    downOnly: (down: string) => `Hasta ${down} de bajada, subida sin límite`,
    upOnly: (up: string) => `Hasta ${up} de subida, bajada sin límite`,
    mbit: (value: string) => `${value} Mbit/s`,
    kbit: (value: string) => `${value} kbit/s`,
    reduced: 'Velocidad reducida',
    reducedData: (speed: string) =>
      `Agotaste los datos de tu plan: sigues conectado a ${speed} hasta que añadas un plan, que te devuelve tu velocidad al instante.`,
    reducedExpired: (speed: string, until: string) =>
      `Tu plan venció: sigues conectado a ${speed} hasta el ${until}; después se deshabilitará. Renuévalo para recuperar tu velocidad al instante.`,
  },
  validity: {
    year: (n: number) => plural(n, 'año', 'años'),
    month: (n: number) => plural(n, 'mes', 'meses'),
    day: (n: number) => plural(n, 'día', 'días'),
    and: 'y',
  },

  auth: {
    username: 'Usuario',
    password: 'Contraseña',
    confirmPassword: 'Confirmar contraseña',
    email: 'Email',
    emailOptional: 'Email (opcional)',
    emailHint: 'Lo usaremos para recuperar tu contraseña. Te enviaremos un email de verificación.',
    showPassword: 'Mostrar contraseña',
    hidePassword: 'Ocultar contraseña',
    remember: 'Recordarme',
    processing: 'Procesando...',
  },

  login: {
    title: 'Iniciar sesión',
    subtitle: 'Accede a tu panel para gestionar tus peers y planes.',
    submit: 'Iniciar sesión',
    forgot: '¿Olvidaste tu contraseña?',
    noAccount: '¿No tienes cuenta?',
    registerLink: 'Regístrate',
    backToLanding: 'Volver al inicio',
    error: 'Error al iniciar sesión. Por favor, intente de nuevo.',
  },

  register: {
    title: 'Crear cuenta',
    subtitle: 'Regístrate para adquirir planes y gestionar tus peers.',
    submit: 'Registrarse',
    backToLogin: 'Volver al inicio de sesión',
    successTitle: 'Registro Completado',
    successText: 'Tu cuenta ha sido creada correctamente. Ya puedes entrar a tu panel.',
    successEmail: (email: string) =>
      `Hemos enviado un email de verificación a ${email}. Revisa tu bandeja de entrada para confirmar tu dirección.`,
    goToLogin: 'Ir a iniciar sesión',
    enterDashboard: 'Entrar a mi panel',
    rules: {
      username: 'Usuario de 3 a 32 caracteres: letras, números, punto, guion o guion bajo',
      length: (min: number) => `Contraseña de al menos ${min} caracteres`,
      match: 'Las dos contraseñas coinciden',
    },
    ruleMet: '(cumplido)',
    ruleUnmet: '(pendiente)',
    error: 'Hubo un error al intentar registrar el usuario.',
    errorNetwork: 'Ocurrió un error durante el registro. Por favor, intente de nuevo.',
    captchaLabel: 'Verificación humana',
  },

  captcha: {
    altchaStrings: {
      label: 'No soy un robot',
      verifying: 'Verificando...',
      verified: 'Verificado',
      error: 'Error de verificación. Inténtalo de nuevo.',
      expired: 'Verificación expirada. Inténtalo de nuevo.',
      footer: '',
      loading: 'Cargando...',
      reload: 'Recargar',
      verify: 'Verificar',
      verificationRequired: '¡Se requiere verificación!',
      waitAlert: 'Verificando... por favor, espera.',
      ariaLinkLabel: 'Visitar Altcha.org',
      enterCode: 'Escribe el código',
      enterCodeAria: 'Escribe el código que escuchas. Pulsa Espacio para reproducir el audio.',
      getAudioChallenge: 'Obtener un desafío de audio',
    },
    loadError: 'No se pudo cargar la verificación humana. Recarga la página e inténtalo de nuevo.',
  },

  recovery: {
    title: 'Recuperar Contraseña',
    subtitle:
      'Escribe tu nombre de usuario y te enviaremos un enlace a tu email verificado o a tu chat de Telegram vinculado.',
    submit: 'Enviar',
    sentTitle: 'Email enviado',
    sentText: msg.recoverySent,
    sentHint:
      'Si es por email, revisa también la carpeta de correo no deseado. El enlace vale 1 hora y sirve una sola vez.',
    tryAgain: 'Intentar de nuevo',
    backToLogin: 'Volver al inicio de sesión',
  },

  resetPassword: {
    title: 'Restablecer Contraseña',
    subtitle: 'Elige una contraseña nueva para tu cuenta.',
    newPassword: 'Nueva contraseña',
    confirmPassword: 'Confirmar nueva contraseña',
    submit: 'Restablecer contraseña',
    passwordsMismatch: 'Las contraseñas no coinciden.',
    doneTitle: 'Contraseña restablecida',
    invalidTitle: 'Enlace no válido',
    requestNew: 'Solicitar un enlace nuevo',
    goToLogin: 'Ir a iniciar sesión',
    backToLogin: 'Volver al inicio de sesión',
  },

  verifyEmail: {
    title: 'Verificar Email',
    verifying: 'Verificando email...',
    doneTitle: 'Email verificado',
    failedTitle: 'No se pudo verificar el email',
    goToDashboard: 'Ir al panel',
    goToSettings: 'Ir a Configuración de cuenta',
    goToLogin: 'Ir a iniciar sesión',
  },

  maintenance: {
    title: 'Servicio en Mantenimiento',
    text: 'Estamos realizando tareas de mantenimiento para mejorar el servicio. Por favor, vuelve a intentarlo en unos minutos.',
    polling: 'Comprobaremos automáticamente cada 30 segundos si el servicio vuelve a estar disponible.',
    back: 'Volver al inicio',
  },

  notFound: {
    title: 'Página no encontrada',
    text: 'La página que buscas no existe o ha sido movida.',
    back: 'Volver al inicio de sesión',
  },

  errorFallback: {
    title: 'Ha ocurrido un error inesperado',
    text: 'Lo sentimos, algo salió mal. Intenta recargar la página o vuelve al inicio.',
    retry: 'Reintentar',
    home: 'Volver al inicio',
    details: 'Detalles técnicos',
  },

  session: {
    logoutError: 'Hubo un error al intentar cerrar la sesión.',
  },

  dashboard: {
    greeting: (username: string) => `Hola, ${username}`,
    nav: {
      home: 'Home',
      peers: 'Peers',
      rooms: 'Salas',
      plans: 'Planes',
      help: 'Ayuda',
    },
    navLabel: 'Navegación del panel',
    openMenu: 'Abrir menú',
    closeMenu: 'Cerrar menú',
    accountSettings: 'Configuración de cuenta',
    logout: 'Cerrar sesión',
    home: {
      welcomeTitle: (company: string) => `Bienvenido a ${company}`,
      welcomeText:
        'Desde este panel gestionas tus peers, tus planes y, si está habilitado, tus salas privadas.',
      features: {
        protection: {
          title: 'Protección avanzada',
          text: 'Tu tráfico viaja cifrado con WireGuard, también en redes públicas.',
        },
        speed: {
          title: 'Alta velocidad',
          text: 'Conexiones ligeras y rápidas con servidores optimizados.',
        },
        rooms: {
          title: 'Salas privadas',
          text: 'Une tus peers con los de otros usuarios en una red privada para jugar en LAN o acceder a tus equipos.',
        },
      },
      announcementsTitle: 'Anuncios',
      announcementsLabel: 'Anuncios del servicio',
      publishedOn: 'Publicado el',
      supportTitle: 'Centro de soporte',
      supportText: '¿Tienes dudas o problemas con tu conexión? Nuestro equipo te ayuda.',
      support: 'Contactar con Soporte',
      error: 'Hubo un error al cargar los datos.',
      expiring: {
        title: 'Peers a punto de vencer',
        text: 'Renuévalos para no quedarte sin conexión. No tendrás que importar nada de nuevo: la configuración y el mirror link siguen siendo los mismos.',
        expires: (date: string) => `vence el ${date}`,
        expired: (date: string) => `venció el ${date}`,
        renew: 'Renovar',
        manual: 'Pago manual: contacta con soporte para renovarlo.',
        managerDisabled: 'Deshabilitado por un administrador: contacta con soporte.',
      },
      data: {
        title: 'Datos casi agotados',
        text: 'Añade un plan para ampliarlos: empieza un periodo nuevo con los datos del plan, sin importar nada de nuevo.',
        used: (percent: number, total: string) => `ha usado el ${percent} % de sus ${total}`,
        exhausted: (total: string) => `agotó sus ${total}: deshabilitado hasta que añadas un plan`,
        add: 'Añadir plan',
      },
      version: {
        title: (version: string) => `Nueva versión de la app cliente: ${version}`,
        text: 'Descárgala para tener las últimas mejoras y mantener tus peers actualizados con su mirror link.',
        download: 'Descargar',
        dismiss: 'Ocultar',
        dismissLabel: (version: string) => `Ocultar el aviso de la versión ${version}`,
      },
    },
    peers: {
      title: 'Peers Wireguard',
      subtitle: 'Tus dispositivos conectados a la VPN.',
      emptyTitle: 'Aún no tienes peers.',
      emptyText:
        'Para tener un peer necesitas adquirir un plan: cada plan que compras crea un peer, un dispositivo que se conecta a la VPN.',
      emptyCta: 'Ver planes',
      listLabel: 'Tus peers',
      columns: {
        name: 'Peer',
        state: 'Estado',
        server: 'Servidor',
        serverState: 'Estado del servidor',
        location: 'Ubicación',
        rooms: 'Salas',
        mirror: 'Mirror link',
        install: 'Instalar',
        actions: 'Acciones',
      },
      active: 'Activo',
      disabled: 'Deshabilitado',
      managerDisabled: 'Por un administrador',
      managerDisabledHelp: 'Un administrador deshabilitó este peer. Contacta con soporte para reactivarlo.',
      yes: 'Sí',
      no: 'No',
      inRoom: (room: string) => `En la sala ${room}`,
      busy: {
        regenerate: 'Regenerando peer...',
        change_server: 'Cambiando de servidor...',
      },
      copy: 'Copiar',
      copied: 'Copiado',
      copyLabel: (name: string) => `Copiar el mirror link del peer ${name}`,
      copiedLabel: (name: string) => `Mirror link del peer ${name} copiado`,
      copiedToast: 'Mirror link copiado al portapapeles',
      copyError: 'No se pudo copiar el mirror link. Cópialo manualmente desde los detalles del peer.',
      download: 'Descargar',
      downloadLabel: (name: string) => `Descargar la configuración del peer ${name}`,
      inactiveHint: 'El peer está deshabilitado: renueva su plan para volver a usarlo.',
      menuLabel: (name: string) => `Acciones del peer ${name}`,
      menu: {
        regenerateMirror: 'Regenerar Mirror Link',
        regenerate: 'Regenerar Peer',
        changeServer: 'Cambiar Servidor',
        qr: 'Código QR',
        mikrotik: 'Script MikroTik',
        roomConfig: 'Configuración solo para la Sala',
        details: 'Detalles',
      },
      concurrent: {
        badge: 'En varios dispositivos',
        title: (name: string) => `El peer ${name} parece estar en uso en más de un dispositivo`,
        text: 'Cuando la misma configuración funciona en dos dispositivos a la vez, el servidor solo puede hablar con uno de ellos: las dos conexiones se vuelven inestables, se cortan y vuelven sin aviso. Cada dispositivo necesita su propio peer.',
        since: (date: string) => `Detectado el ${date}.`,
        buy: 'Comprar un peer nuevo',
        regenerate: 'Regenerar este peer',
        regenerateHint:
          'Regenerarlo crea claves nuevas: solo funcionará en el dispositivo donde vuelvas a importarlo.',
      },
      confirmMirror: {
        title: 'Regenerar Mirror Link',
        text: (name: string) =>
          `¿Regenerar el mirror link del peer ${name}? El enlace actual dejará de funcionar al instante: las aplicaciones que lo usen tendrán que configurarse con el nuevo. La desactivación en la aplicación cliente puede tardar unos minutos.`,
        confirm: 'Regenerar',
      },
      confirmRegenerate: {
        title: 'Regenerar Peer',
        text: (name: string) =>
          `¿Regenerar el peer ${name}? Se crearán claves nuevas y la configuración actual dejará de funcionar: tendrás que descargarla de nuevo o actualizarla con el mirror link.`,
        confirm: 'Regenerar',
      },
      confirmChange: {
        title: 'Cambiar Servidor',
        text: (name: string, server: string) =>
          `¿Mover el peer ${name} al servidor ${server}? Después tendrás que descargar de nuevo la configuración o actualizarla con el mirror link.`,
        inactiveNote:
          'Este servidor está inactivo en este momento: el cambio se aplicará en cuanto vuelva a estar en línea.',
        confirm: 'Cambiar',
      },
      changeServer: {
        title: (name: string) => `Cambiar el servidor del peer ${name}`,
        current: 'Servidor actual',
        back: 'Volver a Peers',
        select: 'Seleccionar',
        selectLabel: (server: string) => `Seleccionar el servidor ${server}`,
        listLabel: 'Servidores disponibles',
        address: 'Dirección',
        loadError: 'Hubo un error al intentar obtener los servidores disponibles.',
        empty: 'No hay servidores disponibles temporalmente.',
        gone: 'El peer ya no está disponible.',
      },
      details: {
        title: (name: string) => `Detalles del peer ${name}`,
        description: 'Datos del peer y su historial de planes.',
        created: 'Fecha de creación',
        expires: 'Fecha de expiración',
        undetermined: 'Indeterminado',
        address: 'IP privada',
        server: 'Servidor',
        room: 'Sala',
        noRoom: 'Ninguna',
        mirror: 'Mirror link',
        history: 'Historial de planes',
        plan: 'Plan',
        price: 'Precio',
        date: 'Fecha',
        noHistory: 'Este peer no tiene planes registrados.',
        refunded: 'Reembolsado',
        refundedOn: (date: string) => `Reembolsado el ${date}: su periodo se retiró del peer`,
        usage: 'Uso',
        connection: 'Conexión',
        online: 'En línea',
        offline: 'Desconectado',
        lastHandshake: 'Último handshake',
        never: 'Nunca',
        period: (since: string) => `Tráfico del periodo actual (desde ${since})`,
        upload: 'Subida',
        download: 'Bajada',
        chartTitle: 'Tráfico de los últimos 30 días',
        chartLabel: (total: string) => `Gráfico del tráfico diario de los últimos 30 días: ${total} en total`,
        dayLabel: (day: string, down: string, up: string) => `${day}: ${down} de bajada, ${up} de subida`,
        dataTitle: 'Datos del plan',
        dataUsed: (used: string, total: string, percent: number) => `${used} de ${total} (${percent} %)`,
        dataExhausted: 'Datos agotados: el peer está deshabilitado hasta que añadas un plan.',
        usageLoading: 'Cargando el uso...',
        usageError: 'No se pudo cargar el uso de este peer.',
      },
      qr: {
        title: (name: string) => `Código QR del peer ${name}`,
        description:
          'Escanéalo con la aplicación WireGuard del móvil: «Añadir túnel» → «Escanear desde código QR».',
        warning:
          'Este código contiene la clave privada del peer: no lo compartas ni lo muestres en público. Quien lo escanee podrá usar tu peer.',
        imageLabel: (name: string) => `Código QR de la configuración del peer ${name}`,
        loading: 'Generando código QR...',
        error: (name: string) => `Hubo un error al intentar generar el código QR del peer ${name}.`,
      },
      /** The room-only tunnel (`?scope=room`), offered to a peer in a room. */
      roomConfig: {
        title: (name: string) => `Configuración solo para la Sala: ${name}`,
        explanation:
          'A diferencia de la configuración normal, que lleva todo tu tráfico por la VPN, esta solo lleva el de la Sala (tus compañeros y la búsqueda de partidas): todo lo demás sigue por tu propia conexión.',
        importHint:
          'Impórtala en la aplicación WireGuard como un túnel aparte y activa solo uno de los dos a la vez: comparten las mismas claves.',
        download: 'Descargar',
        downloadLabel: (name: string) => `Descargar la configuración solo para la Sala del peer ${name}`,
        showQr: 'Código QR',
        qrLabel: (name: string) => `Código QR de la configuración solo para la Sala del peer ${name}`,
        error: (name: string) =>
          `Hubo un error al intentar descargar la configuración solo para la Sala del peer ${name}.`,
        qrError: (name: string) =>
          `Hubo un error al intentar generar el código QR de la configuración solo para la Sala del peer ${name}.`,
      },
      errors: {
        mirror: (name: string) => `Hubo un error al intentar regenerar el mirror link del peer ${name}`,
        regenerate: (name: string) => `Hubo un error al intentar regenerar el peer ${name}`,
        changeServer: 'Hubo un error al intentar cambiar el servidor del peer.',
        download: (name: string) => `Hubo un error al intentar descargar la configuración del peer ${name}.`,
        mikrotik: (name: string) =>
          `Hubo un error al intentar descargar el script MikroTik del peer ${name}.`,
      },
    },
    plans: {
      title: 'Planes',
      subtitle: 'Adquiere un plan para un peer nuevo o para renovar uno existente.',
    },
    help: {
      title: 'Centro de ayuda',
      subtitle: 'Guías rápidas y respuestas a las preguntas más frecuentes.',
      setupTitle: 'Configurar la VPN',
      setupIntro:
        'Cada peer es un dispositivo. Todo lo necesario está en la sección Peers, en la tarjeta de cada peer: «Descargar» guarda su archivo de configuración (.conf); «Ver QR» muestra su código QR en pantalla; su menú de acciones (⋮) ofrece «Script MikroTik»; y «Copiar», en la línea «Mirror link», copia su mirror link.',
      androidAppsTitle: 'Instala WireGuard en Android',
      androidAppsText:
        'Google Play no suele abrir desde Cuba: instala la app oficial con uno de estos enlaces. Si el teléfono lo pide, permite instalar apps de esta fuente.',
      androidApk: (size: string) => `WireGuard para Android (APK, ${size})`,
      androidLink: 'Descargar WireGuard para Android',
      androidFdroid: 'WireGuard en F-Droid',
      platformsLabel: 'Elige tu sistema',
      platforms: [
        {
          id: 'android',
          name: 'Android',
          steps: [
            'Instala la aplicación oficial WireGuard con uno de los enlaces de arriba (el APK o F-Droid; Google Play, si te abre).',
            'Con el código QR: abre Peers en otro dispositivo (una computadora, por ejemplo) y toca «Ver QR» en la tarjeta del peer. En la aplicación pulsa «+» → «Escanear desde código QR» y apunta la cámara a la pantalla.',
            'Con el archivo: abre Peers en el propio teléfono y pulsa «Descargar». En la aplicación pulsa «+» → «Importar desde archivo» y elige el archivo .conf descargado.',
            'Activa el interruptor del túnel y acepta la solicitud de conexión VPN de Android.',
          ],
        },
        {
          id: 'ios',
          name: 'iOS',
          steps: [
            'Instala la aplicación oficial WireGuard desde la App Store.',
            'Con el código QR: abre Peers en otro dispositivo y toca «Ver QR» en la tarjeta del peer. En la aplicación pulsa «Añadir un túnel» → «Crear desde código QR» y escanéalo.',
            'Con el archivo: abre Peers en el iPhone o iPad y pulsa «Descargar». Abre el archivo .conf desde la app Archivos y compártelo con WireGuard, o en la aplicación elige «Añadir un túnel» → «Crear desde archivo o archivo comprimido».',
            'Permite que WireGuard añada la configuración VPN y activa el túnel.',
          ],
        },
        {
          id: 'windows',
          name: 'Windows',
          steps: [
            'Descarga e instala WireGuard para Windows desde la página oficial (botón «Descargar cliente WireGuard» de esta página).',
            'En Peers pulsa «Descargar» para guardar el archivo .conf del peer.',
            'Abre WireGuard, pulsa «Importar túnel(es) desde archivo» y elige el archivo .conf.',
            'Pulsa «Activar». Para desconectarte, pulsa «Desactivar».',
          ],
        },
        {
          id: 'macos',
          name: 'macOS',
          steps: [
            'Instala la aplicación oficial WireGuard desde la Mac App Store.',
            'En Peers pulsa «Descargar» para guardar el archivo .conf del peer.',
            'En WireGuard elige «Importar túnel(es) desde archivo» (o arrastra el .conf a la ventana) y permite añadir la configuración VPN.',
            'Pulsa «Activar». También puedes activarlo desde el icono de WireGuard en la barra de menús.',
          ],
        },
        {
          id: 'linux',
          name: 'Linux',
          steps: [
            'Instala las herramientas de WireGuard, por ejemplo: sudo apt install wireguard-tools (incluye wg-quick).',
            'En Peers pulsa «Descargar» para guardar el archivo .conf, o copia el mirror link con «Copiar» y descárgalo desde la terminal: curl -o wg0.conf "MIRROR_LINK".',
            'Instálalo como /etc/wireguard/wg0.conf: sudo install -m 600 wg0.conf /etc/wireguard/wg0.conf',
            'Conecta con sudo wg-quick up wg0 y desconecta con sudo wg-quick down wg0. Para conectar al arrancar: sudo systemctl enable --now wg-quick@wg0. Si wg-quick pide resolvconf, instala el paquete openresolv.',
          ],
        },
        {
          id: 'mikrotik',
          name: 'MikroTik',
          steps: [
            'Comprueba que tu router tiene RouterOS 7.1 o superior (System → Resources): las versiones anteriores no incluyen WireGuard.',
            'En Peers abre el menú de acciones del peer y elige «Script MikroTik»: se descarga un archivo .rsc con la interfaz, el peer, la dirección y una tabla de rutas «vpn».',
            'Abre Terminal en Winbox (o entra por SSH) y pega el contenido del script; también puedes subirlo en Files y ejecutar /import file-name=NOMBRE.rsc.',
            'Para que tu red local salga por la VPN, ejecuta la regla comentada al final del script ajustando tu subred (por ejemplo 192.168.88.0/24) y, si quieres, el DNS.',
          ],
        },
      ],
      mirrorTitle: 'El mirror link',
      mirrorText:
        'El mirror link siempre entrega la configuración vigente del peer, también después de «Regenerar Peer» o «Cambiar Servidor»: nuestra app cliente lo usa para mantenerse al día sola, y en Linux puedes volver a descargarlo con curl. Cópialo con el botón «Copiar» de la línea «Mirror link» de cada peer. Quien lo tenga puede usar tu peer: si lo compartiste por error, usa «Regenerar Mirror Link».',
      downloadClient: 'Descargar cliente WireGuard',
      roomsTitle: 'Uso de las salas',
      roomsSteps: [
        'Configura tu alias en Configuración de cuenta: es el nombre con el que te verán los demás miembros.',
        'En Salas, crea una sala con uno de tus peers libres, o únete a una existente con su nombre, su contraseña y un peer libre.',
        'Los peers de una misma sala se ven entre sí por su IP privada: úsala para jugar en LAN o acceder a tus equipos.',
        'El propietario (Administrador) ve la contraseña, puede regenerarla, añadir o quitar peers y eliminar la sala; los invitados pueden retirar sus propios peers.',
      ],
      roomsNote:
        'Los peers de la sala deben estar en un servidor que permita salas (en Peers lo dice «Salas» en los datos de cada peer).',
      faqTitle: 'Preguntas frecuentes',
      faq: [
        {
          q: '¿Puedo usar el mismo peer en varios dispositivos a la vez?',
          a: 'No. Cada peer admite un único dispositivo conectado simultáneamente. Si necesitas conectar más dispositivos, adquiere un plan para un peer nuevo.',
        },
        {
          q: '¿Cómo cambio de servidor?',
          a: 'En la sección Peers, abre el menú de acciones del peer y elige «Cambiar Servidor», luego «Seleccionar» en el servidor que prefieras. Después descarga de nuevo la configuración con «Descargar» (o vuelve a escanear su código con «Ver QR»); si usas el mirror link, se actualiza solo.',
        },
        {
          q: '¿Por qué mi peer no se comunica con los demás miembros de la sala?',
          a: 'La conectividad entre miembros de una sala requiere que tu peer esté en un servidor que permita salas. Si no es así, cámbialo a uno que las permita con «Cambiar Servidor».',
        },
        {
          q: '¿Puedo usar la VPN en mi router?',
          a: 'Sí. Los routers MikroTik son compatibles a partir de RouterOS 7.1, que incluye soporte para WireGuard: usa el «Script MikroTik» del peer.',
        },
      ],
    },
    settings: {
      title: 'Configuración de cuenta',
      subtitle: 'Gestiona los datos de tu cuenta.',
      username: 'Usuario',
      usernameHint: 'El nombre de usuario no se puede cambiar.',
      alias: 'Alias',
      aliasHint: 'Es el nombre con el que te ven los demás miembros de tus salas.',
      email: 'Email',
      password: 'Contraseña',
      passwordHint: 'Al cambiarla se cerrarán tus sesiones en los demás dispositivos.',
      notSet: 'Sin configurar',
      verified: 'Verificado',
      notVerified: 'Sin verificar',
      emailHintNone: 'Añade un email para poder recuperar tu contraseña si la olvidas.',
      emailHintUnverified:
        'Te enviamos un enlace de verificación: ábrelo para poder recuperar tu contraseña por email.',
      emailHintVerified: 'Lo usaremos para que puedas recuperar tu contraseña.',
      save: 'Guardar',
      configureAlias: 'Configurar alias',
      changeAlias: 'Modificar alias',
      aliasDialogText: 'Entre 3 y 24 caracteres: letras, números, espacio, punto, guion o guion bajo.',
      addEmail: 'Añadir email',
      changeEmail: 'Cambiar email',
      newEmail: 'Nuevo email',
      emailDialogText: 'Te enviaremos un enlace para verificar la nueva dirección.',
      deleteEmail: 'Eliminar email',
      deleteEmailText: (email: string) =>
        `¿Eliminar el email ${email} de tu cuenta? No podrás recuperar tu contraseña por email hasta que añadas otro.`,
      deleteEmailConfirm: 'Eliminar',
      changePassword: 'Cambiar contraseña',
      passwordDialogText: 'Tus sesiones en los demás dispositivos se cerrarán; esta sigue abierta.',
      currentPassword: 'Contraseña actual',
      newPassword: 'Nueva contraseña',
      confirmPassword: 'Confirmar nueva contraseña',
      passwordsMismatch: 'Las contraseñas no coinciden.',
    },
    payment: {
      title: 'Resultado del pago',
      success: 'Pago completado',
      successText: 'El pago se realizó correctamente. Tu plan se activará en cuanto la pasarela lo confirme.',
      canceled: 'Pago cancelado',
      canceledText: 'El pago fue cancelado. No se ha realizado ningún cargo.',
      unknown: 'Estado del pago desconocido',
      unknownText:
        'No pudimos determinar el estado del pago. Revisa tus peers en unos minutos o contacta con soporte.',
      transaction: 'ID de transacción',
      back: 'Volver al inicio',
    },
  },

  manager: {
    loginTitle: 'Acceso de administración',
    loginSubtitle: 'Solo para administradores del servicio.',
    title: 'Panel de administración',
    signedInAs: (username: string) => `Sesión iniciada como ${username}`,
    placeholder: 'Las herramientas de administración estarán disponibles próximamente.',
    logout: 'Cerrar sesión',
  },

  /** Texts shared with the server (validation and API errors). */
  msg,
} as const;
