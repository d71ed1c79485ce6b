/**
 * The Spanish texts of the manager console, `/manager/dashboard/*`. Kept apart from `es.ts` so the
 * console and the customer pages can change independently.
 */
import { formatUsd } from '../lib/money';
import type { SiteSettings } from '@vpn/contracts';

/** The site settings shown as switches in Ajustes (the rooms' member cap is a number). */
type SiteSwitch = Exclude<keyof SiteSettings, 'room_member_limit'>;

export const esManager = {
  loading: 'Cargando información...',
  loadError: 'Hubo un error al intentar cargar los datos.',
  requestError: 'Hubo un error al realizar la solicitud',
  navLabel: 'Secciones de administración',
  /** The section bar's buttons where sections are cut at its edges. */
  navMore: 'Más secciones',
  navBack: 'Secciones anteriores',
  yes: 'Sí',
  no: 'No',

  noPermission: 'Su rol no tiene acceso a esta sección.',

  /** The navigation reads exactly these, in this order (issue 7). */
  nav: {
    overview: 'Resumen',
    customers: 'Clientes',
    peers: 'Peers',
    servers: 'Servidores',
    plans: 'Planes',
    invoices: 'Facturas',
    rooms: 'Salas',
    content: 'Contenido',
    settings: 'Ajustes',
    managers: 'Gestores',
    audit: 'Auditoría',
  },

  overview: {
    consoleTitle: 'Panel de administración',
    title: 'Resumen',
    subtitle: (username: string) => `Sesión iniciada como ${username}`,
    metrics: {
      customers: 'Clientes',
      peers: 'Peers',
      active_peers: 'Peers activos',
      servers: 'Servidores',
      servers_online: 'Servidores en línea',
      invoices_paid_30d: 'Facturas pagadas (30 días)',
      revenue_usd_30d: 'Ingresos (30 días)',
      concurrent_use_peers: 'Peers en uso simultáneo',
    },
    usd: (amount: number) => formatUsd(amount),
  },

  servers: {
    title: 'Servidores',
    subtitle: 'Nodos WireGuard y el estado de sus agentes.',
    create: 'Nuevo servidor',
    empty: 'Aún no hay servidores.',
    tableLabel: 'Servidores',
    columns: {
      name: 'Nombre',
      endpoint: 'Endpoint',
      ubication: 'Ubicación',
      state: 'Estado',
      peers: 'Peers',
      revision: 'Revisión (aplicada)',
      agent: 'Agente',
      actions: 'Acciones',
    },
    active: 'Activo',
    inactive: 'Inactivo',
    noAgent: 'Sin conectar',
    rotate: 'Rotar token',
    rotateLabel: (name: string) => `Rotar el token del agente de ${name}`,
    rotateTitle: 'Rotar token',
    rotateDescription: (name: string) =>
      `El token actual de ${name} dejará de funcionar: su agente se desconectará hasta que lo configures con el nuevo.`,
    rotated: 'Token rotado correctamente',
    created: 'Servidor creado correctamente',
    form: {
      title: 'Nuevo servidor',
      description: 'El agente del nodo se conecta con el token que se mostrará al crearlo.',
      name: 'Nombre',
      endpoint: 'Endpoint (host:puerto)',
      ubication: 'Ubicación',
      allowRooms: 'Permitir salas',
      dns: 'DNS (opcional)',
      mtu: 'MTU (opcional)',
      interfaceName: 'Interfaz (opcional)',
      submit: 'Crear servidor',
      required: 'Completa el nombre, el endpoint y la ubicación.',
      endpointFormat: 'El endpoint debe tener la forma host:puerto',
      mtuInvalid: 'La MTU debe ser un número entero.',
    },
  },

  settings: {
    title: 'Ajustes',
    subtitle: 'Cada cambio se guarda al instante.',
    saved: 'Ajuste guardado',
    maintenanceOn: 'El sitio está en mantenimiento: los clientes no pueden usarlo.',
    labels: {
      maintenance: 'Modo mantenimiento',
      allow_registration: 'Permitir registros',
      allow_password_recovery: 'Permitir recuperar la contraseña',
      show_landing: 'Mostrar la página de inicio',
      allow_payments_qvapay: 'Pagos con QvaPay',
      allow_email: 'Permitir correo electrónico',
      allow_partys: 'Permitir salas',
      allow_payments_remesita: 'Pagos con Remesita',
      allow_discovery: 'Descubrimiento de juegos en las salas',
    } satisfies Record<SiteSwitch, string>,
    hints: {
      maintenance: 'Cierra el sitio a los clientes; los administradores siguen entrando.',
      allow_registration: 'Los visitantes pueden crear cuentas nuevas.',
      allow_password_recovery: 'Los clientes pueden pedir un enlace para cambiar su contraseña.',
      show_landing: 'La portada pública se muestra a los visitantes.',
      allow_payments_qvapay: 'Los clientes pueden pagar con QvaPay.',
      allow_email: 'El sitio envía correos (verificación, recuperación).',
      allow_partys: 'Los clientes pueden crear salas y unirse a ellas.',
      allow_payments_remesita: 'Los clientes pueden pagar con Remesita.',
      allow_discovery:
        'Los juegos de LAN de una sala se encuentran solos: la difusión y el multicast de cada miembro llegan a los demás. Apagado en todos los servidores; cada servidor tiene además su propio interruptor.',
    } satisfies Record<SiteSwitch, string>,
    /** Issue 32: the links customers are given, and whether recovery can reach anyone. */
    recoveryOff:
      'Está activado, pero ningún cliente puede recuperar su contraseña: no hay correo (SMTP_URL y PUBLIC_URL, con «Permitir correo electrónico») ni bot de Telegram con PUBLIC_URL. Los clientes no ven la recuperación.',
    recoveryBy: (email: boolean, telegram: boolean) =>
      `Se envía el enlace ${email && telegram ? 'por correo y al chat de Telegram vinculado' : email ? 'por correo' : 'al chat de Telegram vinculado'}.`,
    links: {
      title: 'Enlaces para clientes',
      hint: 'Lo que ven los clientes en la ayuda, en su inicio y en la web.',
      support: 'Enlace de soporte',
      supportHint: (env: string | null) =>
        `https://, tg:// o whatsapp:// (por ejemplo https://t.me/tu_soporte o https://wa.me/5355555555). Vacío: ${env ? `se usa SUPPORT_URL (${env})` : 'sin soporte: los clientes no ven botones de soporte'}.`,
      android: 'Enlace de la app de Android',
      androidHint:
        'Una página o un archivo APK de WireGuard que tus clientes puedan abrir desde Cuba (https://). La ayuda también ofrece F-Droid.',
      apk: (size: string) =>
        `El panel sirve el APK de ANDROID_APK_FILE (${size}) en /descargas/wireguard-android.apk.`,
      noApk: 'Con ANDROID_APK_FILE el panel sirve también un APK de WireGuard, con su tamaño.',
      save: 'Guardar enlaces',
      saved: 'Enlaces guardados',
    },
    roomLimit: {
      title: 'Tamaño de las salas',
      label: 'Peers por sala',
      hint: 'Una sala llena no admite a nadie más: quien intenta unirse ve que está llena. Cada peer recibe el descubrimiento de juegos de los demás, así que salas más grandes multiplican ese tráfico. Bajar el número no saca a nadie de una sala que ya lo pasa.',
      save: 'Guardar',
      invalid: (min: number, max: number) => `Escribe un número entero entre ${min} y ${max}.`,
    },
  },

  content: {
    title: 'Contenido',
    subtitle: 'Anuncios para los clientes y versiones de la aplicación cliente.',
    announcementTitle: 'Publicar un anuncio',
    announcementName: 'Título',
    announcementMessage: 'Mensaje',
    announcementSubmit: 'Publicar anuncio',
    announcementRequired: 'Completa el título y el mensaje.',
    announcementPublished: 'Anuncio publicado',
    publishedList: 'Publicados en esta sesión',
    withdraw: 'Retirar',
    withdrawLabel: (name: string) => `Retirar el anuncio ${name}`,
    withdrawn: 'Anuncio retirado',
    versionTitle: 'Publicar una versión de la aplicación',
    version: 'Versión',
    url: 'Enlace de descarga',
    versionSubmit: 'Publicar versión',
    versionRequired: 'Completa la versión y el enlace.',
    versionPublished: (version: string) => `Versión ${version} publicada`,
  },
} as const;
