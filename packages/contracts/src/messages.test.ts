import { describe, expect, it } from 'vitest';
import { msg } from './messages.ts';

describe('serversOffline', () => {
  it('says one server in the singular and several as a Spanish list in the plural', () => {
    expect(msg.serversOffline(['Miami 1'], 'movil')).toBe(
      'El servidor Miami 1 está desconectado: el cambio del peer movil se aplicará en cuanto vuelva a estar en línea.',
    );
    expect(msg.serversOffline(['Miami 1', 'Madrid 1'], 'movil')).toBe(
      'Los servidores Miami 1 y Madrid 1 están desconectados: el cambio del peer movil se aplicará en cuanto vuelvan a estar en línea.',
    );
    expect(msg.serversOffline(['A', 'B', 'C'], 'p')).toMatch(/^Los servidores A, B y C están desconectados/);
  });
});
