import { Component } from 'react';
import type { ErrorInfo, ReactNode } from 'react';
import { RefreshCw, House, OctagonAlert } from 'lucide-react';
import { useRouteError } from 'react-router';
import { useEffect } from 'react';
import { createRoot } from 'react-dom/client';
import { es } from '../i18n/es';
import { ui } from './ui';

/**
 * The screen for an unexpected error: what happened, 'Reintentar' (reload) and 'Volver al inicio'.
 * Both use full page loads on purpose: after an uncaught error the in-memory state is suspect.
 */
export function ErrorFallback({ error }: { error?: unknown }) {
  const details = error instanceof Error ? error.message : null;
  return (
    <div className="grid min-h-screen place-items-center bg-navy-950 px-4 py-10 text-slate-100">
      <main className="w-full max-w-lg rounded-2xl border border-slate-800 bg-navy-900/70 p-8 text-center">
        <OctagonAlert className="mx-auto size-12 text-red-400" aria-hidden="true" />
        <h1 className="mt-4 text-2xl font-bold text-white">{es.errorFallback.title}</h1>
        <p className="mt-2 text-slate-300">{es.errorFallback.text}</p>
        <div className="mt-6 flex flex-wrap justify-center gap-3">
          <button type="button" className={ui.buttonPrimary} onClick={() => window.location.reload()}>
            <RefreshCw className="size-4" aria-hidden="true" />
            {es.errorFallback.retry}
          </button>
          <a href="/" className={ui.buttonSecondary}>
            <House className="size-4" aria-hidden="true" />
            {es.errorFallback.home}
          </a>
        </div>
        {details && import.meta.env.DEV && (
          <details className="mt-6 text-left text-xs text-slate-400">
            <summary className="cursor-pointer">{es.errorFallback.details}</summary>
            <pre className="mt-2 overflow-auto whitespace-pre-wrap">{details}</pre>
          </details>
        )}
      </main>
    </div>
  );
}

/** The router's `errorElement`: replaces React Router's bare "Unexpected Application Error!". */
export function RouteErrorFallback() {
  const error = useRouteError();
  useEffect(() => {
    console.error(error);
  }, [error]);
  return <ErrorFallback error={error} />;
}

interface BoundaryState {
  error: unknown;
  hasError: boolean;
}

/** Top-level boundary: an error outside the router (or in the router itself) never leaves a blank page. */
export class AppErrorBoundary extends Component<{ children: ReactNode }, BoundaryState> {
  override state: BoundaryState = { error: null, hasError: false };

  static getDerivedStateFromError(error: unknown): BoundaryState {
    return { error, hasError: true };
  }

  override componentDidCatch(error: unknown, info: ErrorInfo): void {
    console.error(error, info.componentStack);
  }

  override render() {
    if (this.state.hasError) return <ErrorFallback error={this.state.error} />;
    return this.props.children;
  }
}

/**
 * Last resort, outside React's boundaries: the app could not start (or React gave up on the tree
 * after an error no boundary caught, which unmounts it). Renders the fallback screen in a fresh
 * root so the page is never left blank.
 */
export function showFatalError(error: unknown, doc: Document = document): void {
  console.error(error);
  const host = doc.getElementById('root') ?? doc.body;
  const container = doc.createElement('div');
  host.replaceChildren(container);
  createRoot(container).render(<ErrorFallback error={error} />);
}
