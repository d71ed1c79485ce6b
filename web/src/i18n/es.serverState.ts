/**
 * A VPN server's state in the words the customer's pages and the console share (issue 32: the same
 * state never reads "Activo" on one side and "Sin conexión" on the other). The customer sees one
 * badge (`ServerStatus`: Activo, Sin conexión, Inactivo); the console shows the agent (En línea /
 * Sin conexión) and the manager's switch (Activo / Inactivo) apart.
 */
export const esServerState = {
  /** Switched on and its agent answering (customer); the switch on (console). */
  active: 'Activo',
  /** The agent has not answered for 45 s. */
  offline: 'Sin conexión',
  /** Switched off by a manager. */
  inactive: 'Inactivo',
  /** The agent answering (console). */
  online: 'En línea',
} as const;
