import { screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';
import { defaultSettings, deferred, fakeApi, samplePlans } from '../../test/api';
import type { Reply } from '../../test/api';
import { renderApp } from '../../test/render';

describe('/plans', () => {
  it('shows a loading state, then one card per plan with validity, bullets and USD price', async () => {
    const pending = deferred<Reply>();
    fakeApi({ 'GET /api/client/plans': () => pending.promise });
    renderApp('/plans');
    expect(await screen.findByText('Cargando planes...')).toBeInTheDocument();

    pending.resolve({ body: samplePlans });
    const basic = await screen.findByRole('article', { name: 'Básico' });
    expect(within(basic).getByText('1 mes')).toBeInTheDocument();
    expect(within(basic).getByText('5,00 US$')).toBeInTheDocument();
    expect(
      within(basic)
        .getAllByRole('listitem')
        .map((li) => li.textContent),
    ).toEqual(['Un dispositivo', 'Servidores en Europa', 'Soporte por chat']);
    const yearly = screen.getByRole('article', { name: 'Anual' });
    expect(within(yearly).getByText('1 año')).toBeInTheDocument();
    expect(within(yearly).getByText('40,00 US$')).toBeInTheDocument();
    expect(
      within(screen.getByRole('article', { name: 'Trimestral' })).getByText('3 meses'),
    ).toBeInTheDocument();
  });

  it('says each plan’s speed: "Hasta 2 Mbit/s", or "Velocidad sin límite" (issue 35)', async () => {
    fakeApi({
      'GET /api/client/plans': {
        body: [{ ...samplePlans[0]!, speed_down_mbit: 2, speed_up_mbit: 2 }, samplePlans[1]!],
      },
    });
    renderApp('/plans');
    const basic = await screen.findByRole('article', { name: 'Básico' });
    expect(within(basic).getByText('Hasta 2 Mbit/s')).toBeInTheDocument();
    expect(
      within(screen.getByRole('article', { name: 'Trimestral' })).getByText('Velocidad sin límite'),
    ).toBeInTheDocument();
  });

  it('lays several plans out in up to three columns, and a single plan in one', async () => {
    const api = fakeApi({ 'GET /api/client/plans': { body: samplePlans } });
    const many = renderApp('/plans');
    const grid = await screen.findByRole('list', { name: 'Planes disponibles' });
    expect(grid).toHaveClass('md:grid-cols-2', 'lg:grid-cols-3');
    many.unmount();

    api.on('GET /api/client/plans', { body: [samplePlans[0]] });
    renderApp('/plans');
    const single = await screen.findByRole('list', { name: 'Planes disponibles' });
    expect(single).toHaveClass('grid-cols-1');
    expect(single).not.toHaveClass('lg:grid-cols-3');
    expect(single).not.toHaveClass('md:grid-cols-2');
  });

  it('sends every Adquirir button to /register', async () => {
    fakeApi({ 'GET /api/client/plans': { body: samplePlans } });
    const app = renderApp('/plans');
    const buttons = await screen.findAllByRole('link', { name: /^Adquirir/ });
    expect(buttons).toHaveLength(3);
    buttons.forEach((b) => expect(b).toHaveAttribute('href', '/register'));
    await userEvent.click(buttons[1]!);
    expect(await screen.findByRole('heading', { name: 'Crear cuenta' })).toBeInTheDocument();
    expect(app.path()).toBe('/register');
  });

  it('shows the error message with a retry that reloads the plans', async () => {
    const api = fakeApi({ 'GET /api/client/plans': { status: 500, body: {} } });
    renderApp('/plans');
    const alert = await screen.findByRole('alert');
    expect(alert).toHaveTextContent(
      'Hubo un problema al cargar los planes. Por favor, intente de nuevo más tarde.',
    );
    api.on('GET /api/client/plans', { body: samplePlans });
    await userEvent.click(within(alert).getByRole('button', { name: 'Reintentar' }));
    expect(await screen.findByRole('article', { name: 'Básico' })).toBeInTheDocument();
  });

  it("shows 'Planes Temporalmente No Disponibles' with an update button when there are none", async () => {
    const api = fakeApi({ 'GET /api/client/plans': { body: [] } });
    renderApp('/plans');
    expect(
      await screen.findByRole('heading', { name: 'Planes Temporalmente No Disponibles' }),
    ).toBeInTheDocument();
    api.on('GET /api/client/plans', { body: samplePlans });
    await userEvent.click(screen.getByRole('button', { name: 'Actualizar' }));
    expect(await screen.findByRole('article', { name: 'Anual' })).toBeInTheDocument();
    expect(api.callsTo('GET /api/client/plans')).toHaveLength(2);
  });

  it('shows the payment-gateway banner only when QvaPay payments are on', async () => {
    const api = fakeApi({ 'GET /api/client/plans': { body: samplePlans } });
    const off = renderApp('/plans');
    await screen.findByRole('article', { name: 'Básico' });
    expect(screen.queryByRole('complementary', { name: 'Paga con QvaPay' })).not.toBeInTheDocument();
    off.unmount();

    api.on('GET /api/client', { body: { ...defaultSettings, allow_payments_qvapay: true } });
    renderApp('/plans');
    expect(await screen.findByRole('complementary', { name: 'Paga con QvaPay' })).toHaveTextContent(
      'Aceptamos pagos con QvaPay:',
    );
  });

  it('names Remesita in the banner too when the operator enabled it (issue 32)', async () => {
    fakeApi({
      'GET /api/client': {
        body: { ...defaultSettings, allow_payments_qvapay: true, allow_payments_remesita: true },
      },
      'GET /api/client/plans': { body: samplePlans },
    });
    renderApp('/plans');
    expect(await screen.findByRole('complementary', { name: 'Paga con QvaPay' })).toHaveTextContent(
      'Aceptamos pagos con QvaPay y Remesita:',
    );
  });

  it('offers the register button only when registration is allowed', async () => {
    const api = fakeApi({ 'GET /api/client/plans': { body: samplePlans } });
    const on = renderApp('/plans');
    await screen.findByRole('article', { name: 'Básico' });
    expect(within(screen.getByRole('main')).getByRole('link', { name: 'Registrarse' })).toBeInTheDocument();
    on.unmount();

    api.on('GET /api/client', { body: { ...defaultSettings, allow_registration: false } });
    renderApp('/plans');
    await screen.findByRole('article', { name: 'Básico' });
    expect(screen.queryByRole('link', { name: 'Registrarse' })).not.toBeInTheDocument();
  });
});
