/**
 * The Spanish texts of the purchase flow (the dashboard's Plans page and its purchase dialog) and of
 * the payment result page, `/dashboard/payment`. Strings quoted by the product spec are verbatim;
 * those the server also answers with come from `@vpn/contracts` (`msg`).
 *
 * Kept apart from `es.ts` so the purchase flow and the rest of the dashboard can change independently.
 */
import { formatUsd } from '../lib/money';
import { msg } from '@vpn/contracts';

export const esPayments = {
  gateways: {
    title: 'Pasarela de pago disponible',
    text: (names: string[]) =>
      `Paga tu plan de forma segura a través de ${names.join(' o ')}: se abrirá la pasarela en una ventana nueva y, al terminar, volverás al panel.`,
    qvapay: 'QvaPay',
    remesita: 'Remesita',
  },

  purchase: {
    title: (plan: string) => `Adquirir el plan ${plan}`,
    description: (plan: string, price: string) =>
      `${plan} · ${price}. Elige si el plan es para uno de tus peers o para uno nuevo.`,
    choiceLegend: 'Destino del plan',
    gatewayLegend: 'Pasarela de pago',
    existing: 'Peer existente',
    new: 'Peer nuevo',
    peerLabel: 'Peer',
    selectPeer: 'Selecciona un peer',
    noEligiblePeers: 'No tienes peers que se puedan renovar desde aquí: el plan será para un peer nuevo.',
    manualNote:
      'Los peers con pago manual o deshabilitados por un administrador no aparecen: contacta con soporte para renovarlos.',
    newPeerLabel: 'Nombre del nuevo peer',
    newPeerPlaceholder: 'Ej.: movil',
    submit: 'Proceder al Pago',
    peerRequired: msg.purchasePeerRequired,
    error: 'Hubo un error al realizar la operación.',
    openedTitle: 'Pasarela de pago abierta',
    opened:
      'Completa el pago en la ventana que se acaba de abrir. Al terminar, la pasarela te llevará al resultado del pago.',
    openAgain: 'Abrir la pasarela de pago',
    peersLoading: 'Cargando información...',
    renewTitle: (peer: string) => `Renovar ${peer}`,
    renewDescription: 'Elige el plan con el que renovar el peer.',
    planLabel: 'Plan',
    selectPlan: 'Selecciona un plan',
    planRequired: 'Selecciona un plan',
  },

  payment: {
    title: 'Resultado del pago',
    success: 'Pago completado',
    successText: 'El pago se realizó correctamente.',
    canceled: 'Pago cancelado',
    canceledText: 'El pago fue cancelado. No se ha realizado ningún cargo.',
    refunded: 'Pago reembolsado',
    refundedText:
      'Este pago se reembolsó: el importe se te devolvió y el periodo que compraste se retiró del peer. Si no lo esperabas, contacta con soporte.',
    unknown: 'Estado del pago desconocido',
    unknownText:
      'No pudimos determinar el estado del pago. Revisa tus peers en unos minutos o contacta con soporte.',
    loading: 'Cargando información...',
    loadError: 'Hubo un error al intentar cargar los datos de la factura.',
    detailsError: 'Error al obtener los detalles de la factura',
    detailsTitle: 'Detalles de la factura',
    plan: 'Plan',
    peer: 'Peer',
    amount: 'Monto',
    transaction: 'ID de transacción',
    amountUsd: (amount: number) => formatUsd(amount),
    confirming: 'Confirmando el pago con la pasarela...',
    stillPending:
      'El pago aún no se ha confirmado. Se acreditará en cuanto la pasarela lo confirme: revisa tus peers en unos minutos.',
    credited: 'Plan acreditado: ya puedes usarlo desde la sección Peers.',
    deliveryPending:
      'Pago recibido. Estamos preparando tu peer: aparecerá en la sección Peers en cuanto haya un servidor disponible. No tienes que pagar de nuevo.',
    back: 'Volver al inicio',
    retry: 'Reintentar',
  },
} as const;
