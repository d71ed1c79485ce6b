/** The console's texts about peers in use on more than one device (issue 19). */
export const esConcurrent = {
  field: 'Uso simultáneo',
  value: (endpoints: number, date: string) =>
    `En ${endpoints} direcciones a la vez desde el ${date}: parece usarse en más de un dispositivo.`,
  recent: (networks: string) => `Últimas redes: ${networks}`,
  detections: (n: number, last: string) =>
    `${n} ${n === 1 ? 'detección' : 'detecciones'} en 24 h; la última el ${last}.`,
  settings: {
    title: 'Uso simultáneo',
    hint: 'Qué hacer cuando un servidor ve las claves de un peer en más de un dispositivo a la vez (su dirección de origen alterna). Al cliente siempre se le avisa.',
    action: 'Política',
    actions: {
      notify: 'Solo avisar al cliente',
      regenerate: 'Avisar y regenerar las claves',
    },
    after: 'Regenerar tras esta cantidad de detecciones en 24 h',
    afterHint:
      'Cada detección es una ventana de 10 minutos con la dirección alternando. El cliente recibe la configuración nueva por su enlace espejo.',
    save: 'Guardar',
    saved: 'Política de uso simultáneo guardada',
  },
} as const;
