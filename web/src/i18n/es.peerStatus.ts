/**
 * The Spanish texts of a peer's status as the customer reads it on Home, on the Peers page's cards
 * and rows and once a payment delivers it (issue 32): state, "activo hasta …", data used, the
 * server's state in the words the console shares (`es.serverState.ts`), and the way to install it
 * (QR, Descargar, the app for this phone). The spec's own words (Home, Peers Wireguard, Mirror link)
 * stay, explained.
 */
import { esServerState } from './es.serverState';

const days = (n: number) => (n === 1 ? '1 día' : `${n} días`);

export const esPeerStatus = {
  server: esServerState,
  expiry: {
    label: 'Vigencia',
    activeUntil: (date: string) => `Activo hasta el ${date}`,
    daysLeft: (n: number) => (n <= 0 ? 'vence hoy' : `quedan ${days(n)}`),
    expired: (date: string) => `Venció el ${date}`,
    none: 'Indeterminado',
  },
  data: {
    label: 'Datos',
    used: (used: string, total: string) => `${used} de ${total}`,
    unlimited: 'Sin límite de datos',
  },
  install: {
    qr: 'Ver QR',
    qrLabel: (name: string) => `Ver QR del peer ${name}`,
    download: 'Descargar',
  },
  mirror: {
    title: 'Mirror link',
    explain:
      'Un enlace que siempre sirve la configuración actual de este peer, para apps y routers que la leen de un enlace. La app oficial de WireGuard no puede usarlo: en ella usa el QR o el archivo de Descargar.',
  },
  serverProblem: {
    offline: (server: string) =>
      `El servidor ${server} no responde (Sin conexión): este peer no funciona hasta que vuelva. Cámbialo a otro servidor y vuelve a importar la configuración.`,
    inactive: (server: string) =>
      `El servidor ${server} está inactivo: este peer no funciona allí. Cámbialo a otro servidor y vuelve a importar la configuración.`,
    change: 'Cambiar servidor',
    changeLabel: (name: string) => `Cambiar el servidor del peer ${name}`,
  },
  home: {
    title: 'Tus peers',
    subtitle: 'El estado de cada dispositivo, su vigencia y sus datos.',
    renew: 'Renovar',
    renewLabel: (name: string) => `Renovar el peer ${name}`,
    all: 'Ver todos en Peers',
    firstTitle: 'Empieza con tu primer plan',
    firstText:
      'Cada plan crea un peer: la configuración de WireGuard de un dispositivo. Elige un plan, paga y en menos de un minuto tendrás aquí el código QR para importarlo en tu teléfono.',
    firstCta: 'Elegir un plan',
    serverAlertTitle: 'Hay peers sin servidor disponible',
  },
  ready: {
    title: (name: string) => `Tu peer ${name} está listo`,
    steps:
      '1. Instala la app de WireGuard. 2. En la app, toca «+» y «Escanear desde código QR» y apunta a este código (o importa el archivo de Descargar). 3. Activa el túnel.',
    open: (name: string) => `Instalar ${name} en este dispositivo`,
    app: 'Instalar la app de WireGuard',
    appVersion: (version: string) => `Instalar la app de WireGuard (${version})`,
    apk: (size: string) => `Descargar la app de WireGuard para Android (APK, ${size})`,
    peers: 'Ver en Peers',
    waiting: 'Preparando tu peer...',
  },
  follow: {
    waitingTitle: 'Esperando tu pago',
    waiting:
      'Completa el pago en la pestaña de la pasarela. Esta página se actualiza sola: en cuanto se confirme, aquí tendrás tu peer listo para instalar.',
    paidTitle: 'Pago recibido',
    canceledTitle: 'Pago cancelado',
    canceled: 'El pago fue cancelado. No se ha realizado ningún cargo.',
    failed: 'No se pudo completar el pago. No se ha realizado ningún cargo.',
    dismiss: 'Cerrar',
  },
  noRoomsWarning: (room: string) =>
    `Este servidor no admite Salas y tu peer está en la sala ${room}: para moverlo aquí, sácalo antes de la sala.`,
  purchase: {
    noServers:
      'Ahora mismo ningún servidor puede recibir un peer nuevo, así que no puedes comprar uno: no se te cobrará nada. Inténtalo de nuevo en unos minutos o renueva uno de tus peers.',
  },
} as const;
