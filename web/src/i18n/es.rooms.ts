/**
 * The Spanish texts of the Salas (rooms) page, `/dashboard/partys`. Strings quoted by the product spec
 * are used verbatim; those the server also answers with come from `@vpn/contracts` (`msg`).
 *
 * Kept apart from `es.ts` so the rooms page and the rest of the dashboard can change independently.
 */
import { msg } from '@vpn/contracts';
import { MAX_OWNED_ROOMS } from '@vpn/contracts/limits';

const peersCount = (n: number) => `${n} ${n === 1 ? 'peer' : 'peers'}`;

export const esRooms = {
  title: 'Salas',
  subtitle:
    'Las salas unen varios peers en una red privada: ideales para jugar en LAN, acceder a tus equipos o conectar con otros usuarios.',
  loading: 'Cargando información...',
  loadError: 'Hubo un error al cargar los datos de la sección',
  retry: 'Reintentar',

  actions: {
    create: 'Crear sala',
    join: 'Unirse a una sala',
    needFreePeer:
      'Para crear una sala o unirte a otra necesitas un peer libre: activo, fuera de otra sala y en un servidor que permita salas.',
    limitReached: `Has alcanzado el máximo de ${MAX_OWNED_ROOMS} salas propias: elimina una para crear otra.`,
  },

  roles: { owner: 'Administrador', guest: 'Invitado' },

  list: {
    ownedTitle: 'Salas que administras',
    ownedCount: (n: number) => `${n} de ${MAX_OWNED_ROOMS}`,
    guestTitle: 'Salas en las que participas',
    peers: peersCount,
    totalPeers: 'Peers',
    created: 'Creada',
    owner: 'Administrada por',
    open: 'Ver sala',
    openLabel: (name: string) => `Ver la sala ${name}`,
    processing: 'Aplicando cambios...',
  },

  guidance: {
    aliasTitle: 'Configura tu alias para usar las salas',
    aliasText:
      'Para crear una sala o unirte a una necesitas un alias: es el nombre con el que te verán los demás miembros de la sala.',
    aliasCta: 'Configurar alias',
    noPeersTitle: 'Necesitas un peer para usar las salas',
    noPeersText:
      'Para crear una sala o unirte a una primero debes adquirir un peer: cada peer que entra en una sala es un equipo más de la red privada.',
    noPeersCta: 'Ver planes',
    wrongServerTitle: 'Tus peers no pueden entrar en una sala',
    wrongServerText:
      'Tus peers libres están en servidores que no permiten salas. Cámbialos a un servidor que las permita desde la sección Peers, o adquiere un peer nuevo.',
    wrongServerCta: 'Ir a Peers',
    emptyTitle: 'Aún no tienes salas.',
    emptyText:
      'Crea una sala y comparte su nombre y contraseña con quien quieras invitar, o únete a la sala de otro usuario.',
  },

  detail: {
    back: 'Volver a las salas',
    owner: 'Administrador',
    created: 'Fecha de creación',
    role: 'Tu rol',
    password: 'Contraseña de la sala',
    hiddenPassword: '••••••••••',
    showPassword: 'Mostrar contraseña',
    hidePassword: 'Ocultar contraseña',
    copyPassword: 'Copiar',
    copiedPassword: 'Copiado',
    copyPasswordLabel: 'Copiar la contraseña de la sala',
    copiedPasswordLabel: 'Contraseña de la sala copiada',
    copiedPasswordToast: 'Contraseña copiada al portapapeles',
    regenerate: 'Regenerar contraseña',
    passwordHint: 'Comparte el nombre de la sala y esta contraseña con quien quieras invitar.',
    peersTitle: 'Peers de la sala',
    peersLabel: (room: string) => `Peers de la sala ${room}`,
    columns: { name: 'Peer', owner: 'Propietario', ip: 'IP privada', actions: 'Acciones' },
    ipHint:
      'Para jugar en LAN o conectarte a otro equipo de la sala usa su IP privada: es la dirección que se escribe en el juego o la aplicación.',
    copyIp: 'Copiar',
    copiedIp: 'Copiada',
    copyIpLabel: (peer: string) => `Copiar la IP privada del peer ${peer}`,
    copiedIpLabel: (peer: string) => `IP privada del peer ${peer} copiada`,
    copiedIpToast: 'IP privada copiada al portapapeles',
    copyError: 'No se pudo copiar al portapapeles',
    yours: 'Tuyo',
    remove: 'Remover',
    removeLabel: (peer: string) => `Remover el peer ${peer} de la sala`,
    leave: 'Abandonar',
    leaveLabel: (peer: string) => `Sacar mi peer ${peer} de la sala`,
    noPeers: 'La sala no tiene peers.',
    addPeer: 'Añadir peer',
    deleteRoom: 'Eliminar sala',
    processing: 'Aplicando cambios en los servidores...',
  },

  dialogs: {
    create: {
      title: 'Crear sala',
      description: 'Elige un nombre y el primer peer que entrará en la sala. Tú serás su administrador.',
      name: 'Nombre de la sala',
      peer: 'Peer inicial',
      submit: 'Crear sala',
    },
    join: {
      title: 'Unirse a una sala',
      description: 'Escribe el nombre y la contraseña que te dio el administrador de la sala.',
      name: 'Nombre de la sala',
      password: 'Contraseña',
      peer: 'Peer que entrará en la sala',
      submit: 'Unirse',
    },
    add: {
      title: 'Añadir peer',
      description: (room: string) => `Elige uno de tus peers libres para añadirlo a la sala ${room}.`,
      peer: 'Peer',
      submit: 'Añadir',
    },
    selectPeer: 'Selecciona un peer',
    peerOption: (name: string, ubication: string) => `${name} — ${ubication}`,
    noFreePeers:
      'No tienes peers libres: para usar uno en una sala debe estar activo, fuera de otra sala y en un servidor que permita salas.',
    blockedPeers: (names: string) =>
      `Sin salas en su servidor (no pueden entrar): ${names}. Cámbialos a un servidor que permita salas desde Peers.`,
  },

  confirm: {
    delete: {
      title: 'Eliminar sala',
      text: (room: string) =>
        `¿Seguro que deseas eliminar la sala ${room}? Todos sus peers saldrán de ella y los invitados perderán el acceso.`,
      confirm: 'Eliminar sala',
    },
    regenerate: {
      title: 'Regenerar contraseña',
      text: (room: string) =>
        `La contraseña actual de la sala ${room} dejará de servir para unirse. Los peers que ya están dentro no salen.`,
      confirm: 'Regenerar',
    },
    remove: {
      title: 'Remover peer',
      text: (peer: string, room: string) => `¿Remover el peer ${peer} de la sala ${room}?`,
      confirm: 'Remover',
    },
    leave: {
      title: 'Abandonar la sala',
      text: (peer: string, room: string) =>
        `Tu peer ${peer} saldrá de la sala ${room}. Para volver a entrar necesitarás la contraseña.`,
      confirm: 'Abandonar',
    },
  },

  /** Client-side validations (spec §5), the same texts the server answers with. */
  validation: {
    limit: msg.roomLimit,
    nameRequired: msg.roomNameRequired,
    fieldsRequired: msg.roomFieldsRequired,
    peerRequired: msg.roomPeerRequired,
  },

  /** Fallbacks when the server sent no message (spec §8 "Rooms"). */
  errors: {
    create: 'Hubo un error al crear la sala',
    delete: 'Hubo un error al eliminar la sala',
    join: 'Error al unirse a la sala',
    leave: 'Error al abandonar la sala',
    remove: 'Error al remover el peer de la sala',
    regenerate: 'Error al regenerar la contraseña',
    add: 'Hubo un error al realizar la solicitud',
  },

  toasts: {
    created: msg.roomCreated,
    joined: msg.roomJoined,
    left: msg.roomLeft,
    peerRemoved: msg.roomPeerRemoved,
    peerAdded: msg.roomPeerAdded,
    deleted: msg.roomDeleted,
    passwordRegenerated: msg.roomPasswordRegenerated,
  },
} as const;

/** 'Compartir invitación' (issue 32): the room's name and password in one message. */
export const esRoomShare = {
  share: 'Compartir invitación',
  title: (room: string) => `Invitación a la sala ${room}`,
  message: (room: string, password: string, url: string) =>
    `Únete a mi sala «${room}». Entra en ${url}, toca «Unirse a una sala» y escribe:\nNombre de la sala: ${room}\nContraseña: ${password}`,
  copied: 'Invitación copiada: pégala en tu chat para compartirla.',
  copyError: 'No se pudo copiar la invitación. Copia el nombre y la contraseña a mano.',
} as const;
