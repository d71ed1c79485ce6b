/** Spanish texts of the console's Clientes and Facturas pages. */
import { formatUsd } from '../lib/money';
const usd = { format: formatUsd };
const dateTime = new Intl.DateTimeFormat('es-ES', { dateStyle: 'medium', timeStyle: 'short' });
const monthYear = new Intl.DateTimeFormat('es-ES', { month: 'long', year: 'numeric', timeZone: 'UTC' });

export const esCustomers = {
  dateTime: (iso: string | null) => (iso ? dateTime.format(new Date(iso)) : '—'),
  amount: (amount: string, currency: string) =>
    currency === 'USD' ? usd.format(Number(amount)) : `${amount} ${currency}`,
  reasonLabel: 'Motivo',
  reasonTooShort: 'Indique el motivo (al menos 3 caracteres)',
  back: 'Volver',

  customers: {
    title: 'Clientes',
    subtitle: 'Busque por usuario, email o alias.',
    search: 'Buscar clientes',
    searchPlaceholder: 'Usuario, email o alias',
    stateFilter: 'Estado',
    states: { all: 'Todos', active: 'Activos', disabled: 'Deshabilitados' },
    tableLabel: 'Clientes',
    empty: 'No hay clientes que coincidan.',
    columns: {
      username: 'Usuario',
      email: 'Email',
      alias: 'Alias',
      peers: 'Peers (activos)',
      state: 'Estado',
      created: 'Alta',
    },
    verified: 'verificado',
    unverified: 'sin verificar',
    active: 'Activo',
    disabled: 'Deshabilitado',
    peersCount: (live: number, total: number) => `${total} (${live})`,
  },

  customer: {
    subtitle: (email: string | null, created: string) => `${email ?? 'Sin email'} · cliente desde ${created}`,
    alias: (alias: string) => `Alias: ${alias}`,
    disable: 'Deshabilitar',
    enable: 'Habilitar',
    disableTitle: (username: string) => `Deshabilitar a ${username}`,
    disableDescription:
      'No podrá iniciar sesión, sus sesiones se cierran al instante y sus peers salen de los servidores hasta que se habilite de nuevo.',
    enableTitle: (username: string) => `Habilitar a ${username}`,
    enableDescription:
      'Podrá iniciar sesión de nuevo y sus peers activos y vigentes vuelven a sus servidores.',
    reasonOptional: 'Motivo (opcional)',
    disabledToast: 'Cliente deshabilitado',
    enabledToast: 'Cliente habilitado',
    disabledBanner:
      'Esta cuenta está deshabilitada: no puede iniciar sesión y sus peers están fuera de los servidores.',
    reset: 'Enviar enlace de restablecimiento',
    resetTitle: 'Enviar enlace de restablecimiento',
    resetDescription: (email: string) =>
      `Se enviará a ${email} un enlace para elegir una contraseña nueva (vale 1 hora).`,
    resetNoEmail: 'El cliente no tiene un email verificado.',
    resetConfirm: 'Enviar enlace',
    peers: 'Peers',
    peersLabel: 'Peers del cliente',
    noPeers: 'Sin peers.',
    peerColumns: {
      name: 'Nombre',
      address: 'Dirección',
      server: 'Servidor',
      state: 'Estado',
      expires: 'Expira',
      room: 'Sala',
    },
    peerLive: 'En servidor',
    peerOff: 'Deshabilitado',
    peerExpired: 'Expirado',
    peerHeld: 'Retenido (cuenta deshabilitada)',
    never: 'Indeterminado',
    invoices: 'Facturas',
    invoicesOf: (shown: number, total: number) =>
      total > shown ? `Las ${shown} más recientes de ${total}` : `${total}`,
    allInvoices: 'Ver todas en Facturas',
    noInvoices: 'Sin facturas.',
    rooms: 'Salas',
    noRooms: 'No está en ninguna sala.',
    roomOwner: 'Propietario',
    roomMember: 'Miembro',
    roomMembers: (n: number) => (n === 1 ? '1 miembro' : `${n} miembros`),
    sessions: 'Sesiones abiertas',
    sessionsLabel: 'Sesiones abiertas',
    noSessions: 'Sin sesiones abiertas.',
    sessionColumns: {
      started: 'Inicio',
      lastUsed: 'Último uso',
      ip: 'IP',
      userAgent: 'Navegador',
      remember: 'Recordarme',
    },
    yes: 'Sí',
    no: 'No',
  },

  invoices: {
    title: 'Facturas',
    subtitle: 'Busque por usuario, nombre del peer o id remoto.',
    search: 'Buscar facturas',
    searchPlaceholder: 'Usuario, peer o id remoto',
    stateFilter: 'Estado',
    gatewayFilter: 'Pasarela',
    all: 'Todas',
    tableLabel: 'Facturas',
    empty: 'No hay facturas que coincidan.',
    columns: {
      created: 'Fecha',
      customer: 'Cliente',
      peer: 'Peer',
      plan: 'Plan',
      amount: 'Importe',
      gateway: 'Pasarela',
      state: 'Estado',
    },
    newPeer: (name: string) => `${name} (nuevo)`,
  },

  states: {
    pending: 'Pendiente',
    paid: 'Pagada',
    canceled: 'Cancelada',
    expired: 'Expirada',
    failed: 'Fallida',
    refunded: 'Reembolsada',
  } as Record<string, string>,

  gateways: {
    qvapay: 'QvaPay',
    remesita: 'Remesita',
    sandbox: 'Pruebas',
    manual: 'Manual',
  } as Record<string, string>,

  invoice: {
    title: 'Factura',
    fields: {
      id: 'Id',
      customer: 'Cliente',
      operation: 'Operación',
      peer: 'Peer',
      plan: 'Plan',
      amount: 'Importe',
      gateway: 'Pasarela',
      state: 'Estado',
      remoteId: 'Id remoto',
      transaction: 'Transacción',
      created: 'Creada',
      paid: 'Pagada',
      delivered: 'Entregada',
      markedBy: 'Marcada por',
      markReason: 'Motivo',
      refunded: 'Reembolsada',
      refundedBy: 'Reembolsada por',
      refundReason: 'Motivo del reembolso',
      refundReference: 'Id del reembolso en la pasarela',
    },
    refundByHand: 'Registrado a mano (sin reembolso en la pasarela)',
    operations: { add_plan: 'Renovar peer', new_peer: 'Peer nuevo' } as Record<string, string>,
    notDelivered: 'Pendiente de entrega',
    markPaid: 'Marcar como pagada',
    markTitle: 'Marcar como pagada',
    markDescription: (amount: string) =>
      `Se acreditará ${amount} y se entregará lo comprado, como si la pasarela hubiera confirmado el pago. Indique de dónde vino el dinero (p. ej. transferencia y su referencia).`,
    markLate: (state: string) =>
      `Esta factura está ${state.toLowerCase()}: márquela solo si el dinero llegó de verdad.`,
    marked: 'Factura marcada como pagada',
  },

  /** Facturas' money side (issue 15): refunds, the CSV, the revenue table, payments without an invoice. */
  billing: {
    tabsLabel: 'Secciones de Facturas',
    tabs: { list: 'Facturas', revenue: 'Ingresos por mes', unmatched: 'Pagos sin factura abierta' },
    exportCsv: 'Exportar CSV',
    exporting: 'Exportando...',
    exportTitle: 'Descarga las facturas del listado con los filtros actuales (todas las páginas)',
    exportError: 'No se pudo exportar el CSV. Inténtelo de nuevo.',

    refund: 'Reembolsar',
    /** The refund's confirm button names the money (issue 34): "Reembolsar 3,00 US$". */
    refundAmount: (amount: string) => `Reembolsar ${amount}`,
    refundTitle: 'Reembolsar la factura',
    refundDescription: (amount: string, customer: string) => `Se reembolsarán ${amount} a ${customer}.`,
    refundTakesBack: (peer: string | null) =>
      `El periodo que compró esta factura se retira del peer${peer ? ` ${peer}` : ''}: su expiración retrocede y, si el periodo se acaba, el peer sale del servidor. El cliente lo verá en el historial de planes del peer.`,
    methodLegend: 'Cómo se devuelve el dinero',
    methodGateway: (gateway: string) => `Devolver el dinero por ${gateway}`,
    methodManual: 'Registrar un reembolso hecho por otra vía',
    methodManualOnly: (gateway: string) =>
      `${gateway} no permite devolver el dinero desde aquí: devuélvalo por otra vía y regístrelo.`,
    methodRequired: 'Elija cómo se devuelve el dinero',

    revenueTitle: 'Ingresos por mes y pasarela',
    revenueSubtitle:
      'Meses en UTC. Cobrado: facturas pagadas en el mes; reembolsado: reembolsos hechos en el mes.',
    monthsFilter: 'Periodo',
    monthsOption: (n: number) =>
      n === 12 ? 'Último año' : n === 24 ? 'Últimos 2 años' : `Últimos ${n} meses`,
    revenueLabel: 'Ingresos por mes',
    revenueEmpty: 'Sin cobros ni reembolsos en el periodo.',
    revenueColumns: {
      month: 'Mes',
      gateway: 'Pasarela',
      paid: 'Cobrado',
      refunded: 'Reembolsado',
      net: 'Neto',
    },
    total: 'Total',
    allGateways: 'Todas',
    count: (n: number, one: string, many: string) => `${n} ${n === 1 ? one : many}`,
    payments: ['pago', 'pagos'] as const,
    refunds: ['reembolso', 'reembolsos'] as const,
    month: (yyyyMm: string) => {
      const date = new Date(`${yyyyMm}-01T00:00:00Z`);
      return Number.isNaN(date.getTime()) ? yyyyMm : monthYear.format(date);
    },

    unmatchedTitle: 'Pagos sin factura abierta',
    unmatchedSubtitle:
      'Dinero que una pasarela informó y que no acreditó ninguna factura (cancelada, expirada, ya pagada o con un importe que no la cubre). Resuélvalo con el cliente y márquelo.',
    searchReference: 'Referencia de la pasarela',
    searchReferenceLabel: 'Buscar por referencia',
    resolvedFilter: 'Estado',
    resolvedOptions: { false: 'Sin resolver', true: 'Resueltos', all: 'Todos' },
    unmatchedLabel: 'Pagos sin factura abierta',
    unmatchedEmpty: 'No hay pagos sin factura abierta.',
    unmatchedColumns: {
      created: 'Fecha',
      reference: 'Referencia',
      gateway: 'Pasarela',
      amount: 'Importe',
      invoice: 'Factura',
      reason: 'Motivo',
      state: 'Estado',
      action: 'Acción',
    },
    pending: 'Sin resolver',
    resolvedOn: (date: string) => `Resuelto el ${date}`,
    resolve: 'Marcar resuelto',
    resolveLabel: (reference: string) => `Marcar resuelto el pago ${reference}`,
    resolveTitle: 'Marcar el pago como resuelto',
    resolveDescription: (reference: string, amount: string) =>
      `Pago ${reference} de ${amount}. Indique cómo se resolvió (p. ej. devuelto al cliente o acreditado a mano).`,
    resolved: 'Pago marcado como resuelto',
    openInvoice: 'Ver factura',
  },
};
