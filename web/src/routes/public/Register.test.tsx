import { act, screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it, vi } from 'vitest';
import { defaultSettings, fakeApi } from '../../test/api';
import { renderApp } from '../../test/render';

// The real widget needs Web Workers and a canvas; its contract with us is the element, its
// 'statechange' event and its reset() method, which the tests drive directly.
vi.mock('altcha', () => ({}));

type Widget = HTMLElement & { reset: () => void; verify: () => Promise<void> };

async function widget(): Promise<Widget> {
  const el = (await screen.findByTestId('captcha')) as Widget;
  el.reset = vi.fn();
  el.verify = vi.fn(() => Promise.resolve());
  return el;
}

function solve(el: HTMLElement, payload = 'captcha-solution') {
  act(() => {
    el.dispatchEvent(new CustomEvent('statechange', { detail: { state: 'verified', payload } }));
  });
}

interface Form {
  username?: string;
  password?: string;
  confirm?: string;
  email?: string;
}

async function fill({ username = 'juan', password = 'secreto123', confirm, email = '' }: Form = {}) {
  const confirmation = confirm ?? password;
  if (username) await userEvent.type(screen.getByLabelText('Usuario'), username);
  if (password) await userEvent.type(screen.getByLabelText('Contraseña'), password);
  if (confirmation) await userEvent.type(screen.getByLabelText('Confirmar contraseña'), confirmation);
  if (email) await userEvent.type(screen.getByLabelText('Email (opcional)'), email);
}

const submit = () => userEvent.click(screen.getByRole('button', { name: 'Registrarse' }));

