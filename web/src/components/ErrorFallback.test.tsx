import { act, render, screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { createMemoryRouter, RouterProvider } from 'react-router';
import { describe, expect, it, vi } from 'vitest';
import { routes } from '../routes';
import { AppErrorBoundary, RouteErrorFallback, showFatalError } from './ErrorFallback';

function Boom(): never {
  throw new Error('fallo de prueba');
}

describe('error fallback', () => {
  it('replaces a crashed page with the unexpected-error screen (retry and back home)', async () => {
    vi.spyOn(console, 'error').mockImplementation(() => undefined);
    const reload = vi.fn();
    vi.stubGlobal('location', { ...window.location, reload });
    const router = createMemoryRouter([
      { errorElement: <RouteErrorFallback />, children: [{ path: '/', element: <Boom /> }] },
    ]);
    render(<RouterProvider router={router} />);

    expect(
      await screen.findByRole('heading', { name: 'Ha ocurrido un error inesperado' }),
    ).toBeInTheDocument();
    expect(screen.queryByText('Unexpected Application Error!')).not.toBeInTheDocument();
    expect(screen.getByRole('link', { name: 'Volver al inicio' })).toHaveAttribute('href', '/');
    await userEvent.click(screen.getByRole('button', { name: 'Reintentar' }));
    expect(reload).toHaveBeenCalled();
  });

  it('puts every route of the app under that error element', () => {
    expect(routes).toHaveLength(1);
    expect(routes[0]?.errorElement).toBeTruthy();
  });

  it('catches errors outside the router too, so the page is never blank', () => {
    vi.spyOn(console, 'error').mockImplementation(() => undefined);
    render(
      <AppErrorBoundary>
        <Boom />
      </AppErrorBoundary>,
    );
    expect(screen.getByRole('heading', { name: 'Ha ocurrido un error inesperado' })).toBeInTheDocument();
  });

  it('shows the screen when the app cannot even start (no React tree left to catch it)', async () => {
    vi.spyOn(console, 'error').mockImplementation(() => undefined);
    const root = document.createElement('div');
    root.id = 'root';
    root.textContent = 'restos de una página rota';
    document.body.appendChild(root);
    try {
      await act(async () => showFatalError(new Error('no arrancó')));
      expect(root).not.toHaveTextContent('restos de una página rota');
      expect(screen.getByRole('heading', { name: 'Ha ocurrido un error inesperado' })).toBeInTheDocument();
      expect(screen.getByRole('button', { name: 'Reintentar' })).toBeInTheDocument();
      expect(screen.getByRole('link', { name: 'Volver al inicio' })).toHaveAttribute('href', '/');
    } finally {
      root.remove();
    }
  });
});
