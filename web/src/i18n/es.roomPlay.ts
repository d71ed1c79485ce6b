/**
 * The Spanish texts of a room's lower half (issue 25): how games meet in a room, and the room-only
 * configuration of the customer's own peers there. Apart from `es.rooms.ts`, which the push
 * provider loads on every dashboard page, so these paragraphs travel only with the room page.
 */
export const esRoomPlay = {
  /** How to play in a room (issue 25): discovery, the games it was checked with, Windows' firewall. */
  play: {
    title: 'Jugar en la Sala',
    discovery:
      'Los juegos de la Sala se encuentran solos: cuando un miembro abre una partida en red local (LAN), los demás la ven aparecer en la lista del juego, sin escribir ninguna IP.',
    /** The room's `discovery` is off: the operator turned it off for the site or a member's server. */
    discoveryOff:
      'En esta Sala los juegos no se encuentran solos: la búsqueda automática de partidas en red local (LAN) está desactivada en el servicio. Para jugar, únete por IP: escribe en el juego la IP privada del anfitrión (la de la tabla de arriba).',
    triedTitle: 'Búsqueda de partidas comprobada',
    triedIntro:
      'Comprobamos que la Sala hace llegar a cada miembro los avisos con los que estos juegos buscan partidas en la red local:',
    games: [
      {
        name: 'Minecraft: Java Edition',
        how: 'los mundos «Abrir en LAN» aparecen en «Multijugador» (aviso multicast 224.0.2.60, puerto 4445).',
      },
      {
        name: 'Minecraft: Bedrock Edition',
        how: 'las partidas aparecen en la pestaña «Amigos» (búsqueda por broadcast, puerto 19132).',
      },
      {
        name: 'Counter-Strike',
        how: 'el buscador de servidores LAN encuentra las partidas (búsqueda por broadcast, puerto 27015).',
      },
      {
        name: 'Warcraft III',
        how: 'las partidas aparecen en «Red de área local» (búsqueda por broadcast, puerto 6112).',
      },
    ],
    byIp: 'Si un juego no muestra la partida, o no busca partidas por sí solo, únete por IP: escribe en el juego la IP privada del anfitrión (la de la tabla de arriba).',
    windowsTitle: 'En Windows',
    windows:
      'Windows trata la red del túnel de WireGuard como una red «Pública». Cuando el Firewall de Windows pregunte por el juego, permítelo también en redes «Públicas» (o en «Permitir una aplicación a través del Firewall de Windows», marca la casilla «Pública»); si no, los demás no verán tu partida.',
  },

  /** The room-only tunnel of the customer's own peers in this room. */
  roomConfig: {
    title: 'Configuración solo para la Sala',
    download: 'Descargar',
    qr: 'Código QR',
    qrButtonLabel: (peer: string) =>
      `Mostrar el código QR de la configuración solo para la Sala del peer ${peer}`,
  },
} as const;