describe('/register', () => {
  it('configures the ALTCHA widget with the runtime challenge URL and Spanish texts', async () => {
    fakeApi();
    renderApp('/register');
    const el = await widget();
    expect(el).toHaveAttribute('challengeurl', '/api/client/captcha');
    // Solves itself (ALTCHA's automatic mode): nothing to tick.
    expect(el).toHaveAttribute('auto', 'onload');
    expect(JSON.parse(el.getAttribute('strings') ?? '{}')).toMatchObject({
      label: 'No soy un robot',
      verifying: 'Verificando...',
      verified: 'Verificado',
      footer: '',
    });
  });

  it('validates in the spec order: captcha, then username and password, then the confirmation', async () => {
    const api = fakeApi();
    renderApp('/register');
    const el = await widget();

    await fill({ username: '', password: '', confirm: '' });
    await submit();
    expect(screen.getByRole('alert')).toHaveTextContent('Por favor, complete el captcha');

    solve(el);
    await submit();
    expect(screen.getByRole('alert')).toHaveTextContent('El usuario y contraseña son obligatorios');

    solve(el);
    await fill({ password: 'secreto123', confirm: 'otra-cosa' });
    await submit();
    expect(screen.getByRole('alert')).toHaveTextContent('Las contraseñas no coinciden');
    expect(api.callsTo('PUT /api/client/register')).toHaveLength(0);
    // Nothing reached the server: the solved captcha is kept for the corrected form.
    expect(el.reset).not.toHaveBeenCalled();
  });

  it('shows the rules the server enforces as the customer types', async () => {
    fakeApi();
    renderApp('/register');
    await widget();
    const rule = (text: string | RegExp) => screen.getByText(text).closest('li')!;
    expect(rule('Contraseña de al menos 8 caracteres')).toHaveTextContent('(pendiente)');
    await userEvent.type(screen.getByLabelText('Contraseña'), 'corta');
    expect(rule('Contraseña de al menos 8 caracteres')).toHaveTextContent('(pendiente)');
    await userEvent.type(screen.getByLabelText('Contraseña'), '-ya-no');
    expect(rule('Contraseña de al menos 8 caracteres')).toHaveTextContent('(cumplido)');
    await userEvent.type(screen.getByLabelText('Confirmar contraseña'), 'corta-ya-no');
    expect(rule('Las dos contraseñas coinciden')).toHaveTextContent('(cumplido)');
    await userEvent.type(screen.getByLabelText('Usuario'), 'a!');
    expect(rule(/^Usuario de 3 a 32 caracteres/)).toHaveTextContent('(pendiente)');
  });

  it('resets the captcha after every attempt, so a spent solution is never sent twice', async () => {
    fakeApi({
      'PUT /api/client/register': { status: 409, body: { message: 'El nombre de usuario ya está en uso' } },
    });
    renderApp('/register');
    const el = await widget();
    await fill();
    solve(el);
    await submit();
    expect(await screen.findByRole('alert')).toHaveTextContent('El nombre de usuario ya está en uso');
    expect(el.reset).toHaveBeenCalledTimes(1);
    // …and starts solving the new one by itself.
    expect(el.verify).toHaveBeenCalledTimes(1);

    await submit();
    expect(screen.getByRole('alert')).toHaveTextContent('Por favor, complete el captcha');
    expect(el.reset).toHaveBeenCalledTimes(1);
  });

  it("goes on into the dashboard from 'Registro Completado' with the session the server answered", async () => {
    fakeApi({
      'PUT /api/client/register': {
        status: 201,
        body: { message: 'Usuario registrado correctamente', access: 'a-nuevo', refresh: 'r-nuevo' },
      },
    });
    const app = renderApp('/register');
    const el = await widget();
    await fill();
    solve(el);
    await submit();
    expect(await screen.findByRole('heading', { name: 'Registro Completado' })).toBeInTheDocument();
    expect(screen.getByRole('link', { name: 'Ir a iniciar sesión' })).toHaveAttribute('href', '/login');
    await userEvent.click(screen.getByRole('button', { name: 'Entrar a mi panel' }));
    expect(app.path()).toBe('/dashboard/home');
    expect(sessionStorage.getItem('access')).toBe('a-nuevo');
  });

  it("sends the form and shows 'Registro Completado' with the verification-email note", async () => {
    const api = fakeApi({
      'PUT /api/client/register': { status: 201, body: { message: 'Usuario registrado correctamente' } },
    });
    const app = renderApp('/register');
    const el = await widget();
    await fill({ email: 'juan@example.com' });
    solve(el, 'sol-1');
    await submit();

    expect(await screen.findByRole('heading', { name: 'Registro Completado' })).toBeInTheDocument();
    expect(screen.getByText(/email de verificación a juan@example.com/)).toBeInTheDocument();
    expect(api.callsTo('PUT /api/client/register')[0]?.body).toEqual({
      username: 'juan',
      password: 'secreto123',
      captcha_token: 'sol-1',
      email: 'juan@example.com',
    });
    await userEvent.click(screen.getByRole('link', { name: 'Ir a iniciar sesión' }));
    expect(app.path()).toBe('/login');
  });

  it('leaves the email out when it is empty, and says nothing about a verification email', async () => {
    const api = fakeApi({ 'PUT /api/client/register': { status: 201, body: { message: 'ok' } } });
    renderApp('/register');
    const el = await widget();
    await fill();
    solve(el);
    await submit();
    expect(await screen.findByRole('heading', { name: 'Registro Completado' })).toBeInTheDocument();
    expect(screen.queryByText(/email de verificación/)).not.toBeInTheDocument();
    expect(api.callsTo('PUT /api/client/register')[0]?.body).not.toHaveProperty('email');
  });

  it('hides the email field when email is not allowed', async () => {
    fakeApi({ 'GET /api/client': { body: { ...defaultSettings, allow_email: false } } });
    renderApp('/register');
    await widget();
    expect(screen.queryByLabelText('Email (opcional)')).not.toBeInTheDocument();
  });

  it('types the email field as email', async () => {
    fakeApi();
    renderApp('/register');
    expect(await screen.findByLabelText('Email (opcional)')).toHaveAttribute('type', 'email');
  });

  it('falls back to the spec text when the server sends no message', async () => {
    fakeApi({ 'PUT /api/client/register': { status: 500, body: {} } });
    renderApp('/register');
    const el = await widget();
    await fill();
    solve(el);
    await submit();
    expect(await screen.findByRole('alert')).toHaveTextContent(
      'Hubo un error al intentar registrar el usuario.',
    );
  });

  it('links back to /login', async () => {
    fakeApi();
    renderApp('/register');
    expect(await screen.findByRole('link', { name: 'Volver al inicio de sesión' })).toHaveAttribute(
      'href',
      '/login',
    );
  });
});
