import { screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { beforeEach, describe, expect, it } from 'vitest';
import { fakeApi, sampleUser } from '../../test/api';
import { renderApp } from '../../test/render';

beforeEach(() => {
  localStorage.setItem('access', 'a1');
  localStorage.setItem('refresh', 'r1');
});

async function openHelp(allow_partys = true) {
  fakeApi({
    'GET /api/client/verify-token': {
      body: { ...sampleUser, web_settings: { ...sampleUser.web_settings, allow_partys } },
    },
  });
  const app = renderApp('/dashboard/help');
  await screen.findByRole('heading', { name: 'Centro de ayuda' });
  return app;
}

describe('help centre', () => {
  it('guides the setup on every platform, one tab each', async () => {
    await openHelp();
    const tabs = within(screen.getByRole('tablist', { name: 'Elige tu sistema' })).getAllByRole('tab');
    expect(tabs.map((t) => t.textContent)).toEqual([
      'Android',
      'iOS',
      'Windows',
      'macOS',
      'Linux',
      'MikroTik',
    ]);
    expect(tabs[0]).toHaveAttribute('aria-selected', 'true');

    // Android by default: the QR code and the .conf, by the Peers page's own labels.
    let panel = screen.getByRole('tabpanel', { name: 'Android' });
    expect(within(panel).getByText(/toca «Ver QR» en la tarjeta del peer/)).toBeInTheDocument();
    expect(within(panel).getByText(/pulsa «Descargar»/)).toBeInTheDocument();
    // Apps a Cuban phone can install: F-Droid always (the APK and the operator's link when set).
    expect(within(panel).getByRole('link', { name: /WireGuard en F-Droid/ })).toHaveAttribute(
      'href',
      'https://f-droid.org/packages/com.wireguard.android/',
    );

    await userEvent.click(screen.getByRole('tab', { name: 'MikroTik' }));
    panel = screen.getByRole('tabpanel', { name: 'MikroTik' });
    expect(within(panel).getByText(/RouterOS 7.1 o superior/)).toBeInTheDocument();
    expect(within(panel).getByText(/elige «Script MikroTik»/)).toBeInTheDocument();
    expect(screen.queryByRole('tabpanel', { name: 'Android' })).not.toBeInTheDocument();

    await userEvent.click(screen.getByRole('tab', { name: 'Linux' }));
    panel = screen.getByRole('tabpanel', { name: 'Linux' });
    expect(within(panel).getByText(/copia el mirror link con «Copiar»/)).toBeInTheDocument();
    expect(within(panel).getByText(/wg-quick up wg0/)).toBeInTheDocument();

    for (const name of ['iOS', 'Windows', 'macOS']) {
      await userEvent.click(screen.getByRole('tab', { name }));
      expect(within(screen.getByRole('tabpanel', { name })).getAllByRole('listitem').length).toBeGreaterThan(
        2,
      );
    }
    // The mirror link is explained once for all platforms.
    expect(screen.getByRole('heading', { name: 'El mirror link' })).toBeInTheDocument();
  });

  it('moves between platforms with the arrow keys', async () => {
    await openHelp();
    const android = screen.getByRole('tab', { name: 'Android' });
    android.focus();
    await userEvent.keyboard('{ArrowRight}');
    expect(screen.getByRole('tab', { name: 'iOS' })).toHaveFocus();
    expect(screen.getByRole('tabpanel', { name: 'iOS' })).toBeInTheDocument();
    await userEvent.keyboard('{ArrowLeft}{ArrowLeft}');
    expect(screen.getByRole('tab', { name: 'MikroTik' })).toHaveAttribute('aria-selected', 'true');
    await userEvent.keyboard('{Home}');
    expect(android).toHaveFocus();
  });

  it('explains rooms only when rooms are allowed', async () => {
    const app = await openHelp(true);
    const rooms = screen.getByRole('region', { name: 'Uso de las salas' });
    expect(within(rooms).getByText(/Configura tu alias en Configuración de cuenta/)).toBeInTheDocument();
    app.unmount();

    await openHelp(false);
    expect(screen.queryByRole('region', { name: 'Uso de las salas' })).not.toBeInTheDocument();
    expect(screen.getByRole('region', { name: 'Preguntas frecuentes' })).toBeInTheDocument();
  });

  it("answers the spec's FAQ", async () => {
    await openHelp();
    const faq = screen.getByRole('region', { name: 'Preguntas frecuentes' });
    expect(within(faq).getByText(/único dispositivo conectado simultáneamente/)).toBeInTheDocument();
    expect(within(faq).getByText('¿Cómo cambio de servidor?')).toBeInTheDocument();
    expect(within(faq).getByText(/elige «Cambiar Servidor»/)).toBeInTheDocument();
    expect(
      within(faq).getByText(/requiere que tu peer esté en un servidor que permita salas/),
    ).toBeInTheDocument();
    expect(within(faq).getByText(/MikroTik son compatibles a partir de RouterOS 7.1/)).toBeInTheDocument();
  });
});
